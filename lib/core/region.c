/*
 * region.c - the parts of a run a profile marks (profiler steps, user
 * annotations, NVTX ranges), resolved to the launches inside each, and the
 * selection of launches every command that reads a profile can make: by
 * step, range, time window or launch ids, and without communication
 * kernels.  A selection keeps the program's launch ids (launch_id).
 */
#include "hash.h"
#include "internal.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

const char *ks_range_kind_name(ks_range_kind kind)
{
    switch (kind) {
    case KS_RANGE_STEP: return "step";
    case KS_RANGE_ANNOTATION: return "annotation";
    case KS_RANGE_GPU_ANNOTATION: return "gpu-annotation";
    case KS_RANGE_NVTX: return "nvtx";
    }
    return "?";
}

ks_status ks_profile_add_range(ks_profile *p, const char *name, size_t len, ks_range_kind kind,
                               bool gpu_clock, int64_t begin_ns, int64_t end_ns, ks_error *err)
{
    if (memchr(name, '\0', len))
        len = strlen(name);
    ks_status st = ks_grow((void **)&p->ranges, &p->range_capacity, p->range_count + 1,
                           sizeof *p->ranges, err);
    if (st != KS_OK)
        return st;
    char *copy = strndup(name, len);
    if (!copy)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_range *r = &p->ranges[p->range_count++];
    memset(r, 0, sizeof *r);
    r->name = copy;
    r->kind = kind;
    r->gpu_clock = gpu_clock;
    r->begin_ns = begin_ns;
    r->end_ns = end_ns < begin_ns ? begin_ns : end_ns;
    return KS_OK;
}

ks_status ks_profile_add_call(ks_profile *p, int64_t correlation, int64_t ts_ns, int64_t tid,
                              bool graph, ks_error *err)
{
    ks_status st = ks_grow((void **)&p->calls, &p->call_capacity, p->call_count + 1,
                           sizeof *p->calls, err);
    if (st != KS_OK)
        return st;
    p->calls[p->call_count++] = (ks_launch_call){correlation, ts_ns, tid, graph};
    if (graph)
        p->graph_launches++;
    return KS_OK;
}

ks_status ks_profile_add_op(ks_profile *p, const char *name, size_t len, int64_t tid,
                            int64_t begin_ns, int64_t end_ns, ks_error *err)
{
    if (memchr(name, '\0', len))
        len = strlen(name);
    uint32_t id;
    ks_status st = ks_hash_intern(&p->op_name_index, &p->op_names, &p->op_name_count,
                                  &p->op_name_capacity, name, len, &id, err);
    if (st != KS_OK)
        return st;
    if ((st = ks_grow((void **)&p->ops, &p->op_capacity, p->op_count + 1, sizeof *p->ops,
                      err)) != KS_OK)
        return st;
    p->ops[p->op_count++] = (ks_op_span){begin_ns, end_ns < begin_ns ? begin_ns : end_ns, tid, id};
    return KS_OK;
}

long ks_range_step(const ks_range *r)
{
    static const char prefix[] = "ProfilerStep#";
    if (strncmp(r->name, prefix, sizeof prefix - 1) != 0)
        return -1;
    const char *s = r->name + sizeof prefix - 1;
    if (*s < '0' || *s > '9')
        return -1;
    long v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        if ((v = v * 10 + (*s - '0')) > 1000000000L)
            return -1;
    return *s ? -1 : v;
}

KS_ORDER_BY2(cmp_call, ks_launch_call, correlation, ts_ns)

typedef struct timed {
    int64_t t;
    uint32_t id;
} timed;

KS_ORDER_BY2(cmp_timed, timed, t, id)

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* lower: the first index of v[0..n) with t >= x; call_lower: of calls
 * (sorted by correlation) with correlation >= c. */
