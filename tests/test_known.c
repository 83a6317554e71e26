/*
 * test_known.c - totals the traces give exactly (lib/estimate/known.c,
 * lib/traces/trace_count.c): known answers from the simulators' own counts
 * on every launch of ../shared/data (skipped when absent), a committed
 * fixture counted by hand, the cache, bad traces, and what `estimate`
 * prints with them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "ksample.h"
#include "sim_data.h"

#define FIXTURE KS_TEST_DATA "/known"

static void read_known(const char *dir, const char *cache, ks_known *k)
{
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_known_read(dir, cache, 0, k, &err);
    if (st != KS_OK)
        fail_msg("%s: %s (%s:%ld)", dir, err.message, err.file, err.line);
}

static const uint64_t *values_of(const ks_known *k, const char *name)
{
    long m = ks_known_metric(k, name);
    assert_true(m >= 0);
    return k->values[m];
}

/* ------------------------------------------------- the committed fixture */

/* tests/data/known: six launches, three trace files twice over.  Counted by
 * hand from the masks (thread instructions: active lanes; warp
 * instructions: lines, an EXIT of mask 0 included):
 *   kernel-1 (kern_a, 2 blocks of 2 warps):
 *     block 0 warp 0: ffffffff 0000ffff 00000000 = 32 + 16 + 0 = 48, 3 lines
 *     block 0 warp 1: ffffffff 80000001 0000ffff = 32 + 2 + 16 = 50, 3 lines
 *     block 1 warp 0: ffffffff ffffffff          = 64, 2 lines
 *     block 1 warp 1: 00000007 00000000          = 3, 2 lines     -> 165, 10
 *   kernel-2 (kern_b, 1 warp): ffffffff f0f0f0f0 00000001 00000000
 *                              = 32 + 16 + 1 + 0                   -> 49, 4
 *   kernel-3 (kern_a, 1 block of 2 warps):
 *     warp 0: ffffffff 0000ffff = 48, 2 lines
 *     warp 1: 0000000f 0000000f 00000000 = 8, 3 lines              -> 56, 5
 *   kernels 4-6 repeat 1-3: the folder's totals are 540 and 38. */
static const uint64_t hand_threads[6] = {165, 49, 56, 165, 49, 56};
static const uint64_t hand_warps[6] = {10, 4, 5, 10, 4, 5};

static void test_fixture_hand_counted(void **state)
{
    (void)state;
    ks_known k;
    read_known(FIXTURE, NULL, &k);
    assert_string_equal(k.simulator, "Accel-Sim");
    assert_int_equal(k.launch_count, 6);
    const char *thread_names[] = {"gpu_sim_insn", "gpu_tot_sim_insn"};
    for (size_t n = 0; n < 2; n++) {
        const uint64_t *v = values_of(&k, thread_names[n]);
        for (size_t i = 0; i < 6; i++)
            assert_int_equal(v[i], hand_threads[i]);
    }
    const uint64_t *w = values_of(&k, "gpgpu_n_tot_w_icount");
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(w[i], hand_warps[i]);
    assert_int_equal(ks_known_metric(&k, "gpu_sim_cycle"), -1);
    assert_int_equal(ks_known_metric(&k, "gpgpu_n_tot_thrd_icount"), -1);
    assert_int_equal(ks_known_metric(&k, "INST_COUNT_TOT"), -1);
    assert_true(k.bytes_read > 0);
    assert_int_equal(k.cached, 0);
    ks_known_free(&k);
    /* a caller that needs another launch count: nothing counted */
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_known_read(FIXTURE, NULL, 1616, &k, &err), KS_OK);
    assert_int_equal(k.launch_count, 6);
    assert_int_equal(k.metric_count, 0);
    assert_int_equal(k.bytes_read, 0);
    ks_known_free(&k);
}

static void copy_fixture(const char *to)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '" FIXTURE "' '%s'", to, to);
    assert_int_equal(system(cmd), 0);
}

/* The cache: written on the first count, trusted for files of the same
 * name, size and time, passed over for a file that changed or a cache that
 * is not one. */
