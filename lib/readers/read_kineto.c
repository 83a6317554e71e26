/*
 * read_kineto.c - PyTorch profiler (Kineto) Chrome traces: the "cat":"kernel"
 * events of "traceEvents", plus the device name from "deviceProperties";
 * and what marks the run's regions (lib/core/region.c): profiler steps,
 * user and GPU annotations, the launch calls (cuda_runtime / cuda_driver,
 * by correlation id and thread) and the framework's operators (cpu_op).
 * A marker that lacks what it needs is passed over, never refused.
 *
 * Real training traces run to hundreds of megabytes, almost all of it CPU
 * ops, runtime calls and flow arrows, so the file is parsed as a stream with
 * yajl's callbacks: memory holds one event's fields at a time, never a
 * document tree.  Key order inside an event is not fixed ("cat" may follow
 * "name" and "args"), so every event's interesting fields are buffered until
 * its closing brace decides whether it is a kernel; once "cat" has said it is
 * not, the rest of the event is skipped without copying anything.
 *
 * Times are microseconds, integral in old traces and fractional in new ones
 * (1712195495505582.988).  A double holds only ~16 significant digits, which
 * at that magnitude is coarser than a nanosecond, so numbers arrive as text
 * (yajl_number) and are converted to integer nanoseconds digit by digit.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "json_stream.h"

enum { CHUNK = KS_FUZZ_SMALL(1 << 20, 509), MAX_DEPTH = 8, DEVICE_NAME_MAX = 128 };

/* What the container on top of the stack is. */
typedef enum {
    CTX_BEFORE_ROOT,
    CTX_ROOT,      /* the top-level object */
    CTX_EVENTS,    /* the traceEvents list */
    CTX_EVENT,     /* one event object */
    CTX_ARGS,      /* an event's args object */
    CTX_DIM,       /* args.grid or args.block */
    CTX_DEVICES,   /* the deviceProperties list */
    CTX_DEVICE,    /* one deviceProperties object */
    CTX_DONE       /* the root value has closed */
} context;

/* The meaning of the value that follows the last key. */
typedef enum {
    KEY_OTHER,
    KEY_TRACE_EVENTS,
    KEY_DEVICE_PROPERTIES,
    KEY_CAT,
    KEY_NAME,
    KEY_TS,
    KEY_DUR,
    KEY_ARGS,
    KEY_DEVICE,
    KEY_STREAM,
    KEY_CORRELATION,
    KEY_GRID,
    KEY_BLOCK,
    KEY_ID,
    KEY_TID
} key;

typedef struct number_field {
    bool present;
    int64_t value;
} number_field;

/* The first thing wrong with an event, kept until we know whether the event
 * is a kernel: problems in other events are none of our business. */
typedef struct problem {
    bool set;
    const char *label;    /* JSON key, e.g. "dur" or "args.grid" */
    const char *found;    /* e.g. "a string" */
    const char *expected; /* e.g. "a number" */
    long line, column;
} problem;

/* JSON value kinds, for saying what was found where something else belonged. */
typedef enum { V_STRING, V_NUMBER, V_NULL, V_BOOLEAN, V_OBJECT, V_LIST } value_kind;
static const char *const kind_text[] = {"a string", "a number",  "null",
                                        "a boolean", "an object", "a list"};

/* What an event is, by its "cat": the kernels are the profile; launch calls
 * (their correlation ids and CPU times), annotations and profiler steps mark
 * the regions of the run (lib/core/region.c); the rest is skipped. */
typedef enum {
    CAT_OTHER,
    CAT_KERNEL,
    CAT_CALL,      /* cuda_runtime, cuda_driver, Runtime (2021) */
    CAT_ANNOT,     /* user_annotation */
    CAT_GPU_ANNOT, /* gpu_user_annotation */
    CAT_CPU_OP     /* cpu_op, Operator (2021): only ProfilerStep#N is kept */
} cat_kind;

typedef struct event {
    long line, column; /* where the event's '{' is */
    bool cat_seen;
    bool is_kernel;
    cat_kind cat;
    bool has_name;
    size_t name_len; /* bytes in parser.name */
    number_field ts, dur, device, stream, correlation, tid;
    bool has_grid, has_block;
    uint32_t grid[3], block[3];
    problem bad;
} event;

typedef struct device_entry {
    int64_t id;
    char name[DEVICE_NAME_MAX];
} device_entry;