#define TIME_BELOW(e, x) ((e).t < (x))
KS_LOWER_BOUND(lower, timed, int64_t, TIME_BELOW)
#define CORRELATION_BELOW(e, c) ((e).correlation < (c))
KS_LOWER_BOUND(call_lower, ks_launch_call, int64_t, CORRELATION_BELOW)

/* The launch call of correlation c, or NULL (calls sorted by correlation). */
static const ks_launch_call *call_of(const ks_profile *p, int64_t c)
{
    size_t at = call_lower(p->calls, p->call_count, c);
    return c != KS_MISSING_I64 && at < p->call_count && p->calls[at].correlation == c
               ? &p->calls[at]
               : NULL;
}

/* The launches of each clock sorted by time: GPU by start, CPU by the
 * launch call's time (launches without a call are left out). */
static ks_status clock_orders(ks_profile *p, timed **gpu, size_t *gn, timed **cpu, size_t *cn,
                              ks_error *err)
{
    *gpu = *cpu = NULL;
    *gn = *cn = 0;
    size_t n = p->n ? p->n : 1;
    if (p->start_ns) {
        if (!(*gpu = malloc(n * sizeof **gpu)))
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        for (size_t i = 0; i < p->n; i++)
            if (p->start_ns[i] != KS_MISSING_I64)
                (*gpu)[(*gn)++] = (timed){p->start_ns[i], (uint32_t)i};
        qsort(*gpu, *gn, sizeof **gpu, cmp_timed);
    }
    if (p->call_count && p->correlation) {
        qsort(p->calls, p->call_count, sizeof *p->calls, cmp_call);
        if (!(*cpu = malloc(n * sizeof **cpu)))
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        for (size_t i = 0; i < p->n; i++) {
            const ks_launch_call *call = call_of(p, p->correlation[i]);
            if (call) {
                (*cpu)[(*cn)++] = (timed){call->ts_ns, (uint32_t)i};
                if (call->graph)
                    p->graph_kernels++;
            }
        }
        qsort(*cpu, *cn, sizeof **cpu, cmp_timed);
    }
    return KS_OK;
}

/* Per thread in time order: operators (longer first at one start) and the
 * launch calls, with a stack of the operators open; a call's operator is
 * the top of the stack. */
typedef struct sweep_item {
    int64_t tid, t, end;
    uint32_t what; /* operator name, or the launch index for a call */
    bool is_call;
} sweep_item;

static int cmp_sweep(const void *a, const void *b)
{
    const sweep_item *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->is_call != y->is_call) /* an operator starting at the call holds it */
        return x->is_call ? 1 : -1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->what < y->what ? -1 : x->what > y->what;
}

