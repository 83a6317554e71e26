/* cli_run_warm.c - the rebuilt warm state in `ksample run` (cmd_run.c,
 * cli_run.c): the carrier (plain `state`'s default, whether state:memcpy32's
 * and split's remap applies to the configuration and the program's
 * footprint, the state:memcpy probe), the states written into the job
 * folders in one pass over the traces, and which sampled launches' states
 * the traced launches left short of the cut. */
#define _GNU_SOURCE /* realpath */
#include "cli_run.h"
#include "cli_state.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* state:memcpy32 and split: whether the configuration's address functions
 * have a 32-bit remap and the program's footprint stays apart under it; else
 * the warm-up kernel, saying why (before the jobs are described: the kernel
 * is a listed launch, the copies are not).  MacSim never gets here: its
 * carrier is the kernel (ks_export_state_check refuses the others). */
int cli_run_check_memcpy32(run_args *a)
{
    ks_state_remap_report rep;
    int rc = cli_state_remap_or_kernel(a->traces, &a->warmup, &rep);
    if (rc || !rep.usable)
        return rc;
    if (!a->quiet && a->warmup.carrier == KS_STATE_SPLIT) {
        fprintf(stderr,
                "ksample: run: state:split%s: the configuration reads address bits up to %d; "
                "the program's %llu lines stay apart in 32 bits: copies (no warm-up cycle) "
                "and each launch's trace go in that address space, and a warm-up kernel "
                "only where the launch's misses evict dirty lines\n",
                a->warmup.carrier_given ? "" : " (the default)", rep.max_bit,
                (unsigned long long)rep.lines);
        return 0;
    } else if (!a->quiet && a->warmup.carrier == KS_STATE_MEMCPY32_STORES) {
        fprintf(stderr,
                "ksample: run: state:memcpy32+stores: the configuration reads address bits up "
                "to %d; the program's %llu lines stay apart in 32 bits: copies, each "
                "launch's trace and a kernel storing the dirty lines go in that address "
                "space (the rewritten launch alone took the original's cycles on every "
                "launch measured: docs/bench.md)\n",
                rep.max_bit, (unsigned long long)rep.lines);
        return 0;
    } else if (!a->quiet)
        fprintf(stderr,
                "ksample: run: state:memcpy32: the configuration reads address bits up to "
                "%d%s; the program's %llu lines stay apart in 32 bits: copies and each "
                "launch's trace go in that address space (zero-cycle prefill on a stock "
                "build; the rewritten launch alone took the original's cycles on every "
                "launch measured: docs/bench.md)\n",
                rep.max_bit, rep.read_high ? " (those above 31 kept by low bits)" : "",
                (unsigned long long)rep.lines);
    return 0;
}

void cli_run_default_carrier(const run_state *s, run_args *a)
{
    ks_warmup earlier;
    ks_error err;
    if (s->has_previous && s->previous.warmup &&
        strncmp(s->previous.warmup, "state:", 6) == 0 &&
        ks_warmup_parse(s->previous.warmup, &earlier, &err) == KS_OK)
        a->warmup.carrier = earlier.carrier;
    else
        a->warmup.carrier = s->macsim ? KS_STATE_KERNEL : KS_STATE_SPLIT;
    /* MacSim's kernel: every line only where the launch's misses evict
     * some (docs/bench.md: on the shared MacSim workload, whose lines fit
     * its LLC, 1.18x the launches alone where every line cost 2.15x); a
     * rerun keeps the lines the earlier run's command says it loaded (a
     * folder begun before auto was the default: all) */
    if (!s->macsim)
        return;
    a->warmup.lines = KS_STATE_LINES_AUTO;
    const char *before = s->has_previous ? s->previous.command : NULL;
    static const struct {
        const char *text;
        ks_state_lines lines;
    } said[] = {{", all lines,", KS_STATE_LINES_ALL},
                {", touched lines,", KS_STATE_LINES_TOUCHED},
                {", dirty lines,", KS_STATE_LINES_DIRTY}};
    for (size_t k = 0; before && k < sizeof said / sizeof said[0]; k++)
        if (strstr(before, said[k].text))
            a->warmup.lines = said[k].lines;
}

/* Where the trace folder lacks launches the tracer numbered (a tracer told
 * to record only some), the states the traced launches do not fill to the
 * cut: which launches, and how many of the cut's lines each lacked at most
 * (the lines used since the latest missing launch fall short by that). */