typedef struct parser {
    const char *path;
    const ks_read_options *opt;
    ks_profile *profile;
    ks_error *err;
    ks_status status; /* set when a callback stops the parse */
    yajl_handle yajl;

    context stack[MAX_DEPTH];
    int depth;    /* entries in stack */
    long skip;    /* > 0: inside a value being skipped, this many levels deep */
    key pending;  /* key whose value comes next */
    int dim_count;
    uint32_t *dim_target;
    bool *dim_flag;

    /* location: newlines before the current chunk, plus an incremental count
     * inside it up to the parser's position */
    const unsigned char *chunk;
    size_t chunk_len;
    size_t counted_to;
    long line;          /* 1-based line at chunk[counted_to] */
    uint64_t chunk_base; /* absolute offset of chunk[0] */
    uint64_t line_start; /* absolute offset where the current line begins */
    bool last_byte_newline;
    /* the string being scanned by string_guard, across chunks */
    bool in_string, escaped;
    size_t string_len, bare_len;

    event ev;
    char *name;
    size_t name_cap;

    bool saw_events;
    long events_line; /* where the traceEvents list opens, for whole-file complaints */
    uint64_t events;
    uint64_t kernels_seen;     /* before the device filter */
    uint64_t devices_seen;     /* bit d: a kernel ran on device d (d < 64) */
    bool devices_seen_more;    /* some device id >= 64 */
    int64_t only_device;       /* device of every kept kernel, or -1 if mixed */

    device_entry *devices;
    size_t device_count, device_cap;
    device_entry dev; /* the deviceProperties entry being read */
    bool dev_has_id;
} parser;

/* ---------------------------------------------------------------- location */

static void advance_to(parser *ps, size_t off)
{
    if (off > ps->chunk_len)
        off = ps->chunk_len;
    while (ps->counted_to < off) {
        const unsigned char *nl =
            memchr(ps->chunk + ps->counted_to, '\n', off - ps->counted_to);
        if (!nl) {
            ps->counted_to = off;
            break;
        }
        ps->line++;
        ps->counted_to = (size_t)(nl - ps->chunk) + 1;
        ps->line_start = ps->chunk_base + ps->counted_to;
    }
}

/* Line and column just past the token yajl handed to the current callback. */
static void here(parser *ps, long *line, long *column)
{
    advance_to(ps, ps->chunk ? yajl_get_bytes_consumed(ps->yajl) : 0);
    *line = ps->line;
    uint64_t pos = ps->chunk_base + ps->counted_to;
    *column = (long)(pos - ps->line_start) + 1;
}

#if defined(__GNUC__)
#define KS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KS_PRINTF(a, b)
#endif

static int vfail(parser *ps, ks_status status, long line, long column, const char *fmt,
                 va_list ap)
{
    char msg[sizeof ps->err->message];
    vsnprintf(msg, sizeof msg, fmt, ap);
    ks_error_set(ps->err, status, ps->path, line, "%s", msg);
    if (ps->err)
        ps->err->column = column;
    ps->status = status;
    return 0; /* stops yajl */
}

static int fail(parser *ps, ks_status status, long line, long column, const char *fmt, ...)
    KS_PRINTF(5, 6);
static int fail(parser *ps, ks_status status, long line, long column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(ps, status, line, column, fmt, ap);
    va_end(ap);
    return 0;
}

static int fail_here(parser *ps, const char *fmt, ...) KS_PRINTF(2, 3);
static int fail_here(parser *ps, const char *fmt, ...)
{
    long line, column;
    here(ps, &line, &column);
    va_list ap;
    va_start(ap, fmt);
    vfail(ps, KS_ERR_FORMAT, line, column, fmt, ap);
    va_end(ap);
    return 0;
}

static void note_problem(parser *ps, const char *label, const char *found,
                         const char *expected)
{
    if (ps->ev.bad.set)
        return;
    ps->ev.bad.set = true;
    ps->ev.bad.label = label;
    ps->ev.bad.found = found;
    ps->ev.bad.expected = expected;
    here(ps, &ps->ev.bad.line, &ps->ev.bad.column);
}

/* ------------------------------------------------------------------ numbers */

typedef enum { NUM_OK, NUM_RANGE, NUM_FRACTION } num_result;

/*
 * Converts JSON number text to round(value * 10^scale) as int64.  With exact,
 * a value that is not a whole number after scaling is NUM_FRACTION instead of
 * being rounded.  Rounding looks at the first dropped digit only (half away
 * from zero); the digits past it move the result by less than one unit.
 */
static num_result decimal_to_i64(const char *s, size_t n, int scale, bool exact,
                                 int64_t *out)
{
    size_t i = 0;
    bool negative = false;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        negative = s[i++] == '-';
    const char *int_digits = s + i;
    size_t n_int = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, n_int++;
    const char *frac_digits = s + i;
    size_t n_frac = 0;
    if (i < n && s[i] == '.') {
        frac_digits = s + ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, n_frac++;
    }
    long exponent = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool exp_negative = false;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            exp_negative = s[i++] == '-';
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (exponent < 1000000) /* far beyond any int64; keeps the loop bounded */
                exponent = exponent * 10 + (s[i] - '0');
            i++;
        }
        if (exp_negative)
            exponent = -exponent;
    }
    if (i != n || n_int + n_frac == 0)
        return NUM_RANGE; /* yajl only passes valid JSON numbers; be safe anyway */

    long total = (long)(n_int + n_frac);
