/* cli_state.c - the options of `--warmup state` that run and export share:
 * how big the simulated L2 is when no configuration says it (--l2-size),
 * where the cut falls (--state-cut), which lines the warm-up kernel loads
 * (--state-lines), and, for export, the simulator's configuration
 * (--sim-config). */
#include "cli_state.h"

#include <stdio.h>
#include <string.h>

bool cli_state_option(cli_state_args *s, int opt, const char *arg)
{
    switch (opt) {
    case CLI_STATE_L2: s->l2 = arg; return true;
    case CLI_STATE_CUT: s->cut = arg; return true;
    case CLI_STATE_LINES: s->lines = arg; return true;
    case CLI_STATE_SIM_CONFIG: s->sim_config = arg; return true;
    default: return false;
    }
}

/* "4194304", "4096K", "4M", "6MiB": bytes (K, M, G binary). */
static bool parse_size(const char *arg, uint64_t *v)
{
    char digits[32];
    size_t n = strspn(arg, "0123456789");
    if (n == 0 || n >= sizeof digits)
        return false;
    memcpy(digits, arg, n);
    digits[n] = '\0';
    if (!cli_parse_u64(digits, v))
        return false;
    const char *unit = arg + n;
    unsigned shift = 0;
    if (*unit == 'K' || *unit == 'k')
        shift = 10;
    else if (*unit == 'M' || *unit == 'm')
        shift = 20;
    else if (*unit == 'G' || *unit == 'g')
        shift = 30;
    if (shift)
        unit++;
    if (shift && strcmp(unit, "iB") != 0 && strcmp(unit, "B") != 0 && *unit)
        return false;
    if (!shift && *unit && strcmp(unit, "B") != 0)
        return false;
    if (*v > (UINT64_C(1) << 40) >> shift)
        return false;
    *v <<= shift;
    return true;
}

int cli_state_apply(const char *cmd, const cli_state_args *s, ks_warmup *w)
{
    bool any = s->l2 || s->cut || s->lines || s->sim_config;
    if (!any)
        return 0;
    if (w->mode != KS_WARMUP_STATE)
        return cli_usage_error(cmd, "--l2-size, --state-cut, --state-lines and --sim-config "
                                    "are for --warmup state");
    if (s->l2 && (!parse_size(s->l2, &w->l2_bytes) || w->l2_bytes < 4096))
        return cli_usage_error(cmd, "--l2-size: '%s' is not a size in bytes of at least 4096 "
                                    "(a whole number, optionally with K, M or G)",
                               s->l2);
    if (s->cut && (!cli_parse_double(s->cut, &w->cut) || !(w->cut >= 1 && w->cut <= 64)))
        return cli_usage_error(cmd, "--state-cut: '%s' is not a number in 1..64 (L2 "
                                    "capacities of lines kept)",
                               s->cut);
    if (s->lines) {
        if (strcmp(s->lines, "all") == 0)
            w->lines = KS_STATE_LINES_ALL;
        else if (strcmp(s->lines, "touched") == 0)
            w->lines = KS_STATE_LINES_TOUCHED;
        else if (strcmp(s->lines, "dirty") == 0)
            w->lines = KS_STATE_LINES_DIRTY;
        else if (strcmp(s->lines, "auto") == 0)
            w->lines = KS_STATE_LINES_AUTO;
        else
            return cli_usage_error(cmd, "--state-lines: auto, dirty, touched or all, got '%s'",
                                   s->lines);
        if (w->carrier != KS_STATE_KERNEL)
            return cli_usage_error(cmd, "--state-lines is for the warm-up kernel (state:kernel); "
                                        "memory copies carry every line");
        /* plain state with --state-lines: the kernel it is for, not the
         * default carrier */
        w->carrier_given = true;
    }
    if (s->sim_config)
        w->sim_config = s->sim_config;
    return 0;
}

int cli_state_remap_or_kernel(const char *traces, ks_warmup *w, ks_state_remap_report *rep)
{
    ks_error err;
    ks_error_clear(&err);
    if (ks_state_remap_check(traces, w, rep, &err) != KS_OK) {
        if (w->carrier_given)
            return cli_fail(&err);
        memset(rep, 0, sizeof *rep);
        snprintf(rep->why, sizeof rep->why, "%.200s%s%.380s", err.file,
                 err.file[0] ? ": " : "", err.message);
    }
    if (!rep->usable) {
        fprintf(stderr, "ksample: note: %s does not apply (%s): the state goes in a warm-up "
                        "kernel instead (state:kernel)\n",
                w->carrier == KS_STATE_SPLIT ? "state:split" : "state:memcpy32", rep->why);
        w->carrier = KS_STATE_KERNEL;
    }
    return 0;
}
