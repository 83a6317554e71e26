/*
 * test_export.c - plans into the tracers and the simulator: each exporter's
 * file against its format's syntax, and the Accel-Sim round trip on the real
 * backprop traces: plan -> kernelslist.g read back -> a simulator log in
 * Accel-Sim's format -> estimate; ids checked against the trace headers, and
 * remapped when the profile has warm-up launches the traces lack.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"
#include "tmpdir.h"

#define BACKPROP KS_SHARED_DATA "/accelsim/backprop-h100"

static ks_plan plan_of(const ks_profile *p, const char *method, double eps, uint64_t seed)
{
    ks_params pa;
    ks_params_init(&pa);
    pa.method = method;
    pa.epsilon = eps;
    pa.seed = seed;
    return tu_plan_ok(p, &pa);
}

static void export_to(const ks_plan *plan, const char *format, const ks_export_options *o,
                      const char *out)
{
    ks_error err;
    ks_error_clear(&err);
    const ks_exporter *e = ks_exporter_find(format);
    assert_non_null(e);
    if (e->write(plan, o, out, &err) != KS_OK)
        fail_msg("export %s: %s", format, err.message);
}

/* The text of a one-file export of plan with default options (caller frees). */
static char *exported_text(const ks_plan *plan, const char *format, const char *name)
{
    ks_export_options o = {0};
    export_to(plan, format, &o, in_dir(name));
    size_t len;
    return read_file(in_dir(name), &len);
}

static bool sampled(const ks_plan *plan, uint64_t id)
{
    for (size_t i = 0; i < plan->sample_count; i++)
        if (plan->samples[i].id == id)
            return true;
    return false;
}

/* ------------------------------------------------------- file syntax */

static void test_ids_file(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 5000, 4);
    ks_plan plan = plan_of(p, "root", 0.05, 3);
    char *text = exported_text(&plan, "ids", "kernel_ids.txt");
    size_t i = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), i++) {
        for (char *c = line; *c; c++)
            assert_true(isdigit((unsigned char)*c)); /* no header, no comment */
        assert_true(i < plan.sample_count);
        assert_int_equal(strtoull(line, NULL, 10), plan.samples[i].id);
    }
    assert_int_equal(i, plan.sample_count);
    free(text);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* The ranges an environment line lists (sep between items, each "a-b" or,
 * with singles, "a"), checked against the plan: 1-based, ascending, merged
 * (never adjacent), covering every sampled id once. */
static void check_ranges(const ks_plan *plan, char *s, char sep, bool singles)
{
    unsigned long long prev = 0, covered = 0;
    size_t next = 0;
    while (*s && *s != '"') {
        char *end;
        unsigned long long a = strtoull(s, &end, 10), b = a;
        if (*end == '-')
            b = strtoull(end + 1, &end, 10);
        else
            assert_true(singles);
        assert_true(a >= 1 && a <= b && (prev == 0 || a > prev + 1));
        for (unsigned long long k = a; k <= b; k++, next++) {
            assert_true(next < plan->sample_count);
            assert_int_equal(plan->samples[next].id + 1, k);
            covered++;
        }
        prev = b;
        assert_true(*end == sep || *end == '\0' || *end == '"');
        s = *end == sep ? end + 1 : end;
    }
    assert_int_equal(covered, plan->sample_count);
}