#define DIGIT(k) ((k) < (long)n_int ? int_digits[k] - '0' : frac_digits[(k) - (long)n_int] - '0')
    /* digits [0, point) of int_digits++frac_digits form the integer part */
    long point = (long)n_int + exponent + scale;
    const uint64_t limit = (uint64_t)INT64_MAX;
    uint64_t value = 0;
    for (long k = 0; k < point; k++) {
        int d = k < total ? DIGIT(k) : 0;
        if (k >= total && value == 0)
            break;
        if (value > (limit - (uint64_t)d) / 10)
            return NUM_RANGE;
        value = value * 10 + (uint64_t)d;
    }
    long first_dropped = point < 0 ? 0 : point;
    if (exact) {
        for (long k = first_dropped; k < total; k++)
            if (DIGIT(k) != 0)
                return NUM_FRACTION;
    } else if (point >= 0 && point < total && DIGIT(point) >= 5) {
        if (value == limit)
            return NUM_RANGE;
        value++;
    }
#undef DIGIT
    *out = negative ? -(int64_t)value : (int64_t)value;
    return NUM_OK;
}

/* ------------------------------------------------------------------ events */

static void begin_event(parser *ps)
{
    memset(&ps->ev, 0, sizeof ps->ev);
    here(ps, &ps->ev.line, &ps->ev.column);
    ps->events++;
}

/* A launch call, annotation or step: kept when it has what it needs,
 * passed over otherwise (they only mark regions; a damaged one is no
 * reason to refuse the kernels). */
static int finish_marker(parser *ps)
{
    event *ev = &ps->ev;
    if (ev->bad.set || !ev->ts.present || (ev->has_name && memchr(ps->name, '\0', ev->name_len)))
        return 1;
    ks_status st = KS_OK;
    if (ev->cat == CAT_CALL) {
        if (!ev->correlation.present)
            return 1;
        static const char *const graph[] = {"cudaGraphLaunch", "cuGraphLaunch",
                                            "hipGraphLaunch"};
        bool is_graph = false;
        for (size_t k = 0; ev->has_name && k < 3; k++)
            is_graph |= ev->name_len >= strlen(graph[k]) &&
                        memcmp(ps->name, graph[k], strlen(graph[k])) == 0;
        st = ks_profile_add_call(ps->profile, ev->correlation.value, ev->ts.value,
                                 ev->tid.present ? ev->tid.value : 0, is_graph, ps->err);
    } else {
        if (!ev->has_name || !ev->dur.present || ev->dur.value < 0)
            return 1;
        bool step = ev->name_len > 13 && memcmp(ps->name, "ProfilerStep#", 13) == 0;
        if (ev->ts.value > INT64_MAX - ev->dur.value)
            return 1;
        if (ev->cat == CAT_CPU_OP && !step) /* the operator stream */
            st = ks_profile_add_op(ps->profile, ps->name, ev->name_len,
                                   ev->tid.present ? ev->tid.value : 0, ev->ts.value,
                                   ev->ts.value + ev->dur.value, ps->err);
        if (st != KS_OK || (ev->cat == CAT_CPU_OP && !step)) {
            if (st != KS_OK) {
                ps->status = st;
                return 0;
            }
            return 1;
        }
        ks_range_kind kind = step ? KS_RANGE_STEP
                             : ev->cat == CAT_GPU_ANNOT ? KS_RANGE_GPU_ANNOTATION
                                                        : KS_RANGE_ANNOTATION;
        if (ev->cat == CAT_GPU_ANNOT && step)
            return 1; /* the GPU copy of a step: its CPU range says which launches */
        if (ev->ts.value > INT64_MAX - ev->dur.value)
            return 1;
        st = ks_profile_add_range(ps->profile, ps->name, ev->name_len, kind,
                                  ev->cat == CAT_GPU_ANNOT, ev->ts.value,
                                  ev->ts.value + ev->dur.value, ps->err);
    }
    if (st != KS_OK) {
        ps->status = st;
        return 0;
    }
    return 1;
}

static int finish_event(parser *ps)
{
    event *ev = &ps->ev;
    if (!ev->is_kernel)
        return ev->cat_seen && ev->cat != CAT_OTHER ? finish_marker(ps) : 1;
    if (ev->bad.set)
        return fail(ps, KS_ERR_FORMAT, ev->bad.line, ev->bad.column,
                    "kernel event: \"%s\" is %s, expected %s", ev->bad.label, ev->bad.found,
                    ev->bad.expected);
    const char *missing = !ev->has_name ? "name" : !ev->ts.present ? "ts"
                        : !ev->dur.present ? "dur" : NULL;
    if (missing)
        return fail(ps, KS_ERR_FORMAT, ev->line, ev->column,
                    "kernel event (the one starting here) has no \"%s\"", missing);
    if (ev->dur.value < 0)
        return fail(ps, KS_ERR_FORMAT, ev->line, ev->column,
                    "kernel event (the one starting here) has a negative \"dur\" (%lld ns)",
                    (long long)ev->dur.value);
    if (memchr(ps->name, '\0', ev->name_len))
        return fail(ps, KS_ERR_FORMAT, ev->line, ev->column,
                    "kernel name contains a NUL character (\\u0000)");

    ps->kernels_seen++;
    if (ev->device.present) {
        if (ev->device.value < 64)
            ps->devices_seen |= UINT64_C(1) << ev->device.value;
        else
            ps->devices_seen_more = true;
    }
    /* Under a device filter a kernel that does not say where it ran cannot
     * be shown to belong, so it is left out rather than guessed. */
    if (ps->opt->device >= 0 &&
        (!ev->device.present || ev->device.value != ps->opt->device))
        return 1;

    ks_invocation inv;
    ks_invocation_init(&inv);
    ks_status st = ks_profile_intern(ps->profile, ps->name, ev->name_len, &inv.name_id,
                                     ps->err);
    if (st != KS_OK) {
        ps->status = st;
        return 0;
    }
    inv.start_ns = ev->ts.value;
    inv.duration_ns = ev->dur.value;
    inv.grid = ev->has_grid ? ev->grid : NULL;
    inv.block = ev->has_block ? ev->block : NULL;
    inv.stream = ev->stream.present ? (uint32_t)ev->stream.value : 0;
    inv.device = ev->device.present ? (uint32_t)ev->device.value : 0;
    if (ev->correlation.present)
        inv.correlation = ev->correlation.value;
    int64_t dev = ev->device.present ? ev->device.value : -1;
    if (ps->profile->n == 0)
        ps->only_device = dev;
    else if (ps->only_device != dev)
        ps->only_device = -1;
    if ((st = ks_profile_append(ps->profile, &inv, ps->err)) != KS_OK) {
        ps->status = st;
        return 0;
    }
    return 1;
}

