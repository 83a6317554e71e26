/*
 * test_plan_read.c - plans read back: write -> read -> write gives the same
 * bytes for every method, and what the reader must refuse it refuses, with
 * the place named.
 */
#include "test_util.h"
#include "tmpdir.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void round_trip(const ks_plan *plan)
{
    size_t len, len2;
    char *text = tu_plan_json(plan, &len);
    ks_plan back;
    ks_error err;
    ks_status st = ks_plan_read_buffer(text, len, "plan.json", &back, &err);
    if (st != KS_OK)
        fail_msg("read back: %s", err.message);
    char *again = tu_plan_json(&back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(text, again, len);
    assert_int_equal(back.sample_count, plan->sample_count);
    assert_int_equal(back.cluster_count, plan->cluster_count);
    assert_int_equal(back.draws, plan->draws);
    assert_true(back.z == plan->z);
    /* and from a file, compressed or not; ks_plan_save_json writes the same
     * bytes as ks_plan_json holds */
    const char *path = in_dir("plan.json");
    ks_plan_free(&back);
    assert_int_equal(ks_plan_save_json(plan, path, &err), KS_OK);
    size_t saved_len;
    char *saved = read_file(path, &saved_len);
    assert_int_equal(saved_len, len);
    assert_memory_equal(saved, text, len);
    free(saved);
    assert_int_equal(ks_plan_read(path, &back, &err), KS_OK);
    assert_int_equal(back.sample_count, plan->sample_count);
    ks_plan_free(&back);
    path = write_gzip("plan.json.gz", text, len);
    assert_int_equal(ks_plan_read(path, &back, &err), KS_OK);
    ks_plan_free(&back);
    free(text);
    free(again);
}

static void test_round_trip_every_method(void **state)
{
    (void)state;
    const char *methods[] = {"root", "stem", "allegro", "random"};
    for (int shape = 0; shape < 3; shape++) {
        ks_profile *p = tu_named_workload(shape, 5000, 11 + (uint64_t)shape);
        assert_non_null(p);
        snprintf(p->source_path, sizeof p->source_path, "dir/with \"quotes\"\\and\ttab.csv");
        for (size_t m = 0; m < 4; m++) {
            ks_params pa;
            ks_params_init(&pa);
            pa.method = methods[m];
            pa.seed = 7;
            tu_param(&pa, "fraction", "0.01");
            ks_plan plan;
            ks_error err;
            assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
            round_trip(&plan);
            ks_plan_free(&plan);
        }
        ks_profile_free(p);
    }
}

static void test_parent_and_unknown_params_survive(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(0, 2000, 3);
    ks_params pa;
    ks_params_init(&pa);
    ks_plan plan;
    ks_error err;
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
    snprintf(plan.parent_path, sizeof plan.parent_path, "runs/plan.json");
    snprintf(plan.parent_xxh128, sizeof plan.parent_xxh128, "0123456789abcdef0123456789abcdef");
    size_t len;
    char *text = tu_plan_json(&plan, &len);
    /* a parameter of a later version, of each JSON kind */
    const char *at = strstr(text, "\"max_depth\": 64");
    assert_non_null(at);
    size_t cut = (size_t)(at - text) + strlen("\"max_depth\": 64");
    char *edited = malloc(len + 200);
    snprintf(edited, len + 200, "%.*s, \"future\": 1.5e-3, \"name\": \"a\\\"b\", \"flag\": true, "
                                "\"none\": null%s",
             (int)cut, text, text + cut);
    ks_plan back;
    assert_int_equal(ks_plan_read_buffer(edited, strlen(edited), "p", &back, &err), KS_OK);
    /* root's own four (with_replacement, allocation, max_depth, replicate)
     * and the four added */
    assert_int_equal(back.extra_param_count, 8);
    assert_string_equal(back.parent_path, "runs/plan.json");
    size_t len2;
    char *again = tu_plan_json(&back, &len2);
    assert_string_equal(again, edited);
    free(again);
    free(edited);
    free(text);
    ks_plan_free(&back);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* Replaces the first `from` in the plan text by `to` and expects a refusal
 * whose message holds `want`. */
static void expect_refusal(const char *text, const char *from, const char *to, const char *want)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    size_t n = strlen(text) + strlen(to) + 1;
    char *edited = malloc(n);
    snprintf(edited, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    ks_plan back;
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_plan_read_buffer(edited, strlen(edited), "bad.json", &back, &err);
    if (st == KS_OK)
        fail_msg("accepted a plan with '%s' -> '%s'", from, to);
    assert_int_equal(st, KS_ERR_FORMAT);
    if (!strstr(err.message, want))
        fail_msg("message '%s' lacks '%s'", err.message, want);
    assert_string_equal(err.file, "bad.json");
    free(edited);
}

static void test_refusals(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 3000, 5);
    ks_params pa;
    ks_params_init(&pa);
    ks_plan plan;
    ks_error err;
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
    assert_true(plan.sample_count > 3);
    size_t len;
    char *text = tu_plan_json(&plan, &len);
    char id0[64], id1[64];
    snprintf(id0, sizeof id0, "{\"id\": %llu,", (unsigned long long)plan.samples[0].id);
    snprintf(id1, sizeof id1, "{\"id\": %llu,", (unsigned long long)plan.samples[1].id);
    expect_refusal(text, "\"schema\": 1", "\"schema\": 2", "schema 2");
    expect_refusal(text, "\"schema\": 1,", "", "no \"schema\"");
    expect_refusal(text, id1, id0, "ascending");
    expect_refusal(text, "\"cluster\": 0}", "\"cluster\": 99999}", "cluster index out of range");
    expect_refusal(text, "\"weight\": ", "\"weight\": -", "weight must be positive");
    expect_refusal(text, "\"samples\": [", "\"samples\": [{\"id\": 1}, ", "lacks");
    expect_refusal(text, "\"groups\": [", "\"groups\": [\"extra\", ", "lists");
    expect_refusal(text, "\"key\": \"name\"", "\"key\": \"nosuch\"", "unknown key");
    expect_refusal(text, "\"seed\": 1", "\"seed\": -1", "params.seed");
    expect_refusal(text, "\"clusters\": [", "\"clusters\": {", "wrong type");
    /* invalid JSON: the line is known */
    expect_refusal(text, "\"summary\"", "\"summary\" oops", "invalid JSON");
    /* a top-level key of a later version, of any shape, is skipped */
    const char *at = strstr(text, "\"predicted_speedup\"");
    assert_non_null(at);
    char *later = malloc(len + 100);
    snprintf(later, len + 100, "%.*s\"later\": {\"a\": [[1, {\"b\": [2]}], null]},\n  %s",
             (int)(at - text), text, at);
    ks_plan back;
    ks_error_clear(&err);
    if (ks_plan_read_buffer(later, strlen(later), "later.json", &back, &err) != KS_OK)
        fail_msg("a later top-level key: %s", err.message);
    assert_int_equal(back.sample_count, plan.sample_count);
    ks_plan_free(&back);
    free(later);
    assert_int_not_equal(ks_plan_read_buffer("{\n\"schema\": 1,\n]", 17, "x", &back, &err), KS_OK);
    assert_int_equal(err.line, 3);
    assert_int_not_equal(ks_plan_read_buffer("", 0, "x", &back, &err), KS_OK);
    assert_int_not_equal(ks_plan_read_buffer("[1,2]", 5, "x", &back, &err), KS_OK);
    free(text);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks_plan_read",
                    test_round_trip_every_method,
                    test_parent_and_unknown_params_survive,
                    test_refusals)
