/*
 * test_hostile_data.c - issue 34's shared checks through the library, beside
 * tests/hostile_data.sh which drives the command: the output check against
 * the links of an input folder and their targets, folders written whole or
 * not at all, one run at a time in a run folder, a rerun's manifest
 * compared with the folder's, and the rule for what a simulator printed.
 */
#include "tmpdir.h"

#include "internal.h"
#include "ksample.h"

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* tmpdir/name as a new string (in_dir reuses one buffer) */
static char *path_of(const char *name)
{
    char *p = strdup(in_dir(name));
    assert_non_null(p);
    return p;
}

static ks_status check(const char *output, const char *input, ks_error *err)
{
    const char *inputs[] = {input};
    ks_error_clear(err);
    return ks_path_check_output(output, inputs, 1, err);
}

/* A MacSim-like trace folder: tr/list and tr/K1 -> base/k1 (elsewhere). */
static void test_output_check_knows_links(void **state)
{
    (void)state;
    char *base = path_of("base"), *k1 = path_of("base/k1"), *tr = path_of("tr");
    char *link = path_of("tr/K1"), *dangling = path_of("tr/K9");
    assert_int_equal(mkdir(base, 0777), 0);
    assert_int_equal(mkdir(k1, 0777), 0);
    assert_int_equal(mkdir(tr, 0777), 0);
    write_text("base/k1/trace.txt", "nvbit\n");
    write_text("tr/list", "./K1/trace.txt\n");
    assert_int_equal(symlink(k1, link), 0);
    assert_int_equal(symlink(in_dir("nowhere/x"), dangling), 0);
    ks_error err;
    static const struct {
        const char *output, *want; /* want NULL: allowed */
    } cases[] = {
        {"tr/K1/trace.txt", "the target of the link"}, /* through the link */
        {"base/k1/trace.txt", "the target of the link"}, /* the target by its name */
        {"base/k1/new.txt", "the target of the link"},
        {"base/k1", "the target of the link"},
        {"base", "holds"},
        {"tr/K9", "the target of the link"}, /* a dangling link's target */
        {"nowhere/x", "the target of the link"},
        {"tr/new.txt", "inside the input folder"},
        {"base/other.txt", NULL},
        {"elsewhere/out", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = path_of(cases[i].output);
        ks_status st = check(out, tr, &err);
        if (!cases[i].want ? st != KS_OK
                           : st != KS_ERR_USAGE || !strstr(err.message, cases[i].want))
            fail_msg("%s: status %d: %s", cases[i].output, st, err.message);
        free(out);
    }
    /* a cycle of links is walked once */
    char *loop = path_of("base/k1/loop");
    assert_int_equal(symlink(tr, loop), 0);
    char *out = path_of("elsewhere/x");
    assert_int_equal(check(out, tr, &err), KS_OK);
    free(out);
    free(loop);
    KS_FREE(base, k1, tr, link, dangling);
}

static ks_status fill(ks_dir_build *b, const char *name, ks_error *err)
{
    char *p = ks_path_join(b->tmp, name);
    FILE *f = p ? fopen(p, "w") : NULL;
    free(p);
    if (!f)
        return ks_error_set(err, KS_ERR_IO, name, 0, "cannot write");
    fputs("x\n", f);
    fclose(f);
    return KS_OK;
}

/* Whole or not at all; a user's folder is never replaced. */
static void test_folder_whole_or_not(void **state)
{
    (void)state;
    static const char *const own[] = {"list", NULL};
    char *out = path_of("out");
    ks_dir_build b;
    ks_error err;
    assert_int_equal(ks_dir_build_begin(out, own, &b, &err), KS_OK);
    assert_int_equal(fill(&b, "list", &err), KS_OK);
    assert_int_equal(ks_dir_build_commit(&b, &err), KS_OK);
    struct stat sb;
    assert_int_equal(stat(in_dir("out/list"), &sb), 0);
    /* an earlier export is replaced in one step */
    assert_int_equal(ks_dir_build_begin(out, own, &b, &err), KS_OK);
    assert_int_equal(fill(&b, "list", &err), KS_OK);
    assert_int_equal(fill(&b, "second", &err), KS_OK);
    assert_int_equal(ks_dir_build_commit(&b, &err), KS_OK);
    assert_int_equal(stat(in_dir("out/second"), &sb), 0);
    /* now out holds a file no export writes: refused, nothing changed */
    assert_int_equal(ks_dir_build_begin(out, own, &b, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "second"));
    /* a failure leaves the earlier folder and no temporary */
    assert_int_equal(ks_dir_build_begin(out, NULL, &b, &err), KS_OK);
    ks_dir_build_abort(&b);
    assert_int_equal(stat(in_dir("out/second"), &sb), 0);
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp."))
            fail_msg("a temporary is left: %s", e->d_name);
    closedir(d);
    /* a job folder (anything replaced) is never reached through a link */
    char *link = path_of("linked");
    assert_int_equal(symlink(out, link), 0);
    assert_int_equal(ks_dir_build_begin(link, NULL, &b, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "symbolic link"));
    free(link);
    free(out);
}

static void test_run_lock(void **state)
{
    (void)state;
    char *dir = path_of("run");
    assert_int_equal(mkdir(dir, 0777), 0);
    ks_run_lock *a = NULL, *b = NULL;
    ks_error err;
    assert_int_equal(ks_run_lock_take(dir, &a, &err), KS_OK);
    /* a second holder, even in this process (another open file), is refused */
    assert_int_equal(ks_run_lock_take(dir, &b, &err), KS_ERR_USAGE);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld on host", (long)getpid());
    assert_non_null(strstr(err.message, pid));
    ks_run_lock_release(a);
    assert_int_equal(ks_run_lock_take(dir, &b, &err), KS_OK);
    ks_run_lock_release(b);
    free(dir);
}

static void test_manifest_compare(void **state)
{
    (void)state;
    uint64_t ids[] = {1, 4};
    ks_run_manifest_job jobs[] = {{"jobs/0000", ids, 1, NULL, NULL},
                                  {"jobs/0001", ids + 1, 1, NULL, NULL}};
    ks_run_manifest a = {.plan = "p.json", .plan_xxh128 = "abc", .job_count = 2, .jobs = jobs,
                         .traces = "/t", .simulator = "command", .warmup = "none",
                         .batch = 1, .remap = 0, .command = "sim {kernelslist}"};
    ks_run_manifest b = a;
    ks_error err;
    assert_int_equal(ks_run_manifest_compare(&a, &b, "m.json", &err), KS_OK);
    static const struct {
        int field;
        const char *want;
    } cases[] = {{0, "--warmup none, this run has --warmup self"},
                 {1, "--batch 1, this run has --batch 2"},
                 {2, "--traces /t, this run has --traces /u"},
                 {3, "another plan"},
                 {4, "--remap"},
                 {5, "the simulator command"},
                 {6, "are not this run's"}};
    ks_run_manifest_job one = {"jobs/0000", ids, 2, NULL, NULL};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        b = a;
        switch (cases[i].field) {
        case 0: b.warmup = "self"; break;
        case 1: b.batch = 2; break;
        case 2: b.traces = "/u"; break;
        case 3: strcpy(b.plan_xxh128, "def"); break;
        case 4: b.remap = 1; break;
        case 5: b.command = "other"; break;
        case 6: /* an older manifest: no batch, remap or command; jobs differ */
            a.batch = 0, a.remap = -1, a.command = NULL;
            b.jobs = &one, b.job_count = 1;
            break;
        }
        ks_error_clear(&err);
        assert_int_equal(ks_run_manifest_compare(&a, &b, "m.json", &err), KS_ERR_USAGE);
        if (!strstr(err.message, cases[i].want))
            fail_msg("case %zu: %s", i, err.message);
    }
}

