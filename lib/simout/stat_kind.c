/*
 * stat_kind.c - what kind of number each simulator statistic is
 * (../shared/docs/METHODS.md, "What kind of number each statistic is").
 *
 * A simulator log mixes three kinds, and only per-kernel values add up over
 * launches:
 *   - per-kernel counts (GPGPU-Sim's gpu_sim_cycle, gpu_sim_insn; MacSim's
 *     per-kernel cycles): summed;
 *   - running totals over the simulator process (GPGPU-Sim prints its cache,
 *     memory-instruction, interconnect and DRAM counters as totals since the
 *     process started: in the full QV100 run of the accelsim-synth data set
 *     L1D_total_cache_accesses reads 512, 3471, 8079, ... 1,061,708, the sum
 *     of the launches simulated alone): a launch's own value is the
 *     difference from the kernel before it in the same process, warm-up
 *     kernels included (results_sim.c);
 *   - ratios and rates (IPC, miss rates, bandwidths, occupancy): never
 *     summed; where the counts a rate is made of are known, the program's
 *     value is the ratio of their two estimated totals.
 * Extremes, averages, attributes (the stream id), the simulator's own speed
 * and the per-channel DRAM tables (whose names repeat in every block) are
 * known not to add up; anything else is of unknown kind: read, not
 * estimated unless asked for by name.
 *
 * The tables were checked against the recorded logs of ../shared/data/sim:
 * every name marked running is non-decreasing over the 160 kernels of each
 * full run, and its differences match the launches simulated alone (counts
 * the warm state does not change, such as L1D_total_cache_accesses,
 * gpgpu_n_load_insn, icnt_total_pkts_*, exactly); a printed-once-nonzero
 * running total (Total_core_cache_stats_breakdown[GLOBAL_ACC_W]
 * [TOTAL_ACCESS]) is 0 until it appears.  get_stats.py prints the running
 * totals of its stats file already differenced.
 */
#include "simout.h"

#include <string.h>

typedef struct entry {
    const char *name; /* exact, or a prefix when it ends in '*' */
    ks_stat_kind kind;
    const char *num, *den; /* rates: the counts they are the ratio of */
} entry;

#define RUN KS_STAT_RUNNING
#define CNT KS_STAT_COUNT
#define RATE KS_STAT_RATE
#define OTH KS_STAT_OTHER