static const char *key_label(key k)
{
    switch (k) {
    case KEY_CAT: return "cat";
    case KEY_NAME: return "name";
    case KEY_TS: return "ts";
    case KEY_DUR: return "dur";
    case KEY_ARGS: return "args";
    case KEY_DEVICE: return "args.device";
    case KEY_STREAM: return "args.stream";
    case KEY_CORRELATION: return "args.correlation";
    case KEY_GRID: return "args.grid";
    case KEY_BLOCK: return "args.block";
    default: return "?";
    }
}

static const char *key_expects(key k)
{
    switch (k) {
    case KEY_NAME: return "a string";
    case KEY_TS: case KEY_DUR: return "a number of microseconds";
    case KEY_ARGS: return "an object";
    case KEY_DEVICE: return "an integer from 0 to 2147483647";
    case KEY_STREAM: return "an integer from 0 to 4294967295";
    case KEY_CORRELATION: return "a 64-bit integer";
    case KEY_GRID: case KEY_BLOCK: return "a list of 3 integers";
    default: return "something else";
    }
}

static void wrong_type(parser *ps, key k, value_kind found)
{
    note_problem(ps, key_label(k), kind_text[found], key_expects(k));
}

static void event_number(parser *ps, key k, const char *s, size_t n)
{
    event *ev = &ps->ev;
    number_field *f;
    int scale = 0;
    bool exact = true;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    switch (k) {
    case KEY_TS: f = &ev->ts, scale = 3, exact = false; break;
    case KEY_DUR: f = &ev->dur, scale = 3, exact = false; break;
    case KEY_DEVICE: f = &ev->device, lo = 0, hi = INT32_MAX; break;
    case KEY_STREAM: f = &ev->stream, lo = 0, hi = UINT32_MAX; break;
    case KEY_CORRELATION: f = &ev->correlation; break;
    default: return;
    }
    int64_t v;
    num_result r = decimal_to_i64(s, n, scale, exact, &v);
    if (r == NUM_FRACTION)
        note_problem(ps, key_label(k), "not a whole number", key_expects(k));
    else if (r == NUM_RANGE || v < lo || v > hi)
        note_problem(ps, key_label(k), "out of range", key_expects(k));
    else {
        f->present = true;
        f->value = v;
    }
}

static const char *dim_label(const parser *ps)
{
    return ps->dim_flag == &ps->ev.has_grid ? "args.grid" : "args.block";
}

/* ---------------------------------------------------------------- callbacks */

static context top(const parser *ps) { return ps->stack[ps->depth - 1]; }

static int push(parser *ps, context c)
{
    if (ps->depth >= MAX_DEPTH)
        return fail_here(ps, "internal: nesting deeper than expected");
    ps->stack[ps->depth++] = c;
    ps->pending = KEY_OTHER;
    return 1;
}

/* The end of a container: false inside a skipped value, else pops the
 * container and puts what it was in *c. */
static bool pop(parser *ps, context *c)
{
    if (ps->skip) {
        ps->skip--;
        return false;
    }
    *c = top(ps);
    ps->depth--;
    ps->pending = KEY_OTHER;
    return true;
}

static bool event_is_other(const parser *ps)
{
    return ps->ev.cat_seen && ps->ev.cat == CAT_OTHER;
}

static int keep_name(parser *ps, const char *s, size_t n)
{
    if (n + 1 > ps->name_cap) {
        size_t cap = ps->name_cap ? ps->name_cap : 256;
        while (cap < n + 1)
            cap *= 2;
        char *q = realloc(ps->name, cap);
        if (!q)
            return fail(ps, KS_ERR_NOMEM, 0, 0, "out of memory for a %zu-byte name", n);
        ps->name = q;
        ps->name_cap = cap;
    }
    memcpy(ps->name, s, n);
    ps->ev.name_len = n;
    ps->ev.has_name = true;
    return 1;
}