void cli_run_say_short_states(const ks_state_report *rep)
{
    if (!rep->short_launches)
        return;
    fprintf(stderr,
            "ksample: note: warm state cut short by launches missing from the traces in %zu "
            "of %zu sampled launches (up to %llu lines of the cut lacked): the full run's L2 "
            "holds lines they would have given, so those launches may run slower than in "
            "context; trace more launches before them (export --to accelsim-tracer "
            "--warmup state --state-window N or all):",
            rep->short_launches, rep->launches, (unsigned long long)rep->short_lines_max);
    for (size_t k = 0; k < rep->short_launches && k < KS_STATE_SHORT_LISTED; k++)
        fprintf(stderr, "%s launch %llu: %llu lines (launch %llu missing)",
                k ? ";" : "", (unsigned long long)rep->short_launch[k],
                (unsigned long long)rep->short_lines[k], (unsigned long long)rep->short_missing[k]);
    fprintf(stderr, "%s\n", rep->short_launches > KS_STATE_SHORT_LISTED ? "; ..." : "");
}

/* state:memcpy: whether the build takes 64-bit MemcpyHtoD lines, from a
 * probe job in RUNDIR/probe; when it does not, the run falls back to the
 * warm-up kernel and says so. */
int cli_run_probe_memcpy(run_args *a, bool earlier_only, bool *known)
{
    *known = false;
    char dir[PATH_MAX];
    char *abs = realpath(a->rundir, NULL);
    if (!abs)
        return cli_usage_error("run", "%s: %s", a->rundir, strerror(errno));
    snprintf(dir, sizeof dir, "%s/probe", abs);
    free(abs);
    ks_error err;
    ks_error_clear(&err);
    char *cmd = cli_run_job_command(a, false, dir);
    if (!cmd)
        return KS_ERR_NOMEM;
    /* the log starts with the command that made it: an earlier probe of
     * the same command has the verdict, and no simulator runs again */
    char header[PATH_MAX * 2 + 64], log[PATH_MAX + 16];
    snprintf(header, sizeof header, "# ksample probe: %.*s", PATH_MAX * 2, cmd);
    snprintf(log, sizeof log, "%s/sim.log", dir);
    struct stat sb;
    FILE *earlier = NULL;
    if (lstat(log, &sb) == 0 && S_ISREG(sb.st_mode) && ks_file_open_read(log, &earlier, &err) == KS_OK) {
        char *first = NULL;
        size_t cap = 0;
        ssize_t got = getline(&first, &cap, earlier);
        fclose(earlier);
        if (got > 0 && first[got - 1] == '\n')
            first[--got] = '\0';
        *known = got > 0 && strcmp(first, header) == 0;
        free(first);
    }
    ks_error_clear(&err);
    if (!*known && earlier_only) {
        free(cmd);
        return 0;
    }
    if (!*known) {
        if (ks_state_probe_write(dir, &err) != KS_OK)
            return free(cmd), cli_fail(&err);
        int rc = a->accelsim ? cli_run_link_configs(a, dir) : 0;
        if (rc)
            return free(cmd), rc;
        char shell[PATH_MAX * 16], quoted[PATH_MAX * 4 + 8], quoted_header[PATH_MAX * 8 + 8];
        cli_run_shell_quote(quoted, sizeof quoted, dir);
        cli_run_shell_quote(quoted_header, sizeof quoted_header, header);
        snprintf(shell, sizeof shell, "cd %s && { printf '%%s\\n' %s; %.*s; } > sim.log 2>&1",
                 quoted, quoted_header, PATH_MAX * 2, cmd);
        int status = system(shell);
        if (status != 0) {
            free(cmd);
            fprintf(stderr, "ksample: run: the state:memcpy probe in %s failed (exit %d); see "
                            "its sim.log\n", dir, status);
            return 1;
        }
        *known = true;
    }
    free(cmd);
    int takes = 0;
    if (ks_state_probe_read(log, &takes, &err) != KS_OK)
        return cli_fail(&err);
    if (!takes) {
        fprintf(stderr,
                "ksample: note: this simulator build ignores MemcpyHtoD lines at 64-bit "
                "addresses (its perf_memcpy_to_gpu keeps a 32-bit address: accel-sim issue "
                "#327; probe in %s): the state goes in a warm-up kernel instead "
                "(state:kernel)\n",
                dir);
        a->warmup.carrier = KS_STATE_KERNEL;
    } else if (!a->quiet)
        fprintf(stderr, "ksample: run: this build takes 64-bit MemcpyHtoD lines into L2 "
                        "(probe in %s): the state goes in memory copies\n", dir);
    return 0;
}

/* --warmup state: every sampled launch's rebuilt L2 state written into the
 * folder of its job, in one pass over the traces (the job's export then
 * takes it into the folder it builds).  A job done before is left as it
 * is; a job folder that is a link is refused, as its export would. */