static ks_status resolve_ops(ks_profile *p, ks_error *err)
{
    if (!p->op_count || !p->call_count || !p->correlation)
        return KS_OK;
    /* calls are sorted by correlation (clock_orders) */
    size_t m = p->op_count + p->n;
    sweep_item *items = malloc(m * sizeof *items);
    sweep_item **stack = malloc((p->op_count + 1) * sizeof *stack);
    p->op_id = ks_column_realloc(NULL, (p->capacity ? p->capacity : 1) * sizeof *p->op_id);
    if (!items || !stack || !p->op_id) {
        KS_FREE(items, stack);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    size_t k = 0;
    for (size_t o = 0; o < p->op_count; o++)
        items[k++] = (sweep_item){p->ops[o].tid, p->ops[o].begin_ns, p->ops[o].end_ns,
                                  p->ops[o].name, false};
    for (size_t i = 0; i < p->n; i++) {
        p->op_id[i] = UINT32_MAX;
        const ks_launch_call *call = call_of(p, p->correlation[i]);
        if (call)
            items[k++] = (sweep_item){call->tid, call->ts_ns, 0, (uint32_t)i, true};
    }
    qsort(items, k, sizeof *items, cmp_sweep);
    size_t depth = 0;
    for (size_t q = 0; q < k; q++) {
        sweep_item *it = &items[q];
        while (depth && (stack[depth - 1]->tid != it->tid || stack[depth - 1]->end <= it->t))
            depth--;
        if (it->is_call) {
            if (depth)
                p->op_id[it->what] = stack[depth - 1]->what;
        } else {
            stack[depth++] = it;
        }
    }
    KS_FREE(items, stack);
    return KS_OK;
}

ks_status ks_profile_resolve_ranges(ks_profile *p, ks_error *err)
{
    timed *gpu, *cpu;
    size_t gn, cn;
    ks_status st = clock_orders(p, &gpu, &gn, &cpu, &cn, err);
    for (size_t r = 0; st == KS_OK && r < p->range_count; r++) {
        ks_range *rg = &p->ranges[r];
        if (rg->resolved) /* by an earlier call, whose launch calls are gone */
            continue;
        const timed *v = rg->gpu_clock ? gpu : cpu;
        size_t vn = rg->gpu_clock ? gn : cn;
        rg->resolved = true;
        if (!v)
            continue;
        size_t a = lower(v, vn, rg->begin_ns), b = lower(v, vn, rg->end_ns);
        if (b <= a)
            continue;
        if (!(rg->ids = malloc((b - a) * sizeof *rg->ids))) {
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            break;
        }
        for (size_t k = a; k < b; k++)
            rg->ids[rg->count++] = v[k].id;
        qsort(rg->ids, rg->count, sizeof *rg->ids, cmp_u32);
    }
    free(gpu);
    free(cpu);
    if (st == KS_OK)
        st = resolve_ops(p, err);
    free(p->calls);
    p->calls = NULL;
    p->call_count = p->call_capacity = 0;
    free(p->ops);
    p->ops = NULL;
    p->op_count = p->op_capacity = 0;
    return st;
}

/* ------------------------------------------------------------- selection */

enum { MAX_ITEMS = 32 };

typedef struct spec {
    bool has_step;
    long step_lo, step_hi;
    size_t range_count;
    const char *ranges[MAX_ITEMS];
    bool has_time;
    int64_t t_lo, t_hi;
    bool has_ids;
    uint64_t id_lo, id_hi;
    bool no_comm;
    size_t pattern_count;
    const char *patterns[MAX_ITEMS];
} spec;

static bool parse_pair_i64(const char *s, int64_t *lo, int64_t *hi, bool allow_single)
{
    char *end;
    uint64_t a, b;
    const char *dash = strchr(s, '-');
    char buf[64];
    if (!dash) {
        if (!allow_single || !ks_parse_count(s, &a) || a > INT64_MAX)
            return false;
        *lo = *hi = (int64_t)a;
        return true;
    }
    size_t l = (size_t)(dash - s);
    if (l == 0 || l >= sizeof buf)
        return false;
    memcpy(buf, s, l);
    buf[l] = '\0';
    (void)end;
    if (!ks_parse_count(buf, &a) || !ks_parse_count(dash + 1, &b) || a > INT64_MAX ||
        b > INT64_MAX || b < a)
        return false;
    *lo = (int64_t)a;
    *hi = (int64_t)b;
    return true;
}

/* Parses spec text (modified in place: items are cut at ';'). */
static ks_status parse_spec(char *text, spec *s, ks_error *err)
{
    memset(s, 0, sizeof *s);
    for (char *item = text; item && *item;) {
        char *next = strchr(item, ';');
        if (next)
            *next++ = '\0';
        char *eq = strchr(item, '=');
        const char *val = eq ? eq + 1 : "";
        if (eq)
            *eq = '\0';
        if (strcmp(item, "step") == 0) {
            int64_t lo, hi;
            if (!parse_pair_i64(val, &lo, &hi, true) || hi > 1000000000)
                return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                    "step: expected N or A-B (profiler step numbers), got '%.60s'",
                                    val);
            s->has_step = true;
            s->step_lo = (long)lo;
            s->step_hi = (long)hi;
        } else if (strcmp(item, "range") == 0) {
            if (!*val || s->range_count == MAX_ITEMS)
                return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                    "range: a name is needed (at most %d ranges)", MAX_ITEMS);
            s->ranges[s->range_count++] = val;
        } else if (strcmp(item, "time") == 0) {
            if (!parse_pair_i64(val, &s->t_lo, &s->t_hi, false) || s->t_hi == s->t_lo)
                return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                    "time: expected A-B, ns after the first launch with A < B, "
                                    "got '%.60s'",
                                    val);
            s->has_time = true;
        } else if (strcmp(item, "launches") == 0) {
            int64_t lo, hi;
            if (!parse_pair_i64(val, &lo, &hi, true))
                return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                    "launches: expected A-B (launch ids, inclusive), got "
                                    "'%.60s'",
                                    val);
            s->has_ids = true;
            s->id_lo = (uint64_t)lo;
            s->id_hi = (uint64_t)hi;
        } else if (strcmp(item, "no-comm") == 0 && !eq) {
            s->no_comm = true;
        } else if (strcmp(item, "comm-pattern") == 0) {
            if (!*val || s->pattern_count == MAX_ITEMS)
                return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                    "comm-pattern: a pattern is needed (at most %d)", MAX_ITEMS);
            s->patterns[s->pattern_count++] = val;
        } else if (*item) {
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "selection: unknown item '%.60s' (step, range, time, launches, "
                                "no-comm, comm-pattern)",
                                item);
        }
        item = next;
    }
    return KS_OK;
}