/* A scalar value of an event or of its args (the keys of each are told
 * apart when the key is read, so one switch serves both); a value of the
 * wrong type is noted. */
static int event_scalar(parser *ps, key k, value_kind kind, const char *s, size_t n)
{
    switch (k) {
    case KEY_CAT:
        ps->ev.cat_seen = true;
        /* libkineto wrote "Kernel" until 2021 (PyTorch 1.8-1.9 traces) */
        ps->ev.is_kernel = kind == V_STRING && n == 6 &&
                           (memcmp(s, "kernel", 6) == 0 || memcmp(s, "Kernel", 6) == 0);
        ps->ev.cat = CAT_OTHER;
        if (ps->ev.is_kernel)
            ps->ev.cat = CAT_KERNEL;
        else if (kind == V_STRING) {
#define CAT_IS(lit) (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)
            if (CAT_IS("cuda_runtime") || CAT_IS("cuda_driver") || CAT_IS("Runtime"))
                ps->ev.cat = CAT_CALL;
            else if (CAT_IS("user_annotation"))
                ps->ev.cat = CAT_ANNOT;
            else if (CAT_IS("gpu_user_annotation"))
                ps->ev.cat = CAT_GPU_ANNOT;
            else if (CAT_IS("cpu_op") || CAT_IS("Operator"))
                ps->ev.cat = CAT_CPU_OP;
#undef CAT_IS
        }
        return 1;
    case KEY_NAME:
        if (kind == V_STRING)
            return keep_name(ps, s, n);
        break;
    case KEY_TID: /* a number for CPU threads; GPU rows may say "stream 7" */
        if (kind == V_NUMBER) {
            int64_t v;
            if (decimal_to_i64(s, n, 0, true, &v) == NUM_OK) {
                ps->ev.tid.present = true;
                ps->ev.tid.value = v;
            }
        }
        return 1;
    case KEY_TS:
    case KEY_DUR:
    case KEY_DEVICE:
    case KEY_STREAM:
    case KEY_CORRELATION:
        if (kind == V_NUMBER) {
            event_number(ps, k, s, n);
            return 1;
        }
        break;
    case KEY_ARGS:
    case KEY_GRID:
    case KEY_BLOCK:
        break;
    default:
        return 1;
    }
    wrong_type(ps, k, kind);
    return 1;
}

/* A scalar value (string s/n for strings and numbers) in the current
 * context.  Returns 0 to stop the parse. */
static int scalar(parser *ps, value_kind kind, const char *s, size_t n)
{
    if (ps->skip)
        return 1;
    key k = ps->pending;
    switch (top(ps)) {
    case CTX_BEFORE_ROOT:
        return fail_here(ps, "the top-level JSON value is %s, expected an object with "
                             "\"traceEvents\"", kind_text[kind]);
    case CTX_ROOT:
        if (k == KEY_TRACE_EVENTS || k == KEY_DEVICE_PROPERTIES)
            return fail_here(ps, "\"%s\" is %s, expected a list",
                             k == KEY_TRACE_EVENTS ? "traceEvents" : "deviceProperties",
                             kind_text[kind]);
        return 1;
    case CTX_EVENTS:
        return fail_here(ps, "an element of \"traceEvents\" is %s, expected an event object",
                         kind_text[kind]);
    case CTX_EVENT:
        if (event_is_other(ps))
            return 1;
        return event_scalar(ps, k, kind, s, n);
    case CTX_ARGS:
        return event_scalar(ps, k, kind, s, n);
    case CTX_DIM: {
        int64_t v;
        if (kind != V_NUMBER)
            note_problem(ps, dim_label(ps), "a list holding a non-number",
                         "a list of 3 integers");
        else if (ps->dim_count < 3 && decimal_to_i64(s, n, 0, true, &v) == NUM_OK &&
                 v >= 0 && v <= UINT32_MAX)
            ps->dim_target[ps->dim_count] = (uint32_t)v;
        else if (ps->dim_count < 3)
            note_problem(ps, dim_label(ps), "a list holding a negative, fractional or huge "
                         "value", "a list of 3 integers from 0 to 4294967295");
        ps->dim_count++;
        return 1;
    }
    case CTX_DEVICE:
        if (k == KEY_NAME && kind == V_STRING) {
            size_t m = n < DEVICE_NAME_MAX - 1 ? n : DEVICE_NAME_MAX - 1;
            memcpy(ps->dev.name, s, m);
            ps->dev.name[m] = '\0';
        } else if (k == KEY_ID && kind == V_NUMBER) {
            int64_t v;
            if (decimal_to_i64(s, n, 0, true, &v) == NUM_OK) {
                ps->dev.id = v;
                ps->dev_has_id = true;
            }
        }
        return 1;
    case CTX_DEVICES: /* stray scalars in deviceProperties carry nothing we use */
    case CTX_DONE:
        return 1;
    }
    return 1;
}