int cli_run_prepare_state(run_state *s, const run_args *a)
{
    char *abs = realpath(a->rundir, NULL);
    const char **dirs = calloc(s->entry_count + 1, sizeof *dirs);
    char **owned = calloc(s->job_count + 1, sizeof *owned);
    ks_export_entry *todo = malloc((s->entry_count + 1) * sizeof *todo);
    size_t todo_count = 0;
    int rc = abs && dirs && owned && todo ? 0 : KS_ERR_NOMEM;
    ks_error err;
    ks_error_clear(&err);
    for (size_t j = 0; j < s->job_count && !rc; j++) {
        size_t n = strlen(abs) + strlen(s->dirs[j]) + 2;
        if (!(owned[j] = malloc(n))) {
            rc = KS_ERR_NOMEM;
            break;
        }
        snprintf(owned[j], n, "%s/%s", abs, s->dirs[j]);
        ks_job_state state;
        int code;
        if (ks_run_job_state(a->rundir, s->dirs[j], &state, &code, &err) != KS_OK) {
            rc = cli_fail(&err);
            break;
        }
        if (state == KS_JOB_DONE)
            continue;
        if (ks_run_owned_dir(owned[j], &err) != KS_OK) {
            rc = cli_fail(&err);
            break;
        }
        for (size_t k = s->job_first[j]; k < s->job_first[j + 1]; k++) {
            todo[todo_count] = s->entries[k];
            dirs[todo_count++] = owned[j];
        }
    }
    ks_state_report rep;
    memset(&rep, 0, sizeof rep);
    if (!rc && ks_export_state_write(a->traces, &a->warmup, todo, todo_count, dirs, &rep,
                                     &err) != KS_OK)
        rc = cli_fail(&err);
    free(todo);
    if (!rc && !a->quiet)
        fprintf(stderr,
                "ksample: run: warm state of %zu launches rebuilt in %.1f s: %llu lines in "
                "all, at most %llu a launch (L2 of %llu bytes from %s, lines of the last %g "
                "L2 capacities)\n",
                rep.launches, rep.seconds, (unsigned long long)rep.lines,
                (unsigned long long)rep.lines_max, (unsigned long long)rep.l2_bytes, rep.source,
                rep.cut);
    if (!rc)
        cli_run_say_short_states(&rep);
    char carrier[32];
    ks_warmup_format(&a->warmup, carrier, sizeof carrier);
    if (!rc && a->warmup.carrier == KS_STATE_SPLIT && !a->quiet)
        fprintf(stderr,
                "ksample: run: state:split: in %zu of %zu launches the misses evict dirty "
                "lines (at least 1 %% of them): their warm-up kernels %s %llu lines, "
                "copies the rest\n",
                rep.split_kernels, rep.launches,
                rep.split_stores ? "store the dirty ones in reach, between the copies:"
                                 : "load in order",
                (unsigned long long)rep.split_kernel_lines);
    if (!rc && a->warmup.lines == KS_STATE_LINES_AUTO && a->warmup.carrier == KS_STATE_KERNEL &&
        rep.launches && !a->quiet)
        fprintf(stderr,
                "ksample: run: state:kernel, lines auto%s: %zu of %zu launches' misses fill "
                "free ways of the rebuilt state's sets, and their warm-up kernels load only "
                "the lines they touch; in %zu the misses evict lines, and the kernels load "
                "every line\n",
                a->warmup.carrier_given ? "" : " (the default on MacSim)", rep.auto_touched,
                rep.launches, rep.auto_all);
    if (!rc && rep.dirty) /* counted for the carriers of copies alone */
        fprintf(stderr,
                "ksample: note: %s: %llu of the copied lines were last written "
                "(dirty) and GPGPU-Sim fills copies clean, so the write-backs their eviction "
                "causes in the full run are left out (tests/data/accelsim-large: 0.938x the "
                "full run, no better than cold, where launches evict other launches' dirty "
                "lines); --warmup state (the warm-up kernel) stores them\n",
                a->warmup.carrier == KS_STATE_MEMCPY32 ? "state:memcpy32" : "state:memcpy",
                (unsigned long long)rep.dirty);
    if (!rc && rep.zero_moved && !a->quiet)
        fprintf(stderr,
                "ksample: run: %s: in %zu launches the remap would put a line on "
                "address 0, which Accel-Sim reads as an inactive lane: their 32-bit space is "
                "moved by a constant no address function of the configuration sees\n",
                carrier, rep.zero_moved);
    if (!rc && rep.zero_kept)
        fprintf(stderr,
                "ksample: note: %s: in %zu launches no remap keeps both every "
                "line off address 0 and the order of each warp instruction's lines: their "
                "accesses to address 0, which Accel-Sim reads as an inactive lane, are lost "
                "(--warmup state:kernel keeps them)\n",
                carrier, rep.zero_kept);
    for (size_t j = 0; owned && j < s->job_count; j++)
        free(owned[j]);
    free(owned);
    free(dirs);
    free(abs);
    return rc;
}
