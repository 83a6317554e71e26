/*
 * warm_gpu.h - the simulated GPU the warm-state test and bench walk: the RTX
 * 3070 of Accel-Sim's SM86_RTX3070 configuration (4 MB of L2 in 128-byte
 * lines of 32-byte sectors, 16 ways; 46 SMs of 32 thread blocks and 1,536
 * threads each), with the default cut and the footprint kept.  Header-only,
 * for tests/test_warm.c and bench/bench_warm.c.
 */
#ifndef KS_TEST_WARM_GPU_H
#define KS_TEST_WARM_GPU_H

#include "warm.h"

static inline ks_state_walk_options warm_rtx3070(void)
{
    ks_state_walk_options o = {.cut = 2, .footprint = true};
    o.gpu.l2_bytes = 4u << 20;
    o.gpu.line_bytes = 128;
    o.gpu.sector_bytes = 32;
    o.gpu.ways = 16;
    o.gpu.sms = 46;
    o.gpu.max_cta_per_sm = 32;
    o.gpu.max_threads_per_sm = 1536;
    return o;
}

#endif