/* Earlier entries win: exact names and longer prefixes first. */
static const entry table[] = {
    /* per-kernel counts */
    {"gpu_sim_cycle", CNT, NULL, NULL},
    {"gpu_sim_insn", CNT, NULL, NULL},
    {"cycles", CNT, NULL, NULL},     /* MacSim, per kernel (macsim_log.c) */
    {"run_cycles", CNT, NULL, NULL}, /* what a launch's value cost (results_sim.c) */
    {"INST_COUNT_TOT", CNT, NULL, NULL}, /* MacSim, a job of one kernel */
    {"UOP_COUNT_TOT", CNT, NULL, NULL},
    /* rates whose parts are known */
    {"ipc", RATE, "gpu_sim_insn", "gpu_sim_cycle"},
    {"gpu_ipc", RATE, "gpu_sim_insn", "gpu_sim_cycle"},
    {"L1I_total_cache_miss_rate", RATE, "L1I_total_cache_misses", "L1I_total_cache_accesses"},
    {"L1D_total_cache_miss_rate", RATE, "L1D_total_cache_misses", "L1D_total_cache_accesses"},
    {"L1C_total_cache_miss_rate", RATE, "L1C_total_cache_misses", "L1C_total_cache_accesses"},
    {"L1T_total_cache_miss_rate", RATE, "L1T_total_cache_misses", "L1T_total_cache_accesses"},
    {"L2_total_cache_miss_rate", RATE, "L2_total_cache_misses", "L2_total_cache_accesses"},
    {"dram_reads_per_cycle", RATE, "total_dram_reads", "gpu_sim_cycle"},
    {"dram_writes_per_cycle", RATE, "total_dram_writes", "gpu_sim_cycle"},
    /* running totals over the process */
    {"gpu_tot_ipc", OTH, NULL, NULL},
    {"gpu_tot_occupancy", OTH, NULL, NULL},
    {"gpu_tot_*", RUN, NULL, NULL},
    {"gpu_stall_dramfull", RUN, NULL, NULL},
    {"gpu_stall_icnt2sh", RUN, NULL, NULL},
    {"L1I_total_cache_*", RUN, NULL, NULL},
    {"L1D_total_cache_*", RUN, NULL, NULL},
    {"L1C_total_cache_*", RUN, NULL, NULL},
    {"L1T_total_cache_*", RUN, NULL, NULL},
    {"L2_total_cache_*", RUN, NULL, NULL},
    {"Total_core_cache_stats_breakdown[*", RUN, NULL, NULL},
    {"Total_core_cache_fail_stats_breakdown[*", RUN, NULL, NULL},
    {"L2_cache_stats_breakdown[*", RUN, NULL, NULL},
    {"L2_cache_stats_fail_breakdown[*", RUN, NULL, NULL},
    {"gpgpu_n_*", RUN, NULL, NULL},
    {"gpgpu_stall_shd_mem[*", RUN, NULL, NULL},
    {"gpu_reg_bank_conflict_stalls", RUN, NULL, NULL},
    {"icnt_total_pkts_mem_to_simt", RUN, NULL, NULL},
    {"icnt_total_pkts_simt_to_mem", RUN, NULL, NULL},
    {"Req_Network_injected_packets_num", RUN, NULL, NULL},
    {"Req_Network_cycles", RUN, NULL, NULL},
    {"Reply_Network_injected_packets_num", RUN, NULL, NULL},
    {"Reply_Network_cycles", RUN, NULL, NULL},
    {"total_dram_reads", RUN, NULL, NULL},
    {"total_dram_writes", RUN, NULL, NULL},
    /* rates and utilisations without parts to form them from */
    {"gpu_occupancy", RATE, NULL, NULL},
    {"partiton_level_parallism*", RATE, NULL, NULL},
    {"L2_BW*", RATE, NULL, NULL},
    {"L1D_cache_*_port_util", RATE, NULL, NULL},
    {"L2_cache_*_port_util", RATE, NULL, NULL},
    {"Req_Network_*", RATE, NULL, NULL},
    {"Reply_Network_*", RATE, NULL, NULL},
    {"Req_Bank_Level_Parallism", RATE, NULL, NULL},
    {"Reply_Bank_Level_Parallism", RATE, NULL, NULL},
    /* known not to add up: extremes, averages, attributes, the simulator's
     * own speed, and the per-channel DRAM tables (one name per channel,
     * repeated in every block: the first channel's value alone) */
    {"kernel_stream_id", OTH, NULL, NULL},
    {"kernel_launch_uid", OTH, NULL, NULL},
    {"max_total_param_size", OTH, NULL, NULL},
    {"gpu_total_sim_rate", OTH, NULL, NULL},
    {"gpgpu_silicon_slowdown", OTH, NULL, NULL},
    {"gpgpu_simulation_*", OTH, NULL, NULL},
    {"max*", OTH, NULL, NULL},
    {"min_*", OTH, NULL, NULL},
    {"average*", OTH, NULL, NULL},
    {"avg_*", OTH, NULL, NULL},
    {"Row_Buffer_Locality*", OTH, NULL, NULL},
    {"Bank_Level_Parallism*", OTH, NULL, NULL},
    {"write_to_read_ratio_blp_rw_average", OTH, NULL, NULL},
    {"GrpLevelPara", OTH, NULL, NULL},
    {"bwutil", OTH, NULL, NULL},
    {"total_CMD", OTH, NULL, NULL},
    {"util_bw", OTH, NULL, NULL},
    {"Wasted_Col", OTH, NULL, NULL},
    {"Wasted_Row", OTH, NULL, NULL},
    {"Idle", OTH, NULL, NULL},
    {"RCDc_limit", OTH, NULL, NULL},
    {"RCDWRc_limit", OTH, NULL, NULL},
    {"WTRc_limit*", OTH, NULL, NULL},
    {"RTWc_limit*", OTH, NULL, NULL},
    {"CCDLc_limit*", OTH, NULL, NULL},
    {"rwq", OTH, NULL, NULL},
    {"n_nop", OTH, NULL, NULL},
    {"n_act", OTH, NULL, NULL},
    {"n_pre", OTH, NULL, NULL},
    {"n_ref", OTH, NULL, NULL},
    {"n_req", OTH, NULL, NULL},
    {"total_req", OTH, NULL, NULL},
    {"Read", OTH, NULL, NULL},
    {"Write", OTH, NULL, NULL},
    {"L2_Alloc", OTH, NULL, NULL},
    {"L2_WB", OTH, NULL, NULL},
    {"issued_total_row", OTH, NULL, NULL},
    {"issued_total_col", OTH, NULL, NULL},
    {"Row_Bus_Util", OTH, NULL, NULL},
    {"CoL_Bus_Util", OTH, NULL, NULL},
    {"Either_Row_CoL_Bus_Util", OTH, NULL, NULL},
    {"Issued_on_Two_Bus_Simul_Util", OTH, NULL, NULL},
    {"issued_two_Eff", OTH, NULL, NULL},
    {"queue_avg", OTH, NULL, NULL},
    {"dram_eff", OTH, NULL, NULL},
    /* MacSim's whole-process figures that are not counts */
    {"EXE_TIME", OTH, NULL, NULL},
    {"AVG_*", OTH, NULL, NULL},
    {"NUM_*", OTH, NULL, NULL},
    {"CPI_*", OTH, NULL, NULL},
    {"APPL_*", OTH, NULL, NULL},
    {"PROGRESS_ERROR", OTH, NULL, NULL},
    {"FILE_OPEN_ERROR", OTH, NULL, NULL},
};

