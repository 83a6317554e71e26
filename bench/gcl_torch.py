#!/usr/bin/python3
"""gcl_torch.py - the GCL-Sampler model of lib/methods/gcl in PyTorch (CPU),
trained on the graphs bench_gcl --export wrote, to compare seconds per epoch
and peak memory with ksample's C implementation on identical inputs.

Same architecture and sizes: token embeddings (two per node) plus a linear
map of the 8 scalar features; 3 RGCN layers with basis decomposition and a
self-loop weight, mean aggregation per relation (inverse relations when the
file says so), LayerNorm, ReLU and dropout after all but the last; readout
mean per warp then over warps; projection head; two views per graph (node
drop, edge drop, Gaussian feature noise); symmetric InfoNCE over cosine
similarity; Adam.  The random draws differ from ksample's (another
generator), so losses match in level, not digit for digit.

usage: gcl_torch.py GRAPHS.bin [--threads N] [--epochs E]
"""
import argparse
import resource
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def read_graphs(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"KSGCLGR1":
        sys.exit("gcl_torch.py: %s is not a bench_gcl export" % path)
    at = 8
    n, tokens, feats, inverse = struct.unpack_from("<4I", data, at)
    at += 16
    dims = struct.unpack_from("<9I", data, at)
    at += 36
    reals = struct.unpack_from("<6d", data, at)
    at += 48
    graphs = []
    for _ in range(n):
        nn_, ne, nw = struct.unpack_from("<3I", data, at)
        at += 12

        def take(dtype, count):
            nonlocal at
            a = np.frombuffer(data, dtype=dtype, count=count, offset=at)
            at += a.nbytes
            return a

        tok = torch.from_numpy(take("<u4", 2 * nn_).astype(np.int64)).view(nn_, 2)
        feat = torch.from_numpy(take("<f4", feats * nn_).copy()).view(nn_, feats)
        warp = torch.from_numpy(take("<u4", nn_).astype(np.int64))
        src = torch.from_numpy(take("<u4", ne).astype(np.int64))
        dst = torch.from_numpy(take("<u4", ne).astype(np.int64))
        rel = torch.from_numpy(take("<u4", ne).astype(np.int64))
        graphs.append(dict(n=nn_, warps=nw, tok=tok, feat=feat, warp=warp, src=src, dst=dst, rel=rel))
    opt = dict(tokens=tokens, feats=feats, inverse=inverse, input=dims[0], hidden=dims[1:4],
               proj=dims[4:6], bases=dims[6], batch=dims[7], epochs=dims[8], dropout=reals[0],
               node_drop=reals[1], edge_drop=reals[2], noise=reals[3], temperature=reals[4],
               lr=reals[5])
    return graphs, opt


class RGCNLayer(nn.Module):
    def __init__(self, din, dout, rels, bases):
        super().__init__()
        self.rels, self.bases = rels, bases
        self.weight = nn.Linear((bases + 1) * din, dout)  # [W_0; V_1..V_B] and the bias
        self.coef = nn.Parameter(torch.empty(rels, bases))
        nn.init.xavier_uniform_(self.coef)

    def forward(self, h, adj):
        # adj[r] = (receiving rows, sending rows, 1 / in-degree of each receiving
        # row): the mean over in-neighbours by gather + index_add_ (the scatter
        # PyG uses; torch.sparse.mm measured ~10x slower here)
        m = torch.stack([torch.zeros_like(h).index_add_(0, row, h[col]) * inv
                         for row, col, inv in adj])  # R x N x din
        z = torch.einsum("rb,rnd->nbd", self.coef, m).reshape(h.shape[0], -1)
        return self.weight(torch.cat([h, z], dim=1))


class GCL(nn.Module):
    def __init__(self, o):
        super().__init__()
        rels = 8 if o["inverse"] else 4
        d = [o["input"]] + list(o["hidden"])
        self.emb = nn.Embedding(o["tokens"], d[0])
        self.feat = nn.Linear(o["feats"], d[0], bias=False)
        self.layers = nn.ModuleList(RGCNLayer(d[i], d[i + 1], rels, o["bases"]) for i in range(3))
        self.norms = nn.ModuleList(nn.LayerNorm(d[i + 1]) for i in range(2))
        self.dropout = o["dropout"]
        self.head = nn.Sequential(nn.Linear(d[3], o["proj"][0]), nn.ReLU(),
                                  nn.Linear(o["proj"][0], o["proj"][1]))

    def encode(self, batch):
        x = self.emb(batch["tok"]).sum(1) + self.feat(batch["feat"])
        if batch["noise"] is not None:
            x = x + batch["noise"]
        for i, layer in enumerate(self.layers):
            x = layer(x, batch["adj"])
            if i < 2:
                x = F.dropout(F.relu(self.norms[i](x)), self.dropout, self.training)
        # mean per warp, then over warps: one weighted sum per graph
        out = torch.zeros(batch["graphs"], x.shape[1])
        return out.index_add_(0, batch["graph_of"], x * batch["readout"].unsqueeze(1))


def make_batch(views, rels, noise, din):
    toks, feats, graph_of, readout = [], [], [], []
    rows = [[] for _ in range(rels)]
    cols = [[] for _ in range(rels)]
    first = 0
    for gi, (g, node_keep, edge_keep) in enumerate(views):
        idx = torch.nonzero(node_keep).squeeze(1)
        remap = torch.full((g["n"],), -1, dtype=torch.long)
        remap[idx] = torch.arange(idx.numel()) + first
        toks.append(g["tok"][idx])
        feats.append(g["feat"][idx])
        w = g["warp"][idx]
        count = torch.bincount(w, minlength=g["warps"]).float()
        warps = (count > 0).sum()
        readout.append(1.0 / (warps * count[w]))
        graph_of.append(torch.full((idx.numel(),), gi, dtype=torch.long))
        s, d = remap[g["src"]], remap[g["dst"]]
        keep = edge_keep & (s >= 0) & (d >= 0)
        s, d, r = s[keep], d[keep], g["rel"][keep]
        for rr in range(4):
            sel = r == rr
            rows[rr].append(d[sel])
            cols[rr].append(s[sel])
            if rels == 8:
                rows[rr + 4].append(s[sel])
                cols[rr + 4].append(d[sel])
        first += idx.numel()
    n = first
    adj = []
    for r in range(rels):
        row, col = torch.cat(rows[r]), torch.cat(cols[r])
        deg = torch.bincount(row, minlength=n).float().clamp(min=1)
        adj.append((row, col, (1.0 / deg).unsqueeze(1)))
    return dict(tok=torch.cat(toks), feat=torch.cat(feats), graph_of=torch.cat(graph_of),
                readout=torch.cat(readout), adj=adj, graphs=len(views),
                noise=noise * torch.randn(n, din) if noise > 0 else None)


def info_nce(z1, z2, t):
    s = F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).T / t
    target = torch.arange(z1.shape[0])
    return 0.5 * (F.cross_entropy(s, target) + F.cross_entropy(s.T, target))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graphs")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=0)
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    graphs, o = read_graphs(a.graphs)
    epochs = a.epochs or o["epochs"]
    model = GCL(o)
    opt = torch.optim.Adam(model.parameters(), lr=o["lr"])
    rels = 8 if o["inverse"] else 4
    n, bs = len(graphs), o["batch"]
    stamps, cpu, losses = [], [], []
    t0 = time.perf_counter()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(n).tolist()
        total, at = 0.0, 0
        while at < n:
            nb = min(bs, n - at)
            if n - at - nb == 1:
                nb += 1
            ids = order[at:at + nb]
            views = []
            for _ in range(2):
                for i in ids:
                    g = graphs[i]
                    nk = torch.rand(g["n"]) >= o["node_drop"]
                    if not nk.any():
                        nk[0] = True
                    views.append((g, nk, torch.rand(g["src"].numel()) >= o["edge_drop"]))
            batch = make_batch(views, rels, o["noise"], o["input"])
            z = model.head(model.encode(batch))
            loss = info_nce(z[:nb], z[nb:], o["temperature"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * nb
            at += nb
        stamps.append(time.perf_counter() - t0)
        cpu.append(time.process_time())
        losses.append(total / n)
        print("epoch %d loss %.4f %.2f s" % (epoch + 1, losses[-1], stamps[-1]), file=sys.stderr)
    # the first epoch pays for warm-up: report the rest, as bench_gcl does
    per_epoch = (stamps[-1] - stamps[0]) / (len(stamps) - 1) if len(stamps) > 1 else stamps[0]
    cpu_epoch = (cpu[-1] - cpu[0]) / (len(cpu) - 1) if len(cpu) > 1 else cpu[0]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print("torch %s threads %d: %.3f s/epoch (CPU %.3f s), peak RSS %.1f MB, loss %.4f -> %.4f"
          % (torch.__version__, torch.get_num_threads(), per_epoch, cpu_epoch, peak, losses[0],
             losses[-1]))


if __name__ == "__main__":
    main()
