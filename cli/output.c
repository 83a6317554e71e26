/* output.c - checks on output files shared by the commands that write one. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_check_output(const char *cmd, const char *output, const char *const *inputs,
                     size_t count)
{
    ks_error err;
    ks_error_clear(&err);
    if (ks_path_check_output(output, inputs, count, &err) != KS_OK)
        return err.status == KS_ERR_USAGE ? cli_usage_error(cmd, "%s", err.message)
                                          : cli_fail(&err);
    return 0;
}

int cli_check_outputs(const char *cmd, const char *const *outputs, size_t out_count,
                      const char *const *inputs, size_t count)
{
    for (size_t i = 0; i < out_count; i++) {
        if (!outputs[i] || strcmp(outputs[i], "-") == 0)
            continue;
        int rc = cli_check_output(cmd, outputs[i], inputs, count);
        if (rc)
            return rc;
        /* two outputs of one command must not be one file either */
        for (size_t j = i + 1; j < out_count; j++) {
            if (!outputs[j] || strcmp(outputs[j], "-") == 0)
                continue;
            ks_error err;
            ks_error_clear(&err);
            ks_path_rel rel;
            if (ks_path_relation(outputs[i], outputs[j], &rel, &err) != KS_OK)
                return cli_fail(&err);
            if (rel != KS_PATH_APART)
                return cli_usage_error(cmd, "outputs %s and %s %s", outputs[i], outputs[j],
                                       rel == KS_PATH_SAME ? "are one file"
                                                           : "lie one inside the other");
        }
    }
    return 0;
}

int cli_finish_stdout(int rc)
{
    /* a full disk or a closed pipe shows only when the buffer is flushed */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc == 0)
            fprintf(stderr, "ksample: cannot write standard output: %s\n",
                    strerror(errno ? errno : EIO));
        return rc ? rc : KS_ERR_IO;
    }
    return rc;
}

/* Removes the library's temporaries, then dies of the same signal, so the
 * parent sees the usual status (130 after Ctrl-C in a shell). */
static void on_fatal_signal(int sig)
{
    ks_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

volatile sig_atomic_t *cli_catch_stop(void)
{
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop_signal; /* no SA_RESTART: a wait is cut short */
        sigemptyset(&sa.sa_mask);
        sigaction(stop_signals[i], &sa, NULL);
    }
    return &stop_signal;
}

void cli_die_of_stop(void)
{
    int sig = stop_signal;
    fflush(stdout);
    ks_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
    _exit(128 + sig); /* not reached */
}

void cli_install_cleanup(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* `, "key": x`, x as cli_json_number writes it */
void cli_json_field(const char *key, double x)
{
    printf(", \"%s\": ", key);
    cli_json_number(x);
}

void cli_json_field_exact(const char *key, double x)
{
    if (isfinite(x))
        printf(", \"%s\": %.17g", key, x);
    else
        printf(", \"%s\": null", key);
}

void cli_json_text_field(const char *key, const char *s)
{
    printf(", \"%s\": ", key);
    cli_json_string(s);
}

bool cli_say_once(cli_said *said, const char *s)
{
    for (size_t k = 0; k < said->count; k++)
        if (strcmp(said->said[k], s) == 0)
            return false;
    if (said->count == sizeof said->said / sizeof *said->said)
        return false;
    said->said[said->count++] = s;
    return true;
}

void cli_json_claim_fields(int claim, const char *why)
{
    cli_json_text_field("interval", claim == KS_CLAIM_FULL_RUN ? "full run"
                                    : claim == KS_CLAIM_VALUES ? "values"
                                                               : "none");
    if (claim != KS_CLAIM_FULL_RUN && why)
        cli_json_text_field("interval_note", why);
}

/* The fields of an evaluation that compare and eval both report. */
void cli_json_eval_fields(const ks_eval_result *r)
{
    cli_json_field("samples", r->samples_mean);
    cli_json_field("speedup_hmean", r->speedup_hmean);
    cli_json_field("error_mean_pct", r->error_mean_pct);
    cli_json_field("error_max_pct", r->error_max_pct);
    cli_json_field("plan_seconds", r->plan_seconds);
    cli_json_field("fit_seconds", r->fit_seconds);
}

/* u with a comma between every three digits (1,345,307) */
const char *cli_count_u64(char *buf, size_t size, uint64_t u)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)u);
    size_t o = 0;
    for (int i = 0; i < n && o + 1 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0 && o + 2 < size)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[size ? (o < size ? o : size - 1) : 0] = '\0';
    return buf;
}

/* x, a count or a total of counts, rounded to an integer and written as
 * cli_count_u64 does (a minus sign before a negative one); %.6g where it is
 * not finite or at least 2^63 */
const char *cli_count(char *buf, size_t size, double x)
{
    double r = round(fabs(x));
    if (!isfinite(x) || r >= 9223372036854775808.0) {
        snprintf(buf, size, "%.6g", x);
        return buf;
    }
    char body[32];
    cli_count_u64(body, sizeof body, (uint64_t)r);
    snprintf(buf, size, "%s%s", x < 0 && r > 0 ? "-" : "", body);
    return buf;
}

char *cli_command_line(int argc, char **argv)
{
    size_t size = sizeof "ksample";
    for (int i = 0; i < argc; i++)
        size += 3 + 4 * strlen(argv[i]); /* ' becomes '\'' */
    char *s = malloc(size);
    if (!s)
        return NULL;
    size_t o = (size_t)snprintf(s, size, "ksample");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool plain = *a != '\0';
        for (const char *c = a; *c && plain; c++)
            plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                           "_./=:,+-@%",
                           *c) != NULL;
        s[o++] = ' ';
        if (!plain)
            s[o++] = '\'';
        for (const char *c = a; *c; c++) {
            if (!plain && *c == '\'') {
                memcpy(s + o, "'\\''", 4);
                o += 4;
            } else
                s[o++] = *c;
        }
        if (!plain)
            s[o++] = '\'';
    }
    s[o] = '\0';
    return s;
}

void cli_note_plan_cost(const ks_plan *plan, const char *cmd, double warm_factor)
{
    double s = plan->predicted_speedup;
    bool warm = isfinite(warm_factor) && warm_factor > 1;
    double share = isfinite(s) && s > 0 ? (warm ? warm_factor : 1) / s : NAN;
    if (!(share > 0.5))
        return;
    char with[128] = "";
    if (warm)
        snprintf(with, sizeof with, "; %.0f%% with warm-up kernels of %.3gx a launch's own "
                                    "cycles, as the runs measured",
                 100 * share, warm_factor);
    fprintf(stderr,
            "ksample%s%s: the plan simulates %.0f%% of the program's profiled time (%.4g ms of "
            "%.4g ms%s): simulating every launch costs only %.2fx as much\n",
            cmd ? " " : "", cmd ? cmd : "", 100 / s, plan->total_ns / s / 1e6,
            plan->total_ns / 1e6, with, 1 / share);
}

const char *cli_as_typed(const char *path, char *buf, size_t size)
{
    char cwd[PATH_MAX];
    size_t n;
    if (!getcwd(cwd, sizeof cwd) || (n = strlen(cwd)) == 0 || strncmp(path, cwd, n) != 0 ||
        path[n] != '/' || !path[n + 1])
        return path;
    snprintf(buf, size, "%s", path + n + 1);
    return buf;
}
