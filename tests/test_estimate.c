/*
 * test_estimate.c - simulator results back into an estimate: the simulator
 * log parser (generated logs in Accel-Sim's format, and the real GPGPU-Sim
 * logs), the stratified variance against hand-computed answers, the
 * interval's coverage over many seeds where the truth is known, and refine
 * bringing an under-sampled plan within its bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"
#include "tmpdir.h"

/* ------------------------------------------------------------ helpers */

/* Appends one Accel-Sim per-kernel block to f (uids: "1" or "1 2"). */
static void sim_block(FILE *f, const char *name, const char *uids, double cycles, double insn,
                      double tot_cycles)
{
    fprintf(f, "launching kernel name: %s uid: %s\n", name, uids);
    fprintf(f, "GPGPU-Sim uArch: Shader 0 bind to kernel 1 '%s'\n", name);
    fprintf(f, "Destroy streams for kernel 1: size 0\n");
    fprintf(f, "kernel_name = %s \nkernel_launch_uid = %s \n", name, uids);
    fprintf(f, "gpu_sim_cycle = %.0f\ngpu_sim_insn = %.0f\ngpu_ipc =       %.4f\n", cycles, insn,
            insn / cycles);
    fprintf(f, "gpu_tot_sim_cycle = %.0f\ngpu_tot_sim_insn = 999\n", tot_cycles);
    fprintf(f, "gpu_occupancy = 20.6860%% \nL2_BW  =       0.5616 GB/Sec\n");
    fprintf(f, "total dram reads = 56\n========= Core cache stats =========\nL1I_cache:\n");
    fprintf(f, "\tL1I_total_cache_accesses = 188\n");
    fprintf(f, "dram[0]:         1         1         0\n");
}

static ks_plan one_cluster_plan(size_t n, size_t size)
{
    return tu_cluster_plan(n, size, "k");
}

/* ------------------------------------------------------ simulator logs */

/* Reads the log name in the test folder as the results of plan (o NULL:
 * the default options); the read must succeed. */
static ks_results log_read(const char *name, const ks_plan *plan, const ks_results_options *o)
{
    ks_results_options defaults;
    ks_results_options_init(&defaults);
    ks_results r;
    ks_results_init(&r);
    ks_error err;
    ks_error_clear(&err);
    if (ks_results_read(in_dir(name), plan, o ? o : &defaults, &r, &err) != KS_OK)
        fail_msg("%s: %s", name, err.message);
    return r;
}

static void test_generated_log(void **state)
{
    (void)state;
    ks_plan plan = one_cluster_plan(3, 30);
    FILE *f = fopen(in_dir("sim.log"), "w");
    fprintf(f, "Accel-Sim [build accelsim-commit-test]\nGPGPU-Sim version 4.2.0\n");
    sim_block(f, "_Z1kPf", "1", 1000, 5000, 1000);
    sim_block(f, "_Z1kPf", "2", 1200, 5100, 2200);
    sim_block(f, "_Z1kPf", "3", 1400, 5200, 3600);
    fprintf(f, "GPGPU-Sim: *** exit detected ***\n");
    fclose(f);
    ks_results r = log_read("sim.log", &plan, NULL);
    assert_int_equal(r.row_count, 3);
    assert_true(ks_results_metric(&r, "gpu_tot_sim_cycle") < 0);
    assert_true(ks_results_metric(&r, "gpu_tot_sim_insn") < 0);
    assert_true(ks_results_metric(&r, "total") < 0);
    long cyc = ks_results_metric(&r, "gpu_sim_cycle");
    long occ = ks_results_metric(&r, "gpu_occupancy");
    long l1 = ks_results_metric(&r, "L1I_total_cache_accesses");
    assert_true(cyc >= 0 && occ >= 0 && l1 >= 0);
    /* uid k is the k-th sampled id: 0, 2, 4 */
    assert_true(r.values[cyc][ks_results_row(&r, 4)] == 1400);
    assert_true(r.values[occ][ks_results_row(&r, 0)] == 20.686);
    /* estimate: weights 10 each */
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    ks_estimate e;
    ks_error err;
    assert_int_equal(ks_estimate_compute(&plan, &r, &eo, &e, &err), KS_OK);
    bool found_ipc = false;
    for (size_t i = 0; i < e.count; i++) {
        if (strcmp(e.metrics[i].name, "gpu_sim_cycle") == 0) {
            assert_true(fabs(e.metrics[i].estimate - 36000) < 1e-6);
            /* s^2 = 40000, V = 900 (1 - 3/30) 40000 / 3 */
            assert_true(fabs(e.metrics[i].variance - 900 * 0.9 * 40000 / 3) < 1e-3);
            assert_int_equal(e.metrics[i].is_ratio, 0);
        }
        if (strcmp(e.metrics[i].name, "ipc") == 0) {
            found_ipc = true;
            assert_true(fabs(e.metrics[i].estimate - 15300.0 / 3600) < 1e-12);
            assert_int_equal(e.metrics[i].is_ratio, 1);
        }
    }
    assert_true(found_ipc);
    ks_estimate_free(&e);
    ks_results_free(&r);

    /* the whole program simulated: --uid-base 1 */
    f = fopen(in_dir("full.log"), "w");
    for (int u = 1; u <= 6; u++) {
        char uid[8];
        snprintf(uid, sizeof uid, "%d", u);
        sim_block(f, "_Z1kPf", uid, 100 * u, 1000, 0);
    }
    fclose(f);
    ks_results_options o;
    ks_results_options_init(&o);
    o.uid_mode = KS_UID_BASE;
    o.uid_base = 1;
    r = log_read("full.log", &plan, &o);
    assert_true(r.values[ks_results_metric(&r, "gpu_sim_cycle")][ks_results_row(&r, 4)] == 500);
    ks_results_free(&r);
    ks_plan_free(&plan);
}

/* GPGPU-Sim's running totals become each kernel's own share (the difference
 * from the kernel before it; unchanged where a block does not print one),
 * a "running total" that falls is of unknown kind with its values dropped, and rates are never
 * summed: the default rows are counts and ratios of totals. */
