/*
 * fuzz_sim_config.c - the readers of the simulated GPU's geometry for the
 * warm state (lib/warm/sim_config.c: GPGPU-Sim's gpgpusim.config, MacSim's
 * params.in) and of the memcpy probe's verdict (lib/warm/probe.c): any
 * bytes give a geometry whose L2 holds at least one line and whose sizes
 * are powers of two, or an error naming the file; never a crash.  The
 * first byte picks the reader; the fourth is the address functions a
 * state:memcpy32 remap keeps (lib/warm/addr_remap.c): when they solve, a
 * remapped address is below 2^32 with every function's value kept.
 */
#include "fuzz_input.h"
#include "warm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int which = data[0] % 4;
    fuzz_file file;
    if (fuzz_file_open(&file, data + 1, size - 1) != 0)
        return 0;
    ks_error err;
    ks_error_clear(&err);
    ks_status st;
    if (which == 3) {
        ks_addr_map m;
        ks_remap r;
        st = ks_addr_map_read_gpgpusim(file.path, &m, &err);
        if (st == KS_OK && (st = ks_remap_solve(&m, &r, &err)) == KS_OK) {
            uint64_t x = 0x9e3779b97f4a7c15ull;
            for (int t = 0; t < 64; t++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                uint64_t b = ks_remap_apply(&r, x);
                if (b >> 32)
                    abort();
                for (size_t v = 0; v < m.nvalue; v++)
                    if (__builtin_parityll(m.value[v] & x) != __builtin_parityll(m.value[v] & b))
                        abort();
            }
        }
    } else if (which == 2) {
        int takes = 7;
        st = ks_state_probe_read(file.path, &takes, &err);
        if (st == KS_OK && takes != 0 && takes != 1)
            abort();
    } else {
        ks_gpu_geometry g;
        st = which ? ks_gpu_geometry_read_macsim(file.path, &g, &err)
                   : ks_gpu_geometry_read_gpgpusim(file.path, &g, &err);
        if (st == KS_OK) {
            if (g.line_bytes == 0 || (g.line_bytes & (g.line_bytes - 1)) != 0 ||
                g.l2_bytes < g.line_bytes || g.sector_bytes == 0 ||
                g.line_bytes % g.sector_bytes != 0)
                abort();
            /* a state walk could be sized from it */
            ks_l2_state s;
            size_t lines = (size_t)(g.l2_bytes / g.line_bytes);
            if (lines < (1u << 16) &&
                ks_l2_state_init(&s, lines, lines, g.ways ? g.ways : 16, g.line_bytes,
                                 g.sector_bytes, &err) == KS_OK)
                ks_l2_state_free(&s);
        }
    }
    if (st != KS_OK && (!err.message[0] || st == KS_ERR_INTERNAL))
        abort();
    fuzz_file_close(&file);
    return 0;
}