static int on_scalar(void *ctx, ks_json_kind kind, const char *s, size_t n)
{
    static const value_kind as_value[] = {[KS_JSON_NULL] = V_NULL, [KS_JSON_BOOL] = V_BOOLEAN,
                                          [KS_JSON_NUMBER] = V_NUMBER,
                                          [KS_JSON_STRING] = V_STRING};
    bool text = kind == KS_JSON_NUMBER || kind == KS_JSON_STRING;
    return scalar(ctx, as_value[kind], text ? s : NULL, text ? n : 0);
}

static int on_map_key(void *ctx, const char *s, size_t n)
{
    parser *ps = ctx;
    if (ps->skip)
        return 1;
    key k = KEY_OTHER;
#define IS(lit) (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)
    switch (top(ps)) {
    case CTX_ROOT:
        if (IS("traceEvents"))
            k = KEY_TRACE_EVENTS;
        else if (IS("deviceProperties"))
            k = KEY_DEVICE_PROPERTIES;
        break;
    case CTX_EVENT:
        if (event_is_other(ps))
            break;
        switch (n) {
        case 2: if (IS("ts")) k = KEY_TS; break;
        case 3:
            if (IS("cat"))
                k = KEY_CAT;
            else if (IS("dur"))
                k = KEY_DUR;
            else if (IS("tid"))
                k = KEY_TID;
            break;
        case 4: if (IS("name")) k = KEY_NAME; else if (IS("args")) k = KEY_ARGS; break;
        default: break;
        }
        break;
    case CTX_ARGS:
        if (IS("device"))
            k = KEY_DEVICE;
        else if (IS("stream"))
            k = KEY_STREAM;
        else if (IS("correlation"))
            k = KEY_CORRELATION;
        else if (IS("grid"))
            k = KEY_GRID;
        else if (IS("block"))
            k = KEY_BLOCK;
        break;
    case CTX_DEVICE:
        if (IS("name"))
            k = KEY_NAME;
        else if (IS("id"))
            k = KEY_ID;
        break;
    default:
        break;
    }
#undef IS
    ps->pending = k;
    return 1;
}

/* open_object and open_list return this for a value skipped whole */
enum { SKIP_VALUE = -1 };

static int open_object(parser *ps, key k)
{
    switch (top(ps)) {
    case CTX_BEFORE_ROOT:
        return push(ps, CTX_ROOT);
    case CTX_ROOT:
        if (k == KEY_TRACE_EVENTS || k == KEY_DEVICE_PROPERTIES)
            return fail_here(ps, "\"%s\" is an object, expected a list",
                             k == KEY_TRACE_EVENTS ? "traceEvents" : "deviceProperties");
        break;
    case CTX_EVENTS:
        begin_event(ps);
        return push(ps, CTX_EVENT);
    case CTX_EVENT:
        if (event_is_other(ps))
            break;
        if (k == KEY_ARGS)
            return push(ps, CTX_ARGS);
        if (k != KEY_OTHER && k != KEY_TID)
            wrong_type(ps, k, V_OBJECT);
        break;
    case CTX_ARGS:
        if (k != KEY_OTHER)
            wrong_type(ps, k, V_OBJECT);
        break;
    case CTX_DIM:
        note_problem(ps, dim_label(ps), "a list holding an object", "a list of 3 integers");
        ps->dim_count++;
        break;
    case CTX_DEVICES:
        memset(&ps->dev, 0, sizeof ps->dev);
        ps->dev_has_id = false;
        return push(ps, CTX_DEVICE);
    default:
        break;
    }
    return SKIP_VALUE;
}

static int close_object(parser *ps, context c)
{
    switch (c) {
    case CTX_EVENT:
        return finish_event(ps);
    case CTX_DEVICE:
        if (!ps->dev_has_id)
            ps->dev.id = (int64_t)ps->device_count; /* Kineto numbers them in order */
        if (ks_grow((void **)&ps->devices, &ps->device_cap, ps->device_count + 1,
                    sizeof *ps->devices, ps->err) != KS_OK) {
            ps->status = KS_ERR_NOMEM;
            return 0;
        }
        ps->devices[ps->device_count++] = ps->dev;
        return 1;
    case CTX_ROOT:
        return push(ps, CTX_DONE);
    default:
        return 1;
    }
}

static int open_list(parser *ps, key k)
{
    switch (top(ps)) {
    case CTX_BEFORE_ROOT: /* Chrome's "JSON Array Format": the events alone */
        ps->saw_events = true;
        ps->events_line = 1;
        if (!push(ps, CTX_DONE))
            return 0;
        return push(ps, CTX_EVENTS);
    case CTX_ROOT:
        if (k == KEY_TRACE_EVENTS) {
            long column;
            ps->saw_events = true;
            here(ps, &ps->events_line, &column);
            return push(ps, CTX_EVENTS);
        }
        if (k == KEY_DEVICE_PROPERTIES)
            return push(ps, CTX_DEVICES);
        break;
    case CTX_EVENTS:
        return fail_here(ps, "an element of \"traceEvents\" is a list, expected an event "
                             "object");
    case CTX_EVENT:
        if (k != KEY_OTHER && k != KEY_TID && !event_is_other(ps))
            wrong_type(ps, k, V_LIST);
        break;
    case CTX_ARGS:
        if (k == KEY_GRID || k == KEY_BLOCK) {
            ps->dim_count = 0;
            ps->dim_target = k == KEY_GRID ? ps->ev.grid : ps->ev.block;
            ps->dim_flag = k == KEY_GRID ? &ps->ev.has_grid : &ps->ev.has_block;
            return push(ps, CTX_DIM);
        }
        if (k != KEY_OTHER)
            wrong_type(ps, k, V_LIST);
        break;
    case CTX_DIM:
        note_problem(ps, dim_label(ps), "a list holding a list", "a list of 3 integers");
        ps->dim_count++;
        break;
    default:
        break;
    }
    return SKIP_VALUE;
}

