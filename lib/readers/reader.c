/*
 * reader.c - the table of readers, detection by content, the one entry
 * point ks_profile_read(), and the launch-order sort several readers share.
 * Each format lives in its own read_*.c file.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Order matters only for ties in detect() scores: the first wins. */
static const ks_reader *const readers[] = {
    &ks_reader_nsys_gpu_trace_csv,
    &ks_reader_nsys_kern_exec_csv,
    &ks_reader_nsys_sqlite,
    &ks_reader_rocprof_v3_csv,
    &ks_reader_rocprof_v1_csv,
    &ks_reader_plain_csv,
    &ks_reader_kineto_json,
    &ks_reader_ncu_csv,
    &ks_reader_ncu_raw_csv,
    &ks_reader_accelsim_traces,
    &ks_reader_macsim_traces,
    NULL,
};

const char *const *ks_reader_names(void)
{
    static const char *names[sizeof readers / sizeof readers[0]];
    for (size_t i = 0; readers[i]; i++)
        names[i] = readers[i]->name;
    return names;
}

void ks_read_options_init(ks_read_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->device = -1;
}

/* ---------------------------------------------------------------- detection */

const char *ks_find_text(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (const char *s = hay; n >= m;) {
        const char *q = memchr(s, needle[0], n - m + 1);
        if (!q)
            return NULL;
        if (memcmp(q, needle, m) == 0)
            return q;
        n -= (size_t)(q - s) + 1;
        s = q + 1;
    }
    return NULL;
}

/* ------------------------------------------------------------------ reading */

static const ks_reader *find_reader(const char *name)
{
    for (size_t i = 0; readers[i]; i++)
        if (strcmp(readers[i]->name, name) == 0)
            return readers[i];
    return NULL;
}

/* What every read ends with: an empty profile is an error; the profile
 * records its reader and path. */
static ks_status check_read(ks_profile *p, const ks_reader *reader, const char *path,
                            const ks_read_options *opt, ks_error *err)
{
    if (p->n == 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "no kernel invocations found (read as %s)", reader->name);
    if (!p->source_format[0])
        snprintf(p->source_format, sizeof p->source_format, "%s", reader->name);
    snprintf(p->source_path, sizeof p->source_path, "%s", path);
    p->launch_total = p->n;
    /* launches are in order by now: the steps and ranges the reader found
     * get their launches, then the caller's selection applies */
    ks_status st = ks_profile_resolve_ranges(p, err);
    if (st == KS_OK && opt->select && *opt->select)
        st = ks_profile_select(p, opt->select, err);
    if (st != KS_OK)
        return st;
    /* nothing after reading uses start times (see ks_profile) */
    if (!opt->keep_start)
        ks_profile_drop_start(p);
    return KS_OK;
}

/* --name-kind chooses among the spellings an nsys SQLite export keeps;
 * every other format has one, so there the option would do nothing: an
 * unknown value is refused whatever the input, a known one on another
 * format too (as --device is where a format has no device column). */
static ks_status check_name_kind(const ks_read_options *opt, ks_error *err)
{
    const char *k = opt->name_kind;
    if (!k || !*k || strcmp(k, "demangled") == 0 || strcmp(k, "short") == 0 ||
        strcmp(k, "mangled") == 0)
        return KS_OK;
    return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                        "--name-kind is demangled, short or mangled, got '%.60s'", k);
}

static ks_status name_kind_applies(const ks_read_options *opt, const ks_reader *reader,
                                   const char *path, ks_error *err)
{
    if (!opt->name_kind || !*opt->name_kind || reader == &ks_reader_nsys_sqlite)
        return KS_OK;
    return ks_error_set(err, KS_ERR_USAGE, path, 0,
                        "--name-kind: format %s has one spelling of each kernel name (the "
                        "option chooses among those of an nsys SQLite export)",
                        reader->name);
}

/* A folder: the folder reader that recognises it best. */
static ks_status read_folder(const char *path, const ks_reader *reader,
                             const ks_read_options *opt, ks_profile **out, ks_error *err)
{
    if (reader && !reader->read_dir)
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "is a folder, and format %s reads files", reader->name);
    int best = 0;
    for (size_t i = 0; !reader && readers[i]; i++) {
        int score = readers[i]->detect_dir ? readers[i]->detect_dir(path) : 0;
        if (score > best) {
            best = score;
            reader = readers[i];
        }
    }
    if (!reader)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "is a folder of no known kind (see 'ksample formats')");
    ks_status st = name_kind_applies(opt, reader, path, err);
    if (st != KS_OK)
        return st;
    ks_profile *p = NULL;
    st = reader->read_dir(path, opt, &p, err);
    if (st == KS_OK)
        st = check_read(p, reader, path, opt, err);
    if (st != KS_OK) {
        ks_profile_free(p);
        return st;
    }
    *out = p;
    return KS_OK;
}