static bool name_matches(const char *pattern, const char *name)
{
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '*')
        return strncmp(pattern, name, n - 1) == 0;
    return strcmp(pattern, name) == 0;
}

/* Marks keep[i] &= inside any range chosen by want(). */
static ks_status keep_inside(const ks_profile *p, uint8_t *keep, bool (*want)(const ks_range *,
                                                                                 const spec *,
                                                                                 size_t),
                             const spec *s, size_t which, size_t *found, ks_error *err)
{
    uint8_t *in = calloc(p->n ? p->n : 1, 1);
    if (!in)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    *found = 0;
    for (size_t r = 0; r < p->range_count; r++) {
        const ks_range *rg = &p->ranges[r];
        if (!want(rg, s, which))
            continue;
        (*found)++;
        for (size_t k = 0; k < rg->count; k++)
            in[rg->ids[k]] = 1;
    }
    for (size_t i = 0; i < p->n; i++)
        keep[i] &= in[i];
    free(in);
    return KS_OK;
}

static bool want_step(const ks_range *r, const spec *s, size_t which)
{
    (void)which;
    long n = ks_range_step(r);
    return n >= 0 && n >= s->step_lo && n <= s->step_hi;
}

static bool want_any_range(const ks_range *r, const spec *s, size_t which)
{
    (void)which;
    for (size_t k = 0; k < s->range_count; k++)
        if (name_matches(s->ranges[k], r->name))
            return true;
    return false;
}

static bool want_range(const ks_range *r, const spec *s, size_t which)
{
    return name_matches(s->ranges[which], r->name);
}

/* "ProfilerStep#3-7, ..." or "no profiler steps" for a refusal. */
static void list_steps(const ks_profile *p, char *buf, size_t size)
{
    long lo = -1, hi = -1;
    size_t count = 0;
    for (size_t r = 0; r < p->range_count; r++) {
        long n = ks_range_step(&p->ranges[r]);
        if (n < 0)
            continue;
        count++;
        if (lo < 0 || n < lo)
            lo = n;
        if (n > hi)
            hi = n;
    }
    if (!count)
        snprintf(buf, size, "it marks no profiler steps");
    else
        snprintf(buf, size, "it has %zu profiler steps, numbered %ld to %ld", count, lo, hi);
}