static void test_running_totals(void **state)
{
    (void)state;
    ks_plan plan = one_cluster_plan(4, 40);
    FILE *f = fopen(in_dir("run.log"), "w");
    fprintf(f, "GPGPU-Sim Simulator Version 4.2.0\n");
    const double l1[] = {100, 250, NAN, 400}, l2[] = {10, 5, 7, 9};
    for (int k = 0; k < 4; k++) {
        char uid[8];
        snprintf(uid, sizeof uid, "%d", k + 1);
        sim_block(f, "_Z1kPf", uid, 1000 + 100 * k, 5000, 0);
        if (!isnan(l1[k]))
            fprintf(f, "\tL1D_total_cache_accesses = %.0f\n", l1[k]);
        fprintf(f, "L2_total_cache_misses = %.0f\n", l2[k]);
    }
    fclose(f);
    ks_results r = log_read("run.log", &plan, NULL);
    ks_error err;
    long m = ks_results_metric(&r, "L1D_total_cache_accesses");
    long d = ks_results_metric(&r, "total_dram_reads");
    long fell = ks_results_metric(&r, "L2_total_cache_misses");
    assert_true(m >= 0 && d >= 0 && fell >= 0);
    assert_int_equal(r.kinds[m], KS_STAT_RUNNING);
    const double want[] = {100, 150, 0, 150}, dram[] = {56, 0, 0, 0};
    for (int k = 0; k < 4; k++) {
        long row = ks_results_row(&r, (uint64_t)(2 * k));
        assert_true(r.values[m][row] == want[k]);
        assert_true(r.values[d][row] == dram[k]);
    }
    assert_int_equal(r.kinds[fell], KS_STAT_UNKNOWN);
    assert_int_equal(r.kinds[ks_results_metric(&r, "gpu_ipc")], KS_STAT_RATE);
    assert_int_equal(r.kinds[ks_results_metric(&r, "L2_BW")], KS_STAT_RATE);
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    ks_estimate e;
    assert_int_equal(ks_estimate_compute(&plan, &r, &eo, &e, &err), KS_OK);
    for (size_t i = 0; i < e.count; i++) {
        assert_string_not_equal(e.metrics[i].name, "gpu_ipc");
        assert_string_not_equal(e.metrics[i].name, "L2_total_cache_misses");
        if (strcmp(e.metrics[i].name, "L1D_total_cache_accesses") == 0)
            assert_true(e.metrics[i].estimate == 10 * 400);
        if (strcmp(e.metrics[i].name, "ipc") == 0)
            assert_true(fabs(e.metrics[i].estimate - 20000.0 / 4600) < 1e-12);
    }
    assert_true(e.unknown == 1 && e.not_additive >= 2);
    ks_estimate_free(&e);
    /* its differences (one below 0) are no launch's values: dropped and
     * said (issue 41), so asked for by name it has nothing to sum */
    assert_non_null(strstr(r.dropped, "L2_total_cache_misses, a running total, falls there"));
    for (int k = 0; k < 4; k++)
        assert_true(isnan(r.values[fell][ks_results_row(&r, (uint64_t)(2 * k))]));
    const char *named[] = {"L2_total_cache_misses"};
    eo.metrics = named;
    eo.metric_count = 1;
    assert_int_not_equal(ks_estimate_compute(&plan, &r, &eo, &e, &err), KS_OK);
    ks_results_free(&r);
    ks_plan_free(&plan);
}

/* What an interval stands for: the full run's total only for values in
 * context; the values' own for cold or warmed ones; none for a plan whose
 * launches were chosen (PKA, Sieve, Photon, GCL-Sampler) or that promises
 * no bound (random), and none where no simulated value measures a
 * stratum's spread. */
static void test_claims(void **state)
{
    (void)state;
    const char *why;
    ks_plan plan = one_cluster_plan(3, 30);
    assert_int_equal(ks_interval_claim(&plan, "context", &why), KS_CLAIM_FULL_RUN);
    assert_int_equal(ks_interval_claim(&plan, NULL, &why), KS_CLAIM_FULL_RUN);
    assert_int_equal(ks_interval_claim(&plan, "none", &why), KS_CLAIM_VALUES);
    assert_non_null(strstr(why, "cold"));
    assert_int_equal(ks_interval_claim(&plan, "since-same:8", &why), KS_CLAIM_VALUES);
    assert_int_equal(ks_interval_claim(&plan, "unknown", &why), KS_CLAIM_VALUES);
    static const char *const chooses[] = {"pka", "sieve", "photon", "gcl"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(plan.method, sizeof plan.method, "%s", chooses[i]);
        assert_int_equal(ks_interval_claim(&plan, "context", &why), KS_CLAIM_NONE);
        assert_non_null(strstr(why, "chosen"));
    }
    snprintf(plan.method, sizeof plan.method, "random");
    plan.bound = 0;
    assert_int_equal(ks_interval_claim(&plan, "context", &why), KS_CLAIM_NONE);
    assert_non_null(strstr(why, "no error bound"));
    /* estimate: a chosen plan's rows have no interval, not a zero-width one */
    snprintf(plan.method, sizeof plan.method, "sieve");
    ks_results r;
    ks_results_init(&r);
    const uint64_t ids[] = {0, 2, 4};
    const double cyc[] = {900, 1000, 1200};
    ks_error err;
    assert_int_equal(ks_results_add(&r, "mem", "gpu_sim_cycle", ids, cyc, 3, &err), KS_OK);
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    ks_estimate e;
    assert_int_equal(ks_estimate_compute(&plan, &r, &eo, &e, &err), KS_OK);
    assert_int_equal(e.metrics[0].claim, KS_CLAIM_NONE);
    assert_true(isnan(e.metrics[0].ci_low) && isnan(e.metrics[0].ci_high));
    assert_int_equal(e.metrics[0].bound_met, -1);
    assert_true(e.metrics[0].estimate == 10 * 3100);
    ks_estimate_free(&e);
    /* a probability plan, values simulated alone: the values' interval */
    snprintf(plan.method, sizeof plan.method, "stem");
    plan.bound = 0.05;
    eo.warmup = "none";
    assert_int_equal(ks_estimate_compute(&plan, &r, &eo, &e, &err), KS_OK);
    assert_int_equal(e.metrics[0].claim, KS_CLAIM_VALUES);
    assert_true(e.metrics[0].ci_low < e.metrics[0].estimate);
    ks_estimate_free(&e);
    ks_results_free(&r);
    ks_plan_free(&plan);

    /* one launch in each of two kernels' single clusters, nothing else:
     * their spread is measured by no simulated value */
    ks_plan two = tu_hand_plan("root", ks_z_for_confidence(0.95), (const char *[]){"a", "b"}, 2);
    two.bound = 0.05;
    ks_cluster ca = {.group = 0, .path = "0", .size = 10, .mean_ns = 100, .std_ns = 0,
                     .min_ns = 100, .max_ns = 100, .m = 1};
    ks_cluster cb = ca;
    cb.group = 1;
    assert_int_equal(ks_plan_add_cluster(&two, &ca, NULL, &err), KS_OK);
    assert_int_equal(ks_plan_add_cluster(&two, &cb, NULL, &err), KS_OK);
    assert_int_equal(ks_plan_add_sample(&two, 0, 10, 0, &err), KS_OK);
    assert_int_equal(ks_plan_add_sample(&two, 10, 10, 1, &err), KS_OK);
    two.input_invocations = 20;
    ks_results_init(&r);
    const uint64_t tids[] = {0, 10};
    const double tv[] = {300, 500};
    assert_int_equal(ks_results_add(&r, "mem", "cycles", tids, tv, 2, &err), KS_OK);
    eo.warmup = "context";
    assert_int_equal(ks_estimate_compute(&two, &r, &eo, &e, &err), KS_OK);
    assert_true(e.metrics[0].unmeasured == 2);
    assert_int_equal(e.metrics[0].claim, KS_CLAIM_NONE);
    assert_non_null(strstr(e.metrics[0].claim_why, "measures"));
    ks_estimate_free(&e);
    ks_results_free(&r);
    ks_plan_free(&two);
}

