/*
 * read_rocprof.c - AMD profiler CSV: rocprofv3 `--kernel-trace`
 * (<pid>_kernel_trace.csv) and the legacy rocprof v1 `results.csv`.
 *
 * Both are read by header name after any preamble lines; cells may be quoted
 * (kernel names hold commas), may carry thousands separators, and "n/a" or
 * empty cells count as missing.  Choices common to both readers:
 *
 * - Grid sizes.  AMD tools report the grid in WORK-ITEMS, CUDA tools in
 *   blocks; the profile stores workgroups (CUDA's blocks) so the two compare:
 *   grid = ceil(work-items / workgroup size) per dimension.  A workgroup size
 *   of 0 (impossible in an AQL dispatch packet) is an error, not a division.
 * - Names.  rocprof names a kernel after its code-object symbol, which ends
 *   in ".kd" ("foo.kd", or demangled "foo(int) [clone .kd]"); the suffix is
 *   dropped so that a kernel groups the same whichever form a tool wrote.
 * - Launch order.  Rows are sorted by the dispatch sequence number
 *   (rocprofv3 Dispatch_Id, v1 Index) with ties by start then file order;
 *   files without one are ordered by start time.
 * - A last line without a newline is an error: both tools end every row with
 *   one, so such a line is most likely a cut-off row, and a cut inside the
 *   last number would still parse as a (wrong) number.
 * - A row with more fields than the header is an error: an unquoted comma
 *   in a name would otherwise shift every later column silently.  A shorter
 *   row is read when it still has every column read (ks_csv_fill_short_row,
 *   the rule every CSV reader shares): its missing cells are empty.
 */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ shared part */

typedef struct column_spec {
    const char *name;
    bool required;
} column_spec;

/* One invocation as parsed, with its launch-order key. */
typedef struct row {
    int64_t key;
    int64_t start; /* KS_MISSING_I64 when absent */
    int64_t duration;
    int64_t correlation;
    uint32_t grid[3], block[3];
    uint32_t stream, device;
    bool has_grid;
} row;

typedef struct csv_state {
    ks_input *in;
    const char *path;
    char **fields;
    int fields_cap;
    int header_fields;
    int needed; /* fields a row must have: up to the last column read */
    long header_line;
    int *col; /* index of each spec column in a row, -1 if absent */
    int64_t *keys; /* launch-order key of each profile row */
    size_t keys_cap;
} csv_state;

static void csv_state_free(csv_state *s)
{
    free(s->fields);
    free(s->col);
    free(s->keys);
}

/* Splits line into s->fields, growing the array to fit every field: the
 * field count, or -1 with *st set on an error (*st = KS_OK: unterminated
 * quote). */
static int split(csv_state *s, char *line, size_t len, ks_error *err, ks_status *st)
{
    int count;
    *st = ks_csv_split_grow(line, len, &s->fields, &s->fields_cap, &count, s->path,
                            ks_input_line_number(s->in), err);
    return *st == KS_OK ? count : -1;
}

static bool blank(const char *line)
{
    return line[strspn(line, " \t")] == '\0';
}

/* A column by name, ignoring case: Omniperf (rocprof-compute) writes
 * "Dispatch_ID" and "Correlation_ID" where rocprofv3 writes "_Id". */
static int find_column(char *const *fields, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcasecmp(ks_trim(fields[i]), name) == 0)
            return i;
    return -1;
}

/* How many of the format's columns the fields name. */
static int count_known(char *const *fields, int count, const column_spec *spec, int nspec)
{
    int known = 0;
    for (int i = 0; i < nspec; i++)
        if (find_column(fields, count, spec[i].name) >= 0)
            known++;
    return known;
}

enum { HEADER_MIN_KNOWN = 3 };

/* Reads up to and including the header: the first line naming at least
 * HEADER_MIN_KNOWN of the format's columns.  Then checks that every required
 * column is there and records where each column is. */