static void test_accelsim_tracer_env(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(0, 3000, 8);
    ks_plan plan = plan_of(p, "stem", 0.02, 5);
    static const struct {
        const char *format, *prefix;
        char sep;
        bool singles;
    } forms[] = {
        {"accelsim-tracer", "export DYNAMIC_KERNEL_RANGE=\"", ' ', true},
        {"accelsim-tracer-regions", "export DYNAMIC_KERNEL_REGIONS=", ',', false},
    };
    for (size_t f = 0; f < 2; f++) {
        char *text = exported_text(&plan, forms[f].format, "trace.env");
        int found = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            if (line[0] == '#')
                continue;
            assert_memory_equal(line, forms[f].prefix, strlen(forms[f].prefix));
            found++;
            check_ranges(&plan, line + strlen(forms[f].prefix), forms[f].sep,
                         forms[f].singles);
        }
        assert_int_equal(found, 1);
        free(text);
    }
    /* span: one range from the first to the last sampled launch */
    char *text = exported_text(&plan, "accelsim-tracer-span", "span.env");
    char want[160];
    snprintf(want, sizeof want,
             "export DYNAMIC_KERNEL_LIMIT_START=%llu\nexport DYNAMIC_KERNEL_LIMIT_END=%llu\n",
             (unsigned long long)plan.samples[0].id + 1,
             (unsigned long long)plan.samples[plan.sample_count - 1].id + 1);
    assert_non_null(strstr(text, want));
    free(text);
    /* ranges: one "trace K first last" line per range, valid shell */
    text = exported_text(&plan, "accelsim-tracer-ranges", "ranges.sh");
    size_t lines = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (strncmp(line, "trace ", 6) == 0)
            lines++;
    assert_true(lines >= 1);
    free(text);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "sh -n '%s/ranges.sh'", tmpdir);
    assert_int_equal(system(cmd), 0);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

static void test_macsim_tracer_list(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(1, 8000, 2);
    ks_plan plan = plan_of(p, "allegro", 0.05, 9); /* repeats merged */
    char *text = exported_text(&plan, "macsim-tracer", "sampled_kernels_info.txt");
    int line_no = 0;
    size_t ids = 0, clusters = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), line_no++) {
        if (line_no < 2)
            continue; /* the tracer prints and skips two lines */
        char *end;
        unsigned long long size = strtoull(line, &end, 10);
        unsigned long long m = strtoull(end, &end, 10);
        assert_true(size >= 1 && m >= 1 && m <= size);
        unsigned long long count = 0;
        while (*end) {
            assert_int_equal(*end, ' ');
            unsigned long long id = strtoull(end, &end, 10);
            assert_true(sampled(&plan, id)); /* 0-based, as grid_launch_id */
            count++;
        }
        assert_int_equal(count, m); /* the tracer asserts this */
        ids += count;
        clusters++;
    }
    assert_int_equal(ids, plan.sample_count);
    assert_true(clusters <= plan.cluster_count);
    free(text);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* ------------------------------------------------- Accel-Sim round trip */

typedef struct header {
    char name[256];
    uint32_t grid[3], block[3];
} header;

/* The reading side of the format, written here independently of the
 * exporter: the `-kernel name`, `-grid dim`, `-block dim` header lines. */
static bool read_header(const char *path, header *h)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[1024];
    int found = 0;
    while (found < 3 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (sscanf(line, "-kernel name = %255s", h->name) == 1)
            found++;
        else if (sscanf(line, "-grid dim = (%u,%u,%u)", &h->grid[0], &h->grid[1], &h->grid[2]) == 3)
            found++;
        else if (sscanf(line, "-block dim = (%u,%u,%u)", &h->block[0], &h->block[1],
                        &h->block[2]) == 3)
            found++;
    }
    fclose(f);
    return found == 3;
}

/* kernelslist.g: memory copies and kernel lines, in order */
static size_t read_list(const char *dir, char lines[][256], size_t max)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = 0;
    while (n < max && fgets(lines[n], 256, f)) {
        lines[n][strcspn(lines[n], "\r\n")] = '\0';
        if (lines[n][0])
            n++;
    }
    fclose(f);
    return n;
}

static const char *demangled(const char *mangled)
{
    if (strstr(mangled, "forward_kernel"))
        return "forward_kernel(float const*, float const*, float*, int, int, int)";
    if (strstr(mangled, "output_kernel"))
        return "output_kernel(float const*, float const*, float*, int, int, int)";
    return "adjust_weights_kernel(float*, float*, float const*, float const*, int, int, float, "
           "float)";
}

/* A plain-CSV profile of the traced launches (demangled names, made-up
 * durations), with `warmup` launches of a kernel the tracer never saw
 * first. */
