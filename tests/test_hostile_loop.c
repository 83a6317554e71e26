/*
 * test_hostile_loop.c - issue 25's library-side regressions for the commands
 * that close the loop (export, run, estimate, refine, train, embed, report):
 * the one output check (an output that is, lies inside or holds an input,
 * through links, hard links and '..'), the one strict number rule, the
 * check that results belong to the plan, strict simulator-log and
 * results-CSV values (real GPGPU-Sim spellings still read), and refine
 * meeting the bound it prints.  The end-to-end cases are in
 * tests/hostile_loop.sh; test_hostile.c and hostile.sh hold issue 14's.
 */
#include "test_util.h"
#include "tmpdir.h"

#include <math.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "estimate.h"

/* ------------------------------------------------------- outputs vs inputs */

static void expect_output(const char *output, const char *input, ks_status want,
                          const char *part)
{
    const char *inputs[] = {input};
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_path_check_output(output, inputs, 1, &err);
    if (st != want || (part && !strstr(err.message, part)))
        fail_msg("output %s, input %s: status %d '%s', wanted %d with '%s'", output, input, st,
                 err.message, want, part ? part : "");
}

static void test_output_overlap(void **state)
{
    (void)state;
    assert_int_equal(mkdir(in_dir("st"), 0777), 0);
    assert_int_equal(mkdir(in_dir("st/sub"), 0777), 0);
    assert_int_equal(mkdir(in_dir("out"), 0777), 0);
    write_text("st/kernelslist.g", "kernel-1.traceg\n");
    write_text("plan.json", "{}\n");
    write_text("out/plan.json", "{}\n");
    assert_int_equal(symlink("st", in_dir("st-link")), 0);
    assert_int_equal(symlink("plan.json", in_dir("plan-link.json")), 0);
    assert_int_equal(link(in_dir("plan.json"), in_dir("plan-hard.json")), 0);
    assert_int_equal(symlink("st/new.csv", in_dir("dangling.csv")), 0);

    /* the input itself, however it is spelled */
    expect_output(in_dir("plan.json"), in_dir("plan.json"), KS_ERR_USAGE, "is the input");
    expect_output(in_dir("plan-link.json"), in_dir("plan.json"), KS_ERR_USAGE, "is the input");
    expect_output(in_dir("plan-hard.json"), in_dir("plan.json"), KS_ERR_USAGE, "is the input");
    expect_output(in_dir("st/../plan.json"), in_dir("plan.json"), KS_ERR_USAGE, "is the input");
    expect_output(in_dir("st"), in_dir("st-link"), KS_ERR_USAGE, "is the input");
    expect_output(in_dir("st/"), in_dir("st"), KS_ERR_USAGE, "is the input");
    /* inside an input folder, also where the path does not exist yet */
    expect_output(in_dir("st/kernelslist.g"), in_dir("st"), KS_ERR_USAGE, "inside the input");
    expect_output(in_dir("st/new/deeper/x"), in_dir("st-link"), KS_ERR_USAGE, "inside the input");
    expect_output(in_dir("nope/../st/x"), in_dir("st"), KS_ERR_USAGE, "inside the input");
    expect_output(in_dir("dangling.csv"), in_dir("st"), KS_ERR_USAGE, "inside the input");
    /* a folder holding an input */
    expect_output(in_dir("out"), in_dir("out/plan.json"), KS_ERR_USAGE, "holds the input");
    expect_output(tmpdir, in_dir("st/kernelslist.g"), KS_ERR_USAGE, "holds the input");
    /* apart: a sibling, a name that only starts like the input's */
    expect_output(in_dir("out/new.json"), in_dir("plan.json"), KS_OK, NULL);
    expect_output(in_dir("st2"), in_dir("st"), KS_OK, NULL);
    expect_output(in_dir("plan.json.bak"), in_dir("plan.json"), KS_OK, NULL);
    /* standard input/output, devices and FIFOs are never refused */
    expect_output("-", in_dir("plan.json"), KS_OK, NULL);
    expect_output(in_dir("x.json"), "-", KS_OK, NULL);
    if (access("/dev/null", W_OK) == 0)
        expect_output("/dev/null", "/dev/null", KS_OK, NULL);
    const char *none[] = {NULL, ""};
    ks_error err;
    assert_int_equal(ks_path_check_output(in_dir("plan.json"), none, 2, &err), KS_OK);

    ks_path_rel rel;
    assert_int_equal(ks_path_relation(in_dir("st/sub"), in_dir("st-link"), &rel, &err), KS_OK);
    assert_int_equal(rel, KS_PATH_A_INSIDE_B);
    assert_int_equal(ks_path_relation(in_dir("st-link"), in_dir("st/sub/x"), &rel, &err), KS_OK);
    assert_int_equal(rel, KS_PATH_B_INSIDE_A);
    char *r = ks_path_resolve(in_dir("st-link/sub/../new/x"));
    char *want = ks_path_resolve(in_dir("st"));
    assert_non_null(r);
    assert_non_null(want);
    char expect[8300];
    snprintf(expect, sizeof expect, "%s/new/x", want);
    assert_string_equal(r, expect);
    free(r);
    free(want);
}