static ks_status find_header(csv_state *s, const column_spec *spec, int nspec,
                             const char *format, const char *expected, ks_error *err)
{
    for (;;) {
        char *line;
        size_t len;
        ks_status st = ks_input_getline(s->in, &line, &len, NULL, err);
        if (st != KS_OK)
            return st;
        if (!line)
            return ks_error_set(err, KS_ERR_FORMAT, s->path, 0,
                                "no %s header line found (expected columns %s)", format,
                                expected);
        int count = split(s, line, len, err, &st);
        if (st != KS_OK)
            return st;
        if (count <= 0 || count_known(s->fields, count, spec, nspec) < HEADER_MIN_KNOWN)
            continue;
        s->header_fields = count;
        s->header_line = ks_input_line_number(s->in);
        s->col = malloc((size_t)nspec * sizeof *s->col);
        if (!s->col)
            return ks_error_set(err, KS_ERR_NOMEM, s->path, 0, "out of memory");
        s->needed = 1;
        for (int i = 0; i < nspec; i++) {
            s->col[i] = find_column(s->fields, count, spec[i].name);
            if (s->col[i] >= 0 &&
                find_column(s->fields + s->col[i] + 1, count - s->col[i] - 1, spec[i].name) >= 0)
                return ks_error_set(err, KS_ERR_FORMAT, s->path, s->header_line,
                                    "column \"%s\" appears twice in the header: which one "
                                    "holds the data is unknown",
                                    spec[i].name);
            if (s->col[i] + 1 > s->needed)
                s->needed = s->col[i] + 1;
            if (s->col[i] < 0 && spec[i].required)
                return ks_error_set(err, KS_ERR_FORMAT, s->path, s->header_line,
                                    "%s header has no column \"%s\"", format, spec[i].name);
        }
        return KS_OK;
    }
}

/* Next data row split into s->fields; *fields_out = NULL at the end. */
static ks_status next_row(csv_state *s, char ***fields_out, ks_error *err)
{
    *fields_out = NULL;
    for (;;) {
        char *line;
        size_t len;
        bool truncated;
        ks_status st = ks_input_getline(s->in, &line, &len, &truncated, err);
        if (st != KS_OK || !line)
            return st;
        if (blank(line))
            continue; /* rocprof v1 writes an empty line after its header */
        long lineno = ks_input_line_number(s->in);
        if (truncated)
            return ks_error_set(err, KS_ERR_FORMAT, s->path, lineno,
                                "last line has no line end: the file looks cut off (a "
                                "complete file ends every row with a newline)");
        int count = split(s, line, len, err, &st);
        if (st != KS_OK)
            return st;
        if (count < 0)
            return ks_csv_unclosed_quote(s->path, lineno, err);
        if (!ks_csv_fill_short_row(s->fields, count, s->header_fields, s->needed, line + len))
            return ks_error_set(err, KS_ERR_FORMAT, s->path, lineno,
                                "%d fields where the header (line %ld) has %d%s", count,
                                s->header_line, s->header_fields,
                                count > s->header_fields
                                    ? " (an unquoted comma in a name?)"
                                    : " and the columns read need at least that many");
        *fields_out = s->fields;
        return KS_OK;
    }
}

/* Integer cell of spec column c; absent column or empty/"n/a" -> *missing. */
static ks_status cell_i64(csv_state *s, char **fields, const column_spec *spec, int c,
                          int64_t *v, bool *missing, ks_error *err)
{
    *missing = true;
    if (s->col[c] < 0)
        return KS_OK;
    const char *text = fields[s->col[c]];
    if (!ks_parse_i64(text, v, missing))
        return ks_error_set(err, KS_ERR_FORMAT, s->path, ks_input_line_number(s->in),
                            "column %s: '%s' is not an integer", spec[c].name, text);
    return KS_OK;
}

/* A cell that must be there and be an integer. */
static ks_status cell_required(csv_state *s, char **fields, const column_spec *spec, int c,
                               int64_t *v, ks_error *err)
{
    bool missing;
    ks_status st = cell_i64(s, fields, spec, c, v, &missing, err);
    if (st == KS_OK && missing)
        st = ks_error_set(err, KS_ERR_FORMAT, s->path, ks_input_line_number(s->in),
                          "column %s is empty", spec[c].name);
    return st;
}

/* Optional cell that must fit an unsigned 32-bit id or size. */
static ks_status cell_u32(csv_state *s, char **fields, const column_spec *spec, int c,
                          uint32_t *v, bool *missing, ks_error *err)
{
    int64_t x = 0;
    ks_status st = cell_i64(s, fields, spec, c, &x, missing, err);
    if (st != KS_OK || *missing)
        return st;
    if (x < 0 || x > UINT32_MAX)
        return ks_error_set(err, KS_ERR_FORMAT, s->path, ks_input_line_number(s->in),
                            "column %s: %lld is out of range", spec[c].name, (long long)x);
    *v = (uint32_t)x;
    return KS_OK;
}