/* What a simulator printed, and the same rule for values in memory. */
static void test_measure_rule(void **state)
{
    (void)state;
    double v;
    assert_null(ks_parse_decimal("1282", 4, KS_NUM_MEASURE, &v));
    assert_true(v == 1282);
    assert_string_equal(ks_parse_decimal("1e300", 5, KS_NUM_MEASURE, &v), "is not a number");
    assert_string_equal(ks_parse_decimal("18446744073709551616", 20, KS_NUM_MEASURE, &v),
                        "is 2^64 or more");
    /* a 64-bit counter's largest value is taken, though its double is 2^64
     * (issue 41); one more is not, however it is written */
    assert_null(ks_parse_decimal("18446744073709551615", 20, KS_NUM_MEASURE, &v));
    assert_string_equal(ks_parse_decimal("018446744073709551616", 21, KS_NUM_MEASURE, &v),
                        "is 2^64 or more");
    assert_null(ks_parse_decimal("00018446744073709551615", 23, KS_NUM_MEASURE, &v));
    assert_null(ks_parse_decimal("1e300", 5, 0, &v)); /* an option may have an exponent */
    assert_null(ks_measure_check(0));
    assert_string_equal(ks_measure_check(-1), "is negative");
    assert_string_equal(ks_measure_check(NAN), "is not a finite number");
    assert_string_equal(ks_measure_check(INFINITY), "is not a finite number");
    assert_string_equal(ks_measure_check(ldexp(1, 64)), "is 2^64 or more");
    ks_results r;
    ks_results_init(&r);
    ks_error err;
    const uint64_t ids[] = {0, 1};
    const double bad[] = {5, -5};
    assert_int_equal(ks_results_add(&r, "mem", "cycles", ids, bad, 2, &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "is negative"));
    ks_results_free(&r);
}