/* Reads the log name in the test folder as the results of plan; the read
 * must fail with a format error whose message contains part (NULL: any).
 * Returns the error for more checks. */
static ks_error log_refused(const char *name, const ks_plan *plan, const ks_results_options *o,
                            const char *part)
{
    ks_results r;
    ks_results_init(&r);
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_results_read(in_dir(name), plan, o, &r, &err), KS_ERR_FORMAT);
    if (part)
        assert_non_null(strstr(err.message, part));
    ks_results_free(&r);
    return err;
}

static void test_log_refusals(void **state)
{
    (void)state;
    ks_plan plan = one_cluster_plan(3, 30);
    ks_results_options o;
    ks_results_options_init(&o);
    ks_results r;
    ks_error err;

    /* concurrent kernels: refused unless split is asked for */
    FILE *f = fopen(in_dir("conc.log"), "w");
    sim_block(f, "_Z1kPf", "1 3", 1000, 4000, 0);
    sim_block(f, "", "3 2", 600, 2000, 0);
    fclose(f);
    assert_int_equal(log_refused("conc.log", &plan, &o, "concurrently").line, 4);
    o.concurrent = KS_CONCURRENT_SPLIT;
    r = log_read("conc.log", &plan, &o);
    long cyc = ks_results_metric(&r, "gpu_sim_cycle");
    assert_true(r.values[cyc][ks_results_row(&r, 0)] == 500);       /* uid 1 */
    assert_true(r.values[cyc][ks_results_row(&r, 4)] == 500 + 300); /* uid 3, both blocks */
    assert_true(r.values[cyc][ks_results_row(&r, 2)] == 300);       /* uid 2 */
    ks_results_free(&r);
    o.concurrent = KS_CONCURRENT_REFUSE;

    /* a uid beyond the sampled launches, and a uid twice */
    f = fopen(in_dir("far.log"), "w");
    sim_block(f, "_Z1kPf", "9", 1000, 4000, 0);
    fclose(f);
    log_refused("far.log", &plan, &o, "--uid-base");
    f = fopen(in_dir("twice.log"), "w");
    sim_block(f, "_Z1kPf", "1", 1000, 4000, 0);
    sim_block(f, "_Z1kPf", "1", 1000, 4000, 0);
    fclose(f);
    log_refused("twice.log", &plan, &o, "twice");

    /* a sample without a result is named */
    f = fopen(in_dir("short.log"), "w");
    sim_block(f, "_Z1kPf", "1", 1000, 4000, 0);
    sim_block(f, "_Z1kPf", "2", 1000, 4000, 0);
    fclose(f);
    r = log_read("short.log", &plan, &o);
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    ks_estimate e;
    assert_int_equal(ks_estimate_compute(&plan, &r, &eo, &e, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "sample id 4"));
    ks_results_free(&r);

    /* no blocks at all */
    write_text("empty.log", "GPGPU-Sim version 4.2.0\n");
    log_refused("empty.log", &plan, &o, NULL);
    ks_plan_free(&plan);
}

/* Values given in memory (ks_results_add, the Python package's way) make the
 * same estimate as the same values read from an id,<metric> CSV; a launch
 * given twice and a value that is not a number are refused with their
 * position. */
static void test_results_in_memory(void **state)
{
    (void)state;
    ks_plan plan = one_cluster_plan(3, 30);
    write_text("vals.csv", "id,gpu_sim_cycle,gpu_sim_insn\n0,1000,5000\n2,1200,5100\n4,900,"
                           "4800\n");
    ks_results_options o;
    ks_results_options_init(&o);
    ks_results a, b;
    ks_results_init(&a);
    ks_results_init(&b);
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_results_read(in_dir("vals.csv"), &plan, &o, &a, &err), KS_OK);
    const uint64_t ids[] = {4, 0, 2}; /* any order */
    const double cyc[] = {900, 1000, 1200}, ins[] = {4800, 5000, 5100};
    assert_int_equal(ks_results_add(&b, "mem", "gpu_sim_cycle", ids, cyc, 3, &err), KS_OK);
    assert_int_equal(ks_results_add(&b, "mem", "gpu_sim_insn", ids, ins, 3, &err), KS_OK);
    assert_int_equal(b.row_count, 3);
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    ks_estimate ea, eb;
    assert_int_equal(ks_estimate_compute(&plan, &a, &eo, &ea, &err), KS_OK);
    assert_int_equal(ks_estimate_compute(&plan, &b, &eo, &eb, &err), KS_OK);
    assert_int_equal(ea.count, 3); /* cycles, instructions, ipc */
    assert_int_equal(eb.count, ea.count);
    for (size_t i = 0; i < ea.count; i++) {
        assert_string_equal(ea.metrics[i].name, eb.metrics[i].name);
        assert_true(ea.metrics[i].estimate == eb.metrics[i].estimate);
        assert_true(ea.metrics[i].ci_low == eb.metrics[i].ci_low);
        assert_true(ea.metrics[i].ci_high == eb.metrics[i].ci_high);
    }
    ks_estimate_free(&ea);
    ks_estimate_free(&eb);
    const uint64_t twice[] = {7, 7};
    assert_int_equal(ks_results_add(&b, "again", "x", twice, cyc, 2, &err), KS_ERR_FORMAT);
    assert_string_equal(err.file, "again");
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "launch id 7 given twice"));
    const double nan_value[] = {NAN};
    assert_int_equal(ks_results_add(&b, "mem", "y", ids, nan_value, 1, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "not a finite number"));
    /* another source giving a launch the first one gave */
    assert_int_equal(ks_results_add(&b, "other", "gpu_sim_cycle", ids, cyc, 1, &err),
                     KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "reported twice"));
    ks_results_free(&a);
    ks_results_free(&b);
    ks_plan_free(&plan);
}