static void test_fixture_cache(void **state)
{
    (void)state;
    char dir[4200], cache[4300];
    snprintf(dir, sizeof dir, "%s/cached", tmpdir);
    snprintf(cache, sizeof cache, "%s/trace-counts.csv", tmpdir);
    copy_fixture(dir);
    unlink(cache);
    ks_known k;
    read_known(dir, cache, &k);
    assert_int_equal(k.cached, 0);
    ks_known_free(&k);
    assert_int_equal(access(cache, R_OK), 0);
    read_known(dir, cache, &k);
    assert_int_equal(k.cached, 6);
    assert_int_equal(k.bytes_read, 0);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(values_of(&k, "gpu_sim_insn")[i], hand_threads[i]);
    ks_known_free(&k);
    /* kernel-2 gets one more warp instruction of 32 lanes: counted again */
    char path[4400], cmd[9000];
    snprintf(path, sizeof path, "%s/kernel-2.traceg", dir);
    snprintf(cmd, sizeof cmd,
             "sed -i 's/^insts = 4$/insts = 5/; s/^0030 00000000 0 EXIT 0 0 0 $/0028 ffffffff 0 "
             "NOP 0 0 0 \\n0030 00000000 0 EXIT 0 0 0 /' '%s'",
             path);
    assert_int_equal(system(cmd), 0);
    read_known(dir, cache, &k);
    assert_int_equal(k.cached, 5);
    assert_int_equal(values_of(&k, "gpu_sim_insn")[1], 49 + 32);
    assert_int_equal(values_of(&k, "gpgpu_n_tot_w_icount")[1], 5);
    ks_known_free(&k);
    /* a cache that is not one: every launch counted, no error */
    write_text("trace-counts.csv", "garbage,1,2\nkernel-1.traceg,x\n");
    read_known(dir, cache, &k);
    assert_int_equal(k.cached, 0);
    assert_int_equal(values_of(&k, "gpu_sim_insn")[0], 165);
    ks_known_free(&k);
}

/* A truncated or malformed trace is an error naming file and line, never a
 * short count. */
static void test_fixture_bad_traces(void **state)
{
    (void)state;
    char dir[4200], cmd[9000];
    snprintf(dir, sizeof dir, "%s/bad", tmpdir);
    const char *edits[] = {
        /* the last warp cut short: its 'insts =' says 3 */
        "sed -i '/^0020 00000000 0 EXIT 0 0 0 $/d' '%s/kernel-3.traceg'",
        /* a mask that is not hex */
        "sed -i 's/^0010 f0f0f0f0 /0010 f0f0g0f0 /' '%s/kernel-2.traceg'",
        /* the file ends inside a block */
        "sed -i '$d' '%s/kernel-6.traceg' && sed -i '$d' '%s/kernel-6.traceg'",
    };
    const char *file[] = {"kernel-3.traceg", "kernel-2.traceg", "kernel-6.traceg"};
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
        copy_fixture(dir);
        char edit[4000];
        snprintf(edit, sizeof edit, edits[e], dir, dir);
        snprintf(cmd, sizeof cmd, "%s", edit);
        assert_int_equal(system(cmd), 0);
        ks_known k;
        ks_error err;
        ks_error_clear(&err);
        assert_int_not_equal(ks_known_read(dir, NULL, 0, &k, &err), KS_OK);
        assert_non_null(strstr(err.file, file[e]));
        assert_true(err.line > 0);
    }
}

/* --------------------------------------------- known answers: simulators */

/* Every launch of accelsim-synth: the traces' thread count is gpu_sim_insn
 * of the full run and of the launch simulated alone, on both
 * configurations; the line count is the tracer's stats.csv count (and
 * GPGPU-Sim's gpgpu_n_tot_w_icount, which equals it in the alone runs). */
