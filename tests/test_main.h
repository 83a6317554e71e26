/*
 * test_main.h - main() for a test program.
 *
 *     KS_TEST_MAIN(test_a, test_b, ...)
 *
 * defines main() to run the named test functions, in that order, as one
 * cmocka group called "tests" (each test named after its function, as
 * cmocka_unit_test would name it).  KS_TEST_MAIN_FIXTURES(setup, teardown,
 * ...) does the same with group fixtures, and tmpdir.h's
 * KS_TMPDIR_TEST_MAIN(prefix, ...) runs them in a temporary folder.  Every
 * program honours KS_TEST_FILTER=pattern (a cmocka pattern such as
 * test_root_*): only the tests whose names match run.  Header-only, like
 * tmpdir.h, because each test file is its own program.
 */
#ifndef KS_TEST_MAIN_H
#define KS_TEST_MAIN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

/* Runs fn[0..n) as the group "tests".  names is the list of their names as
 * the preprocessor spells it ("test_a, test_b"): each test gets the name
 * between its commas, without the spaces around it. */
static inline int tm_run(const char *names, const CMUnitTestFunction *fn, size_t n,
                         CMFixtureFunction setup, CMFixtureFunction teardown)
{
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    char *text = strdup(names);
    if (!tests || !text) {
        free(tests);
        free(text);
        return 1;
    }
    char *next = text;
    for (size_t i = 0; i < n; i++) {
        char *name = next + strspn(next, " ");
        next = name + strcspn(name, ",");
        if (*next)
            *next++ = '\0';
        name[strcspn(name, " ")] = '\0';
        tests[i].name = name;
        tests[i].test_func = fn[i];
    }
    const char *filter = getenv("KS_TEST_FILTER");
    if (filter && filter[0])
        cmocka_set_test_filter(filter);
    /* what cmocka_run_group_tests expands to, for an array sized at run time */
    int failed = _cmocka_run_group_tests("tests", tests, n, setup, teardown);
    free(text);
    free(tests);
    return failed;
}

#define KS_TEST_MAIN_FIXTURES(setup, teardown, ...)                                            \
    int main(void)                                                                             \
    {                                                                                          \
        static const CMUnitTestFunction fn[] = {__VA_ARGS__};                                  \
        return tm_run(#__VA_ARGS__, fn, sizeof fn / sizeof fn[0], setup, teardown);           \
    }

#define KS_TEST_MAIN(...) KS_TEST_MAIN_FIXTURES(NULL, NULL, __VA_ARGS__)

#endif