/* ------------------------------------------------------------ numbers */

static void test_parse_decimal(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        unsigned flags;
        const char *why; /* NULL: accepted with value */
        double value;
    } cases[] = {
        {"12", KS_NUM_NONNEG, NULL, 12},
        {"+12.5", 0, NULL, 12.5},
        {".5", 0, NULL, 0.5},
        {"5.", 0, NULL, 5},
        {"1e3", 0, NULL, 1000},
        {"2.5E-2", 0, NULL, 0.025},
        {"-0", KS_NUM_NONNEG, NULL, 0},
        {"1e-320", KS_NUM_NONNEG, NULL, 1e-320}, /* a subnormal: a number */
        {"1e-400", 0, NULL, 0},                  /* below every double: the nearest, 0 */
        {"-5", KS_NUM_NONNEG, "is negative", 0},
        {"-5", 0, NULL, -5},
        {"12abc", 0, "is not a number", 0},
        {"0x10", 0, "is not a number", 0},
        {"0x1p-3", 0, "is not a number", 0},
        {"inf", 0, "is not a number", 0},
        {"nan", 0, "is not a number", 0},
        {" 12", 0, "is not a number", 0},
        {"12 ", 0, "is not a number", 0},
        {"", 0, "is not a number", 0},
        {"-", 0, "is not a number", 0},
        {".", 0, "is not a number", 0},
        {"1e", 0, "is not a number", 0},
        {"1e+", 0, "is not a number", 0},
        {"1,234", 0, "is not a number", 0},
        {"1e999", 0, "is out of range", 0},
        /* what a simulator printed (issue 34): no exponent, below 2^64 */
        {"1282", KS_NUM_MEASURE, NULL, 1282},
        {"2.9273", KS_NUM_MEASURE, NULL, 2.9273},
        {"18446744073709549568", KS_NUM_MEASURE, NULL, 18446744073709549568.0},
        {"18446744073709551616", KS_NUM_MEASURE, "is 2^64 or more", 0},
        {"1e300", KS_NUM_MEASURE, "is not a number", 0},
        {"1e3", KS_NUM_MEASURE, "is not a number", 0},
        {"-5", KS_NUM_MEASURE, "is negative", 0},
        {"nan", KS_NUM_MEASURE, "is not a number", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -1;
        const char *why = ks_parse_decimal(cases[i].text, strlen(cases[i].text), cases[i].flags,
                                           &v);
        if ((why == NULL) != (cases[i].why == NULL) ||
            (why && strcmp(why, cases[i].why) != 0) || (!why && v != cases[i].value))
            fail_msg("'%s': got %s (%g), wanted %s (%g)", cases[i].text, why ? why : "ok", v,
                     cases[i].why ? cases[i].why : "ok", cases[i].value);
    }
    /* len bounds the text: "12" of "12abc" */
    double v;
    assert_null(ks_parse_decimal("12abc", 2, 0, &v));
    assert_true(v == 12);
    /* a long run of digits is still one number */
    char digits[300];
    memset(digits, '1', sizeof digits - 1);
    digits[sizeof digits - 1] = '\0';
    assert_null(ks_parse_decimal(digits, strlen(digits), 0, &v));
    assert_true(v > 1e298);
    /* CSV cells follow the rule (after spaces and thousands separators) */
    bool missing;
    assert_false(ks_parse_double("0x10", &v, &missing));
    assert_true(ks_parse_double(" 1,234 ", &v, &missing) && v == 1234);
    assert_true(ks_parse_double("1e-320", &v, &missing) && v > 0);
}

/* ---------------------------------------------- results belong to the plan */

