/*
 * sim_config.c - the simulated GPU's cache and SM geometry, read from the
 * simulator's own configuration file, for the warm-state model.
 *
 * GPGPU-Sim's gpgpusim.config: one "-option value" per line, '#' comments.
 *   -gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P,...   per memory sub-partition:
 *        sectored (S) or not (N), sets, line bytes, ways
 *   -gpgpu_n_mem 32, -gpgpu_n_sub_partition_per_mchannel 2
 *   -gpgpu_n_clusters 80, -gpgpu_n_cores_per_cluster 1
 *   -gpgpu_shader_cta 32, -gpgpu_shader_core_pipeline 2048:32
 *   -gpgpu_flush_l1_cache 1, -gpgpu_perf_sim_memcpy 1
 * A later line overrides an earlier one, as in GPGPU-Sim.  L2 bytes =
 * sets x line x ways x n_mem x sub-partitions (SM7_QV100: 6 MB, SM86_RTX3070:
 * 4 MB).
 *
 * MacSim's params.in: "name value" per line, '#' comments; the last level
 * cache is num_llc x llc_num_set x llc_line_size x llc_assoc (the bundled
 * params: 4.5 MB), not sectored; num_sim_cores SMs.
 */
#include "warm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct option_value {
    const char *name;
    char value[256];
    long line;
} option_value;

/* The last value of each option (names with their leading '-' for
 * GPGPU-Sim), lines cut at '#'. */
static ks_status read_options(const char *path, option_value *o, size_t n, ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open_file(path, &in, err);
    if (st != KS_OK)
        return st;
    char *line;
    size_t len;
    bool truncated;
    while ((st = ks_input_getline(in, &line, &len, &truncated, err)) == KS_OK && line) {
        /* the line whole, however long (a cut at 1,023 bytes once read a
         * 256 KB L2 from a long -gpgpu_cache:dl2 line without a word) */
        char *buf = line;
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *save, *name = strtok_r(buf, " \t\r", &save);
        if (!name)
            continue;
        char *value = strtok_r(NULL, " \t\r", &save);
        for (size_t k = 0; k < n; k++)
            if (strcmp(name, o[k].name) == 0) {
                if (!value)
                    st = ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                                      "%s has no value", name);
                else if (strlen(value) >= sizeof o[k].value)
                    st = ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                                      "%s: a value of %zu characters is longer than any this "
                                      "option takes",
                                      name, strlen(value));
                else {
                    snprintf(o[k].value, sizeof o[k].value, "%s", value);
                    o[k].line = ks_input_line_number(in);
                }
            }
        if (st != KS_OK)
            break;
    }
    ks_input_close(in);
    return st;
}

/* A whole number as both simulators and ksample read it alike: decimal
 * digits only, below 2^32.  GPGPU-Sim and MacSim read an integer option
 * with C++ stream extraction, which takes the leading digits and drops the
 * rest ("1.6e1" is 1 there, "4K" is 4), so anything but plain digits is
 * refused here rather than read another way than the simulator reads it. */
static bool plain_whole(const char *text, uint64_t *v)
{
    if (!*text || strspn(text, "0123456789") != strlen(text) || strlen(text) > 10)
        return false;
    *v = strtoull(text, NULL, 10);
    return *v <= UINT32_MAX;
}

static ks_status whole(const char *path, const option_value *o, uint64_t max, uint64_t *v,
                       ks_error *err)
{
    if (!plain_whole(o->value, v)) {
        size_t lead = strspn(o->value, "0123456789");
        if (lead && lead < strlen(o->value))
            return ks_error_set(err, KS_ERR_FORMAT, path, o->line,
                                "%s: '%s' is not a plain whole number: the simulator reads "
                                "only its leading '%.*s' and ignores the rest; write the "
                                "number it should be",
                                o->name, o->value, (int)lead, o->value);
        return ks_error_set(err, KS_ERR_FORMAT, path, o->line,
                            "%s: '%s' is not a whole number below 2^32", o->name, o->value);
    }
    if (*v == 0 || *v > max)
        return ks_error_set(err, KS_ERR_FORMAT, path, o->line,
                            "%s: '%s' is not a whole number in 1..%llu", o->name, o->value,
                            (unsigned long long)max);
    return KS_OK;
}