static ks_profile *backprop_profile(int warmup, char list[][256], size_t lines)
{
    char *csv = malloc(1 << 16);
    size_t n = (size_t)snprintf(csv, 1 << 16, "name,duration_ns,grid,block\n");
    for (int w = 0; w < warmup; w++)
        n += (size_t)snprintf(csv + n, (1 << 16) - n, "warmup_kernel(int),%d,1 1 1,32 1 1\n",
                              900 + w);
    int k = 0;
    for (size_t i = 0; i < lines; i++) {
        if (strncmp(list[i], "kernel", 6) != 0)
            continue;
        header h;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", BACKPROP, list[i]);
        assert_true(read_header(path, &h));
        n += (size_t)snprintf(csv + n, (1 << 16) - n, "\"%s\",%d,%u %u %u,%u %u %u\n",
                              demangled(h.name), 1000 + 37 * (k % 7) + (int)h.grid[0] * 20,
                              h.grid[0], h.grid[1], h.grid[2], h.block[0], h.block[1], h.block[2]);
        k++;
    }
    const char *path = write_file(warmup ? "warm.csv" : "backprop.csv", csv, n);
    free(csv);
    ks_profile *p;
    ks_error err;
    ks_read_options ro;
    ks_read_options_init(&ro);
    if (ks_profile_read(path, &ro, &p, &err) != KS_OK)
        fail_msg("profile: %s", err.message);
    return p;
}

static double simulated_cycles(uint64_t id) { return 5000.0 + 130.0 * (double)(id % 11); }

static void test_backprop_round_trip(void **state)
{
    (void)state;
    if (access(BACKPROP "/kernelslist.g", R_OK) != 0)
        skip();
    static char orig[64][256], out[64][256];
    size_t n_orig = read_list(BACKPROP, orig, 64);
    assert_int_equal(n_orig, 38); /* 5 copies, 33 launches */
    ks_profile *p = backprop_profile(0, orig, n_orig);
    assert_int_equal(p->n, 33);
    ks_plan plan = plan_of(p, "root", 0.02, 1);
    assert_true(plan.sample_count >= 4 && plan.sample_count < 33);
    ks_export_options o = {.traces = BACKPROP, .profile = p};
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", in_dir("sim-in"));
    export_to(&plan, "accelsim", &o, dir);

    /* read the list back: every copy, then only the sampled launches, each
     * a file in the folder whose header is that launch's */
    size_t n_out = read_list(dir, out, 64);
    size_t copies = 0, kernels = 0;
    for (size_t i = 0; i < n_out; i++) {
        if (strncmp(out[i], "MemcpyHtoD,", 11) == 0) {
            assert_string_equal(out[i], orig[copies]);
            copies++;
            continue;
        }
        assert_memory_equal(out[i], "kernel", 6);
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, out[i]);
        header h;
        assert_true(read_header(path, &h));
        uint64_t id = plan.samples[kernels].id;
        char want[64];
        snprintf(want, sizeof want, "kernel-%llu-ctx_", (unsigned long long)id + 1);
        assert_memory_equal(out[i], want, strlen(want));
        assert_int_equal(h.grid[0], ks_profile_grid(p, id)[0]);
        kernels++;
    }
    assert_int_equal(copies, 5);
    assert_int_equal(kernels, plan.sample_count);

    /* a simulator log in Accel-Sim's format for the listed launches: uid k
     * is the k-th kernel line */
    FILE *f = fopen(in_dir("sim.log"), "w");
    fprintf(f, "Accel-Sim [build accelsim-commit-test]\n");
    double tot = 0, want = 0;
    for (size_t k = 0; k < kernels; k++) {
        uint64_t id = plan.samples[k].id;
        double c = simulated_cycles(id);
        tot += c;
        want += plan.samples[k].weight * c;
        fprintf(f, "kernel_name = %s\nkernel_launch_uid = %zu\ngpu_sim_cycle = %.0f\n"
                   "gpu_sim_insn = %.0f\ngpu_tot_sim_cycle = %.0f\n",
                ks_profile_name(p, id), k + 1, c, 2 * c, tot);
    }
    fclose(f);
    ks_results_options ro;
    ks_results_options_init(&ro);
    ro.uid_mode = KS_UID_MAP;
    char weights[8192];
    snprintf(weights, sizeof weights, "%s/weights.csv", dir);
    ro.uid_map = weights;
    ks_results r;
    ks_results_init(&r);
    ks_error err;
    if (ks_results_read(in_dir("sim.log"), &plan, &ro, &r, &err) != KS_OK)
        fail_msg("results: %s", err.message);
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    ks_estimate e;
    assert_int_equal(ks_estimate_compute(&plan, &r, &eo, &e, &err), KS_OK);
    bool seen = false;
    for (size_t i = 0; i < e.count; i++)
        if (strcmp(e.metrics[i].name, "gpu_sim_cycle") == 0) {
            assert_true(fabs(e.metrics[i].estimate - want) < 1e-6 * want);
            seen = true;
        }
    assert_true(seen);
    ks_estimate_free(&e);
    ks_results_free(&r);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* Plan of chosen ids on p, one cluster per id (census-free weights). */