static ks_status duration_from(csv_state *s, int64_t start, int64_t end, int64_t *duration,
                               const char *start_name, const char *end_name, ks_error *err)
{
    if (__builtin_sub_overflow(end, start, duration) || *duration < 0)
        return ks_error_set(err, KS_ERR_FORMAT, s->path, ks_input_line_number(s->in),
                            "%s %lld is before %s %lld (negative duration)", end_name,
                            (long long)end, start_name, (long long)start);
    return KS_OK;
}

/* The kernel name without its code-object suffix (see the file comment). */
static ks_status intern_name(csv_state *s, ks_profile *p, char *text, const char *column,
                             uint32_t *id, ks_error *err)
{
    char *name = ks_trim(text);
    size_t len = strlen(name);
    static const char clone[] = "[clone .kd]";
    size_t clone_len = sizeof clone - 1;
    if (len >= clone_len && memcmp(name + len - clone_len, clone, clone_len) == 0) {
        len -= clone_len;
        while (len > 0 && name[len - 1] == ' ')
            len--;
    }
    if (len >= 3 && memcmp(name + len - 3, ".kd", 3) == 0)
        len -= 3;
    if (len == 0)
        return ks_error_set(err, KS_ERR_FORMAT, s->path, ks_input_line_number(s->in),
                            "column %s is empty", column);
    return ks_profile_intern(p, name, len, id, err);
}

/* ceil(work-items / workgroup size) per dimension. */
static ks_status workgroups(csv_state *s, const uint64_t items[3], const uint32_t wg[3],
                            const char *const wg_names[3], uint32_t grid[3], ks_error *err)
{
    for (int k = 0; k < 3; k++) {
        if (wg[k] == 0)
            return ks_error_set(err, KS_ERR_FORMAT, s->path, ks_input_line_number(s->in),
                                "column %s is 0: cannot turn the work-item grid into "
                                "workgroups",
                                wg_names[k]);
        grid[k] = (uint32_t)((items[k] + wg[k] - 1) / wg[k]);
    }
    return KS_OK;
}

/* Rows go straight into the profile in file order, named by the cell
 * name_text of column name_column; their keys are kept aside so that
 * ks_profile_order_by can put the profile in launch order. */
static ks_status push_row(csv_state *s, ks_profile *p, const row *r, char *name_text,
                          const char *name_column, ks_error *err)
{
    ks_invocation inv;
    ks_invocation_init(&inv);
    ks_status st = intern_name(s, p, name_text, name_column, &inv.name_id, err);
    if (st != KS_OK)
        return st;
    if ((st = ks_grow((void **)&s->keys, &s->keys_cap, p->n + 1, sizeof *s->keys, err)) !=
        KS_OK)
        return st;
    if (p->n >= UINT32_MAX)
        return ks_error_set(err, KS_ERR_FORMAT, s->path, ks_input_line_number(s->in),
                            "more than %u kernel invocations", (unsigned)UINT32_MAX);
    inv.duration_ns = r->duration;
    inv.start_ns = r->start;
    inv.stream = r->stream;
    inv.device = r->device;
    inv.correlation = r->correlation;
    if (r->has_grid) {
        inv.grid = r->grid;
        inv.block = r->block;
    }
    s->keys[p->n] = r->key;
    return ks_profile_append(p, &inv, err);
}

