/*
 * test_synth_traces.c - synthetic Accel-Sim traces: the folder holds the list,
 * one trace per launch, the profile and the groups; every warp's "insts = N"
 * matches its instruction lines; the profile reads back with one row per
 * launch; the same seed gives the same bytes and another seed other bytes.
 */
#include "tmpdir.h"

#include "ksample.h"

static char *slurp_text(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *d = malloc(*size + 1);
    assert_int_equal(fread(d, 1, *size, f), *size);
    d[*size] = 0;
    fclose(f);
    return d;
}

/* Checks one trace file; returns its kernel name's first letter group. */
static void check_trace(const char *path, unsigned long long id)
{
    size_t size;
    char *t = slurp_text(path, &size);
    assert_non_null(t);
    char want[64];
    snprintf(want, sizeof want, "-kernel id = %llu\n", id);
    assert_non_null(strstr(t, want));
    assert_non_null(strstr(t, "-accelsim tracer version = 5\n"));
    long declared = -1, seen = 0, blocks = 0, warps = 0;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        if (sscanf(line, "insts = %ld", &declared) == 1) {
            warps++;
            seen = 0;
            continue;
        }
        if (!strcmp(line, "#END_TB")) {
            blocks++;
            continue;
        }
        unsigned pc, mask;
        if (declared >= 0 && sscanf(line, "%x %x", &pc, &mask) == 2 && mask == 0xffffffffu) {
            seen++;
            if (seen == declared)
                declared = -1;
            assert_true(seen <= declared || declared == -1);
        }
    }
    assert_int_equal(declared, -1); /* the last warp was complete */
    assert_true(blocks > 0 && warps >= blocks);
    free(t);
}

static void test_folder(void **state)
{
    (void)state;
    ks_synth_traces_options o = {40, 3};
    ks_error err;
    const char *dir = in_dir("a");
    assert_int_equal(ks_synth_traces_write(&o, dir, &err), KS_OK);
    char path[4200];
    size_t size;
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    char *list = slurp_text(path, &size);
    assert_non_null(list);
    assert_int_equal(strncmp(list, "MemcpyHtoD,", 11), 0);
    long kernels = 0;
    for (char *p = list; (p = strstr(p, "kernel-")); p++)
        kernels++;
    assert_int_equal(kernels, 40);
    free(list);
    for (unsigned long long i = 1; i <= 40; i++) {
        snprintf(path, sizeof path, "%s/kernel-%llu.traceg", dir, i);
        check_trace(path, i);
    }
    snprintf(path, sizeof path, "%s/profile.csv", dir);
    ks_profile *p;
    assert_int_equal(ks_profile_read(path, NULL, &p, &err), KS_OK);
    assert_int_equal(p->n, 40);
    for (size_t i = 0; i < p->n; i++)
        assert_true(p->duration_ns[i] > 0);
    assert_non_null(p->grid);
    ks_profile_free(p);
    snprintf(path, sizeof path, "%s/groups.csv", dir);
    char *groups = slurp_text(path, &size);
    assert_non_null(groups);
    long lines = 0;
    for (char *q = groups; *q; q++)
        lines += *q == '\n';
    assert_int_equal(lines, 41);
    free(groups);
}

static void test_same_seed_same_bytes(void **state)
{
    (void)state;
    ks_synth_traces_options o = {12, 9};
    ks_error err;
    assert_int_equal(ks_synth_traces_write(&o, in_dir("b1"), &err), KS_OK);
    assert_int_equal(ks_synth_traces_write(&o, in_dir("b2"), &err), KS_OK);
    o.seed = 10;
    assert_int_equal(ks_synth_traces_write(&o, in_dir("b3"), &err), KS_OK);
    static const char *files[] = {"kernelslist.g", "profile.csv", "groups.csv", "kernel-7.traceg"};
    int differs = 0;
    for (size_t i = 0; i < 4; i++) {
        char p1[4200], p2[4200], p3[4200];
        snprintf(p1, sizeof p1, "%s/%s", in_dir("b1"), files[i]);
        snprintf(p2, sizeof p2, "%s/%s", in_dir("b2"), files[i]);
        snprintf(p3, sizeof p3, "%s/%s", in_dir("b3"), files[i]);
        size_t s1, s2, s3;
        char *a = slurp_text(p1, &s1), *b = slurp_text(p2, &s2), *c = slurp_text(p3, &s3);
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        assert_int_equal(s1, s2);
        assert_memory_equal(a, b, s1);
        differs |= s1 != s3 || memcmp(a, c, s1) != 0;
        free(a), free(b), free(c);
    }
    assert_true(differs);
    o.n = 0;
    assert_int_equal(ks_synth_traces_write(&o, in_dir("b4"), &err), KS_ERR_USAGE);
}

static int setup(void **state)
{
    (void)state;
    return tmpdir_setup("ks-synth-traces");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folder),
        cmocka_unit_test(test_same_seed_same_bytes),
    };
    return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
