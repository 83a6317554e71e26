#!/usr/bin/env python3
"""Profile a small decoder-only transformer with the PyTorch profiler (Kineto).

Paired real data for the synthetic `ksample synth --traces --preset transformer`
workload (issue 33): the same shape of program (embedding gather, RMS norm,
QKV / output / MLP GEMMs, attention over a KV cache that grows with every token,
softmax, SiLU, residual adds, LM head), built from a config with random weights
(nothing downloaded), run eagerly so that every operator is its own kernel, as
a researcher's tracer sees it.

Writes, under OUT (default: $OUT, else ./torch-profile):
  prefill-<gpu>.json.gz   prompts of 128, 256, 384 and 512 tokens, batch 1
  decode-<gpu>.json.gz    a 64-token prompt, then DECODE_STEPS tokens one at a time
  env-<gpu>.txt           GPU, driver, torch and CUDA versions, the config

Needs a CUDA GPU and PyTorch; nothing else.  Every random choice is seeded.
"""
import gzip
import json
import math
import os
import shutil
import sys
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

CONFIG = dict(vocab=32000, d_model=1024, layers=6, heads=16, ffn=2816,
              max_len=1024, dtype="bfloat16", seed=2026)
DECODE_STEPS = 128
PREFILL_LENGTHS = (128, 256, 384, 512)


class Model:
    """Weights only; the forward pass is written out so each op is one launch."""

    def __init__(self, cfg, device):
        g = torch.Generator(device="cpu").manual_seed(cfg["seed"])
        dt = getattr(torch, cfg["dtype"])
        d, f, v = cfg["d_model"], cfg["ffn"], cfg["vocab"]

        def w(*shape):
            t = torch.randn(*shape, generator=g) / math.sqrt(shape[-1])
            return t.to(device=device, dtype=dt)

        self.cfg = cfg
        self.embed = w(v, d)
        self.layers = []
        for _ in range(cfg["layers"]):
            self.layers.append(dict(
                norm1=torch.ones(d, device=device, dtype=dt),
                wqkv=w(3 * d, d), wo=w(d, d),
                norm2=torch.ones(d, device=device, dtype=dt),
                wgate=w(f, d), wup=w(f, d), wdown=w(d, f)))
        self.norm = torch.ones(d, device=device, dtype=dt)
        self.head = w(v, d)

    def new_cache(self, batch):
        c = self.cfg
        hd = c["d_model"] // c["heads"]
        dt = getattr(torch, c["dtype"])
        dev = self.embed.device
        return [(torch.zeros(batch, c["heads"], c["max_len"], hd, device=dev, dtype=dt),
                 torch.zeros(batch, c["heads"], c["max_len"], hd, device=dev, dtype=dt))
                for _ in range(c["layers"])]

    @staticmethod
    def rms_norm(x, weight):
        var = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(var + 1e-6)).to(x.dtype) * weight

    def forward(self, tokens, cache, pos):
        c = self.cfg
        b, s = tokens.shape
        h, hd = c["heads"], c["d_model"] // c["heads"]
        x = F.embedding(tokens, self.embed)
        end = pos + s
        for li, L in enumerate(self.layers):
            y = self.rms_norm(x, L["norm1"])
            qkv = F.linear(y, L["wqkv"]).view(b, s, 3, h, hd)
            q, k, v = qkv.unbind(2)
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
            kc, vc = cache[li]
            kc[:, :, pos:end].copy_(k)
            vc[:, :, pos:end].copy_(v)
            keys, vals = kc[:, :, :end], vc[:, :, :end]
            att = torch.matmul(q, keys.transpose(-1, -2)) * (1.0 / math.sqrt(hd))
            if s > 1:
                mask = torch.full((s, end), float("-inf"), device=x.device,
                                  dtype=att.dtype).triu(pos + 1)
                att = att + mask
            att = torch.softmax(att.float(), dim=-1).to(x.dtype)
            o = torch.matmul(att, vals).transpose(1, 2).reshape(b, s, c["d_model"])
            x = x + F.linear(o, L["wo"])
            y = self.rms_norm(x, L["norm2"])
            a = F.silu(F.linear(y, L["wgate"])) * F.linear(y, L["wup"])
            x = x + F.linear(a, L["wdown"])
        x = self.rms_norm(x, self.norm)
        return F.linear(x[:, -1:], self.head)


def run_prefill(model, gen):
    for n in PREFILL_LENGTHS:
        tok = torch.randint(0, model.cfg["vocab"], (1, n), generator=gen).cuda()
        model.forward(tok, model.new_cache(1), 0)


def run_decode(model, gen):
    prompt = 64
    tok = torch.randint(0, model.cfg["vocab"], (1, prompt), generator=gen).cuda()
    cache = model.new_cache(1)
    logits = model.forward(tok, cache, 0)
    for step in range(DECODE_STEPS):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        logits = model.forward(nxt, cache, prompt + step)


def record(name, fn, model, out_dir, gpu):
    gen = torch.Generator(device="cpu").manual_seed(CONFIG["seed"])
    fn(model, gen)                       # warm-up: allocator, cuBLAS heuristics
    torch.cuda.synchronize()
    gen = torch.Generator(device="cpu").manual_seed(CONFIG["seed"])
    with torch.no_grad(), profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(model, gen)
        torch.cuda.synchronize()
    raw = os.path.join(out_dir, f"{name}-{gpu}.json")
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as src, gzip.open(raw + ".gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(raw)
    with gzip.open(raw + ".gz", "rt") as f:
        ev = json.load(f)["traceEvents"]
    kernels = [e for e in ev if e.get("cat") == "kernel"]
    return len(kernels), len({e["name"] for e in kernels})


def main():
    out_dir = os.environ.get("OUT") or (sys.argv[1] if len(sys.argv) > 1 else "torch-profile")
    os.makedirs(out_dir, exist_ok=True)
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 1
    torch.manual_seed(CONFIG["seed"])
    props = torch.cuda.get_device_properties(0)
    gpu = "h200" if "H200" in props.name else ("h100" if "H100" in props.name else "gpu")
    model = Model(CONFIG, "cuda")
    lines = [f"gpu: {props.name}", f"multiprocessors: {props.multi_processor_count}",
             f"l2_bytes: {getattr(props, 'L2_cache_size', 'unknown')}",
             f"torch: {torch.__version__}", f"cuda: {torch.version.cuda}",
             f"config: {json.dumps(CONFIG, sort_keys=True)}",
             f"decode_steps: {DECODE_STEPS}", f"prefill_lengths: {list(PREFILL_LENGTHS)}"]
    with torch.no_grad():
        for name, fn in (("prefill", run_prefill), ("decode", run_decode)):
            t0 = time.time()
            n, names = record(name, fn, model, out_dir, gpu)
            lines.append(f"{name}: {n} kernel events, {names} distinct names, "
                         f"{time.time() - t0:.1f} s")
    with open(os.path.join(out_dir, f"env-{gpu}.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
