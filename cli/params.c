/*
 * params.c - the sampling options of sample and eval.  The shared ones are
 * written here; every method parameter's option, validation and help come
 * from the methods' own tables, so adding a method adds its options.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every distinct method parameter, in table order (first method first); a
 * name declared by several methods must mean the same thing (same type). */
static const ks_param_def *unique_defs[64];
static size_t unique_count;

static void collect(void)
{
    if (unique_count)
        return;
    for (const ks_method *const *m = ks_methods(); *m; m++)
        for (size_t i = 0; i < (*m)->param_count; i++) {
            const ks_param_def *d = &(*m)->params[i];
            size_t k = 0;
            while (k < unique_count && strcmp(unique_defs[k]->name, d->name) != 0)
                k++;
            if (k == unique_count && unique_count < sizeof unique_defs / sizeof unique_defs[0])
                unique_defs[unique_count++] = d;
        }
}

struct option *cli_sampling_options(const struct option *own)
{
    collect();
    static const struct option extra[] = {CLI_INPUT_LONG_OPTIONS,
                                          CLI_PARAM_SHARED_LONG_OPTIONS};
    size_t n_own = 0;
    while (own[n_own].name)
        n_own++;
    size_t n_extra = sizeof extra / sizeof extra[0];
    struct option *all = calloc(n_own + n_extra + unique_count + 1, sizeof *all);
    if (!all)
        return NULL;
    memcpy(all, own, n_own * sizeof *all);
    memcpy(all + n_own, extra, n_extra * sizeof *all);
    for (size_t k = 0; k < unique_count; k++)
        all[n_own + n_extra + k] = (struct option){
            unique_defs[k]->name,
            unique_defs[k]->type == KS_PARAM_BOOL ? no_argument : required_argument, NULL,
            CLI_METHOD_PARAM_BASE + (int)k};
    return all;
}

struct option *cli_method_options(const struct option *own, const char *method)
{
    collect();
    const ks_method *m = ks_method_find(method);
    size_t n_own = 0;
    while (own[n_own].name)
        n_own++;
    struct option *all = calloc(n_own + (m ? m->param_count : 0) + 1, sizeof *all);
    if (!all)
        return NULL;
    memcpy(all, own, n_own * sizeof *all);
    for (size_t i = 0, n = n_own; m && i < m->param_count; i++)
        for (size_t k = 0; k < unique_count; k++)
            if (strcmp(unique_defs[k]->name, m->params[i].name) == 0)
                all[n++] = (struct option){
                    unique_defs[k]->name,
                    unique_defs[k]->type == KS_PARAM_BOOL ? no_argument : required_argument,
                    NULL, CLI_METHOD_PARAM_BASE + (int)k};
    return all;
}

bool cli_params_option(ks_params *pa, int opt, const char *arg, const char *cmd, int *rc)
{
    ks_error err;
    ks_error_clear(&err);
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
            !(pa->confidence > 0 && pa->confidence <= KS_MAX_CONFIDENCE))
            *rc = cli_usage_error(cmd,
                                  "--confidence must be a number in (0, 1 - 1e-12], got '%s'",
                                  arg);
        return true;
    case 's':
        if (!cli_parse_u64(arg, &pa->seed))
            *rc = cli_usage_error(cmd, "--seed needs a non-negative integer, got '%s'", arg);
        return true;
    case CLI_OPT_SHAPE_SHARE:
        if (!cli_parse_double(arg, &pa->shape_share) ||
            !(pa->shape_share >= 0 && pa->shape_share <= 1))
            *rc = cli_usage_error(cmd, "--shape-share must be a number in [0, 1], got '%s'",
                                  arg);
        return true;
    }
    collect();
    if (opt < CLI_METHOD_PARAM_BASE || opt >= CLI_METHOD_PARAM_BASE + (int)unique_count)
        return false;
    const ks_param_def *d = unique_defs[opt - CLI_METHOD_PARAM_BASE];
    double v;
    const char *value = arg ? arg : "";
    if (ks_param_parse(d, value, &v, &err) != KS_OK ||
        ks_params_set(pa, d->name, value, &err) != KS_OK)
        *rc = cli_usage_error(cmd, "%s", err.message);
    return true;
}

