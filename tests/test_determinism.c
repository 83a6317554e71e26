/*
 * test_determinism.c - a plan depends only on the profile, the parameters
 * and the seed: the same inputs give byte-identical JSON and CSV for every
 * method, whatever was planned before in the same process; another seed
 * gives other samples.  The command-line tool is held to the same: two runs
 * write identical files, equal to what the library writes for the same
 * input, and leave no temporary files behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ksample.h"
#include "test_util.h"
#include "tmpdir.h"

enum { KS_ALLOC_JOINT = 0, KS_ALLOC_TREE = 1 };

typedef struct config {
    const char *label, *method;
    int allocation, replacement;
    double speedup, fraction;
} config;

static const config configs[] = {
    {"root(joint)", "root", KS_ALLOC_JOINT, 0, 0, 0},
    {"root(tree)", "root", KS_ALLOC_TREE, 0, 0, 0},
    {"root(joint, with replacement)", "root", KS_ALLOC_JOINT, 1, 0, 0},
    {"stem", "stem", 0, 0, 0, 0},
    {"stem(with replacement)", "stem", 0, 1, 0, 0},
    {"allegro", "allegro", 0, 0, 0, 0},
    {"random(fraction)", "random", 0, 0, 0, 0.02},
    {"random(speedup)", "random", 0, 0, 50, 0},
};
#define CONFIG_COUNT (sizeof configs / sizeof configs[0])

static ks_params config_params(const config *c, uint64_t seed)
{
    ks_params pa;
    ks_params_init(&pa);
    pa.method = c->method;
    tu_param(&pa, "allocation", "%s", c->allocation == KS_ALLOC_TREE ? "tree" : "joint");
    tu_param(&pa, "with-replacement", "%d", (int)(c->replacement));
    if ((c->speedup) > 0) tu_param(&pa, "target-speedup", "%.17g", (double)(c->speedup));
    if ((c->fraction) > 0) tu_param(&pa, "fraction", "%.17g", (double)(c->fraction));
    pa.seed = seed;
    return pa;
}

typedef struct bytes {
    char *data;
    size_t len;
} bytes;

static bytes plan_bytes(const ks_profile *p, const ks_params *pa, bool csv)
{
    ks_plan plan;
    ks_error err;
    ks_error_clear(&err);
    if (ks_plan_build(p, pa, &plan, &err) != KS_OK)
        fail_msg("%s: %s", pa->method, err.message);
    bytes b = {NULL, 0};
    FILE *f = open_memstream(&b.data, &b.len);
    assert_non_null(f);
    assert_int_equal(csv ? ks_plan_write_csv(&plan, f, &err) : ks_plan_write_json(&plan, f, &err),
                     KS_OK);
    assert_int_equal(fclose(f), 0);
    ks_plan_free(&plan);
    assert_true(b.len > 0);
    return b;
}

static bool same(const bytes *a, const bytes *b)
{
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* The sampled ids of a plan, as a comparable string. */
static char *sample_ids(const ks_profile *p, const ks_params *pa)
{
    ks_plan plan;
    ks_error err;
    assert_int_equal(ks_plan_build(p, pa, &plan, &err), KS_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    for (size_t i = 0; i < plan.sample_count; i++)
        fprintf(f, "%llu ", (unsigned long long)plan.samples[i].id);
    fclose(f);
    ks_plan_free(&plan);
    return buf;
}

static void test_same_seed_same_bytes(void **state)
{
    (void)state;
    for (int w = 0; w < 3; w++) {
        ks_profile *p = tu_named_workload(w, 8000, 700 + w);
        /* an identical profile built separately: nothing may depend on where
         * the profile lives in memory */
        ks_profile *q = tu_named_workload(w, 8000, 700 + w);
        assert_non_null(p);
        assert_non_null(q);
        for (size_t i = 0; i < CONFIG_COUNT; i++) {
            for (int csv = 0; csv < 2; csv++) {
                ks_params pa = config_params(&configs[i], 4242);
                bytes a = plan_bytes(p, &pa, csv);
                /* something else planned in between must not leak state */
                ks_params other = config_params(&configs[(i + 3) % CONFIG_COUNT], 7);
                bytes between = plan_bytes(p, &other, csv);
                bytes b = plan_bytes(p, &pa, csv);
                bytes c = plan_bytes(q, &pa, csv);
                if (!same(&a, &b) || !same(&a, &c))
                    fail_msg("%s on workload %d: the same seed gave different %s", configs[i].label,
                             w, csv ? "CSV" : "JSON");
                if (!csv) {
                    assert_non_null(strstr(a.data, "\"seed\": 4242"));
                    assert_non_null(strstr(a.data, configs[i].method));
                }
                free(a.data);
                free(b.data);
                free(c.data);
                free(between.data);
            }
        }
        ks_profile_free(p);
        ks_profile_free(q);
    }
}

static void test_different_seed_different_samples(void **state)
{
    (void)state;
    static const char *const methods[] = {"random", "root", "stem", "allegro"};
    for (int w = 0; w < 3; w++) {
        ks_profile *p = tu_named_workload(w, 8000, 800 + w);
        assert_non_null(p);
        for (int m = 0; m < 4; m++) {
            ks_params pa;
            ks_params_init(&pa);
            pa.method = methods[m];
            if ((strcmp(methods[m], "random") == 0 ? 0.02 : 0) > 0) tu_param(&pa, "fraction", "%.17g", (double)(strcmp(methods[m], "random") == 0 ? 0.02 : 0));
            int differing = 0;
            for (uint64_t seed = 1; seed <= 5; seed++) {
                pa.seed = seed;
                char *a = sample_ids(p, &pa);
                pa.seed = seed + 1000;
                char *b = sample_ids(p, &pa);
                differing += strcmp(a, b) != 0;
                free(a);
                free(b);
            }
            if (differing < 5)
                fail_msg("%s on workload %d: only %d of 5 seed pairs gave different samples",
                         methods[m], w, differing);
        }
        ks_profile_free(p);
    }
}

/* ------------------------------------------------------------ CLI */

static bytes file_bytes(const char *path)
{
    bytes b;
    b.data = read_file(path, &b.len);
    return b;
}

/* An nsys cuda_kern_exec_trace CSV of a synthetic workload, in launch order. */
static void write_kern_exec_csv(const char *path, const ks_profile *p)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
          "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,"
          "Kernel Name\n",
          f);
    long long t = 1000000;
    for (size_t i = 0; i < p->n; i++) {
        long long d = (long long)p->duration_ns[i];
        fprintf(f, "%lld,5000,,,%lld,%lld,%lld,1,1,0,cuLaunchKernel, %u    1    1, 256    1    1,"
                   "\"%s\"\n",
                t, t + 6000, d, d + 6000, 64u + (unsigned)(i % 2) * 64u, ks_profile_name(p, i));
        t += d + 7000;
    }
    assert_int_equal(fclose(f), 0);
}

