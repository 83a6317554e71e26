/* user.c - a program of someone who installed ksample: built by
 * tests/install.sh against the installed prefix through pkg-config alone.
 * usage: user PROFILE PLAN.json
 * Reads the profile, writes the default plan (what `ksample sample
 * --include-comm --key name PROFILE -o PLAN.json` writes: the test compares
 * the bytes) and checks that the
 * library it runs with is the version of the header it was built with. */
#include <ksample.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: user PROFILE PLAN.json\n");
        return 2;
    }
    if (strcmp(ks_version(), KS_VERSION) != 0) {
        fprintf(stderr, "user: library %s, header %s\n", ks_version(), KS_VERSION);
        return 1;
    }
    ks_error err;
    ks_error_clear(&err);
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_profile *p = NULL;
    ks_params params;
    ks_params_init(&params);
    ks_plan plan;
    ks_plan_init(&plan);
    ks_status st = ks_profile_read(argv[1], &opt, &p, &err);
    if (st == KS_OK)
        st = ks_plan_build(p, &params, &plan, &err);
    if (st == KS_OK)
        st = ks_plan_save_json(&plan, argv[2], &err);
    if (st == KS_OK)
        printf("%zu launches, %s plan of %zu samples\n", p->n, plan.method, plan.sample_count);
    else {
        char msg[2100];
        ks_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "user: %s\n", msg);
    }
    ks_plan_free(&plan);
    ks_profile_free(p);
    return st == KS_OK ? 0 : (int)st;
}