static void list_ranges(const ks_profile *p, char *buf, size_t size)
{
    size_t used = 0, shown = 0;
    buf[0] = '\0';
    for (size_t r = 0; r < p->range_count && used + 80 < size; r++) {
        const ks_range *rg = &p->ranges[r];
        if (ks_range_step(rg) >= 0)
            continue;
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++)
            seen = strcmp(p->ranges[q].name, rg->name) == 0;
        if (seen)
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%s'%.40s'", shown ? ", " : "",
                                 rg->name);
        shown++;
    }
    if (!shown)
        snprintf(buf, size, "none (the profile marks no annotations or NVTX ranges)");
}

/* Keeps launches i with keep[i] (at least one), in order, recording their
 * program ids. */
static ks_status compact(ks_profile *p, const uint8_t *keep, size_t k, ks_error *err)
{
    uint32_t *order = malloc((k ? k : 1) * sizeof *order);
    uint64_t *ids = malloc((k ? k : 1) * sizeof *ids);
    if (!order || !ids) {
        free(order);
        free(ids);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    size_t j = 0;
    uint32_t *new_index = malloc((p->n ? p->n : 1) * sizeof *new_index);
    if (!new_index) {
        free(order);
        free(ids);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < p->n; i++) {
        new_index[i] = UINT32_MAX;
        if (keep[i]) {
            new_index[i] = (uint32_t)j;
            order[j] = (uint32_t)i;
            ids[j++] = ks_profile_launch_id(p, i);
        }
    }
    ks_status st = ks_profile_keep(p, order, k, err);
    free(order);
    if (st != KS_OK) {
        free(ids);
        free(new_index);
        return st;
    }
    free(p->launch_id);
    p->launch_id = ids;
    /* ranges now hold the kept launches only */
    for (size_t r = 0; r < p->range_count; r++) {
        ks_range *rg = &p->ranges[r];
        size_t m = 0;
        for (size_t q = 0; q < rg->count; q++)
            if (new_index[rg->ids[q]] != UINT32_MAX)
                rg->ids[m++] = new_index[rg->ids[q]];
        rg->count = m;
    }
    free(new_index);
    return KS_OK;
}

/* Launches outside a mask keep their place and time under this name, which
 * no plan group has (ks_profile_mask_selection). */
static const char outside_name[] = "(outside the plan's selection)";

static ks_status mask_outside(ks_profile *p, const uint8_t *keep, ks_error *err)
{
    uint32_t id;
    ks_status st = ks_profile_intern(p, outside_name, sizeof outside_name - 1, &id, err);
    for (size_t i = 0; st == KS_OK && i < p->n; i++)
        if (!keep[i])
            p->name_id[i] = id;
    return st;
}

static ks_status apply(ks_profile *p, const char *text, bool mask, ks_error *err)
{
    if (!text || !*text)
        return KS_OK;
    if (!p->launch_total)
        p->launch_total = p->n;
    size_t len = strlen(text);
    if (len >= sizeof p->selection)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "the selection is longer than %zu bytes",
                            sizeof p->selection - 1);
    char *copy = malloc(len + 1);
    uint8_t *keep = malloc(p->n ? p->n : 1);
    if (!copy || !keep) {
        free(copy);
        free(keep);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    memcpy(copy, text, len + 1);
    spec s;
    ks_status st = parse_spec(copy, &s, err);
    memset(keep, 1, p->n);
    char what[400];
    size_t found;
    if (st == KS_OK && s.has_step) {
        st = keep_inside(p, keep, want_step, &s, 0, &found, err);
        if (st == KS_OK && !found) {
            list_steps(p, what, sizeof what);
            st = ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                              "no ProfilerStep#%ld%s%.0ld in the profile: %s", s.step_lo,
                              s.step_hi != s.step_lo ? " to " : "",
                              s.step_hi != s.step_lo ? s.step_hi : 0, what);
        }
    }
    for (size_t k = 0; st == KS_OK && k < s.range_count; k++) {
        uint8_t dummy = 1;
        (void)dummy;
        /* each name must name something, even if another names more */
        size_t one = 0;
        for (size_t r = 0; r < p->range_count; r++)
            one += want_range(&p->ranges[r], &s, k);
        if (!one) {
            list_ranges(p, what, sizeof what);
            st = ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                              "no range named '%.80s' in the profile; its ranges: %s",
                              s.ranges[k], what);
        }
    }
    if (st == KS_OK && s.range_count)
        st = keep_inside(p, keep, want_any_range, &s, 0, &found, err);
    if (st == KS_OK && s.has_time) {
        if (!p->start_ns) {
            st = ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                              "a time window needs launch start times, which format %s does "
                              "not give",
                              p->source_format);
        } else {
            int64_t first = INT64_MAX;
            for (size_t i = 0; i < p->n; i++)
                if (p->start_ns[i] != KS_MISSING_I64 && p->start_ns[i] < first)
                    first = p->start_ns[i];
            for (size_t i = 0; i < p->n; i++) {
                int64_t t = p->start_ns[i];
                if (t == KS_MISSING_I64 || t - first < s.t_lo || t - first >= s.t_hi)
                    keep[i] = 0;
            }
        }
    }
    if (st == KS_OK && s.has_ids) {
        if (s.id_lo >= p->launch_total)
            st = ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                              "launches %llu-%llu: the profile's ids are 0 to %llu",
                              (unsigned long long)s.id_lo, (unsigned long long)s.id_hi,
                              (unsigned long long)(p->launch_total ? p->launch_total - 1 : 0));
        for (size_t i = 0; st == KS_OK && i < p->n; i++) {
            uint64_t id = ks_profile_launch_id(p, i);
            if (id < s.id_lo || id > s.id_hi)
                keep[i] = 0;
        }
    }
    if (st == KS_OK && s.no_comm) {
        /* by name, once each: matching every launch's name against the
         * patterns took 10 s of 2 M launches (casio-like) */
        uint8_t *comm = malloc(p->name_count ? p->name_count : 1);
        if (!comm)
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        for (size_t k = 0; comm && k < p->name_count; k++)
            comm[k] = ks_comm_kernel(p->names[k], s.patterns, s.pattern_count);
        for (size_t i = 0; comm && i < p->n; i++)
            if (comm[p->name_id[i]])
                keep[i] = 0;
        free(comm);
    }
    size_t k = 0;
    for (size_t i = 0; st == KS_OK && i < p->n; i++)
        k += keep[i];
    if (st == KS_OK && k == 0)
        st = ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                          "the selection '%.200s' leaves no launch of the %zu", text, p->n);
    if (st == KS_OK && k < p->n)
        st = mask ? mask_outside(p, keep, err) : compact(p, keep, k, err);
    if (st == KS_OK)
        p->selected = k;
    if (st == KS_OK) {
        size_t used = strlen(p->selection);
        if (used + len + 2 > sizeof p->selection)
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0, "the selection is longer than %zu bytes",
                              sizeof p->selection - 1);
        else
            snprintf(p->selection + used, sizeof p->selection - used, "%s%s", used ? ";" : "",
                     text);
    }
    free(copy);
    free(keep);
    return st;
}

ks_status ks_profile_select(ks_profile *p, const char *text, ks_error *err)
{
    return apply(p, text, false, err);
}

ks_status ks_profile_mask_selection(ks_profile *p, const char *text, ks_error *err)
{
    return apply(p, text, true, err);
}

uint32_t ks_profile_masked_name(const ks_profile *p)
{
    if (!p->selection[0] || p->selected >= p->n)
        return UINT32_MAX;
    for (size_t k = p->name_count; k-- > 0;)
        if (strcmp(p->names[k], outside_name) == 0)
            return (uint32_t)k;
    return UINT32_MAX;
}