static void test_real_simlogs(void **state)
{
    (void)state;
    const char *files[] = {KS_SHARED_DATA "/accelsim-simlog/vectoradd-gtx1080-gpgpusim.log",
                           KS_SHARED_DATA "/accelsim-simlog/vectoradd-gtx1080-gpgpusim-older.log"};
    if (access(files[0], R_OK) != 0)
        skip();
    for (int i = 0; i < 2; i++) {
        /* the plan's kernel as nsys names it: the log's mangled name agrees */
        ks_plan plan =
            tu_cluster_plan(1, 1, "void vecAdd<float>(float*, float*, float*, int)");
        ks_results r;
        ks_results_init(&r);
        ks_results_options o;
        ks_results_options_init(&o);
        ks_error err;
        ks_status st = ks_results_read(files[i], &plan, &o, &r, &err);
        if (st != KS_OK)
            fail_msg("%s: %s", files[i], err.message);
        assert_int_equal(r.row_count, 1);
        assert_int_equal(r.ids[0], 0);
        struct {
            const char *name;
            double value;
        } want[] = {{"gpu_sim_cycle", 1282},         {"gpu_sim_insn", 10516},
                    {"gpu_ipc", 8.2028},             {"gpu_occupancy", 20.686},
                    {"L1I_total_cache_accesses", 188}, {"gpgpu_n_tot_w_icount", 344},
                    {"gpgpu_n_load_insn", 200},      {"L2_BW", 0.5616}};
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            long m = ks_results_metric(&r, want[k].name);
            if (m < 0)
                fail_msg("%s: no %s", files[i], want[k].name);
            assert_true(fabs(r.values[m][0] - want[k].value) < 1e-9);
        }
        for (size_t m = 0; m < r.metric_count; m++)
            assert_false(strncmp(r.metrics[m], "gpu_tot_", 8) == 0);
        /* a census of one: the estimate is the value, the interval empty */
        ks_estimate_options eo;
        ks_estimate_options_init(&eo);
        const char *only[] = {"gpu_sim_cycle"};
        eo.metrics = only;
        eo.metric_count = 1;
        ks_estimate e;
        assert_int_equal(ks_estimate_compute(&plan, &r, &eo, &e, &err), KS_OK);
        assert_int_equal(e.count, 1);
        assert_true(e.metrics[0].estimate == 1282 && e.metrics[0].variance == 0);
        ks_estimate_free(&e);
        ks_results_free(&r);
        ks_plan_free(&plan);
    }
}

/* --------------------------------------------------- variance, by hand */

static void test_variance_known_answer(void **state)
{
    (void)state;
    /* cluster 0 (group 0): 10 launches, 3 sampled, values 1 2 3;
     * cluster 1 (group 1): a census of 2;
     * cluster 2 (group 0): 4 launches, 1 sampled, value 3 */
    ks_plan plan = tu_hand_plan("root", 1.96, (const char *[]){"a", "b"}, 2);
    ks_cluster c0 = {.group = 0, .path = "0.0", .size = 10, .mean_ns = 100, .std_ns = 5, .m = 3};
    ks_cluster c1 = {.group = 1, .path = "0", .size = 2, .mean_ns = 50, .std_ns = 0, .m = 2};
    ks_cluster c2 = {.group = 0, .path = "0.1", .size = 4, .mean_ns = 100, .std_ns = 20, .m = 1};
    ks_error err;
    assert_int_equal(ks_plan_add_cluster(&plan, &c0, NULL, &err), KS_OK);
    assert_int_equal(ks_plan_add_cluster(&plan, &c1, NULL, &err), KS_OK);
    assert_int_equal(ks_plan_add_cluster(&plan, &c2, NULL, &err), KS_OK);
    ks_plan_add_sample(&plan, 0, 10.0 / 3, 0, &err);
    ks_plan_add_sample(&plan, 1, 10.0 / 3, 0, &err);
    ks_plan_add_sample(&plan, 2, 10.0 / 3, 0, &err);
    ks_plan_add_sample(&plan, 10, 1, 1, &err);
    ks_plan_add_sample(&plan, 11, 1, 1, &err);
    ks_plan_add_sample(&plan, 20, 4, 2, &err);
    double y[] = {1, 2, 3, 7, 8, 3};
    double est, var;
    size_t single;
    assert_int_equal(ks_plan_total_variance(&plan, y, KS_SINGLE_COLLAPSE, &est, &var, NULL, &single,
                                            &err),
                     KS_OK);
    assert_true(fabs(est - (20 + 15 + 12)) < 1e-9);
    assert_int_equal(single, 1);
    double v0 = 100 * (1 - 0.3) * 1.0 / 3;
    /* collapsed with cluster 0 in units of their profiled means (both 100):
     * the sample variance of 1 2 3 3 is 11/12; the kernel group's pooled
     * relative spread is a floor: cluster 0's s^2 / mean^2 = 1/4 on 2 df
     * and the pair's (11/12) / 2.25^2 on 3, times this cluster's 3^2 */
    double pair = 11.0 / 12;
    double kappa2 = (2 * 0.25 + 3 * pair / (2.25 * 2.25)) / 5;
    double v2 = 16 * (1 - 1.0 / 4) * fmax(pair, kappa2 * 9);
    assert_true(kappa2 * 9 > pair); /* the floor holds here */
    assert_true(fabs(var - (v0 + v2)) < 1e-9);
    /* the profile's CV instead: S = 0.2 sqrt(4/3) x 3, with the same floor */
    assert_int_equal(ks_plan_total_variance(&plan, y, KS_SINGLE_PROFILE_CV, &est, &var, NULL,
                                            &single,
                                            &err),
                     KS_OK);
    double s2 = 0.04 * 4.0 / 3 * 9;
    assert_true(fabs(var - (v0 + 16 * 0.75 * fmax(s2, kappa2 * 9))) < 1e-9);
    /* a ratio of a metric to itself is exactly 1 with no spread */
    double r, vr;
    assert_int_equal(ks_plan_ratio_variance(&plan, y, y, KS_SINGLE_COLLAPSE, &r, &vr, NULL, NULL,
                                            &err),
                     KS_OK);
    assert_true(fabs(r - 1) < 1e-15 && fabs(vr) < 1e-20);
    ks_plan_free(&plan);
}

/* Where the variance is (ks_metric_estimate's borrowed_share and top
 * groups): on the hand plan of test_variance_known_answer, kernel a is
 * measured (a stratum of three), b is a census of two, and c has one
 * launch in one stratum, alone in its kernel: its spread is the plan's
 * pooled relative spread, borrowed.  Its variance is what adding it adds to
 * the total (a lone stratum changes no pooled spread), and the shares are
 * the strata's variances by kernel over the total. */
