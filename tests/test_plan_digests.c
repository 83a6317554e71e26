/*
 * test_plan_digests.c - plans do not change behind users' backs.  Every
 * method, several seeds, keys and options, on the bundled example and on each
 * ../shared/data Kineto trace: the JSON plan's XXH3-128 must equal the digest
 * recorded in tests/data/plan-digests.txt (see its header for how those were
 * made).  A deliberate change of plans updates that file in the same commit
 * and says why.  Traces in ../shared are skipped when the folder is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "ksample.h"
#include "test_main.h"

static ks_profile *load(const char *file, bool *absent)
{
    char path[4096];
    if (strcmp(file, "casio-like-50k.csv.xz") == 0)
        snprintf(path, sizeof path, "%s/../../examples/%s", KS_TEST_DATA, file);
    else
        snprintf(path, sizeof path, "%s/kineto/%s", KS_SHARED_DATA, file);
    *absent = access(path, R_OK) != 0;
    if (*absent)
        return NULL;
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_profile *p;
    ks_error err;
    if (ks_profile_read(path, &opt, &p, &err) != KS_OK)
        fail_msg("%s: %s", path, err.message);
    p->source_path[0] = '\0'; /* digests were taken with the path blanked */
    return p;
}

static void apply_option(ks_params *pa, const char *opt)
{
    ks_error err;
    if (strcmp(opt, "-") == 0)
        return;
    char name[64], value[64] = "";
    const char *eq = strchr(opt, '=');
    size_t n = eq ? (size_t)(eq - opt) : strlen(opt);
    snprintf(name, sizeof name, "%.*s", (int)(n - 2), opt + 2);
    if (eq)
        snprintf(value, sizeof value, "%s", eq + 1);
    if (strcmp(name, "key") == 0) {
        assert_int_equal(ks_key_parse(value, &pa->key, &err), KS_OK);
        pa->key_given = 1;
    } else if (strcmp(name, "epsilon") == 0) {
        pa->epsilon = strtod(value, NULL);
    } else {
        assert_int_equal(ks_params_set(pa, name, value, &err), KS_OK);
    }
}

static void digest_of(const ks_plan *plan, char hex[33])
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    ks_error err;
    assert_int_equal(ks_plan_write_json(plan, f, &err), KS_OK);
    fclose(f);
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(buf, len));
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
    free(buf);
}

static void test_digests(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/plan-digests.txt", KS_TEST_DATA);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512], loaded[256] = "";
    ks_profile *p = NULL;
    bool absent = false;
    int checked = 0, skipped = 0, wrong = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char file[256], method[32], option[64], want[64];
        unsigned long long seed;
        if (sscanf(line, "%255s %31s %llu %63s %63s", file, method, &seed, option, want) != 5)
            fail_msg("bad line in %s: %s", path, line);
        if (strcmp(file, loaded) != 0) {
            ks_profile_free(p);
            p = load(file, &absent);
            snprintf(loaded, sizeof loaded, "%s", file);
        }
        if (absent) {
            skipped++;
            continue;
        }
        ks_params pa;
        ks_params_init(&pa);
        pa.method = method;
        pa.seed = seed;
        apply_option(&pa, option);
        ks_plan plan;
        ks_error err;
        if (ks_plan_build(p, &pa, &plan, &err) != KS_OK)
            fail_msg("%s %s seed %llu %s: %s", file, method, seed, option, err.message);
        char got[33];
        digest_of(&plan, got);
        ks_plan_free(&plan);
        if (strcmp(got, want) != 0) {
            print_error("%s %s seed %llu %s: plan digest %s, recorded %s\n", file, method, seed,
                        option, got, want);
            wrong++;
        }
        checked++;
    }
    fclose(f);
    ks_profile_free(p);
    print_message("%d plans compared, %d skipped (../shared/data absent)\n", checked, skipped);
    assert_int_equal(wrong, 0);
    assert_true(checked > 0);
}

KS_TEST_MAIN(test_digests)