static ks_plan chosen_plan(const ks_profile *p, const uint64_t *ids, size_t n)
{
    ks_plan plan = tu_hand_plan("stem", 1.96, (const char *[]){"all"}, 1);
    ks_error err;
    ks_cluster c = {.group = 0, .path = "0", .size = p->n, .mean_ns = 1, .m = n};
    assert_int_equal(ks_plan_add_cluster(&plan, &c, NULL, &err), KS_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ks_plan_add_sample(&plan, ids[i], (double)p->n / (double)n, 0, &err),
                         KS_OK);
    assert_int_equal(ks_plan_finish(&plan, p, &err), KS_OK);
    return plan;
}

static void test_warmup_remap(void **state)
{
    (void)state;
    if (access(BACKPROP "/kernelslist.g", R_OK) != 0)
        skip();
    static char orig[64][256];
    size_t n_orig = read_list(BACKPROP, orig, 64);
    ks_profile *p = backprop_profile(3, orig, n_orig);
    assert_int_equal(p->n, 36);
    uint64_t ids[] = {3, 6, 10, 20, 35};
    ks_plan plan = chosen_plan(p, ids, 5);
    ks_export_options o = {.traces = BACKPROP, .profile = p};
    ks_error err;
    ks_error_clear(&err);
    const ks_exporter *ex = ks_exporter_find("accelsim");
    /* by position, plan id 3 is the trace's 4th launch: refused, naming
     * both, located at the 4th launch's trace file */
    assert_int_equal(ex->write(&plan, &o, in_dir("pos"), &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "--remap"));
    assert_non_null(strstr(err.message, "plan id 3"));
    assert_non_null(strstr(err.message, "launch 4 (kernel-4-"));
    assert_non_null(strstr(err.file, "/kernel-4-"));
    /* by (name, grid, block, occurrence): profile launch 3 + k is trace
     * launch k + 1 */
    o.remap = 1;
    if (ex->write(&plan, &o, in_dir("remap"), &err) != KS_OK)
        fail_msg("remap: %s", err.message);
    size_t len;
    char *text = read_file(in_dir("remap/weights.csv"), &len);
    size_t rows = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long long uid, id, launch;
        double w;
        if (sscanf(line, "%llu,%llu,%lf,%llu,", &uid, &id, &w, &launch) != 4)
            continue;
        assert_int_equal(id, ids[rows]);
        assert_int_equal(launch, id - 3 + 1);
        assert_int_equal(uid, rows + 1);
        rows++;
    }
    assert_int_equal(rows, 5);
    free(text);
    ks_plan_free(&plan);
    /* a sampled warm-up launch has no trace: refused, named */
    uint64_t warm[] = {1, 10};
    plan = chosen_plan(p, warm, 2);
    assert_int_equal(ex->write(&plan, &o, in_dir("warm"), &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "warmup_kernel"));
    ks_plan_free(&plan);
    /* without the profile the ids cannot be checked, and remap is refused */
    o.profile = NULL;
    plan = chosen_plan(p, ids, 5);
    assert_int_equal(ex->write(&plan, &o, in_dir("noprof"), &err), KS_ERR_USAGE);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks_export",
                    test_ids_file,
                    test_accelsim_tracer_env,
                    test_macsim_tracer_list,
                    test_backprop_round_trip,
                    test_warmup_remap)