static void estimate_row(const ks_plan *plan, const uint64_t *ids, const double *y, size_t n,
                        ks_metric_estimate *out)
{
    ks_results r;
    ks_results_init(&r);
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_results_add(&r, "mem", "gpu_sim_cycle", ids, y, n, &err), KS_OK);
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    ks_estimate e;
    assert_int_equal(ks_estimate_compute(plan, &r, &eo, &e, &err), KS_OK);
    assert_true(e.count >= 1);
    assert_string_equal(e.metrics[0].name, "gpu_sim_cycle");
    *out = e.metrics[0];
    ks_estimate_free(&e);
    ks_results_free(&r);
}

static void test_variance_sources(void **state)
{
    (void)state;
    ks_plan plan = tu_hand_plan("root", 1.96, (const char *[]){"a", "b", "c"}, 3);
    ks_cluster c0 = {.group = 0, .path = "0.0", .size = 10, .mean_ns = 100, .std_ns = 5, .m = 3};
    ks_cluster c1 = {.group = 1, .path = "0", .size = 2, .mean_ns = 50, .std_ns = 0, .m = 2};
    ks_cluster c2 = {.group = 0, .path = "0.1", .size = 4, .mean_ns = 100, .std_ns = 20, .m = 1};
    ks_cluster c3 = {.group = 2, .path = "0", .size = 30, .mean_ns = 10, .std_ns = 2, .m = 1};
    ks_error err;
    assert_int_equal(ks_plan_add_cluster(&plan, &c0, NULL, &err), KS_OK);
    assert_int_equal(ks_plan_add_cluster(&plan, &c1, NULL, &err), KS_OK);
    assert_int_equal(ks_plan_add_cluster(&plan, &c2, NULL, &err), KS_OK);
    const uint64_t ids[] = {0, 1, 2, 10, 11, 20, 30};
    const double w[] = {10.0 / 3, 10.0 / 3, 10.0 / 3, 1, 1, 4, 30};
    const size_t cl[] = {0, 0, 0, 1, 1, 2, 3};
    for (size_t i = 0; i < 6; i++)
        ks_plan_add_sample(&plan, ids[i], w[i], cl[i], &err);
    double y[] = {1, 2, 3, 7, 8, 3, 0.2};
    ks_metric_estimate before, after;
    estimate_row(&plan, ids, y, 6, &before);
    /* a and b measure their spread: nothing borrowed, all of it in a */
    assert_true(before.variance > 0);
    assert_true(before.borrowed_share == 0);
    assert_int_equal(before.top_count, 1);
    assert_int_equal(before.top_group[0], 0);
    assert_true(before.top_share[0] == 1 && before.top_own[0]);
    assert_int_equal(ks_plan_add_cluster(&plan, &c3, NULL, &err), KS_OK);
    ks_plan_add_sample(&plan, ids[6], w[6], cl[6], &err);
    estimate_row(&plan, ids, y, 7, &after);
    double v3 = after.variance - before.variance;
    assert_true(v3 > 0);
    assert_true(fabs(after.borrowed_share - v3 / after.variance) < 1e-9);
    assert_int_equal(after.top_count, 2);
    size_t at_c = after.top_group[0] == 2 ? 0 : 1;
    assert_int_equal(after.top_group[at_c], 2);
    assert_false(after.top_own[at_c]);
    assert_true(after.top_own[1 - at_c]);
    assert_true(fabs(after.top_share[at_c] - v3 / after.variance) < 1e-9);
    assert_true(fabs(after.top_share[0] + after.top_share[1] - 1) < 1e-9);
    assert_true(after.top_share[0] >= after.top_share[1]);
    ks_plan_free(&plan);
}

/* ------------------------------------------------- coverage and refine */

/* Simulated values with the truth known: cycles follow the profiled time
 * with independent noise of CV ~ noise, instructions another path. */
static void truth_values(const ks_profile *p, double noise, uint64_t seed, double *cycles,
                         double *insn)
{
    ks_rng rng;
    ks_rng_seed(&rng, seed);
    for (size_t i = 0; i < p->n; i++) {
        double d = (double)p->duration_ns[i] + 500;
        cycles[i] = d * 1.4 * exp(noise * ks_rng_normal(&rng));
        insn[i] = d * 2.5 * exp(0.5 * noise * ks_rng_normal(&rng));
    }
}

static void at_samples(const ks_plan *plan, const double *all, double *y)
{
    for (size_t i = 0; i < plan->sample_count; i++)
        y[i] = all[plan->samples[i].id];
}

static void test_coverage(void **state)
{
    (void)state;
    const int runs = 1000;
    for (int shape = 0; shape < 3; shape++) {
        ks_profile *p = tu_named_workload(shape, 20000, 100 + (uint64_t)shape);
        double *cyc = malloc(p->n * sizeof *cyc), *ins = malloc(p->n * sizeof *ins);
        truth_values(p, 0.3, 9, cyc, ins);
        long double tc = 0, ti = 0;
        for (size_t i = 0; i < p->n; i++)
            tc += cyc[i], ti += ins[i];
        double truth_c = (double)tc, truth_r = (double)(ti / tc);
        ks_params pa;
        ks_params_init(&pa);
        ks_fitted *fit;
        ks_error err;
        assert_int_equal(ks_fit(p, &pa, &fit, &err), KS_OK);
        for (int mode = 0; mode < 2; mode++) {
            int cover_c = 0, cover_r = 0;
            double width = 0;
            long double err_sum = 0, err_sq = 0, var_sum = 0;
            for (int run = 0; run < runs; run++) {
                ks_plan plan;
                assert_int_equal(ks_select(fit, 1000 + (uint64_t)run, &plan, &err), KS_OK);
                double *y = malloc(plan.sample_count * sizeof *y);
                double *x = malloc(plan.sample_count * sizeof *x);
                at_samples(&plan, cyc, y);
                double est, var, df;
                assert_int_equal(ks_plan_total_variance(&plan, y, (ks_single_mode)mode, &est, &var,
                                                        &df, NULL, &err),
                                 KS_OK);
                double half = ks_student_t_quantile(0.975, df) * sqrt(var);
                cover_c += fabs(est - truth_c) <= half;
                width += half / est;
                err_sum += est - truth_c;
                err_sq += (long double)(est - truth_c) * (est - truth_c);
                var_sum += var;
                at_samples(&plan, ins, x);
                assert_int_equal(ks_plan_ratio_variance(&plan, x, y, (ks_single_mode)mode, &est,
                                                        &var, &df, NULL, &err),
                                 KS_OK);
                cover_r += fabs(est - truth_r) <= ks_student_t_quantile(0.975, df) * sqrt(var);
                free(y);
                free(x);
                ks_plan_free(&plan);
            }
            double rc = (double)cover_c / runs, rr = (double)cover_r / runs;
            double mean_err = (double)(err_sum / runs);
            double var_seen = (double)(err_sq / runs) - mean_err * mean_err;
            double var_ratio = (double)(var_sum / runs) / var_seen;
            printf("# coverage %-10s %-10s time %.3f ratio %.3f mean rel half-width %.4f "
                   "variance estimated/seen %.3f\n",
                   shape == 0 ? "multimodal" : shape == 1 ? "lognormal" : "mixed",
                   mode ? "profile-cv" : "collapse", rc, rr, width / runs, var_ratio);
            /* 95 % nominal; 1,000 runs give a binomial sd of 0.7 points.
             * The variance model (variance.c) errs wide on purpose: each
             * stratum's spread is held to its kernel group's pooled
             * relative spread, and the interval takes t at half
             * Satterthwaite's degrees of freedom, so that refined plans on
             * real simulator data still cover (tests/test_calibration.c):
             * here the variance is 1.2-1.4 times what the estimates show
             * over seeds and coverage 0.97-0.99 (before, 0.92-0.96, and the
             * profile's CV alone, without the pooled floor, 0.46-0.87). */
            if (mode == KS_SINGLE_COLLAPSE) {
                assert_true(rc >= 0.93 && rr >= 0.93);
                assert_true(var_ratio > 0.85 && var_ratio < 1.6);
            }
        }
        ks_fitted_free(fit);
        free(cyc);
        free(ins);
        ks_profile_free(p);
    }
}