/* Header score for detect(): the best line in the peeked head. */
static int detect_header(const char *head, size_t len, const column_spec *spec, int nspec,
                         const char *name_column)
{
    /* every field of a header line counts: Omniperf's pmc_perf.csv has ~590
     * columns with the timestamps last */
    enum { MAX_LINES = 200, MAX_BYTES = 1 << 18 };
    if (len > MAX_BYTES)
        len = MAX_BYTES;
    char *copy = malloc(len + 1);
    char **fields = NULL;
    int fields_cap = 0;
    int best = 0;
    if (!copy)
        goto out;
    memcpy(copy, head, len);
    copy[len] = '\0';
    char *line = copy;
    for (int n = 0; n < MAX_LINES && line < copy + len; n++) {
        char *nl = memchr(line, '\n', (size_t)(copy + len - line));
        size_t line_len = nl ? (size_t)(nl - line) : (size_t)(copy + len - line);
        if (line_len > 0 && line[line_len - 1] == '\r')
            line_len--;
        line[line_len] = '\0';
        int count;
        ks_error ignored;
        if (ks_csv_split_grow(line, line_len, &fields, &fields_cap, &count, NULL, n + 1,
                              &ignored) != KS_OK)
            break;
        if (count > 0) {
            int known = count_known(fields, count, spec, nspec);
            int score = 0;
            if (known >= HEADER_MIN_KNOWN && find_column(fields, count, name_column) >= 0)
                score = known >= 5 ? 95 : 85;
            else if (known >= HEADER_MIN_KNOWN)
                score = 50;
            if (score > best)
                best = score;
            if (best >= 95)
                break;
        }
        if (!nl)
            break;
        line = nl + 1;
    }
out:
    free(copy);
    free(fields);
    return best;
}

/* ---------------------------------------------------------------- rocprofv3 */

enum {
    V3_KIND,
    V3_AGENT,
    V3_QUEUE,
    V3_STREAM,
    V3_DISPATCH,
    V3_CORRELATION,
    V3_NAME,
    V3_START,
    V3_END,
    V3_WG_X,
    V3_WG_Y,
    V3_WG_Z,
    V3_GRID_X,
    V3_GRID_Y,
    V3_GRID_Z,
    V3_COUNT
};

static const column_spec v3_spec[V3_COUNT] = {
    {"Kind", false},
    {"Agent_Id", false},
    {"Queue_Id", false},
    {"Stream_Id", false},
    {"Dispatch_Id", false},
    {"Correlation_Id", false},
    {"Kernel_Name", true},
    {"Start_Timestamp", true},
    {"End_Timestamp", true},
    {"Workgroup_Size_X", false},
    {"Workgroup_Size_Y", false},
    {"Workgroup_Size_Z", false},
    {"Grid_Size_X", false},
    {"Grid_Size_Y", false},
    {"Grid_Size_Z", false},
};

static int detect_v3(const char *head, size_t len, const char *path)
{
    (void)path;
    return detect_header(head, len, v3_spec, V3_COUNT, "Kernel_Name");
}

/* Agent_Id is a bare number in early rocprofv3 and "Agent 4" in later ones;
 * either way the number is the agent's node id (CPU agents included), the id
 * that rocprofv3's agent_info.csv lists.  --device N keeps that agent.  Any
 * word before the number is skipped, in case a version spells it otherwise. */
static bool parse_agent(const char *text, uint32_t *agent, bool *missing)
{
    int64_t v = 0;
    if (!ks_parse_i64(text, &v, missing)) {
        const char *t = text;
        while (*t == ' ' || *t == '_' || isalpha((unsigned char)*t))
            t++;
        if (t == text || !ks_parse_i64(t, &v, missing) || *missing)
            return false;
    }
    if (*missing)
        return true;
    if (v < 0 || v > UINT32_MAX)
        return false;
    *agent = (uint32_t)v;
    return true;
}

/* Queue handles renumbered 1, 2, 3... in order of first appearance (0 stays
 * "not given", as for every stream column).  The
 * earliest rocprofv3 layout has no Stream_Id, and its Queue_Id is the
 * queue's 64-bit address (139690710949888), which only names the queue: the
 * profile's 32-bit stream column gets a dense number per queue instead. */
typedef struct queue_map {
    int64_t *keys;
    uint32_t *ids; /* id + 1; 0 = empty slot */
    size_t size, count;
} queue_map;

static void queue_map_free(queue_map *m)
{
    free(m->keys);
    free(m->ids);
}

static size_t queue_slot(const queue_map *m, int64_t key)
{
    uint64_t x = (uint64_t)key * 0x9e3779b97f4a7c15ULL;
    size_t h = (size_t)(x >> 17) & (m->size - 1);
    while (m->ids[h] && m->keys[h] != key)
        h = (h + 1) & (m->size - 1);
    return h;
}