static ks_status need(const char *path, const option_value *o, ks_error *err)
{
    if (o->line == 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "has no %s: cannot size the L2 for the warm state (give its size "
                            "instead)",
                            o->name);
    return KS_OK;
}

ks_status ks_gpu_geometry_read_gpgpusim(const char *path, ks_gpu_geometry *g, ks_error *err)
{
    memset(g, 0, sizeof *g);
    g->flush_l1 = g->perf_sim_memcpy = -1;
    snprintf(g->source, sizeof g->source, "%s", path);
    enum { DL2, NMEM, NSUB, CLUSTERS, CORES, CTA, PIPE, FLUSH, MEMCPY, DL1, UNIFIED, ADAPTIVE,
           SKIP_L1, CONCURRENT, COUNT };
    option_value o[COUNT] = {
        {"-gpgpu_cache:dl2", "", 0},      {"-gpgpu_n_mem", "", 0},
        {"-gpgpu_n_sub_partition_per_mchannel", "", 0},
        {"-gpgpu_n_clusters", "", 0},     {"-gpgpu_n_cores_per_cluster", "", 0},
        {"-gpgpu_shader_cta", "", 0},     {"-gpgpu_shader_core_pipeline", "", 0},
        {"-gpgpu_flush_l1_cache", "", 0}, {"-gpgpu_perf_sim_memcpy", "", 0},
        {"-gpgpu_cache:dl1", "", 0},      {"-gpgpu_unified_l1d_size", "", 0},
        {"-gpgpu_adaptive_cache_config", "", 0}, {"-gpgpu_gmem_skip_L1D", "", 0},
        {"-gpgpu_concurrent_kernel_sm", "", 0}};
    ks_status st = read_options(path, o, COUNT, err);
    if (st == KS_OK)
        st = need(path, &o[DL2], err);
    if (st == KS_OK)
        st = need(path, &o[NMEM], err);
    if (st != KS_OK)
        return st;
    /* S:32:128:24,... or N:...: kind, sets, line bytes, ways */
    char kind = 0;
    unsigned sets = 0, line = 0, ways = 0;
    if (sscanf(o[DL2].value, "%c:%u:%u:%u", &kind, &sets, &line, &ways) != 4 ||
        (kind != 'S' && kind != 'N') || sets == 0 || line == 0 || ways == 0 ||
        (line & (line - 1)) != 0 || line > 4096 || sets > (1u << 20) || ways > 4096)
        return ks_error_set(err, KS_ERR_FORMAT, path, o[DL2].line,
                            "-gpgpu_cache:dl2 '%s': expected S:<sets>:<line bytes>:<ways>,...",
                            o[DL2].value);
    uint64_t nmem, nsub = 1;
    if ((st = whole(path, &o[NMEM], 4096, &nmem, err)) != KS_OK)
        return st;
    if (o[NSUB].line && (st = whole(path, &o[NSUB], 64, &nsub, err)) != KS_OK)
        return st;
    g->line_bytes = line;
    g->ways = ways;
    /* the second group's last letter is the set index function: P (IPOLY)
     * and other hashes fold, L is linear */
    const char *groups = strchr(o[DL2].value, ',');
    const char *fn = groups ? strchr(groups + 1, ',') : NULL;
    char idx = fn && fn > groups + 1 ? fn[-1] : (groups ? groups[strlen(groups) - 1] : 'P');
    g->l2_set_index = idx == 'L' ? KS_SET_LINEAR : KS_SET_XOR;
    g->sector_bytes = kind == 'S' && line >= 128 ? line / 4 : line;
    g->l2_bytes = (uint64_t)sets * line * ways * nmem * nsub;
    uint64_t clusters = 0, cores = 1, cta = 0;
    if (o[CLUSTERS].line && (st = whole(path, &o[CLUSTERS], 1u << 16, &clusters, err)) != KS_OK)
        return st;
    if (o[CORES].line && (st = whole(path, &o[CORES], 1024, &cores, err)) != KS_OK)
        return st;
    if (o[CTA].line && (st = whole(path, &o[CTA], 1024, &cta, err)) != KS_OK)
        return st;
    g->sms = (uint32_t)(clusters * cores);
    g->max_cta_per_sm = (uint32_t)cta;
    unsigned threads = 0, warp = 0;
    if (o[PIPE].line && sscanf(o[PIPE].value, "%u:%u", &threads, &warp) >= 1)
        g->max_threads_per_sm = threads;
    if (o[FLUSH].line)
        g->flush_l1 = strcmp(o[FLUSH].value, "0") != 0;
    /* L1 data cache per SM: -gpgpu_cache:dl1 S:<sets>:<line>:<ways>; with the
     * adaptive configuration the unified size (KB) less the shared memory a
     * kernel takes, taken here as all of it (kernels without shared memory).
     * Global loads skip it with -gpgpu_gmem_skip_L1D 1. */
    unsigned s1 = 0, l1 = 0, w1 = 0;
    char k1 = 0;
    bool skip = o[SKIP_L1].line && strcmp(o[SKIP_L1].value, "0") != 0;
    if (!skip && o[DL1].line && sscanf(o[DL1].value, "%c:%u:%u:%u", &k1, &s1, &l1, &w1) == 4 &&
        s1 && l1 == line && w1) {
        g->l1_bytes = (uint64_t)s1 * l1 * w1;
        g->l1_ways = w1;
        uint64_t kb;
        if (o[ADAPTIVE].line && strcmp(o[ADAPTIVE].value, "0") != 0 && o[UNIFIED].line &&
            plain_whole(o[UNIFIED].value, &kb) && kb > 0 && kb < (1u << 20)) {
            g->l1_bytes = kb * 1024;
            g->l1_ways = (uint32_t)(g->l1_bytes / ((uint64_t)s1 * l1));
        }
    }
    g->l1_persists = g->flush_l1 == 0;
    if (o[MEMCPY].line)
        g->perf_sim_memcpy = strcmp(o[MEMCPY].value, "0") != 0;
    g->concurrent_kernels = o[CONCURRENT].line ? strcmp(o[CONCURRENT].value, "0") != 0 : 0;
    return KS_OK;
}