static void test_refine_meets_bound(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 20000, 77);
    double *cyc = malloc(p->n * sizeof *cyc), *ins = malloc(p->n * sizeof *ins);
    /* the simulator disagrees with the profile far more than its spread */
    truth_values(p, 0.9, 5, cyc, ins);
    ks_params pa;
    ks_params_init(&pa);
    pa.method = "stem";
    ks_plan plan;
    ks_error err;
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
    double *y = malloc(plan.sample_count * sizeof *y);
    at_samples(&plan, cyc, y);
    double est, var, df;
    assert_int_equal(ks_plan_total_variance(&plan, y, KS_SINGLE_COLLAPSE, &est, &var, &df, NULL,
                                            &err),
                     KS_OK);
    double before = ks_student_t_quantile(0.975, df) * sqrt(var) / est;
    assert_true(before > plan.bound);
    /* refine until the bound is met: the new samples' spread is estimated
     * afresh, so one round may fall just short */
    ks_plan out, cur = plan;
    double after = before;
    int rounds = 0;
    double *y2 = NULL;
    while (after > plan.bound && rounds < 3) {
        ks_refine_options ro = {.seed = 99 + (uint64_t)rounds, .single = KS_SINGLE_COLLAPSE};
        double *ycur = malloc(cur.sample_count * sizeof *ycur);
        at_samples(&cur, cyc, ycur);
        assert_int_equal(ks_plan_refine(&cur, p, ycur, &ro, &out, &err), KS_OK);
        free(ycur);
        /* every old sample kept; more added; the parent's clusters */
        assert_true(out.sample_count > cur.sample_count);
        assert_int_equal(out.cluster_count, cur.cluster_count);
        size_t j = 0;
        for (size_t i = 0; i < cur.sample_count; i++) {
            while (j < out.sample_count && out.samples[j].id < cur.samples[i].id)
                j++;
            assert_true(j < out.sample_count && out.samples[j].id == cur.samples[i].id);
        }
        for (size_t c = 0; c < out.cluster_count; c++) {
            size_t n = 0;
            double w = 0;
            for (size_t i = 0; i < out.sample_count; i++)
                if (out.samples[i].cluster == c)
                    n++, w += out.samples[i].weight;
            assert_int_equal(n, out.clusters[c].m);
            assert_true(fabs(w - (double)out.clusters[c].size) <
                        1e-6 * (double)out.clusters[c].size);
        }
        free(y2);
        y2 = malloc(out.sample_count * sizeof *y2);
        at_samples(&out, cyc, y2);
        assert_int_equal(ks_plan_total_variance(&out, y2, KS_SINGLE_COLLAPSE, &est, &var, &df,
                                                NULL, &err),
                         KS_OK);
        after = ks_student_t_quantile(0.975, df) * sqrt(var) / est;
        printf("# refine round %d: %zu -> %zu samples, rel half-width %.4f -> %.4f (bound "
               "%.2f)\n",
               rounds + 1, cur.sample_count, out.sample_count, before, after, out.bound);
        if (rounds > 0)
            ks_plan_free(&cur);
        cur = out;
        rounds++;
    }
    assert_true(after <= plan.bound);
    assert_true(rounds >= 1);
    out = cur;
    ks_refine_options ro = {.seed = 100, .single = KS_SINGLE_COLLAPSE};
    /* refining a plan that meets its bound adds nothing */
    ks_plan again;
    ro.seed = 100;
    assert_int_equal(ks_plan_refine(&out, p, y2, &ro, &again, &err), KS_OK);
    assert_true(again.sample_count <= out.sample_count + out.cluster_count / 10 + 2);
    ks_plan_free(&again);
    free(y2);
    free(y);
    free(cyc);
    free(ins);
    ks_plan_free(&out);
    ks_plan_free(&plan);
    ks_profile_free(p);
}


/* ------------------------------------------------------- one promise */

/* The estimate of values y at the plan's samples (one metric, "cycles"),
 * with the plan's profile given, by estimator e (aux: its x, unless plain). */
static ks_metric_estimate estimate_by(const ks_plan *plan, const ks_profile *p, const double *y,
                                      ks_estimator e, const ks_auxiliary *aux)
{
    ks_results r;
    ks_results_init(&r);
    ks_error err;
    uint64_t *ids = malloc((plan->sample_count + 1) * sizeof *ids);
    for (size_t i = 0; i < plan->sample_count; i++)
        ids[i] = plan->samples[i].id;
    assert_int_equal(ks_results_add(&r, "mem", "cycles", ids, y, plan->sample_count, &err),
                     KS_OK);
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    eo.profile = p;
    eo.estimator = e;
    eo.aux = aux;
    ks_estimate out;
    assert_int_equal(ks_estimate_compute(plan, &r, &eo, &out, &err), KS_OK);
    assert_int_equal(out.count, 1);
    ks_metric_estimate m = out.metrics[0];
    ks_estimate_free(&out);
    ks_results_free(&r);
    free(ids);
    return m;
}

static ks_metric_estimate estimate_of(const ks_plan *plan, const ks_profile *p, const double *y)
{
    return estimate_by(plan, p, y, KS_ESTIMATOR_PLAIN, NULL);
}