static int run_cli(const char *args, bool expect_ok)
{
    char cmd[32768];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", KS_CLI, args, in_dir("stderr.txt"));
    int rc = system(cmd);
    rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    if (rc != 0 && expect_ok) {
        bytes e = file_bytes(in_dir("stderr.txt"));
        print_message("ksample %s: exit %d: %.*s\n", args, rc, (int)e.len, e.data);
        free(e.data);
    }
    return rc;
}

/* ksample sample OPTIONS --seed SEED -o OUT CSV, which must succeed. */
static void cli_sample(const char *options, int seed, const char *out, const char *csv)
{
    char args[20000];
    snprintf(args, sizeof args, "sample %s --seed %d -o '%s' '%s'", options, seed, out, csv);
    assert_int_equal(run_cli(args, true), 0);
}

static void assert_no_temporaries(void)
{
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp."))
            fail_msg("temporary file %s left in %s", e->d_name, tmpdir);
    closedir(d);
}

static void test_cli_same_bytes(void **state)
{
    (void)state;
    if (access(KS_CLI, X_OK) != 0) {
        print_message("skipping: %s is not built\n", KS_CLI);
        skip();
    }
    ks_profile *synthetic = tu_named_workload(0, 3000, 900);
    assert_non_null(synthetic);
    char csv[8192];
    snprintf(csv, sizeof csv, "%s", in_dir("profile.csv"));
    write_kern_exec_csv(csv, synthetic);
    ks_profile_free(synthetic);

    ks_profile *p = NULL;
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_error err;
    ks_error_clear(&err);
    if (ks_profile_read(csv, &opt, &p, &err) != KS_OK)
        fail_msg("reading the generated CSV: %s", err.message);
    assert_int_equal(p->n, 3000);

    static const struct {
        const char *method, *extra;
    } runs[] = {
        {"root", ""},
        {"root", "--allocation tree"},
        {"stem", "--with-replacement"},
        {"allegro", ""},
        {"random", "--fraction 0.05"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char options[256];
        snprintf(options, sizeof options, "--method %s %s", runs[i].method, runs[i].extra);
        const char *a = in_dir("a.json"), *b = in_dir("b.json"), *c = in_dir("c.json");
        cli_sample(options, 31, a, csv);
        cli_sample(options, 31, b, csv);
        cli_sample(options, 32, c, csv);
        bytes ba = file_bytes(a), bb = file_bytes(b), bc = file_bytes(c);
        if (!same(&ba, &bb))
            fail_msg("ksample sample --method %s %s: two runs wrote different files",
                     runs[i].method, runs[i].extra);
        assert_false(same(&ba, &bc)); /* the seed is in the file, at least */

        /* the library, given the same file and options, writes the same bytes */
        ks_params pa;
        ks_params_init(&pa);
        pa.method = runs[i].method;
        pa.seed = 31;
        if (strstr(runs[i].extra, "tree"))
            tu_param(&pa, "allocation", "tree");
        if (strstr(runs[i].extra, "replacement"))
            tu_param(&pa, "with-replacement", "%d", (int)(1));
        if (strstr(runs[i].extra, "fraction"))
            if ((0.05) > 0) tu_param(&pa, "fraction", "%.17g", (double)(0.05));
        bytes lib = plan_bytes(p, &pa, false);
        if (!same(&ba, &lib))
            fail_msg("ksample sample --method %s %s differs from ks_plan_write_json",
                     runs[i].method, runs[i].extra);
        free(ba.data);
        free(bb.data);
        free(bc.data);
        free(lib.data);
        assert_no_temporaries();
    }
    /* CSV output too */
    cli_sample("--csv", 5, in_dir("a.csv"), csv);
    cli_sample("--csv", 5, in_dir("b.csv"), csv);
    bytes ca = file_bytes(in_dir("a.csv")), cb = file_bytes(in_dir("b.csv"));
    assert_true(same(&ca, &cb));
    assert_true(ca.len > 10 && strncmp(ca.data, "id,weight\n", 10) == 0);
    free(ca.data);
    free(cb.data);
    /* a failed run (unknown method) leaves nothing behind either */
    char args[20000];
    snprintf(args, sizeof args, "sample --method nosuch -o '%s' '%s'", in_dir("d.json"), csv);
    assert_int_not_equal(run_cli(args, false), 0);
    assert_int_equal(access(in_dir("d.json"), F_OK), -1);
    assert_no_temporaries();
    /* a run whose final rename fails (the output is a directory): its
     * temporary file, written beside the output, is removed */
    char sub[8192];
    snprintf(sub, sizeof sub, "%s", in_dir("out.json"));
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(args, sizeof args, "sample -o '%s' '%s'", sub, csv);
    assert_int_not_equal(run_cli(args, false), 0);
    assert_no_temporaries();
    assert_int_equal(rmdir(sub), 0);
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks-test-determinism",
                    test_same_seed_same_bytes,
                    test_different_seed_different_samples,
                    test_cli_same_bytes)