static void test_synth_known_answer(void **state)
{
    (void)state;
    if (!have_data())
        skip();
    ks_known k;
    read_known(synth_traces, NULL, &k);
    assert_int_equal(k.launch_count, 160);
    const uint64_t *thread = values_of(&k, "gpu_sim_insn");
    const uint64_t *warp = values_of(&k, "gpgpu_n_tot_w_icount");
    FILE *f = fopen(SYNTH "/per_launch.csv", "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, "full_run_insn,alone_insn"));
    size_t rows = 0, configs[2] = {0, 0};
    while (fgets(line, sizeof line, f)) {
        unsigned long launch;
        char trace[64], kernel[256], config[64];
        unsigned long long full_cycles, alone_cycles, full_insn, alone_insn;
        assert_int_equal(sscanf(line, "%lu,%63[^,],%255[^,],%63[^,],%llu,%llu,%llu,%llu",
                                &launch, trace, kernel, config, &full_cycles, &alone_cycles,
                                &full_insn, &alone_insn),
                         8);
        assert_true(launch < 160);
        assert_int_equal(thread[launch], full_insn);
        assert_int_equal(thread[launch], alone_insn);
        configs[strcmp(config, "SM7_QV100") == 0]++;
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 320);
    assert_int_equal(configs[0], 160);
    assert_int_equal(configs[1], 160);
    f = fopen(SYNTH "/stats.csv", "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    for (size_t i = 0; i < 160; i++) {
        assert_non_null(fgets(line, sizeof line, f));
        char *last = strrchr(line, ',');
        assert_non_null(last);
        *last = '\0';
        char *total = strrchr(line, ',');
        assert_non_null(total);
        assert_int_equal(warp[i], strtoull(total + 1, NULL, 10));
    }
    fclose(f);
    ks_known_free(&k);
}

/* A trace of a real GPU (GTX 1080, tracer version 4) and the GPGPU-Sim log
 * of simulating it: 10,516 thread instructions, 344 warp instructions. */
static void test_vectoradd_simlog(void **state)
{
    (void)state;
    const char *dir = KS_SHARED_DATA "/accelsim/vectoradd-gtx1080-v4";
    const char *log = KS_SHARED_DATA "/accelsim-simlog/vectoradd-gtx1080-gpgpusim.log";
    if (access(log, R_OK) != 0 || access(dir, R_OK) != 0)
        skip();
    unsigned long long insn = 0;
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    char line[4096];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "gpu_sim_insn = %llu", &insn) == 1)
            break;
    fclose(f);
    assert_int_equal(insn, 10516);
    ks_known k;
    read_known(dir, NULL, &k);
    assert_int_equal(k.launch_count, 1);
    assert_int_equal(values_of(&k, "gpu_sim_insn")[0], insn);
    assert_int_equal(values_of(&k, "gpgpu_n_tot_w_icount")[0], 344);
    ks_known_free(&k);
    /* a raw .trace (tracer version 3, lines of interleaved warps, xz): its
     * lines are the tracer's stats.csv count */
    read_known(KS_SHARED_DATA "/accelsim/vectoradd-pascal-raw-v3", NULL, &k);
    assert_int_equal(values_of(&k, "gpgpu_n_tot_w_icount")[0], 71974);
    assert_true(values_of(&k, "gpu_sim_insn")[0] <= 71974ull * 32);
    assert_true(values_of(&k, "gpu_sim_insn")[0] > 0);
    ks_known_free(&k);
}

/* MacSim: INST_COUNT_TOT of each launch simulated alone is its warps'
 * records less one each (the reader holds one record ahead), on all 157
 * launches of the recorded vectormultadd. */