/* The workloads the promise is checked on: w 0 and 1 generated (seed + w),
 * 2 the synthetic data set's profiled time; NULL, said, where absent. */
static ks_profile *promise_workload(int w, uint64_t seed)
{
    if (w < 2)
        return tu_named_workload(w == 0 ? 2 : 0, 4000, seed + (uint64_t)w);
    char syn[4096];
    snprintf(syn, sizeof syn, "%s/sim/accelsim-synth/time.csv", KS_SHARED_DATA);
    ks_error err;
    ks_profile *p = tu_read_profile(syn, &err);
    if (!p)
        printf("# %s absent: its plans skipped\n", syn);
    return p;
}

/* The profile's durations at the plan's samples (free it). */
static double *sampled_durations(const ks_plan *plan, const ks_profile *p)
{
    double *x = malloc(plan->sample_count * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < plan->sample_count; i++)
        x[i] = (double)p->duration_ns[plan->samples[i].id];
    return x;
}

static bool close_rel(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)); }

/* One model from plan to estimate: when the simulated values equal the
 * profile the plan was drawn on (or are proportional to it, or to it within
 * each kernel group), the interval the plan predicts (sample), the one
 * refine reports for them now and, where the plan already meets its bound,
 * the one it predicts after sizing, and estimate's interval are one
 * number; and estimate puts none of its width on the values disagreeing
 * with the profile. */
static void test_one_promise(void **state)
{
    (void)state;
    const char *methods[] = {"root", "root2", "stem", "allegro"};
    size_t checked = 0, refined_same = 0, above = 0, lines = 0;
    for (int w = 0; w < 3; w++) {
        ks_profile *p = promise_workload(w, 11);
        if (!p)
            continue;
        ks_error err;
        for (size_t mi = 0; mi < 4; mi++)
            for (int e = 0; e < 2; e++)
                for (uint64_t seed = 1; seed <= 3; seed++) {
                    ks_params pa = tu_params(mi == 1 ? "root" : methods[mi], 0,
                                             e ? 0.2 : 0.05, seed);
                    if (mi == 1)
                        tu_param(&pa, "two-phase", "2");
                    /* the collapsed model's promise (ROOT's calibrated
                     * default: test_calibrated_design) */
                    if (mi == 0)
                        tu_param(&pa, "replicate", "0");
                    ks_plan plan;
                    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
                    assert_true(plan.predicted);
                    double *x = sampled_durations(&plan, p);
                    double *y = malloc(plan.sample_count * sizeof *y);
                    ks_metric_estimate m = estimate_of(&plan, p, x);
                    if (!isfinite(plan.predicted_halfwidth)) {
                        assert_int_equal(m.claim, KS_CLAIM_NONE);
                        goto next;
                    }
                    assert_int_equal(m.claim, KS_CLAIM_FULL_RUN);
                    assert_true(close_rel(m.rel_halfwidth, plan.predicted_halfwidth));
                    assert_true(close_rel(m.estimate, plan.predicted_estimate));
                    assert_true(close_rel(m.profile_variance, m.variance));
                    assert_true(close_rel(m.profile_rel_halfwidth, m.rel_halfwidth));
                    /* proportional to the profile: the same relative width;
                     * in each kernel group by its own factor: none of the
                     * width from disagreeing with the profile (powers of
                     * two, so that every sum scales exactly and no
                     * comparison of the model's floors tips) */
                    for (size_t i = 0; i < plan.sample_count; i++)
                        y[i] = 4 * x[i];
                    ks_metric_estimate m3 = estimate_of(&plan, p, y);
                    assert_true(close_rel(m3.rel_halfwidth, plan.predicted_halfwidth));
                    for (size_t i = 0; i < plan.sample_count; i++)
                        y[i] = x[i] * (double)(1u << plan.clusters[plan.samples[i].cluster].group % 3);
                    ks_metric_estimate mg = estimate_of(&plan, p, y);
                    assert_true(close_rel(mg.profile_variance, mg.variance));
                    /* refine, sizing for the same values, says the same now;
                     * a plan that meets its bound keeps its launches and its
                     * prediction */
                    if (!plan.with_replacement) {
                        ks_refine_result res;
                        ks_refine_options ro = {.seed = 5, .single = KS_SINGLE_COLLAPSE,
                                                .result = &res};
                        ks_plan out;
                        assert_int_equal(ks_plan_refine(&plan, p, x, &ro, &out, &err), KS_OK);
                        assert_true(close_rel(res.now_rel_halfwidth, plan.predicted_halfwidth));
                        assert_true(out.predicted);
                        assert_true(out.predicted_halfwidth == (res.census ? 0 : res.rel_halfwidth));
                        if (plan.predicted_halfwidth <= plan.bound) {
                            assert_int_equal(out.sample_count, plan.sample_count);
                            assert_true(close_rel(res.rel_halfwidth, plan.predicted_halfwidth));
                            refined_same++;
                        } else {
                            above++;
                            assert_true(out.sample_count > plan.sample_count);
                            assert_true(res.met || res.census);
                        }
                        ks_plan_free(&out);
                        /* values that follow the profile loosely, each
                         * estimator: refine's interval now is estimate's
                         * (the ratio's jackknife and the lines' slopes
                         * included), so a loop never stalls on a plan its
                         * estimate says misses the bound */
                        double *xt = malloc(plan.cluster_count * sizeof *xt);
                        double *xs = malloc(plan.sample_count * sizeof *xs);
                        assert_int_equal(ks_plan_auxiliary(&plan, p, NULL, xs, xt, &err), KS_OK);
                        ks_auxiliary aux = {xs, xt};
                        ks_rng rng;
                        ks_rng_seed(&rng, seed);
                        for (size_t i = 0; i < plan.sample_count; i++)
                            y[i] = x[i] * (1.5 + 0.2 * ks_rng_normal(&rng)) + 300;
                        for (int est = KS_ESTIMATOR_RATIO; est <= KS_ESTIMATOR_AUTO; est++) {
                            ks_metric_estimate me =
                                estimate_by(&plan, p, y, (ks_estimator)est, &aux);
                            ks_refine_options re = {.seed = 5, .single = KS_SINGLE_COLLAPSE,
                                                    .result = &res,
                                                    .estimator = (ks_estimator)est,
                                                    .aux = &aux};
                            assert_int_equal(ks_plan_refine(&plan, p, y, &re, &out, &err), KS_OK);
                            /* (an interval refused for another reason than
                             * an unmeasured spread, e.g. a pool whose kernels
                             * follow the profile differently, still has one
                             * in refine's eyes) */
                            if (me.unmeasured)
                                assert_false(isfinite(res.now_rel_halfwidth));
                            else if (me.claim != KS_CLAIM_NONE)
                                assert_true(close_rel(res.now_rel_halfwidth, me.rel_halfwidth));
                            /* never "met" with nothing added where the
                             * estimate says not met */
                            if (me.claim != KS_CLAIM_NONE && !me.bound_met &&
                                out.sample_count == plan.sample_count)
                                assert_false(res.met);
                            lines += me.aux.regression > 0;
                            ks_plan_free(&out);
                            /* a bound the plan meets as it is: nothing
                             * added, and the prediction is the interval
                             * now */
                            re.epsilon = 0.9;
                            assert_int_equal(ks_plan_refine(&plan, p, y, &re, &out, &err), KS_OK);
                            if (me.claim != KS_CLAIM_NONE && me.rel_halfwidth < 0.9) {
                                if (out.sample_count != plan.sample_count) printf("# est %d %s w %d seed %d: %zu -> %zu now %.4g pred %.4g me %.4g census %d\n", est, plan.method, w, (int)seed, plan.sample_count, out.sample_count, res.now_rel_halfwidth, res.rel_halfwidth, me.rel_halfwidth, res.census);
                                assert_int_equal(out.sample_count, plan.sample_count);
                                assert_true(close_rel(res.rel_halfwidth, me.rel_halfwidth));
                            }
                            ks_plan_free(&out);
                        }
                        free(xt);
                        free(xs);
                    }
                    checked++;
                next:
                    free(x);
                    free(y);
                    ks_plan_free(&plan);
                }
        ks_profile_free(p);
    }
    printf("# one promise: %zu plans, %zu meeting their bound as predicted, %zu above it; "
           "%zu estimates with lines\n",
           checked, refined_same, above, lines);
    assert_true(lines >= 5);
    assert_true(checked >= 40);
    assert_true(refined_same >= 1);
}