/* The reader opt->format names, or NULL for detection. */
static ks_status reader_of(const ks_read_options *opt, const ks_reader **reader, ks_error *err)
{
    *reader = NULL;
    if (!opt->format || strcmp(opt->format, "auto") == 0)
        return KS_OK;
    *reader = find_reader(opt->format);
    if (*reader)
        return KS_OK;
    ks_error_set(err, KS_ERR_USAGE, NULL, 0, "unknown format '%s'; known:", opt->format);
    for (size_t i = 0; readers[i]; i++) {
        size_t n = strlen(err->message);
        snprintf(err->message + n, sizeof err->message - n, " %s", readers[i]->name);
    }
    return KS_ERR_USAGE;
}

/* The file part of ks_profile_read: detection unless reader is given, the
 * reader, the checks and the digest.  Leaves in open. */
static ks_status read_opened(ks_input *in, const ks_reader *reader, const ks_read_options *opt,
                             ks_profile **out, ks_error *err)
{
    const char *path = ks_input_path(in);
    ks_status st;
    if (!reader) {
        const char *head;
        size_t len;
        if ((st = ks_input_peek(in, &head, &len, err)) != KS_OK)
            return st;
        if (len == 0)
            return ks_error_set(err, KS_ERR_FORMAT, path, 0, "file is empty");
        int best = 0;
        for (size_t i = 0; readers[i]; i++) {
            int score = readers[i]->detect ? readers[i]->detect(head, len, path) : 0;
            if (score > best) {
                best = score;
                reader = readers[i];
            }
        }
        if (!reader)
            return ks_error_set(err, KS_ERR_FORMAT, path, 1,
                                "unrecognised profile format (use --format; see "
                                "'ksample formats')");
    }

    if ((st = name_kind_applies(opt, reader, path, err)) != KS_OK)
        return st;
    ks_profile *p = ks_profile_new();
    if (!p)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    st = reader->read(in, opt, p, err);
    if (st == KS_OK)
        st = check_read(p, reader, path, opt, err);
    if (st == KS_OK)
        st = ks_input_finish_digest(in, p->source_xxh128, &p->source_bytes, err);
    if (st != KS_OK) {
        /* helpers below the reader (interning, tables) know no file name */
        if (!err->file[0])
            snprintf(err->file, sizeof err->file, "%s", path);
        ks_profile_free(p);
        return st;
    }
    *out = p;
    return KS_OK;
}

/* What both entry points start with: default options for NULL, no profile
 * yet, the reader the options name. */
static ks_status read_setup(const ks_read_options **opt, ks_read_options *defaults,
                            const ks_reader **reader, ks_profile **out, ks_error *err)
{
    ks_read_options_init(defaults);
    if (!*opt)
        *opt = defaults;
    *out = NULL;
    ks_status st = check_name_kind(*opt, err);
    return st != KS_OK ? st : reader_of(*opt, reader, err);
}

/* A format that reads folders only refuses a file. */
static ks_status reads_files(const ks_reader *reader, const char *path, ks_error *err)
{
    if (reader && !reader->read)
        return ks_error_set(err, KS_ERR_USAGE, path, 0, "format %s reads folders, not files",
                            reader->name);
    return KS_OK;
}

ks_status ks_profile_read(const char *path, const ks_read_options *opt, ks_profile **out,
                          ks_error *err)
{
    ks_read_options defaults;
    const ks_reader *reader;
    ks_status st = read_setup(&opt, &defaults, &reader, out, err);
    if (st != KS_OK)
        return st;

    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return read_folder(path, reader, opt, out, err);
    ks_input *in;
    if ((st = reads_files(reader, path, err)) != KS_OK ||
        (st = ks_input_open(path, &in, err)) != KS_OK)
        return st;
    st = read_opened(in, reader, opt, out, err);
    ks_input_close(in);
    return st;
}

ks_status ks_profile_read_input(ks_input *in, const ks_read_options *opt, ks_profile **out,
                                ks_error *err)
{
    ks_read_options defaults;
    const ks_reader *reader;
    ks_status st = read_setup(&opt, &defaults, &reader, out, err);
    if (st == KS_OK)
        st = reads_files(reader, ks_input_path(in), err);
    return st != KS_OK ? st : read_opened(in, reader, opt, out, err);
}