static int close_list(parser *ps, context c)
{
    if (c == CTX_DIM) {
        if (ps->dim_count != 3)
            note_problem(ps, dim_label(ps), "a list whose length is not 3",
                         "a list of 3 integers");
        else
            *ps->dim_flag = true;
    }
    return 1;
}

static int on_open(void *ctx, bool is_list)
{
    parser *ps = ctx;
    if (ps->skip) {
        ps->skip++;
        return 1;
    }
    int r = is_list ? open_list(ps, ps->pending) : open_object(ps, ps->pending);
    if (r != SKIP_VALUE)
        return r;
    ps->skip = 1;
    return 1;
}

static int on_close(void *ctx, bool is_list)
{
    parser *ps = ctx;
    context c;
    if (!pop(ps, &c))
        return 1;
    return is_list ? close_list(ps, c) : close_object(ps, c);
}

static const ks_json_events events = {on_scalar, on_map_key, on_open, on_close};

/* ----------------------------------------------------------------- driver */

/* yajl stopped: either a callback said why (ps->status), or the JSON itself
 * is bad, in which case yajl's own message is passed on with our location. */
static ks_status yajl_failure(parser *ps, const unsigned char *chunk, size_t len,
                              bool at_end)
{
    if (ps->status != KS_OK)
        return ps->status;
    unsigned char *msg = yajl_get_error(ps->yajl, 0, chunk, len);
    char text[256] = "";
    if (msg) {
        snprintf(text, sizeof text, "%s", (const char *)msg);
        yajl_free_error(ps->yajl, msg);
    }
    size_t m = strlen(text);
    while (m > 0 && (text[m - 1] == '\n' || text[m - 1] == ' '))
        text[--m] = '\0';
    long line, column;
    here(ps, &line, &column);
    if (at_end) {
        /* point at the last line that has text, not the empty one after it */
        if (ps->last_byte_newline && line > 1)
            line--, column = 0;
        fail(ps, KS_ERR_FORMAT, line, column,
             "JSON ends early (truncated file?): yajl says \"%s\"", text);
    } else {
        fail(ps, KS_ERR_FORMAT, line, column, "invalid JSON: yajl says \"%s\"", text);
    }
    return KS_ERR_FORMAT;
}

static const char *resolve_device_name(const parser *ps)
{
    if (ps->device_count == 0)
        return NULL;
    int64_t want = ps->opt->device >= 0 ? ps->opt->device : ps->only_device;
    for (size_t i = 0; want >= 0 && i < ps->device_count; i++)
        if (ps->devices[i].id == want)
            return ps->devices[i].name;
    return ps->devices[0].name;
}

static ks_status no_kernels(parser *ps)
{
    if (!ps->saw_events)
        return ks_error_set(ps->err, KS_ERR_FORMAT, ps->path, 1,
                            "no \"traceEvents\" list: not a PyTorch profiler trace");
    if (ps->kernels_seen == 0)
        return ks_error_set(ps->err, KS_ERR_FORMAT, ps->path, ps->events_line,
                            "none of the %llu events has \"cat\":\"kernel\" (was the "
                            "profiler run with ProfilerActivity.CUDA?)",
                            (unsigned long long)ps->events);
    char seen[256] = "";
    size_t used = 0;
    for (int d = 0; d < 64; d++)
        if (ps->devices_seen & (UINT64_C(1) << d) && used < sizeof seen - 16)
            used += (size_t)snprintf(seen + used, sizeof seen - used, "%s%d", used ? "," : "",
                                     d);
    if (ps->devices_seen_more && used < sizeof seen - 16)
        snprintf(seen + used, sizeof seen - used, "%s>=64", used ? "," : "");
    return ks_error_set(ps->err, KS_ERR_FORMAT, ps->path, ps->events_line,
                        "no kernel events on device %d (%llu kernel events on devices: %s)",
                        ps->opt->device, (unsigned long long)ps->kernels_seen,
                        seen[0] ? seen : "none stated");
}

/* yajl re-lexes a token from its start each time another chunk arrives, so
 * one 128 MB string took 10 s and 64 MB of digits 42 s.  Tokens are followed
 * here in one pass over the chunk and one longer than KS_MAX_TOKEN_BYTES stops
 * the read before yajl sees it.  A malformed document may fool the tracking,
 * but yajl refuses such a document anyway. */