ks_status ks_gpu_geometry_read_macsim(const char *path, ks_gpu_geometry *g, ks_error *err)
{
    memset(g, 0, sizeof *g);
    g->flush_l1 = g->perf_sim_memcpy = -1;
    snprintf(g->source, sizeof g->source, "%s", path);
    enum { NLLC, SETS, LINE, ASSOC, CORES, L1SETS, L1ASSOC, L1LINE, ISETS, IASSOC, ILINE,
           IPERFECT, THREADS, COUNT };
    option_value o[COUNT] = {{"num_llc", "", 0},        {"llc_num_set", "", 0},
                             {"llc_line_size", "", 0},  {"llc_assoc", "", 0},
                             {"num_sim_cores", "", 0},  {"l1_small_num_set", "", 0},
                             {"l1_small_assoc", "", 0}, {"l1_small_line_size", "", 0},
                             {"icache_num_set", "", 0}, {"icache_assoc", "", 0},
                             {"icache_line_size", "", 0}, {"perfect_icache", "", 0},
                             {"max_threads_per_core", "", 0}};
    ks_status st = read_options(path, o, COUNT, err);
    /* MacSim's defaults where params.in is silent (its all_knobs.cc) */
    uint64_t v[COUNT] = {1, 0, 0, 0, 0, 0, 0, 0, 64, 8, 64, 0, 3};
    for (int k = 0; k < COUNT && st == KS_OK; k++) {
        if (k == IPERFECT) {
            v[k] = o[k].line && strcmp(o[k].value, "0") != 0;
            continue;
        }
        if (o[k].line == 0) {
            if (k == NLLC || k == CORES || k >= L1SETS)
                continue;
            st = need(path, &o[k], err);
        } else
            st = whole(path, &o[k], 1u << 20, &v[k], err);
    }
    if (st != KS_OK)
        return st;
    if ((v[LINE] & (v[LINE] - 1)) != 0 || v[LINE] > 4096)
        return ks_error_set(err, KS_ERR_FORMAT, path, o[LINE].line,
                            "llc_line_size %llu is not a power of two up to 4096",
                            (unsigned long long)v[LINE]);
    g->line_bytes = g->sector_bytes = (uint32_t)v[LINE];
    g->ways = (uint32_t)v[ASSOC];
    g->l2_bytes = v[NLLC] * v[SETS] * v[LINE] * v[ASSOC];
    g->sms = (uint32_t)v[CORES];
    /* MacSim's "threads" of a GPU core are warps (its trace files): a
     * core runs at most max_threads_per_core of them at once */
    g->max_threads_per_sm = (uint32_t)(v[THREADS] > UINT32_MAX / 32 ? UINT32_MAX : v[THREADS] * 32);
    /* MacSim's LLC: num_llc banks, lines interleaved over them, a linear
     * index in each (cache.cc) */
    g->l2_set_index = v[NLLC] > 1 ? KS_SET_TILED : KS_SET_LINEAR;
    g->l2_tiles = (uint32_t)v[NLLC];
    /* the small cores' L1 (the NVBit core type runs on them); MacSim empties
     * no cache between kernels */
    if (v[L1SETS] && v[L1ASSOC] && v[L1LINE] == v[LINE]) {
        g->l1_bytes = v[L1SETS] * v[L1ASSOC] * v[L1LINE];
        g->l1_ways = (uint32_t)v[L1ASSOC];
        g->l1_persists = true;
    }
    if (!v[IPERFECT] && v[ILINE] && (v[ILINE] & (v[ILINE] - 1)) == 0) {
        g->icache_bytes = v[ISETS] * v[IASSOC] * v[ILINE];
        g->icache_line = (uint32_t)v[ILINE];
        g->icache_ways = (uint32_t)v[IASSOC];
    }
    return KS_OK;
}