static ks_plan two_kernel_plan(ks_key key, const char *a, const char *b)
{
    ks_plan plan = tu_hand_plan("stem", 1.96, (const char *[]){a, b}, 2);
    plan.params.key = key;
    ks_error err;
    for (uint32_t g = 0; g < 2; g++) {
        ks_cluster c = {.group = g, .path = "0", .size = 10, .mean_ns = 100, .std_ns = 5, .m = 2};
        assert_int_equal(ks_plan_add_cluster(&plan, &c, NULL, &err), KS_OK);
    }
    /* ids 0, 2 of kernel a; 1, 3 of kernel b */
    for (uint64_t id = 0; id < 4; id++)
        assert_int_equal(ks_plan_add_sample(&plan, id, 5, (uint32_t)(id % 2), &err), KS_OK);
    plan.input_invocations = 20;
    return plan;
}

static void test_launch_check(void **state)
{
    (void)state;
    ks_error err;
    unsigned checked;
    const uint32_t g8[3] = {8, 1, 1}, b256[3] = {256, 1, 1}, g4[3] = {4, 1, 1};
    /* from the plan's kernel groups: demangled, bare and mangled agree */
    ks_plan plan = two_kernel_plan(KS_KEY_NAME, "void vec_scale(float const*, float*, float, int)",
                                   "spmv_csr");
    assert_int_equal(ks_plan_check_launch(&plan, NULL, 0, "_Z9vec_scalePKfPffi", g8, b256, "l",
                                          1, &checked, &err),
                     KS_OK);
    assert_int_equal(checked, KS_CHECKED_NAME); /* no grid in a name key */
    assert_int_equal(ks_plan_check_launch(&plan, NULL, 1, "_Z8spmv_csriPKiS0_PKfS2_Pf", NULL,
                                          NULL, "l", 1, &checked, &err),
                     KS_OK);
    assert_int_equal(ks_plan_check_launch(&plan, NULL, 2, "_Z8spmv_csriPKiS0_PKfS2_Pf", NULL,
                                          NULL, "sim.log", 17, &checked, &err),
                     KS_ERR_FORMAT);
    assert_string_equal(err.file, "sim.log");
    assert_int_equal(err.line, 17);
    assert_non_null(strstr(err.message, "plan id 2"));
    /* an id the plan did not sample, or no name given: nothing to compare */
    assert_int_equal(ks_plan_check_launch(&plan, NULL, 7, "other", NULL, NULL, "l", 1, &checked,
                                          &err),
                     KS_OK);
    assert_int_equal(checked, 0);
    assert_int_equal(ks_plan_check_launch(&plan, NULL, 0, "", NULL, NULL, "l", 1, &checked, &err),
                     KS_OK);
    ks_plan_free(&plan);

    /* name+grid+block labels carry the dimensions too */
    plan = two_kernel_plan(KS_KEY_NAME_GRID_BLOCK, "vec_scale[8,1,1][256,1,1]",
                           "vec_scale[4,1,1][256,1,1]");
    assert_int_equal(ks_plan_check_launch(&plan, NULL, 0, "_Z9vec_scalePKfPffi", g8, b256, "l",
                                          1, &checked, &err),
                     KS_OK);
    assert_int_equal(checked, KS_CHECKED_NAME | KS_CHECKED_DIMS);
    assert_int_equal(ks_plan_check_launch(&plan, NULL, 1, "_Z9vec_scalePKfPffi", g8, b256, "l",
                                          3, &checked, &err),
                     KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "grid (4, 1, 1)"));
    ks_plan_free(&plan);

    /* a plan that records no names (random, PKA: one group "all") */
    plan = tu_hand_plan("random", 1.96, (const char *[]){"all"}, 1);
    ks_cluster c = {.group = 0, .path = "0", .size = 10, .mean_ns = 100, .m = 1};
    assert_int_equal(ks_plan_add_cluster(&plan, &c, NULL, &err), KS_OK);
    assert_int_equal(ks_plan_add_sample(&plan, 3, 10, 0, &err), KS_OK);
    assert_false(ks_plan_records_names(&plan));
    assert_int_equal(ks_plan_check_launch(&plan, NULL, 3, "anything", g4, b256, "l", 1, &checked,
                                          &err),
                     KS_OK);
    assert_int_equal(checked, 0);

    /* with the plan's profile every launch is known, grid and block too */
    const char *csv = write_text("prof.csv", "name,duration_ns,grid,block\n"
                                             "vec_scale,10,8 1 1,256 1 1\n"
                                             "spmv,20,32 1 1,128 1 1\n"
                                             "vec_scale,11,4 1 1,256 1 1\n"
                                             "spmv,21,32 1 1,128 1 1\n");
    ks_profile *p;
    assert_int_equal(ks_profile_read(csv, NULL, &p, &err), KS_OK);
    assert_int_equal(ks_plan_check_launch(&plan, p, 2, "_Z9vec_scalePKfPffi", g4, b256, "l", 1,
                                          &checked, &err),
                     KS_OK);
    assert_int_equal(checked, KS_CHECKED_NAME | KS_CHECKED_DIMS);
    assert_int_equal(ks_plan_check_launch(&plan, p, 2, "_Z9vec_scalePKfPffi", g8, b256, "l", 9,
                                          &checked, &err),
                     KS_ERR_FORMAT);
    assert_int_equal(ks_plan_check_launch(&plan, p, 1, "vec_scale", NULL, NULL, "l", 9, &checked,
                                          &err),
                     KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "\"spmv\" in the plan's profile"));
    assert_int_equal(ks_plan_check_launch(&plan, p, 4, "spmv", NULL, NULL, "l", 9, &checked,
                                          &err),
                     KS_ERR_FORMAT);
    ks_profile_free(p);
    ks_plan_free(&plan);
}