static ks_status queue_number(queue_map *m, int64_t key, uint32_t *id, const char *path,
                              long line, ks_error *err)
{
    if ((m->count + 1) * 2 > m->size) {
        if (m->count >= UINT32_MAX / 2)
            return ks_error_set(err, KS_ERR_FORMAT, path, line, "more than %u queues",
                                (unsigned)(UINT32_MAX / 2));
        queue_map grown = {NULL, NULL, m->size ? m->size * 2 : 64, m->count};
        grown.keys = malloc(grown.size * sizeof *grown.keys);
        grown.ids = calloc(grown.size, sizeof *grown.ids);
        if (!grown.keys || !grown.ids) {
            queue_map_free(&grown);
            return ks_error_set(err, KS_ERR_NOMEM, path, line, "out of memory");
        }
        for (size_t i = 0; i < m->size; i++)
            if (m->ids[i]) {
                size_t h = queue_slot(&grown, m->keys[i]);
                grown.keys[h] = m->keys[i];
                grown.ids[h] = m->ids[i];
            }
        queue_map_free(m);
        *m = grown;
    }
    size_t h = queue_slot(m, key);
    if (!m->ids[h]) {
        m->keys[h] = key;
        m->ids[h] = (uint32_t)++m->count;
    }
    *id = m->ids[h];
    return KS_OK;
}

static ks_status read_v3(ks_input *in, const ks_read_options *opt, ks_profile *p,
                         ks_error *err)
{
    queue_map queues = {NULL, NULL, 0, 0};
    csv_state s = {.in = in, .path = ks_input_path(in)};
    ks_status st = find_header(&s, v3_spec, V3_COUNT, "rocprofv3 kernel-trace",
                               "Kernel_Name, Start_Timestamp, End_Timestamp", err);
    if (st != KS_OK)
        goto out;
    /* The launch shape is all six columns or none: half of it cannot be
     * turned into workgroups. */
    int shape = 0;
    for (int c = V3_WG_X; c <= V3_GRID_Z; c++)
        shape += s.col[c] >= 0;
    if (shape != 0 && shape != 6) {
        for (int c = V3_WG_X; c <= V3_GRID_Z; c++)
            if (s.col[c] < 0) {
                st = ks_error_set(err, KS_ERR_FORMAT, s.path, s.header_line,
                                  "header has grid or workgroup sizes but no column \"%s\"",
                                  v3_spec[c].name);
                goto out;
            }
    }
    if (opt->device >= 0 && s.col[V3_AGENT] < 0) {
        st = ks_error_set(err, KS_ERR_FORMAT, s.path, s.header_line,
                          "cannot keep only device %d: header has no column \"Agent_Id\"",
                          opt->device);
        goto out;
    }
    int stream_col = s.col[V3_STREAM] >= 0 ? V3_STREAM : V3_QUEUE;

    char **f;
    while ((st = next_row(&s, &f, err)) == KS_OK && f) {
        /* Only kernel dispatches; other kinds (copies, if a tool ever mixes
         * them in) are not kernels. */
        if (s.col[V3_KIND] >= 0) {
            const char *kind = ks_trim(f[s.col[V3_KIND]]);
            if (kind[0] && strcmp(kind, "KERNEL_DISPATCH") != 0)
                continue;
        }
        row r = {.correlation = KS_MISSING_I64};
        bool missing;
        if (s.col[V3_AGENT] >= 0) {
            const char *text = f[s.col[V3_AGENT]];
            if (!parse_agent(text, &r.device, &missing)) {
                st = ks_error_set(err, KS_ERR_FORMAT, s.path, ks_input_line_number(in),
                                  "column Agent_Id: '%s' is not an agent id", text);
                break;
            }
            if (missing && opt->device >= 0) {
                st = ks_error_set(err, KS_ERR_FORMAT, s.path, ks_input_line_number(in),
                                  "column Agent_Id is empty: cannot filter by device");
                break;
            }
        }
        if (opt->device >= 0 && r.device != (uint32_t)opt->device)
            continue;
        int64_t start, end;
        if ((st = cell_required(&s, f, v3_spec, V3_START, &start, err)) != KS_OK ||
            (st = cell_required(&s, f, v3_spec, V3_END, &end, err)) != KS_OK ||
            (st = duration_from(&s, start, end, &r.duration, "Start_Timestamp",
                                "End_Timestamp", err)) != KS_OK)
            break;
        r.start = start;
        if (stream_col == V3_STREAM) {
            if ((st = cell_u32(&s, f, v3_spec, V3_STREAM, &r.stream, &missing, err)) != KS_OK)
                break;
        } else {
            int64_t queue;
            if ((st = cell_i64(&s, f, v3_spec, V3_QUEUE, &queue, &missing, err)) != KS_OK ||
                (!missing && (st = queue_number(&queues, queue, &r.stream, s.path,
                                                ks_input_line_number(in), err)) != KS_OK))
                break;
        }
        if ((st = cell_i64(&s, f, v3_spec, V3_CORRELATION, &r.correlation, &missing, err)) !=
            KS_OK)
            break;
        if (missing)
            r.correlation = KS_MISSING_I64;
        if (s.col[V3_DISPATCH] >= 0) {
            /* a half-numbered file has no launch order to trust */
            if ((st = cell_required(&s, f, v3_spec, V3_DISPATCH, &r.key, err)) != KS_OK)
                break;
        } else {
            r.key = start;
        }
        if (shape == 6) {
            uint64_t items[3];
            bool any_missing = false;
            for (int k = 0; k < 3 && st == KS_OK; k++) {
                uint32_t v = 0;
                st = cell_u32(&s, f, v3_spec, V3_WG_X + k, &r.block[k], &missing, err);
                any_missing = any_missing || missing;
                if (st == KS_OK)
                    st = cell_u32(&s, f, v3_spec, V3_GRID_X + k, &v, &missing, err);
                any_missing = any_missing || missing;
                items[k] = v;
            }
            if (st != KS_OK)
                break;
            if (!any_missing) {
                static const char *const wg_names[3] = {"Workgroup_Size_X", "Workgroup_Size_Y",
                                                        "Workgroup_Size_Z"};
                if ((st = workgroups(&s, items, r.block, wg_names, r.grid, err)) != KS_OK)
                    break;
                r.has_grid = true;
            }
        }
        if ((st = push_row(&s, p, &r, f[s.col[V3_NAME]], "Kernel_Name", err)) != KS_OK)
            break;
    }
    if (st == KS_OK)
        st = ks_profile_order_by(p, s.keys, p->start_ns, s.path, err);
out:
    queue_map_free(&queues);
    csv_state_free(&s);
    return st;
}

