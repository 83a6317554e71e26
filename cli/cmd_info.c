/* cmd_info.c - `ksample info`: what is in a profile. */
#include "cli_llm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample info [options] PROFILE\n\n"
           "Summarises a profile: invocations, distinct kernels, total GPU time, and the\n"
           "kernels that take the most time with their count, mean and coefficient of\n"
           "variation (population std / mean).\n"
           "Also: the communication kernels' share of the time, the profiler steps,\n"
           "annotations and NVTX ranges the profile marks (--step, --range select them),\n"
           "CUDA graph launches, and the names launched with several (grid, block)\n"
           "shapes (sample gives each shape its own strata).\n\n"
           "options:\n"
           "  --key K            grouping key: name (default), name-notemplate,\n"
           "                     name+grid+block, name+shape\n"
           "  --top N            kernels to list (default 10; 0 = all)\n"
           "  --json             machine-readable output\n" CLI_INPUT_HELP
           "  -h, --help         this text\n");
}

typedef struct row {
    size_t group;
    uint64_t count;
    long double total, sq;
} row;

static int by_total(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->group < y->group ? -1 : (x->group > y->group);
}

int cmd_info(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"key", required_argument, NULL, 'k'}, {"top", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},      {"help", no_argument, NULL, 'h'},
        CLI_INPUT_LONG_OPTIONS,                {NULL, 0, NULL, 0}};
    cli_input input;
    cli_input_init(&input);
    ks_key key = KS_KEY_NAME;
    uint64_t top = 10;
    bool json = false;
    ks_error err;
    ks_error_clear(&err);
    cli_loop l = {.cmd = "info", .longopts = longopts, .help = help, .json = &json,
                  .input = &input, .operands = 1, .operands_are = "one profile file"};
    int opt, rc;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'k':
            if (ks_key_parse(optarg, &key, &err) != KS_OK)
                return cli_fail(&err);
            break;
        case 't':
            if (!cli_parse_u64(optarg, &top))
                return cli_usage_error("info", "--top needs a count, got '%s'", optarg);
            break;
        }
    }
    if (l.exit >= 0)
        return l.exit;
    ks_profile *p;
    ks_comm_summary comm;
    if ((rc = cli_read_profile_comm(argv[optind], &input, false, &p, &comm)))
        return rc;
    ks_groups g;
    if (ks_groups_build(p, key, &g, &err) != KS_OK) {
        ks_profile_free(p);
        ks_comm_summary_free(&comm);
        return cli_fail(&err);
    }
    if (strcmp(p->duration_source, "none") == 0)
        fprintf(stderr,
                "ksample: warning: %s has no kernel durations (no time metric such as "
                "gpu__time_duration.sum): every duration reads 0, so time-based sampling "
                "and eval cannot use it\n",
                p->source_path);
    row *rows = calloc(g.count ? g.count : 1, sizeof *rows);
    if (!rows) {
        ks_groups_free(&g);
        ks_profile_free(p);
        ks_comm_summary_free(&comm);
        fprintf(stderr, "ksample: out of memory\n");
        return KS_ERR_NOMEM;
    }
    /* a trace folder has no durations: its launches are weighed by their
     * instructions (warp-level), with the warps beside them */
    long double total = 0, warps = 0, insts = 0;
    const double *inst_col = NULL, *warp_col = NULL;
    for (size_t m = 0; m < p->metric_count; m++) {
        if (strcmp(p->metrics[m].name, "smsp__inst_executed.sum") == 0)
            inst_col = p->metrics[m].values;
        if (strcmp(p->metrics[m].name, "warps") == 0)
            warp_col = p->metrics[m].values;
    }
    for (size_t i = 0; i < p->n; i++) {
        total += p->duration_ns[i];
        insts += inst_col && !isnan(inst_col[i]) ? inst_col[i] : 0;
        warps += warp_col && !isnan(warp_col[i]) ? warp_col[i] : 0;
    }
    bool by_insts = total == 0 && inst_col && insts > 0;
    long double all = by_insts ? insts : total;
    for (size_t gi = 0; gi < g.count; gi++)
        rows[gi].group = gi;
    for (size_t i = 0; i < p->n; i++) {
        row *r = &rows[g.group_of[i]];
        r->count++;
        r->total += by_insts ? (isnan(inst_col[i]) ? 0 : inst_col[i]) : p->duration_ns[i];
    }
    for (size_t i = 0; i < p->n; i++) {
        row *r = &rows[g.group_of[i]];
        long double v = by_insts ? (isnan(inst_col[i]) ? 0 : inst_col[i]) : p->duration_ns[i];
        long double d = v - r->total / r->count;
        r->sq += d * d;
    }
    qsort(rows, g.count, sizeof *rows, by_total);
    size_t shown = top == 0 || top > g.count ? g.count : (size_t)top;
    if (json) {
        printf("{\"file\": ");
        cli_json_string(p->source_path);
        cli_json_text_field("format", p->source_format);
        cli_json_text_field("device", p->device_name);
        cli_json_text_field("duration_source", p->duration_source);
        printf(", \"invocations\": %zu, \"names\": %zu, \"key\": \"%s\", \"groups\": %zu, "
               "\"total_ns\": %.0Lf, ",
               p->n, p->name_count, ks_key_to_string(key), g.count, total);
        if (inst_col)
            printf("\"instructions\": %.0Lf, ", insts);
        if (warp_col)
            printf("\"warps\": %.0Lf, ", warps);
        printf("\"measure\": \"%s\", \"metrics\": [", by_insts ? "instructions" : "ns");
        for (size_t m = 0; m < p->metric_count; m++) {
            if (m)
                printf(", ");
            cli_json_string(p->metrics[m].name);
        }
        printf("]");
        if (p->selection[0]) {
            printf(", \"selection\": ");
            cli_json_string(p->selection);
            printf(", \"file_invocations\": %llu", (unsigned long long)p->launch_total);
        }
        printf(", \"comm\": {\"launches\": %llu, \"time_ns\": %.0f, \"share\": %.6f, "
               "\"overlap_ns\": ",
               (unsigned long long)comm.launches, comm.time_ns,
               comm.total_ns > 0 ? comm.time_ns / comm.total_ns : 0);
        cli_json_number(comm.overlap_ns);
        printf(", \"kernels\": [");
        for (size_t k = 0; k < comm.name_count; k++) {
            printf("%s{\"name\": ", k ? ", " : "");
            cli_json_string(comm.names[k]);
            printf(", \"launches\": %llu, \"time_ns\": %.0f}",
                   (unsigned long long)comm.name_launches[k], comm.name_ns[k]);
        }
        printf("]}");
        cli_print_shapes(p, true);
        cli_print_regions(p, true);
        printf(", \"top\": [");
        for (size_t i = 0; i < shown; i++) {
            row *r = &rows[i];
            long double mean = r->total / r->count;
            printf("%s{\"key\": ", i ? ", " : "");
            cli_json_string(g.labels[r->group]);
            /* total_ns, mean_ns: of the measure (instructions for traces) */
            printf(", \"count\": %llu, \"%s\": %.0Lf, \"share\": %.6Lf, \"%s\": %.3Lf, "
                   "\"cv\": %.6Lf}",
                   (unsigned long long)r->count, by_insts ? "instructions" : "total_ns",
                   r->total, all > 0 ? r->total / all : 0,
                   by_insts ? "mean_instructions" : "mean_ns", mean,
                   mean > 0 ? sqrtl(r->sq / r->count) / mean : 0);
        }
        printf("]}\n");
    } else {
        printf("file:         %s\n", p->source_path);
        printf("format:       %s\n", p->source_format);
        if (p->device_name[0])
            printf("device:       %s\n", p->device_name);
        char num[48];
        printf("invocations:  %s\n", cli_count_u64(num, sizeof num, p->n));
        if (p->selection[0])
            printf("selection:    %s (%s of the file's %llu launches; ids stay the "
                   "program's)\n",
                   p->selection, cli_count_u64(num, sizeof num, p->n),
                   (unsigned long long)p->launch_total);
        printf("kernel names: %s\n", cli_count_u64(num, sizeof num, p->name_count));
        printf("groups:       %s (key %s)\n", cli_count_u64(num, sizeof num, g.count),
               ks_key_to_string(key));
        if (!by_insts)
            printf("total time:   %.6Lf s (%s ns)\n", total / 1e9L,
                   cli_count(num, sizeof num, (double)total));
        if (inst_col) {
            printf("instructions: %s (warp-level)\n", cli_count(num, sizeof num, (double)insts));
            /* MacSim's INST_COUNT_TOT leaves each warp's last record (its
             * EXIT) out: say so, with the figure it will print
             * (docs/formats.md, MacSim NVBit trace folders) */
            if (warp_col && strcmp(p->source_format, "macsim-traces") == 0 && insts >= warps)
                printf("              (each warp's EXIT included; MacSim's INST_COUNT_TOT "
                       "leaves it out: %s)\n",
                       cli_count(num, sizeof num, (double)(insts - warps)));
        }
        if (warp_col)
            printf("warps:        %s\n", cli_count(num, sizeof num, (double)warps));
        if (p->duration_source[0])
            printf("durations:    %s\n", strcmp(p->duration_source, "none") == 0
                                              ? "none (the file has no time metric)"
                                              : p->duration_source);
        if (p->metric_count) {
            printf("metrics:      %zu (", p->metric_count);
            for (size_t m = 0; m < p->metric_count && m < 4; m++)
                printf("%s%s", m ? ", " : "", p->metrics[m].name);
            printf("%s)\n", p->metric_count > 4 ? ", ..." : "");
        }
        if (!by_insts)
            cli_print_comm(&comm, true);
        cli_print_regions(p, false);
        cli_print_shapes(p, false);
        printf("\n%6s %10s %14s %7s %8s  %s\n", "rank", "count",
               by_insts ? "mean (insts)" : "mean (ns)", "CV", by_insts ? "insts %" : "time %",
               "kernel");
        for (size_t i = 0; i < shown; i++) {
            row *r = &rows[i];
            long double mean = r->total / r->count;
            const char *label = g.labels[r->group];
            printf("%6zu %10s %14.1Lf %7.3Lf %7.2Lf%%  %.100s%s\n", i + 1,
                   cli_count_u64(num, sizeof num, (uint64_t)r->count), mean,
                   mean > 0 ? sqrtl(r->sq / r->count) / mean : 0,
                   all > 0 ? 100 * r->total / all : 0, label,
                   strlen(label) > 100 ? "..." : "");
        }
        if (shown < g.count)
            printf("%6s (%s more)\n", "...", cli_count_u64(num, sizeof num, g.count - shown));
    }
    free(rows);
    ks_groups_free(&g);
    ks_profile_free(p);
    ks_comm_summary_free(&comm);
    return 0;
}