/* ------------------------------------------------- simulator logs, strictly */

/* One Accel-Sim kernel: the trace header it echoes, then its block. */
static void kernel_block(FILE *f, const char *name, unsigned uid, unsigned grid,
                         const char *cycles)
{
    fprintf(f, "-kernel name = %s\n-grid dim = (%u,1,1)\n-block dim = (256,1,1)\n", name, grid);
    fprintf(f, "Header info loaded for kernel command : kernel-%u.traceg\n", uid);
    fprintf(f, "launching kernel name: %s uid: %u cuda_stream_id: 0\n", name, uid);
    fprintf(f, "kernel_name = %s \nkernel_launch_uid = %u \n", name, uid);
    fprintf(f, "gpu_sim_cycle = %s\ngpu_sim_insn = 4000\ngpu_ipc =       2.5000\n", cycles);
    /* GPGPU-Sim's own spellings, all read as before */
    fprintf(f, "gpu_occupancy = 20.6860%% \ngpgpu_silicon_slowdown = 1234x\n");
    fprintf(f, "min_bank_accesses = 0!\nRow_Buffer_Locality_write = -nan\n");
    fprintf(f, "traffic_breakdown_coretomem[GLOBAL_ACC_R] = 800 {8:100,}\n");
    fprintf(f, "gpgpu_simulation_rate = 4000 (inst/sec)\nL2_BW  =       0.5616 GB/Sec\n");
}