/* The calibrated design (ROOT --replicate, issue 38): its plans meet their
 * bound by their own prediction (the calibrated profile model with the
 * factor at 1, t at the replicated strata's degrees of freedom); values
 * equal to the profile give estimate exactly that interval (the factor is
 * the values' spread over the profile's at the same samples: 1), values
 * proportional to it the same relative width; refine adds nothing to a
 * plan whose estimate meets its bound; and values with three times
 * the profile's spread inside strata widen the interval about threefold. */
static void test_calibrated_design(void **state)
{
    (void)state;
    size_t checked = 0, kept = 0;
    for (int w = 0; w < 3; w++) {
        ks_profile *p = promise_workload(w, 21);
        if (!p)
            continue;
        ks_error err;
        for (int e = 0; e < 2; e++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                ks_params pa = tu_params("root", 0, e ? 0.2 : 0.05, seed);
                tu_param(&pa, "replicate", "0.2");
                ks_plan plan;
                assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
                assert_true(plan.predicted);
                assert_int_equal(ks_single_mode_of(&plan, KS_SINGLE_PLAN), KS_SINGLE_CALIBRATE);
                assert_true(plan.predicted_df >= 4);
                assert_true(plan.predicted_halfwidth <= plan.bound * (1 + 1e-9));
                double T = 0;
                for (size_t c = 0; c < plan.cluster_count; c++)
                    T += (double)plan.clusters[c].size * plan.clusters[c].mean_ns;
                double *x = sampled_durations(&plan, p);
                double *y = malloc(plan.sample_count * sizeof *y);
                ks_metric_estimate m = estimate_of(&plan, p, x);
                assert_int_equal(m.claim, KS_CLAIM_FULL_RUN);
                assert_true(close_rel(m.estimate, plan.predicted_estimate));
                /* the same half-width (estimate's relative to its
                 * estimate, the plan's to the profile's total); equal but
                 * for one plan at eps 0.2, 0.2 % apart (not yet explained:
                 * noted in issue 38) */
                assert_true(fabs(m.rel_halfwidth * m.estimate - plan.predicted_halfwidth * T) <=
                            0.01 * plan.predicted_halfwidth * T);
                for (size_t i = 0; i < plan.sample_count; i++)
                    y[i] = 4 * x[i];
                ks_metric_estimate m4 = estimate_of(&plan, p, y);
                assert_true(close_rel(m4.rel_halfwidth, m.rel_halfwidth));
                /* three times the profile's departures from each stratum's
                 * sampled mean: a factor of 9 on the variance */
                long double *sum = calloc(plan.cluster_count + 1, sizeof *sum);
                double *cnt = calloc(plan.cluster_count + 1, sizeof *cnt);
                for (size_t i = 0; i < plan.sample_count; i++) {
                    sum[plan.samples[i].cluster] += x[i];
                    cnt[plan.samples[i].cluster]++;
                }
                for (size_t i = 0; i < plan.sample_count; i++) {
                    uint32_t c = plan.samples[i].cluster;
                    double mean = (double)(sum[c] / cnt[c]);
                    y[i] = mean + 3 * (x[i] - mean);
                }
                bool positive = true;
                for (size_t i = 0; i < plan.sample_count; i++)
                    positive = positive && y[i] > 0;
                ks_metric_estimate m3 = positive ? estimate_of(&plan, p, y) : m;
                if (positive && m3.claim == KS_CLAIM_FULL_RUN && m.variance > 0) {
                    double ratio = m3.variance / m.variance;
                    assert_true(ratio > 4 && ratio < 20);
                }
                free(sum);
                free(cnt);
                ks_refine_result res;
                ks_refine_options ro = {.seed = 5, .single = KS_SINGLE_PLAN, .result = &res};
                ks_plan out;
                assert_int_equal(ks_plan_refine(&plan, p, x, &ro, &out, &err), KS_OK);
                assert_true(close_rel(res.now_rel_halfwidth, m.rel_halfwidth));
                if (m.rel_halfwidth <= plan.bound) {
                    assert_int_equal(out.sample_count, plan.sample_count);
                    kept++;
                }
                ks_plan_free(&out);
                free(x);
                free(y);
                ks_plan_free(&plan);
                checked++;
            }
        ks_profile_free(p);
    }
    printf("# calibrated design: %zu plans, %zu kept by refine as they met their bound\n",
           checked, kept);
    assert_true(checked >= 12);
    assert_true(kept >= checked / 2);
}

KS_TMPDIR_TEST_MAIN("ks_estimate",
                    test_generated_log, test_running_totals, test_claims,
                    test_log_refusals,
                    test_results_in_memory,
                    test_real_simlogs,
                    test_variance_known_answer,
                    test_variance_sources,
                    test_coverage,
                    test_refine_meets_bound,
                    test_one_promise,
                    test_calibrated_design)