/* Prints text from column 21, wrapped at 80 columns; the first line
 * continues what the caller printed up to that column. */
static void print_wrapped(const char *text)
{
    enum { INDENT = 21, WIDTH = 80 };
    int col = INDENT;
    while (*text) {
        size_t word = strcspn(text, " ");
        if (col > INDENT && col + 1 + (int)word > WIDTH) {
            printf("\n%*s", INDENT, "");
            col = INDENT;
        } else if (col > INDENT) {
            putchar(' ');
            col++;
        }
        printf("%.*s", (int)word, text);
        col += (int)word;
        text += word;
        while (*text == ' ')
            text++;
    }
    putchar('\n');
}

static void print_option(const char *name, const char *arg, const char *help)
{
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
    if (strlen(left) > 18)
        printf("  %s\n%21s", left, "");
    else
        printf("  %-18s ", left);
    print_wrapped(help);
}

/* One parameter's line; users: the methods that take it ("" to leave out). */
static void print_param(const ks_param_def *d, const char *users)
{
    char def[80] = "";
    if (d->type == KS_PARAM_CHOICE)
        snprintf(def, sizeof def, "%sdefault %s", users[0] ? "; " : "", d->choices[(int)d->def]);
    else if (d->type != KS_PARAM_BOOL && d->def != 0)
        snprintf(def, sizeof def, "%sdefault %.15g", users[0] ? "; " : "", d->def);
    char text[600];
    if (users[0] || def[0])
        snprintf(text, sizeof text, "%s (%s%s)", d->help, users, def);
    else
        snprintf(text, sizeof text, "%s", d->help);
    print_option(d->name, d->type == KS_PARAM_BOOL ? NULL : d->arg, text);
}

void cli_method_params_help(const char *method)
{
    const ks_method *m = ks_method_find(method);
    for (size_t i = 0; m && i < m->param_count; i++)
        print_param(&m->params[i], "");
}

void cli_params_help(void) { cli_params_help_ex(true); }

void cli_params_help_ex(bool epsilon)
{
    collect();
    char methods[256];
    cli_method_names(methods, sizeof methods);
    printf("  --key K            grouping key: name, name-notemplate, name+grid+block,\n"
           "                     name+shape (default: the method's)\n"
           "  --shape-share F    key name+shape: a shape (or duration mode) of a name has\n"
           "                     its own strata where it and another shape of the name\n"
           "                     each carry at least F of the profiled time; the rest\n"
           "                     stay with the name's largest (default: epsilon / 4;\n"
           "                     0: every shape)\n");
    if (epsilon)
        printf("  --epsilon E        relative error bound (default 0.05)\n");
    printf("  --confidence C     confidence of the bound (default 0.95)\n"
           "  --seed N           random seed, recorded in the plan (default 1)\n"
           "\nmethods: %s\n\nmethod parameters:\n",
           methods);
    for (size_t k = 0; k < unique_count; k++) {
        const ks_param_def *d = unique_defs[k];
        char users[256] = "";
        for (const ks_method *const *m = ks_methods(); *m; m++)
            for (size_t i = 0; i < (*m)->param_count; i++)
                if (strcmp((*m)->params[i].name, d->name) == 0) {
                    size_t n = strlen(users);
                    snprintf(users + n, sizeof users - n, "%s%s", n ? ", " : "", (*m)->name);
                }
        print_param(d, users);
    }
}

void cli_method_names(char *buf, size_t size)
{
    buf[0] = '\0';
    for (const ks_method *const *m = ks_methods(); *m; m++) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%s%s", n ? ", " : "", (*m)->name,
                 m == ks_methods() ? " (default)" : "");
    }
}