const ks_reader ks_reader_rocprof_v3_csv = {
    .name = "rocprof-v3-csv",
    .summary = "AMD rocprofv3 --kernel-trace CSV (<pid>_kernel_trace.csv)",
    .detect = detect_v3,
    .read = read_v3,
};

/* ---------------------------------------------------------------- rocprof v1 */

enum {
    V1_INDEX,
    V1_NAME,
    V1_GPU,
    V1_QUEUE,
    V1_GRID,
    V1_WORKGROUP,
    V1_BEGIN,
    V1_END,
    V1_DURATION,
    V1_COUNT
};

static const column_spec v1_spec[V1_COUNT] = {
    {"Index", false},   {"KernelName", true}, {"gpu-id", false},
    {"queue-id", false}, {"grd", false},       {"wgr", false},
    {"BeginNs", false}, {"EndNs", false},     {"DurationNs", false},
};

static int detect_v1(const char *head, size_t len, const char *path)
{
    (void)path;
    return detect_header(head, len, v1_spec, V1_COUNT, "KernelName");
}

static ks_status read_v1(ks_input *in, const ks_read_options *opt, ks_profile *p,
                         ks_error *err)
{
    csv_state s = {.in = in, .path = ks_input_path(in)};
    ks_status st = find_header(&s, v1_spec, V1_COUNT, "rocprof results.csv",
                               "Index, KernelName, BeginNs, EndNs or DurationNs", err);
    if (st != KS_OK)
        goto out;
    bool has_times = s.col[V1_BEGIN] >= 0 && s.col[V1_END] >= 0;
    if (s.col[V1_DURATION] < 0 && !has_times) {
        st = ks_error_set(err, KS_ERR_FORMAT, s.path, s.header_line,
                          "header has no column \"%s\" (nor both BeginNs and EndNs): run "
                          "rocprof with --timestamp on or --stats",
                          s.col[V1_BEGIN] < 0 ? "BeginNs" : "EndNs");
        goto out;
    }
    if ((s.col[V1_GRID] >= 0) != (s.col[V1_WORKGROUP] >= 0)) {
        st = ks_error_set(err, KS_ERR_FORMAT, s.path, s.header_line,
                          "header has no column \"%s\" (grd and wgr come together)",
                          s.col[V1_GRID] < 0 ? "grd" : "wgr");
        goto out;
    }
    if (opt->device >= 0 && s.col[V1_GPU] < 0) {
        st = ks_error_set(err, KS_ERR_FORMAT, s.path, s.header_line,
                          "cannot keep only device %d: header has no column \"gpu-id\"",
                          opt->device);
        goto out;
    }

    char **f;
    while ((st = next_row(&s, &f, err)) == KS_OK && f) {
        row r = {.start = KS_MISSING_I64, .correlation = KS_MISSING_I64};
        bool missing;
        /* gpu-id is the device as rocprof numbered it; --device N keeps it */
        if ((st = cell_u32(&s, f, v1_spec, V1_GPU, &r.device, &missing, err)) != KS_OK)
            break;
        if (opt->device >= 0) {
            if (missing) {
                st = ks_error_set(err, KS_ERR_FORMAT, s.path, ks_input_line_number(in),
                                  "column gpu-id is empty: cannot filter by device");
                break;
            }
            if (r.device != (uint32_t)opt->device)
                continue;
        }
        /* DurationNs is rocprof's own EndNs - BeginNs; prefer it when given */
        bool have_duration = false;
        if ((st = cell_i64(&s, f, v1_spec, V1_DURATION, &r.duration, &missing, err)) != KS_OK)
            break;
        have_duration = !missing;
        if (have_duration && r.duration < 0) {
            st = ks_error_set(err, KS_ERR_FORMAT, s.path, ks_input_line_number(in),
                              "column DurationNs is negative");
            break;
        }
        if (has_times) {
            int64_t begin, end;
            bool missing_end;
            if ((st = cell_i64(&s, f, v1_spec, V1_BEGIN, &begin, &missing, err)) != KS_OK ||
                (st = cell_i64(&s, f, v1_spec, V1_END, &end, &missing_end, err)) != KS_OK)
                break;
            if (!missing)
                r.start = begin;
            if (!have_duration && !missing && !missing_end) {
                if ((st = duration_from(&s, begin, end, &r.duration, "BeginNs", "EndNs",
                                        err)) != KS_OK)
                    break;
                have_duration = true;
            }
        }
        if (!have_duration) {
            st = ks_error_set(err, KS_ERR_FORMAT, s.path, ks_input_line_number(in),
                              "no duration: DurationNs%s empty",
                              has_times ? ", BeginNs or EndNs" : "");
            break;
        }
        if ((st = cell_u32(&s, f, v1_spec, V1_QUEUE, &r.stream, &missing, err)) != KS_OK)
            break;
        if (s.col[V1_INDEX] >= 0) {
            if ((st = cell_required(&s, f, v1_spec, V1_INDEX, &r.key, err)) != KS_OK)
                break;
        } else {
            r.key = r.start != KS_MISSING_I64 ? r.start : (int64_t)p->n;
        }
        if (s.col[V1_GRID] >= 0) {
            /* grd and wgr are totals over the three dimensions: the workgroup
             * count goes to x, the workgroup size to block x */
            uint32_t grd = 0, wgr = 0;
            bool missing_wgr;
            if ((st = cell_u32(&s, f, v1_spec, V1_GRID, &grd, &missing, err)) != KS_OK ||
                (st = cell_u32(&s, f, v1_spec, V1_WORKGROUP, &wgr, &missing_wgr, err)) != KS_OK)
                break;
            if (!missing && !missing_wgr) {
                uint64_t items[3] = {grd, 1, 1};
                uint32_t wg[3] = {wgr, 1, 1};
                static const char *const wg_names[3] = {"wgr", "wgr", "wgr"};
                if ((st = workgroups(&s, items, wg, wg_names, r.grid, err)) != KS_OK)
                    break;
                memcpy(r.block, wg, sizeof wg);
                r.has_grid = true;
            }
        }
        if ((st = push_row(&s, p, &r, f[s.col[V1_NAME]], "KernelName", err)) != KS_OK)
            break;
    }
    if (st == KS_OK)
        st = ks_profile_order_by(p, s.keys, p->start_ns, s.path, err);
out:
    csv_state_free(&s);
    return st;
}

const ks_reader ks_reader_rocprof_v1_csv = {
    .name = "rocprof-v1-csv",
    .summary = "legacy AMD rocprof (v1) results.csv with --timestamp on",
    .detect = detect_v1,
    .read = read_v1,
};