/* What `estimate` prints by default, in this order: what an architect
 * reads first (cycles, instructions, IPC, the cache and DRAM figures as
 * counts and rates). */
static const char *const shown[] = {
    "gpu_sim_cycle", "cycles", "gpu_sim_insn", "INST_COUNT_TOT", "ipc",
    "L1D_total_cache_accesses", "L1D_total_cache_misses", "L1D_total_cache_miss_rate",
    "L2_total_cache_accesses", "L2_total_cache_misses", "L2_total_cache_miss_rate",
    "total_dram_reads", "total_dram_writes", "dram_reads_per_cycle", "dram_writes_per_cycle",
    NULL};

/* '*' matches any run of characters (at most one in a pattern). */
static bool matches(const char *pattern, const char *name)
{
    const char *star = strchr(pattern, '*');
    if (!star)
        return strcmp(pattern, name) == 0;
    size_t pre = (size_t)(star - pattern), post = strlen(star + 1), n = strlen(name);
    return n >= pre + post && strncmp(pattern, name, pre) == 0 &&
           strcmp(name + n - post, star + 1) == 0;
}

ks_stat_info ks_stat_info_of(const char *name)
{
    ks_stat_info info = {KS_STAT_UNKNOWN, NULL, NULL, 0};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (matches(table[i].name, name)) {
            info.kind = table[i].kind;
            info.numerator = table[i].num;
            info.denominator = table[i].den;
            break;
        }
    for (size_t i = 0; shown[i]; i++)
        if (strcmp(shown[i], name) == 0)
            info.shown = (unsigned)i + 1;
    return info;
}

const char *const *ks_stat_shown(void) { return shown; }

const char *ks_stat_kind_name(ks_stat_kind k)
{
    switch (k) {
    case KS_STAT_COUNT: return "count";
    case KS_STAT_RUNNING: return "running total";
    case KS_STAT_RATE: return "rate";
    case KS_STAT_OTHER: return "not additive";
    case KS_STAT_UNKNOWN: break;
    }
    return "unknown";
}