static void test_macsim_known_answer(void **state)
{
    (void)state;
    if (!have_data())
        skip();
    ks_known k;
    read_known(macsim_traces, NULL, &k);
    assert_string_equal(k.simulator, "MacSim");
    assert_int_equal(k.launch_count, 157);
    assert_int_equal(k.metric_count, 1);
    const uint64_t *v = values_of(&k, "INST_COUNT_TOT");
    FILE *f = fopen(MACSIM "/per_launch.csv", "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    size_t rows = 0;
    uint64_t sum = 0;
    while (fgets(line, sizeof line, f)) {
        char *last = strrchr(line, ',');
        assert_non_null(last);
        unsigned long launch = strtoul(line, NULL, 10);
        assert_true(launch < 157);
        assert_int_equal(v[launch], strtoull(last + 1, NULL, 10));
        sum += v[launch];
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 157);
    assert_int_equal(sum, 630656); /* the full run's INST_COUNT_TOT */
    ks_known_free(&k);
}

/* ---------------------------------------------------- what estimate says */


static yajl_val row_of(yajl_val rows, const char *metric)
{
    assert_true(YAJL_IS_ARRAY(rows));
    for (size_t i = 0; i < rows->u.array.len; i++) {
        const char *path[] = {"metric", NULL};
        yajl_val m = yajl_tree_get(rows->u.array.values[i], path, yajl_t_string);
        const char *name = m ? YAJL_GET_STRING(m) : NULL;
        if (name && strcmp(name, metric) == 0)
            return rows->u.array.values[i];
    }
    fail_msg("no row %s", metric);
    return NULL;
}

static double num(yajl_val row, const char *key)
{
    const char *path[] = {key, NULL};
    yajl_val v = yajl_tree_get(row, path, yajl_t_number);
    assert_non_null(v);
    return YAJL_GET_DOUBLE(v);
}

static bool flag(yajl_val row, const char *key)
{
    const char *path[] = {key, NULL};
    yajl_val v = yajl_tree_get(row, path, yajl_t_any);
    assert_non_null(v);
    return YAJL_IS_TRUE(v);
}

static yajl_val parse_json(const char *text)
{
    char errbuf[256];
    yajl_val v = yajl_tree_parse(text, errbuf, sizeof errbuf);
    if (!v)
        fail_msg("not JSON (%s): %.400s", errbuf, text);
    return v;
}

/* The fixture's plan and results: gpu_sim_insn is the traces' exact 540
 * in the text and the JSON, ipc = 540 / the estimated cycles with the
 * cycles' relative half-width; a results value that is not its trace's
 * count leaves it estimated, saying why; --no-exact samples it. */
static void test_estimate_fixture(void **state)
{
    (void)state;
    if (access(KS_CLI, X_OK) != 0)
        skip();
    int status;
    char args[9000];
    const char *plan = in_dir("fixture-plan.json");
    snprintf(args, sizeof args, "sample '" FIXTURE "/time.csv' --seed 1 -o '%s'", plan);
    free(tmpdir_run_cli(args, &status));
    assert_int_equal(status, 0);
    snprintf(args, sizeof args,
             "estimate '%s' '" FIXTURE "/results.csv' --traces '" FIXTURE "' --warmup context",
             plan);
    char *text = tmpdir_run_cli(args, &status);
    assert_int_equal(status, 0);
    const char *row = strstr(text, "\ngpu_sim_insn ");
    assert_non_null(row);
    const char *end = strchr(row + 1, '\n');
    assert_non_null(end);
    char line[400];
    snprintf(line, sizeof line, "%.*s", (int)(end - row - 1), row + 1);
    assert_non_null(strstr(line, " 540 "));
    assert_non_null(strstr(line, "exact, from the traces"));
    assert_non_null(strstr(text, "exact, from the traces: gpu_sim_insn: Accel-Sim's counts of "
                                 "all 6 launches"));
    assert_non_null(strstr(text, "ipc: the traces' exact gpu_sim_insn over the estimated "
                                 "gpu_sim_cycle"));
    free(text);

    snprintf(args, sizeof args,
             "estimate --json '%s' '" FIXTURE "/results.csv' --traces '" FIXTURE
             "' --warmup context",
             plan);
    text = tmpdir_run_cli(args, &status);
    assert_int_equal(status, 0);
    yajl_val rows = parse_json(text);
    yajl_val insn = row_of(rows, "gpu_sim_insn");
    assert_true(flag(insn, "exact"));
    assert_true(num(insn, "estimate") == 540);
    assert_true(num(insn, "ci_low") == 540 && num(insn, "ci_high") == 540);
    assert_true(num(insn, "rel_halfwidth") == 0);
    yajl_val cycles = row_of(rows, "gpu_sim_cycle");
    assert_false(flag(cycles, "exact"));
    yajl_val ipc = row_of(rows, "ipc");
    assert_false(flag(ipc, "exact"));
    assert_true(fabs(num(ipc, "estimate") - 540 / num(cycles, "estimate")) < 1e-12);
    assert_true(fabs(num(ipc, "rel_halfwidth") - num(cycles, "rel_halfwidth")) < 1e-12);
    yajl_tree_free(rows);
    free(text);

    /* launch 0's value is not its trace's count: estimated, and why */
    write_text("wrong.csv", "id,gpu_sim_cycle,gpu_sim_insn\n0,1000,166\n1,520,49\n2,690,56\n"
                            "3,1040,165\n4,540,49\n5,760,56\n");
    snprintf(args, sizeof args,
             "estimate --json '%s' '%s' --traces '" FIXTURE "' --warmup context", plan,
             in_dir("wrong.csv"));
    text = tmpdir_run_cli(args, &status);
    assert_int_equal(status, 0);
    rows = parse_json(text);
    insn = row_of(rows, "gpu_sim_insn");
    bool sampled0 = false;
    {
        ks_plan p;
        ks_error err;
        ks_error_clear(&err);
        assert_int_equal(ks_plan_read(plan, &p, &err), KS_OK);
        for (size_t i = 0; i < p.sample_count; i++)
            sampled0 = sampled0 || p.samples[i].id == 0;
        ks_plan_free(&p);
    }
    if (sampled0) {
        assert_false(flag(insn, "exact"));
        const char *path[] = {"exact_note", NULL};
        yajl_val note = yajl_tree_get(insn, path, yajl_t_string);
        const char *text_note = note ? YAJL_GET_STRING(note) : NULL;
        assert_non_null(text_note);
        assert_non_null(strstr(text_note, "launch 0's simulated value 166 is not its trace's "
                                          "count 165"));
    } else {
        assert_true(flag(insn, "exact")); /* the wrong value is at a launch not sampled */
    }
    yajl_tree_free(rows);
    free(text);

    /* the traces' counts as the estimators' auxiliary variable */
    snprintf(args, sizeof args,
             "estimate '%s' '" FIXTURE "/results.csv' --traces '" FIXTURE
             "' --warmup context --estimator ratio --auxiliary trace_insts",
             plan);
    text = tmpdir_run_cli(args, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(text, "auxiliary: the profile's trace_insts"));
    free(text);
    /* without the traces there is no such column */
    snprintf(args, sizeof args,
             "estimate '%s' '" FIXTURE "/results.csv' --warmup context --estimator ratio "
             "--auxiliary trace_insts",
             plan);
    free(tmpdir_run_cli(args, &status));
    assert_int_not_equal(status, 0);

    snprintf(args, sizeof args,
             "estimate --json --no-exact '%s' '" FIXTURE "/results.csv' --traces '" FIXTURE
             "' --warmup context",
             plan);
    text = tmpdir_run_cli(args, &status);
    assert_int_equal(status, 0);
    rows = parse_json(text);
    assert_false(flag(row_of(rows, "gpu_sim_insn"), "exact"));
    yajl_tree_free(rows);
    free(text);
}

/* The README's kind of loop on accelsim-synth: a plan from the time
 * profile, the launches simulated alone; gpu_sim_insn is the program's
 * exact 25,186,363 (+-198 % when sampled) and gpgpu_n_tot_w_icount its
 * exact 1,085,785 on both configurations; gpgpu_n_tot_thrd_icount, which
 * the SM86_RTX3070 runs count otherwise (834,688 at launch 8, whose trace
 * has 514,803 active lanes), is estimated on both. */
static void test_estimate_synth(void **state)
{
    (void)state;
    if (!have_data() || access(KS_CLI, X_OK) != 0)
        skip();
    int status;
    char args[9000];
    const char *plan = in_dir("synth-plan.json");
    snprintf(args, sizeof args, "sample '%s/time.csv' --seed 1 -o '%s'", synth_traces, plan);
    free(tmpdir_run_cli(args, &status));
    assert_int_equal(status, 0);
    for (int cfg = 0; cfg < 2; cfg++) {
        snprintf(args, sizeof args,
                 "estimate --json '%s' '" SYNTH "/alone_%s.out.xz' --traces '%s' --warmup none "
                 "--metric gpu_sim_insn --metric gpgpu_n_tot_thrd_icount --metric "
                 "gpgpu_n_tot_w_icount --metric ipc",
                 plan, cfg ? "SM86_RTX3070" : "SM7_QV100", synth_traces);
        char *text = tmpdir_run_cli(args, &status);
        assert_int_equal(status, 0);
        yajl_val rows = parse_json(text);
        assert_true(flag(row_of(rows, "gpu_sim_insn"), "exact"));
        assert_true(num(row_of(rows, "gpu_sim_insn"), "estimate") == 25186363);
        assert_false(flag(row_of(rows, "gpgpu_n_tot_thrd_icount"), "exact"));
        assert_true(flag(row_of(rows, "gpgpu_n_tot_w_icount"), "exact"));
        assert_true(num(row_of(rows, "gpgpu_n_tot_w_icount"), "estimate") == 1085785);
        assert_false(flag(row_of(rows, "ipc"), "exact"));
        yajl_tree_free(rows);
        free(text);
    }
}

/* ------------------------------------------------------------------ setup */

static int setup(void **state)
{
    (void)state;
    return sim_data_setup("ks-known");
}

static int teardown(void **state)
{
    (void)state;
    return tmpdir_remove(tmpdir);
}

KS_TEST_MAIN_FIXTURES(setup, teardown, test_fixture_hand_counted, test_fixture_cache,
                      test_fixture_bad_traces, test_synth_known_answer, test_vectoradd_simlog,
                      test_macsim_known_answer, test_estimate_fixture, test_estimate_synth)