static ks_status put_new(const void *ctx, FILE *f, ks_error *err)
{
    (void)ctx;
    (void)err;
    fputs("new\n", f);
    return KS_OK;
}

static bool holds(const char *path, const char *text)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    return strcmp(buf, text) == 0;
}

/* Issue 41: inside a folder ksample owns nothing is written, replaced or
 * removed through a link (owned.c): a link named as a file is replaced
 * itself, a link named as a folder is removed itself, the owned folder
 * itself may not be a link, and a folder is removed whole without
 * following a link inside it. */
static void test_owned_never_through_links(void **state)
{
    (void)state;
    ks_error err;
    char *own = path_of("owned"), *victim = path_of("victim.txt"), *user = path_of("user");
    assert_int_equal(mkdir(user, 0777), 0);
    char *keep = ks_path_join(user, "keep.txt");
    FILE *f = fopen(victim, "w");
    fputs("mine\n", f);
    fclose(f);
    f = fopen(keep, "w");
    fputs("mine\n", f);
    fclose(f);
    int dir = ks_owned_open_dir(own, true, &err);
    assert_true(dir >= 0);
    char *link = ks_path_join(own, "carrier.traceg");
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(ks_owned_write(dir, own, "carrier.traceg", put_new, NULL, &err), KS_OK);
    assert_true(holds(victim, "mine\n"));
    assert_true(holds(link, "new\n"));
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    /* a folder of the warm-up kernel replaced by a link to the user's */
    char *folder = ks_path_join(own, "ksample-state-3");
    assert_int_equal(symlink(user, folder), 0);
    assert_int_equal(ks_owned_remove(dir, own, "ksample-state-3", &err), KS_OK);
    assert_true(holds(keep, "mine\n"));
    assert_int_not_equal(lstat(folder, &sb), 0);
    /* a real folder holding a link to the user's folder: removed, the
     * user's folder left */
    int sub = ks_owned_mkdir(dir, own, "ksample-state-4", &err);
    assert_true(sub >= 0);
    assert_int_equal(symlinkat(user, sub, "inner"), 0);
    close(sub);
    assert_int_equal(ks_owned_remove(dir, own, "ksample-state-4", &err), KS_OK);
    assert_true(holds(keep, "mine\n"));
    close(dir);
    /* the owned folder itself a link: refused */
    char *linked = path_of("owned-link");
    assert_int_equal(symlink(user, linked), 0);
    assert_true(ks_owned_open_dir(linked, true, &err) < 0);
    assert_non_null(strstr(err.message, "symbolic link"));
    assert_int_not_equal(ks_owned_write_path(in_dir("owned-link/x"), put_new, NULL, &err),
                         KS_OK);
    char *x = ks_path_join(user, "x");
    assert_int_not_equal(lstat(x, &sb), 0);
    free(x);
    free(linked);
    free(folder);
    free(link);
    free(keep);
    free(own);
    free(victim);
    free(user);
}

KS_TMPDIR_TEST_MAIN("ks-hostile-data", test_output_check_knows_links,
                    test_folder_whole_or_not, test_run_lock, test_manifest_compare,
                    test_measure_rule, test_owned_never_through_links)
