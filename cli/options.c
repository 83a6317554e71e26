/* options.c - the option loop every subcommand shares: getopt_long, --help,
 * --json, the input options and the sampling parameters where a command takes
 * them, an unknown option and a wrong operand count as usage errors.  A
 * command's own switch then holds only what is its own. */
#include "cli.h"
#include "cli_results.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One of the options every command may share; false if opt is none of them. */
static bool loop_shared_option(cli_loop *l, int opt, const char *arg, int *rc)
{
    *rc = 0;
    if (opt == 'j' && l->json) {
        *l->json = true;
        return true;
    }
    if (l->input && cli_input_option(l->input, opt, arg, l->cmd, rc))
        return true;
    if (l->results && cli_results_option(l->results, opt, arg, l->cmd, rc))
        return true;
    return l->params && cli_params_option(l->params, opt, arg, l->cmd, rc);
}

/* The loop is over: exit -1 when the command goes on with its operands. */
static int loop_end(cli_loop *l, int argc, int rc)
{
    l->exit = rc;
    if (rc == -1 && l->operands >= 0 && argc - optind != l->operands)
        l->exit = cli_usage_error(l->cmd, "expected %s", l->operands_are);
    return -1;
}

void (*cli_options_hook)(const struct option *longopts, const char *shortopts);

/* The option getopt_long just refused, as the user wrote it: "-x" for a
 * short one, "--name" (without "=value") for a long one. */
static void refused_option(char **argv, char *buf, size_t size)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    if (optopt && !(arg[0] == '-' && arg[1] == '-')) {
        snprintf(buf, size, "-%c", optopt);
        return;
    }
    snprintf(buf, size, "%.*s", (int)strcspn(arg, "="), arg);
}

int cli_loop_next(cli_loop *l, int argc, char **argv)
{
    if (cli_options_hook) {
        cli_options_hook(l->longopts, l->shortopts ? l->shortopts : "h");
        return loop_end(l, argc, 0);
    }
    if (!l->started) {
        l->started = true;
        optind = 1;
        opterr = 0; /* the messages are ours, naming the command */
        /* a leading ':' makes a missing argument ':' rather than '?' */
        snprintf(l->optstring, sizeof l->optstring, ":%s", l->shortopts ? l->shortopts : "h");
    }
    int opt, rc;
    while ((opt = getopt_long(argc, argv, l->optstring, l->longopts, NULL)) != -1) {
        if (loop_shared_option(l, opt, optarg, &rc)) {
            if (rc)
                return loop_end(l, argc, rc);
            continue;
        }
        if (opt == 'h') {
            l->help();
            return loop_end(l, argc, 0);
        }
        if (opt == '?' || opt == ':') {
            char name[128];
            refused_option(argv, name, sizeof name);
            if (opt == ':')
                return loop_end(l, argc,
                                cli_usage_error(l->cmd, "option %s needs an argument", name));
            /* a long option mistyped: the closest of the command's */
            const char *close = NULL;
            if (name[0] == '-' && name[1] == '-') {
                size_t n = 0;
                while (l->longopts[n].name)
                    n++;
                const char **names = calloc(n ? n : 1, sizeof *names);
                for (size_t i = 0; names && i < n; i++)
                    names[i] = l->longopts[i].name;
                close = names ? cli_did_you_mean(name + 2, names, n) : NULL;
                free(names);
            }
            return loop_end(l, argc,
                            close ? cli_usage_error(l->cmd, "unknown option %s; did you mean --%s?",
                                                    name, close)
                                  : cli_usage_error(l->cmd, "unknown option %s", name));
        }
        return opt;
    }
    return loop_end(l, argc, -1);
}

int cli_with_sampling_options(const struct option *own,
                              int (*run)(int argc, char **argv, const struct option *longopts),
                              int argc, char **argv)
{
    struct option *longopts = cli_sampling_options(own);
    if (!longopts)
        return KS_ERR_NOMEM;
    int code = run(argc, argv, longopts);
    free(longopts);
    return code;
}

void cli_sampling_init(cli_input *in, ks_params *pa, bool strict)
{
    cli_input_init(in);
    ks_params_init(pa);
    pa->strict = strict;
}

int cli_method_check(const char *cmd, const char *name)
{
    if (ks_method_find(name))
        return 0;
    char known[256];
    cli_method_names(known, sizeof known);
    return cli_usage_error(cmd, "unknown method '%s' (%s)", name, known);
}

int cli_method_list(const char *cmd, char *list, const char **names, int max, int *count)
{
    *count = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int rc = cli_method_check(cmd, tok);
        if (rc)
            return rc;
        if (*count == max)
            return cli_usage_error(cmd, "at most %d methods", max);
        names[(*count)++] = tok;
    }
    return 0;
}
