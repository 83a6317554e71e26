/* params.c - parsing of the sampling options that sample and eval share. */
#include "cli.h"

#include <string.h>

bool cli_params_option(ks_params *pa, int opt, const char *arg, const char *cmd, int *rc)
{
    ks_error err;
    ks_error_clear(&err);
    uint64_t u;
    *rc = 0;
    switch (opt) {
    case 'k':
        if (ks_key_parse(arg, &pa->key, &err) != KS_OK)
            *rc = cli_fail(&err);
        pa->key_given = 1;
        return true;
    case 'e':
        if (!cli_parse_double(arg, &pa->epsilon) || !(pa->epsilon > 0 && pa->epsilon < 1))
            *rc = cli_usage_error(cmd, "--epsilon must be a number in (0, 1), got '%s'", arg);
        return true;
    case 'c':
        if (!cli_parse_double(arg, &pa->confidence) ||
            !(pa->confidence > 0 && pa->confidence < 1))
            *rc = cli_usage_error(cmd, "--confidence must be a number in (0, 1), got '%s'",
                                  arg);
        return true;
    case 's':
        if (!cli_parse_u64(arg, &pa->seed))
            *rc = cli_usage_error(cmd, "--seed needs a non-negative integer, got '%s'", arg);
        return true;
    case 'R':
        pa->with_replacement = 1;
        return true;
    case 'T':
        if (!cli_parse_double(arg, &pa->allegro_n_th) || !(pa->allegro_n_th > 0))
            *rc = cli_usage_error(cmd, "--n-th must be a positive number, got '%s'", arg);
        return true;
    case 'm':
        if (!cli_parse_u64(arg, &pa->allegro_n_min) || pa->allegro_n_min < 1)
            *rc = cli_usage_error(cmd, "--n-min must be a positive integer, got '%s'", arg);
        return true;
    case 'S':
        if (!cli_parse_double(arg, &pa->target_speedup) || !(pa->target_speedup >= 1))
            *rc = cli_usage_error(cmd, "--target-speedup must be >= 1, got '%s'", arg);
        return true;
    case 'f':
        if (!cli_parse_double(arg, &pa->fraction) || !(pa->fraction > 0 && pa->fraction <= 1))
            *rc = cli_usage_error(cmd, "--fraction must be in (0, 1], got '%s'", arg);
        return true;
    case 'A':
        if (strcmp(arg, "joint") == 0)
            pa->allocation = KS_ALLOC_JOINT;
        else if (strcmp(arg, "tree") == 0)
            pa->allocation = KS_ALLOC_TREE;
        else if (strcmp(arg, "paper") == 0)
            pa->allocation = KS_ALLOC_PAPER;
        else
            *rc = cli_usage_error(cmd, "--allocation must be joint, tree or paper, got '%s'",
                                  arg);
        return true;
    case 'd':
        if (!cli_parse_u64(arg, &u) || u < 1 || u > KS_MAX_DEPTH_LIMIT)
            *rc = cli_usage_error(cmd, "--max-depth must be in 1..%d, got '%s'",
                                  KS_MAX_DEPTH_LIMIT, arg);
        else
            pa->max_depth = (int)u;
        return true;
    }
    return false;
}