static ks_status token_too_long(parser *ps, const char *what)
{
    return ks_error_set(ps->err, KS_ERR_FORMAT, ps->path, 0,
                        "a JSON %s is longer than %zu MB: not a profiler trace (damaged or "
                        "hostile data?)",
                        what, KS_MAX_TOKEN_BYTES >> 20 ? KS_MAX_TOKEN_BYTES >> 20 : 1);
}

static ks_status string_guard(parser *ps, const unsigned char *b, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (!ps->in_string) {
            /* a number or literal: any run of bytes between JSON's
             * punctuation and white space */
            for (; i < n; i++) {
                unsigned char c = b[i];
                if (c == '"')
                    break;
                if (c == ',' || c == ':' || c == '{' || c == '}' || c == '[' || c == ']' ||
                    c == ' ' || c == '\n' || c == '\r' || c == '\t')
                    ps->bare_len = 0;
                else if (++ps->bare_len > KS_MAX_TOKEN_BYTES)
                    return token_too_long(ps, "number or literal");
            }
            if (i == n)
                return KS_OK;
            i++;
            ps->in_string = true;
            ps->escaped = false;
            ps->string_len = 0;
            ps->bare_len = 0;
            continue;
        }
        size_t start = i;
        for (; i < n; i++) {
            if (ps->escaped)
                ps->escaped = false;
            else if (b[i] == '\\')
                ps->escaped = true;
            else if (b[i] == '"')
                break;
        }
        ps->string_len += i - start;
        if (ps->string_len > KS_MAX_TOKEN_BYTES)
            return token_too_long(ps, "string");
        if (i < n) {
            ps->in_string = false;
            i++;
        }
    }
    return KS_OK;
}

static ks_status read_kineto(ks_input *in, const ks_read_options *opt, ks_profile *p,
                             ks_error *err)
{
    parser ps = {.path = ks_input_path(in), .opt = opt, .profile = p, .err = err, .line = 1,
                 .only_device = -1};
    ps.stack[ps.depth++] = CTX_BEFORE_ROOT;

    unsigned char *buf = malloc(CHUNK);
    ks_json_stream stream = {&events, &ps};
    ps.yajl = ks_json_stream_alloc(&stream);
    ks_status st = KS_OK;
    if (!buf || !ps.yajl) {
        st = ks_error_set(err, KS_ERR_NOMEM, ps.path, 0, "out of memory");
        goto done;
    }
    for (;;) {
        size_t got;
        if ((st = ks_input_read(in, buf, CHUNK, &got, err)) != KS_OK)
            goto done;
        if (got == 0)
            break;
        ps.chunk = buf;
        ps.chunk_len = got;
        ps.counted_to = 0;
        if ((st = string_guard(&ps, buf, got)) != KS_OK)
            goto done;
        if (yajl_parse(ps.yajl, buf, got) != yajl_status_ok) {
            st = yajl_failure(&ps, buf, got, false);
            goto done;
        }
        advance_to(&ps, got);
        ps.chunk_base += got;
        ps.last_byte_newline = buf[got - 1] == '\n';
    }
    /* Past the last byte: a truncated file is reported where it ends. */
    ps.chunk = NULL;
    ps.chunk_len = 0;
    ps.counted_to = 0;
    if (yajl_complete_parse(ps.yajl) != yajl_status_ok) {
        st = yajl_failure(&ps, NULL, 0, true);
        goto done;
    }
    if (p->n == 0) {
        st = no_kernels(&ps);
        goto done;
    }
    /* Kineto writes events per buffer flush and per stream, not in time
     * order; ids must be launch order, which start time approximates. */
    if ((st = ks_profile_sort_by_start(p, err)) != KS_OK)
        goto done;
    const char *dn = resolve_device_name(&ps);
    if (dn)
        snprintf(p->device_name, sizeof p->device_name, "%s", dn);
    snprintf(p->source_format, sizeof p->source_format, "kineto-json");

done:
    if (ps.yajl)
        yajl_free(ps.yajl);
    free(buf);
    free(ps.name);
    free(ps.devices);
    return st;
}

static int detect_kineto(const char *head, size_t len, const char *path)
{
    (void)path;
    size_t i = 0;
    if (len >= 3 && memcmp(head, "\xef\xbb\xbf", 3) == 0)
        i = 3; /* UTF-8 byte order mark */
    while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
        i++;
    if (i >= len)
        return 0;
    if (head[i] == '{') {
        if (ks_find_text(head + i, len - i, "\"traceEvents\"") ||
            ks_find_text(head + i, len - i, "\"schemaVersion\"") ||
            ks_find_text(head + i, len - i, "\"deviceProperties\""))
            return 95;
        return 5;
    }
    if (head[i] == '[' && ks_find_text(head + i, len - i, "\"ph\"") &&
        ks_find_text(head + i, len - i, "\"ts\""))
        return 40; /* Chrome's array form; Kineto itself always writes an object */
    return 0;
}

const ks_reader ks_reader_kineto_json = {
    .name = "kineto-json",
    .summary = "PyTorch profiler (Kineto) Chrome trace JSON: \"cat\":\"kernel\" events",
    .detect = detect_kineto,
    .read = read_kineto,
};