/* The set index letter of a -gpgpu_cache:dl1/dl2 value (the second group's
 * last letter: S:64:128:16,L:B:m:L:P,... gives P). */
static char set_fn(const char *value)
{
    const char *groups = strchr(value, ',');
    const char *fn = groups ? strchr(groups + 1, ',') : NULL;
    if (!groups)
        return 'L';
    return fn && fn > groups + 1 ? fn[-1] : groups[strlen(groups) - 1];
}

ks_status ks_addr_map_read_gpgpusim(const char *path, ks_addr_map *m, ks_error *err)
{
    enum { MAP, NMEM, NSUB, INDEXING, DL2, DL1, COUNT };
    option_value o[COUNT] = {{"-gpgpu_mem_addr_mapping", "", 0}, {"-gpgpu_n_mem", "", 0},
                             {"-gpgpu_n_sub_partition_per_mchannel", "", 0},
                             {"-gpgpu_memory_partition_indexing", "", 0},
                             {"-gpgpu_cache:dl2", "", 0}, {"-gpgpu_cache:dl1", "", 0}};
    ks_status st = read_options(path, o, COUNT, err);
    for (int k = MAP; k <= DL2 && st == KS_OK; k++)
        if (k != NSUB && k != INDEXING && o[k].line == 0)
            st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                              "has no %s: cannot tell which address bits the simulator reads",
                              o[k].name);
    if (st != KS_OK)
        return st;
    uint64_t nmem, nsub = 1, indexing = 0;
    if ((st = whole(path, &o[NMEM], 4096, &nmem, err)) != KS_OK)
        return st;
    if (o[NSUB].line && (st = whole(path, &o[NSUB], 64, &nsub, err)) != KS_OK)
        return st;
    if (o[INDEXING].line && !ks_parse_count(o[INDEXING].value, &indexing))
        return ks_error_set(err, KS_ERR_FORMAT, path, o[INDEXING].line,
                            "%s: '%s' is not a whole number", o[INDEXING].name,
                            o[INDEXING].value);
    char kind;
    unsigned sets = 0, line = 0, ways = 0, s1 = 0, l1 = 0, w1 = 0;
    if (sscanf(o[DL2].value, "%c:%u:%u:%u", &kind, &sets, &line, &ways) != 4)
        return ks_error_set(err, KS_ERR_FORMAT, path, o[DL2].line,
                            "-gpgpu_cache:dl2 '%s': expected S:<sets>:<line bytes>:<ways>,...",
                            o[DL2].value);
    char k1 = 0, fn1 = 'L';
    if (o[DL1].line && sscanf(o[DL1].value, "%c:%u:%u:%u", &k1, &s1, &l1, &w1) == 4)
        fn1 = set_fn(o[DL1].value);
    else
        s1 = l1 = 0;
    st = ks_addr_map_build(m, o[MAP].value, (unsigned)nmem, (unsigned)nsub, (unsigned)indexing,
                           sets, line, set_fn(o[DL2].value), s1, l1, fn1, err);
    if (st != KS_OK && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    return st;
}