static const char *write_log(const char *file, const char *names[2], const unsigned grids[2],
                             const char *cycles[2])
{
    const char *path = in_dir(file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (unsigned k = 0; k < 2; k++)
        kernel_block(f, names[k], k + 1, grids[k], cycles[k]);
    fprintf(f, "GPGPU-Sim: *** exit detected ***\n");
    fclose(f);
    return path;
}

static ks_status read_log(const char *path, const ks_plan *plan, const ks_profile *p,
                          ks_results *r, ks_error *err)
{
    ks_results_init(r);
    ks_results_options o;
    ks_results_options_init(&o);
    o.profile = p;
    return ks_results_read(path, plan, &o, r, err);
}

static void test_simlog_strict(void **state)
{
    (void)state;
    ks_plan plan = two_kernel_plan(KS_KEY_NAME, "vec_scale", "spmv_csr");
    plan.sample_count = 2; /* ids 0 (vec_scale) and 1 (spmv_csr): uids 1, 2 */
    const char *names[2] = {"_Z9vec_scalePKfPffi", "_Z8spmv_csriPKiS0_PKfS2_Pf"};
    const unsigned grids[2] = {8, 32};
    ks_results r;
    ks_error err;
    const char *good = write_log("good.log", names, grids, (const char *[]){"1282", "1500.0"});
    assert_int_equal(read_log(good, &plan, NULL, &r, &err), KS_OK);
    long cyc = ks_results_metric(&r, "gpu_sim_cycle");
    assert_true(cyc >= 0 && r.values[cyc][0] == 1282 && r.values[cyc][1] == 1500);
    long slow = ks_results_metric(&r, "gpgpu_silicon_slowdown");
    assert_true(slow >= 0 && r.values[slow][0] == 1234);
    assert_true(ks_results_metric(&r, "min_bank_accesses") >= 0);
    assert_true(ks_results_metric(&r, "Row_Buffer_Locality_write") < 0); /* -nan: none */
    assert_true(ks_results_metric(&r, "traffic_breakdown_coretomem[GLOBAL_ACC_R]") < 0);
    assert_int_equal(r.unchecked_names, 0);
    assert_int_equal(r.unchecked_dims, 2); /* a name key: the plan has no dims */
    ks_results_free(&r);

    /* a value that is not a non-negative base-10 number: refused at its line */
    static const struct {
        const char *value, *why;
    } bad[] = {{"12abc", "is not a number"}, {"0x10", "is not a number"},
               {"-5", "is negative"},       {"1e999", "is not a number"},
               {"12.5.3", "is not a number"},
               /* issue 34: what no simulator prints for a count */
               {"1e300", "is not a number"},  {"1.5e3", "is not a number"},
               {"18446744073709551616", "is 2^64 or more"},
               {"99999999999999999999999", "is 2^64 or more"},
               {"nan", "is not a number"},    {"inf", "is not a number"},
               {"-nan", "is not a number"},   {"", "is empty"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path =
            write_log("bad.log", names, grids, (const char *[]){"1000", bad[i].value});
        assert_int_equal(read_log(path, &plan, NULL, &r, &err), KS_ERR_FORMAT);
        ks_results_free(&r);
        if (!strstr(err.message, bad[i].why) || !strstr(err.message, "gpu_sim_cycle") ||
            err.line != 25)
            fail_msg("%s: line %ld: %s", bad[i].value, err.line, err.message);
    }

    /* the log of another plan: same count, other kernels; named at the block */
    const char *swapped[2] = {names[1], names[0]};
    const char *other = write_log("other.log", swapped, grids, (const char *[]){"1", "2"});
    assert_int_equal(read_log(other, &plan, NULL, &r, &err), KS_ERR_FORMAT);
    ks_results_free(&r);
    assert_int_equal(err.line, 6); /* the first block's kernel_name line */
    assert_non_null(strstr(err.message, "another plan"));

    /* with the profile, the echoed grid is checked too */
    const char *csv = write_text("two.csv", "name,duration_ns,grid,block\n"
                                            "vec_scale,10,8 1 1,256 1 1\n"
                                            "spmv_csr,20,32 1 1,256 1 1\n"
                                            "vec_scale,10,8 1 1,256 1 1\n"
                                            "spmv_csr,20,32 1 1,256 1 1\n");
    ks_profile *p;
    assert_int_equal(ks_profile_read(csv, NULL, &p, &err), KS_OK);
    assert_int_equal(read_log(good, &plan, p, &r, &err), KS_OK);
    assert_int_equal(r.unchecked_dims, 0);
    ks_results_free(&r);
    const char *regrid =
        write_log("regrid.log", names, (const unsigned[]){8, 16}, (const char *[]){"1", "2"});
    assert_int_equal(read_log(regrid, &plan, p, &r, &err), KS_ERR_FORMAT);
    ks_results_free(&r);
    assert_non_null(strstr(err.message, "grid (16, 1, 1)"));
    ks_profile_free(p);
    plan.sample_count = 4;
    ks_plan_free(&plan);
}

static void test_results_csv_strict(void **state)
{
    (void)state;
    ks_plan plan = two_kernel_plan(KS_KEY_NAME, "a", "b");
    static const struct {
        const char *text, *why;
        long line;
    } cases[] = {
        {"id,gpu_sim_cycle\n0,-5\n", "is negative", 2},
        {"id,gpu_sim_cycle\n0,5\n1,0x10\n", "is not a number", 3},
        {"id,gpu_sim_cycle\n0,12abc\n", "is not a number", 2},
        {"id,gpu_sim_cycle\n0,inf\n", "is not a number", 2},
        /* issue 34 */
        {"id,gpu_sim_cycle\n0,5\n1,1e300\n", "is not a number", 3},
        {"id,gpu_sim_cycle\n0,18446744073709551616\n", "is 2^64 or more", 2},
        {"id,gpu_sim_cycle\n0,nan\n", "is not a number", 2},
        {"id,gpu_sim_cycle,gpu_sim_cycle\n0,5,6\n", "named twice", 1},
        {"id,gpu_sim_cycle\n0,5,7\n", "the header has 2", 2},
        {"id,gpu_sim_cycle\n\"0,5\n", "line break", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = write_text("res.csv", cases[i].text);
        ks_results r;
        ks_error err;
        assert_int_equal(read_log(path, &plan, NULL, &r, &err), KS_ERR_FORMAT);
        ks_results_free(&r);
        if (!strstr(err.message, cases[i].why) || err.line != cases[i].line)
            fail_msg("case %zu: line %ld: %s", i, err.line, err.message);
    }
    const char *ok = write_text("ok.csv", "id,gpu_sim_cycle,x\n0,5,\n1,0.000001,n/a\n2, 7 ,1.5\n");
    ks_results r;
    ks_error err;
    assert_int_equal(read_log(ok, &plan, NULL, &r, &err), KS_OK);
    assert_int_equal(r.row_count, 3);
    ks_results_free(&r);
    ks_plan_free(&plan);
}

/* ------------------------------------------------------------------ refine */

/* The bound the refined sizes reach with the spread refine used: V over
 * the parent's clusters with S^2 from the parent's samples (the estimator's
 * own ks_strata_spread) and the new sizes, recomputed here. */
static double reached(const ks_plan *parent, const double *y, const ks_plan *out, double t)
{
    size_t k = parent->cluster_count;
    ks_stratum_spread *sp = calloc(k, sizeof *sp);
    ks_error err;
    assert_int_equal(ks_strata_spread(parent, y, y, NULL, NULL, KS_SINGLE_COLLAPSE, sp, NULL, &err),
                     KS_OK);
    long double v = 0, total = 0;
    for (size_t i = 0; i < parent->sample_count; i++)
        total += parent->samples[i].weight * (long double)y[i];
    for (size_t c = 0; c < k; c++) {
        double N = (double)out->clusters[c].size, m = 0;
        for (size_t i = 0; i < out->sample_count; i++)
            m += out->samples[i].cluster == c;
        if (sp[c].census || m >= N)
            continue;
        v += (long double)N * N * (1 - m / N) * sp[c].s2 / m;
    }
    free(sp);
    return t * sqrt((double)v) / fabs((double)total);
}

static void test_refine_meets_printed_bound(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 3000, 41);
    double *cyc = malloc(p->n * sizeof *cyc);
    ks_rng rng;
    ks_rng_seed(&rng, 3);
    /* the simulator spreads far more than the profile inside each cluster */
    for (size_t i = 0; i < p->n; i++)
        cyc[i] = ((double)p->duration_ns[i] + 500) * exp(1.2 * ks_rng_normal(&rng));
    ks_params pa;
    ks_params_init(&pa);
    pa.method = "stem";
    pa.epsilon = 0.3;
    ks_plan plan;
    ks_error err;
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
    double *y = malloc(plan.sample_count * sizeof *y);
    for (size_t i = 0; i < plan.sample_count; i++)
        y[i] = cyc[plan.samples[i].id];
    const double eps[] = {0.05, 0.02, 1e-9};
    for (size_t e = 0; e < 3; e++) {
        ks_refine_result res;
        ks_refine_options ro = {.epsilon = eps[e], .seed = 7, .single = KS_SINGLE_COLLAPSE, .result = &res};
        ks_plan out;
        assert_int_equal(ks_plan_refine(&plan, p, y, &ro, &out, &err), KS_OK);
        double r = reached(&plan, y, &out, res.t);
        printf("# refine --epsilon %g: %zu -> %zu samples, reached %.4f (said %.4f)%s\n",
               eps[e], plan.sample_count, out.sample_count, r, res.rel_halfwidth,
               res.census ? ", a census" : "");
        assert_true(res.met);
        assert_true(r <= eps[e] * (1 + 1e-9));
        assert_true(fabs(r - res.rel_halfwidth) <= 1e-9 + 1e-9 * r);
        if (eps[e] < 1e-6) {
            /* nothing short of every launch meets it: a census, exact */
            assert_true(res.census);
            assert_int_equal(out.sample_count, p->n);
        }
        ks_plan_free(&out);
    }
    free(y);
    free(cyc);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks-test-hostile-loop",
                    test_output_overlap,
                    test_parse_decimal,
                    test_launch_check,
                    test_simlog_strict,
                    test_results_csv_strict,
                    test_refine_meets_printed_bound)
