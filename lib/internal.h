/*
 * internal.h - shared between library files; not part of the public interface.
 */
#ifndef KS_INTERNAL_H
#define KS_INTERNAL_H

#include "ksample.h"

#include <stdbool.h>
#include <stdio.h>

/* ---------------------------------------------------------------- memory */

/* Frees each of the n pointers (NULL ones too, as free does).  KS_FREE(a, b,
 * c) frees a struct's fields in one call where a free function would
 * otherwise list free() after free(); lib/core/mem.c. */
void ks_free_each(void *const *ptrs, size_t n);
#define KS_FREE(...)                                                                       \
    ks_free_each((void *[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))

/* --------------------------------------------------------------- threads */

/* The library's worker threads (lib/core/thread.c): a thread whose function
 * has returned and been joined waits a little for the next one, so reading
 * many short inputs does not create and end threads for each. */
typedef struct ks_thread ks_thread;
/* Runs fn(arg) on a kept thread or a new one; false when neither can be had. */
bool ks_thread_start(ks_thread **t, void *(*fn)(void *), void *arg);
/* Waits until fn(arg) has returned; t is not to be used after. */
void ks_thread_join(ks_thread *t);

/* --------------------------------------------------------- resource limits */

/* Memory follows the number of launches, never the length of one line or
 * string or the sparsity of a metric table: past these limits a reader stops
 * with an error that names the limit.  No profiler writes a 16 MB line or
 * kernel name; a dense metric table of 2^25 cells is 256 MB (1,000 metrics
 * over 33,000 launches).  Fuzzing builds lower them so that short inputs
 * reach the checks. */
/* A buffer or first capacity: `normal`, or `fuzzing` in a fuzzing build,
 * where each input would otherwise pay for megabytes it never uses (a 1 MB
 * malloc and free under ASan cost more than parsing a short input) and small
 * sizes make short inputs take the paths that grow them. */
#ifdef KS_FUZZ_BUFFERS
#define KS_FUZZ_SMALL(normal, fuzzing) (fuzzing)
#else
#define KS_FUZZ_SMALL(normal, fuzzing) (normal)
#endif

#ifdef KS_FUZZ_BUFFERS
#define KS_MAX_LINE_BYTES ((size_t)4096)
#define KS_MAX_TOKEN_BYTES ((size_t)4096)
#define KS_MAX_METRIC_CELLS ((size_t)1 << 16)
#else
#define KS_MAX_LINE_BYTES ((size_t)16 << 20)
#define KS_MAX_TOKEN_BYTES ((size_t)16 << 20)
#define KS_MAX_METRIC_CELLS ((size_t)1 << 25)
#endif

/* ------------------------------------------------------------ byte input */

/* A file opened for sequential reading, decompressed on the fly when it
 * starts with a gzip, xz or zstd magic number.  Also computes the XXH3-128 of
 * the bytes on disk as they stream past (for the plan's input digest). */
typedef struct ks_input ks_input;

/* Whole numbers up to this a double holds exactly (2^53). */
#define KS_EXACT_COUNT 9007199254740992.0
/* The count s[0, len) prints, exactly, where v (its value as
 * ks_parse_decimal read it) is 2^53 or more and s is a whole number (digits,
 * optionally '+' first and a fraction of zeros): what the double rounds;
 * else 0 (the double is the value). */
uint64_t ks_exact_count(const char *s, size_t len, double v);

ks_status ks_input_open(const char *path, ks_input **out, ks_error *err);
/* The same for a file a FIFO cannot stand for (a configuration, a
 * simulator's results, a plan, a score or model file): a FIFO, device or
 * socket is refused at once (ks_file_open_read), never waited on. */
ks_status ks_input_open_file(const char *path, ks_input **out, ks_error *err);
/* The same over an open stream, which the input then owns (closes), named
 * path in errors. */
ks_status ks_input_open_stream(FILE *file, const char *path, ks_input **out, ks_error *err);
/* The same over size bytes at data, which must outlive the input and are not
 * copied (lib/io/input_memory.c): a fuzzing target reads thousands of inputs
 * a second without a file system call. */
ks_status ks_input_open_memory(const void *data, size_t size, const char *name, ks_input **out,
                               ks_error *err);
void ks_input_close(ks_input *in);
/* Reads up to size decompressed bytes; *got = 0 at end of input. */
ks_status ks_input_read(ks_input *in, void *buf, size_t size, size_t *got, ks_error *err);
/* Next line without its "\n" / "\r\n", NUL-terminated, valid until the next
 * call.  Returns KS_OK with *line = NULL at end of input.  A final line
 * without a newline is returned with *truncated = true. */
ks_status ks_input_getline(ks_input *in, char **line, size_t *len, bool *truncated,
                           ks_error *err);
long ks_input_line_number(const ks_input *in); /* of the last line returned */
const char *ks_input_path(const ks_input *in);
/* "gzip", "xz", "zstd" or "none" */
const char *ks_input_compression(const ks_input *in);
/* Peeks at the first decompressed bytes without consuming them. */
ks_status ks_input_peek(ks_input *in, const char **data, size_t *len, ks_error *err);
/* ks_input_open_file, then ks_input_peek: for a caller that chooses how to read
 * a file by its first bytes.  On failure *out is NULL (closed again if the
 * peek failed). */
ks_status ks_input_open_peek(const char *path, ks_input **out, const char **data, size_t *len,
                             ks_error *err);
/* Decoding threads for compressed input: -1 (the default) one per core,
 * 0 none (decoded in the caller's thread); before the first read. */
void ks_input_set_decompress_threads(ks_input *in, int threads);
/* Reads the rest of the raw file so the digest covers it; then fills hex. */
ks_status ks_input_finish_digest(ks_input *in, char hex[33], uint64_t *bytes, ks_error *err);

/* A named temporary file that ks_remove_temporaries() (public) deletes if the
 * program is interrupted: register it right after creating it, forget it right
 * after removing or renaming it.  Returns the slot, or -1 when none is free
 * (the file is then only removed on the normal paths). */
int ks_temp_register(const char *path);
void ks_temp_forget(int slot);

/* "dir/name" (no second slash when dir ends in one); malloc'd, NULL when
 * out of memory. */
char *ks_path_join(const char *dir, const char *name);

/* A folder written whole or not at all (the simulator folders of export
 * and of run's jobs): begin makes an empty temporary folder beside path
 * (b->tmp) to fill; commit puts it in place of path in one rename (an
 * existing folder is exchanged with it, renameat2, then removed); abort,
 * and commit on failure, remove the temporary.  A link to a folder is
 * followed (its target is replaced, the link stays).  own: the regular
 * file names an existing folder may hold besides links, a trailing '*'
 * making one a prefix of files or folders (NULL: anything, for a job
 * folder inside a run folder, which then may not be a link); any other
 * entry refuses it. */
typedef struct ks_dir_build {
    char *path; /* resolved */
    char *tmp;
} ks_dir_build;
ks_status ks_dir_build_begin(const char *path, const char *const *own, ks_dir_build *b,
                             ks_error *err);
ks_status ks_dir_build_commit(ks_dir_build *b, ks_error *err);
/* Moves path/name (a file or folder the caller wrote there before, not a
 * link) into the new folder. */
ks_status ks_dir_build_adopt(ks_dir_build *b, const char *name, ks_error *err);
void ks_dir_build_abort(ks_dir_build *b);
/* The end of a build that came to st: committed when KS_OK, else aborted
 * and st returned. */
ks_status ks_dir_build_finish(ks_dir_build *b, ks_status st, ks_error *err);

/* A writer's last word (ks_writer_fn): KS_OK, or "write failed" with errno's
 * text when f has its error flag set. */
ks_status ks_write_status(FILE *f, ks_error *err);

/* Writes fn's bytes to a temporary next to path and renames it over path
 * (mode: the new file's permission bits); sync false skips the fsync, for
 * files whose loss after a crash costs nothing (the job engine's status). */
ks_status ks_write_renamed(const char *path, unsigned mode, bool sync, ks_writer_fn fn,
                           const void *ctx, ks_error *err);

/* Inside a folder ksample owns (a run's job folders, a job's warm-state
 * carriers, the state:memcpy probe), never through a symbolic link
 * (owned.c): ks_owned_open_dir opens path (made first when create) with
 * O_NOFOLLOW, refusing a link, and returns its descriptor or -1; the others
 * act on the entry name of the open folder dir (dir_path names it in
 * messages).  remove: a file or link itself, or a folder and everything in
 * it, nothing when absent; create: a new file (what had the name removed
 * first), its descriptor or -1; mkdir: a new empty folder likewise; rename:
 * from in place of to (what had the name removed first); write: fn's bytes
 * to a temporary renamed over name.  ks_owned_write_path: write into the
 * folder part of path, which must not be a link. */
int ks_owned_open_dir(const char *path, bool create, ks_error *err);
ks_status ks_owned_remove(int dir, const char *dir_path, const char *name, ks_error *err);
int ks_owned_create(int dir, const char *dir_path, const char *name, ks_error *err);
int ks_owned_mkdir(int dir, const char *dir_path, const char *name, ks_error *err);
ks_status ks_owned_rename(int dir, const char *dir_path, const char *from, const char *to,
                          ks_error *err);
ks_status ks_owned_write(int dir, const char *dir_path, const char *name, ks_writer_fn fn,
                         const void *ctx, ks_error *err);
ks_status ks_owned_write_path(const char *path, ks_writer_fn fn, const void *ctx, ks_error *err);

/* ------------------------------------------------------------------- CSV */

/* Splits one CSV line in place.  Quoted fields may hold commas and doubled
 * quotes; quotes are removed.  Leading/trailing spaces of unquoted fields
 * are kept (callers trim where the format pads).  Returns the field count
 * (may exceed max: extra fields are not stored), or -1 on an unterminated
 * quote. */
int ks_csv_split(char *line, size_t len, char **fields, int max);
/* ks_csv_split into *fields, first grown (*capacity entries, both kept for
 * the next line) to hold every field of the line; *count as ks_csv_split
 * returns it.  Errors (memory; a line of more than INT32_MAX fields) name path
 * and line_number. */
ks_status ks_csv_split_grow(char *line, size_t len, char ***fields, int *capacity, int *count,
                            const char *path, long line_number, ks_error *err);
/* The fast path for rows in the plain form exports write.  Each of the
 * `count` fields (a row must have exactly that many) is matched against its
 * kind without modifying the line:
 *   KS_CELL_SKIP  anything (quoted or not) that ks_csv_split accepts
 *   KS_CELL_INT   spaces, 1 to 18 digits, spaces; or empty (missing)
 *   KS_CELL_DIM3  spaces, three numbers of at most 10 digits below 2^32
 *                 separated by spaces, spaces
 *   KS_CELL_TEXT  unquoted, or quoted without doubled quotes and with
 *                 nothing after the closing quote; no NUL byte; the cell
 *                 gives the text (between the quotes) and its length
 * Returns false when any field is in another form, the row has fewer or
 * more than count fields, or a later field holds a quote; the caller then splits the
 * line with ks_csv_split and parses the cells with ks_parse_*, which give
 * the same values for every row this function accepts. */
typedef enum ks_cell_kind { KS_CELL_SKIP, KS_CELL_INT, KS_CELL_DIM3, KS_CELL_TEXT } ks_cell_kind;
typedef struct ks_cell {
    const char *text; /* TEXT */
    size_t len;
    int64_t value; /* INT */
    bool missing;  /* INT: the cell was empty */
    uint32_t dim[3]; /* DIM3 */
} ks_cell;
bool ks_csv_scan(const char *line, size_t len, const ks_cell_kind *kinds, int count,
                 ks_cell *cells);
/* ks_trim on text that need not be NUL-terminated: returns the start and
 * shortens *len. */
const char *ks_trim_n(const char *s, size_t *len);

/* The one rule, in every CSV layout, for a row whose field count is not the
 * header's: a row may stop early as long as it still holds every column the
 * reader uses (needed = 1 + the highest such index); the cells it leaves out
 * read as empty.  ncu's newest long layout writes rows like that (metric rows
 * stop before the five Rule columns only rule rows fill).  A longer row, or a
 * shorter one that lacks a used column, returns false and the caller reports
 * it.  fields must have room for header_count entries; empty is any writable
 * "" (the end of the line will do). */
bool ks_csv_fill_short_row(char **fields, int count, int header_count, int needed, char *empty);
/* The error every CSV reader gives for a quote that is not closed on its
 * line.  ksample reads one row per line: a field holding a line break (RFC
 * 4180 allows it) is refused, since no profiler writes one in a kernel name
 * and a stray quote would otherwise swallow the rows after it. */
ks_status ks_csv_unclosed_quote(const char *path, long line, ks_error *err);
/* The first non-empty column name that appears twice among fields (compared
 * after trimming), or NULL.  A reader refuses such a header rather than read
 * whichever copy comes first. */
const char *ks_csv_duplicate(char *const *fields, int count);
/* Finds a header column by exact name (after trimming); -1 if absent. */
int ks_csv_find(char *const *fields, int count, const char *name);

/* Cell parsing.  Accepts surrounding spaces, thousands separators ("1,234")
 * and, for doubles, a fraction and exponent.  Empty cells and "n/a" are
 * missing (KS_OK with *missing = true).  Anything else that is not a number is
 * an error (returns false). */
bool ks_parse_i64(const char *s, int64_t *v, bool *missing);
bool ks_parse_double(const char *s, double *v, bool *missing);
/* "148    1    1" or "(256, 1, 1)" or "[32,8,1]" -> 3 values */
bool ks_parse_dim3(const char *s, uint32_t out[3]);
char *ks_trim(char *s);
/* Whether name[0..len) (need not be NUL-terminated) names a memory copy or
 * set rather than a kernel. */
bool ks_is_memcpy_name(const char *name, size_t len);

/* Reader interface: one file per format.  A file reader's detect() sees the
 * first decompressed bytes and says how sure it is (0 = not this format); a
 * folder reader (an Accel-Sim trace folder: a list file and one trace per
 * launch) has detect_dir() and read_dir() instead.  Either pair may be NULL. */
typedef struct ks_reader {
    const char *name;
    const char *summary;
    int (*detect)(const char *head, size_t len, const char *path);
    ks_status (*read)(ks_input *in, const ks_read_options *opt, ks_profile *p, ks_error *err);
    int (*detect_dir)(const char *path);
    ks_status (*read_dir)(const char *path, const ks_read_options *opt, ks_profile **out,
                          ks_error *err);
} ks_reader;

/* First needle (not empty) in hay[0..n), which need not be NUL-terminated,
 * or NULL: for detect(), which sees a head cut anywhere. */
const char *ks_find_text(const char *hay, size_t n, const char *needle);

extern const ks_reader ks_reader_nsys_gpu_trace_csv;
extern const ks_reader ks_reader_nsys_kern_exec_csv;
extern const ks_reader ks_reader_plain_csv;
extern const ks_reader ks_reader_kineto_json;
extern const ks_reader ks_reader_nsys_sqlite;
extern const ks_reader ks_reader_rocprof_v3_csv;
extern const ks_reader ks_reader_rocprof_v1_csv;
extern const ks_reader ks_reader_ncu_csv;
extern const ks_reader ks_reader_ncu_raw_csv;
extern const ks_reader ks_reader_accelsim_traces;
extern const ks_reader ks_reader_macsim_traces;

/* ks_profile_attach_ranges over an open input (the fuzz target's). */
ks_status ks_profile_read_ranges(ks_profile *p, ks_input *in, ks_error *err);
/* Reorders every column so that new row i is old row order[i]. */
ks_status ks_profile_permute(ks_profile *p, uint32_t *order, ks_error *err);
/* Keeps rows order[0..k) (ascending: the launch order stays), dropping the
 * rest: new row i is old row order[i] (lib/core/region.c's selections). */
ks_status ks_profile_keep(ks_profile *p, uint32_t *order, size_t k, ks_error *err);
/* A new profile equal to p in every field (columns, names and grid/block
 * pairs with the same ids, metric and sparse columns, ranges, operators,
 * selection, provenance), for a caller that must leave p as it is
 * (ks_profile_leave_out_comm).  A field added to ks_profile is copied here
 * too. */
ks_status ks_profile_copy(const ks_profile *p, ks_profile **out, ks_error *err);
/* Puts p into launch order as a reader knows it: by first[i], ties by
 * second[i], remaining ties by file order (so the result never depends on the
 * sort).  A NULL array counts as all equal.  Permutes only when p is not in
 * that order already; errors name path. */
ks_status ks_profile_order_by(ks_profile *p, const int64_t *first, const int64_t *second,
                              const char *path, ks_error *err);

/* ks_profile_read over an input already open (a file's stream or memory):
 * detection unless opt->format names a file reader, then that reader.  The
 * caller closes in. */
ks_status ks_profile_read_input(ks_input *in, const ks_read_options *opt, ks_profile **out,
                                ks_error *err);

/* Reads lines until the CSV header: the first line whose fields include
 * `anchor` (preamble lines such as nsys NOTICEs are skipped).  Then checks that
 * every name in required[] is a column.  The header's fields stay valid until
 * the next ks_input_getline; *count is the field count. */
ks_status ks_csv_read_header(ks_input *in, const char *anchor, const char *const *required,
                             char **fields, int max, int *count, ks_error *err);
/* ks_csv_read_header for a header of any width: *fields is grown as
 * ks_csv_split_grow grows it (the caller frees it). */
ks_status ks_csv_read_header_grow(ks_input *in, const char *anchor, const char *const *required,
                                  char ***fields, int *capacity, int *count, ks_error *err);

/* ------------------------------------------------------ rows in blocks */

/* Invocations parsed from one block of a file, before they join a profile.
 * The same columns as ks_profile, but every column is filled for every row
 * (with the value ks_profile_append would store), and any_* says whether the
 * block holds a value that makes the profile allocate that column.  Names are
 * interned per block: local ids in order of first appearance, pointing into
 * the block's text, with their hash, so that merging a block interns each
 * distinct name once and the profile's ids come out in file order. */
typedef struct ks_rows {
    size_t n, capacity;
    int64_t *duration_ns;
    uint32_t *name_id; /* local: index into names */
    int64_t *start_ns;
    uint32_t *dims_id; /* local: index into dims */
    uint32_t *stream, *device;
    int64_t *correlation;
    bool any_start, any_grid, any_stream, any_device, any_correlation;

    size_t name_count, name_capacity;
    const char **names; /* not owned: the text the block was parsed from */
    size_t *name_len;
    uint64_t *name_hash;
    uint32_t *name_global; /* filled by ks_profile_reserve_rows */
    ks_hash_index name_index;
    /* ks_rows_add's shortcuts past hashing (csv_parallel.c): a name's id by
     * a cheap fingerprint, and the (grid, block) id a name last had; each
     * holds id + 1, 0 for none */
    uint32_t name_cache[256];
    uint32_t *name_dims;

    /* distinct (grid, block) 6-tuples, local ids in order of first
     * appearance; a row without grid/block has 0 0 0 0 0 0 */
    size_t dims_count, dims_capacity;
    uint32_t *dims; /* 6 per tuple */
    uint32_t *dims_global; /* filled by ks_profile_reserve_rows */
    ks_hash_index dims_index;
} ks_rows;

void ks_rows_clear(ks_rows *r); /* keeps the memory for the next block */
void ks_rows_free(ks_rows *r);
/* Adds one invocation named name[0..len) (inv->name_id is ignored).  The
 * name must stay valid until the rows are appended to a profile. */
ks_status ks_rows_add(ks_rows *r, const ks_invocation *inv, const char *name, size_t len,
                      ks_error *err);
/* Appends every row, interning names in order of first appearance: the same
 * profile as ks_profile_intern + ks_profile_append row by row.  It is
 * ks_profile_reserve_rows and then ks_profile_place_rows. */
ks_status ks_profile_append_rows(ks_profile *p, ks_rows *r, ks_error *err);
/* Called before a change that moves or adds a column of the profile, so that
 * rows being placed on other threads are placed first. */
typedef struct ks_rows_quiesce {
    void (*wait)(void *ctx);
    void *ctx;
} ks_rows_quiesce;
/* The part of appending that must run in file order, on one thread at a
 * time: interns r's names and grid/block pairs, starts the optional columns
 * r needs, grows the columns (after quiesce, when not NULL) and counts r's
 * rows in p->n.  *at is r's first row; until ks_profile_place_rows has run,
 * rows at..at+r->n-1 hold no values. */
ks_status ks_profile_reserve_rows(ks_profile *p, ks_rows *r, const ks_rows_quiesce *quiesce,
                                  size_t *at, ks_error *err);
/* Writes r's rows at row `at` reserved for them.  Several threads may place
 * different blocks at once; none may reserve meanwhile without quiescing. */
void ks_profile_place_rows(ks_profile *p, const ks_rows *r, size_t at);
/* The id of a (grid, block) 6-tuple in p's table, added if new. */
ks_status ks_profile_intern_dims(ks_profile *p, const uint32_t tuple[6], uint64_t hash,
                                 uint32_t *id, ks_error *err);
uint64_t ks_dims_hash(const uint32_t tuple[6]);
/* Allocations for columns of a launch each (lib/core/column.c): large ones
 * are mappings backed by huge pages where the kernel offers them, grown
 * without copying.  Freed only with ks_column_free. */
void *ks_column_realloc(void *old, size_t bytes);
void ks_column_free(void *col);
/* ks_name_hash (the hash ks_profile_intern uses, so that names hashed in a
 * block need not be hashed again) is declared in hash.h. */
ks_status ks_profile_intern_hashed(ks_profile *p, const char *name, size_t len, uint64_t hash,
                                   uint32_t *id, ks_error *err);

/* Parses one data line into rows (zero or one row).  line is NUL-terminated
 * without its "\n" / "\r\n" and may be modified; truncated is set for a last
 * line without a newline.  number counts lines from the start of the block
 * (1-based): errors carry it in err->line and the caller turns it into the
 * file's line number.  Called from several threads at once: ctx is shared and
 * read-only. */
typedef ks_status (*ks_line_parser)(const void *ctx, char *line, size_t len, bool truncated,
                                    long number, ks_rows *rows, ks_error *err);

/* What ks_read_lines did, for tests and benchmarks. */
typedef struct ks_lines_stats {
    size_t blocks;
    int threads; /* threads that parsed blocks, the calling one included */
} ks_lines_stats;

/* How ks_read_lines splits the work; zeros mean the defaults. */
typedef struct ks_lines_options {
    /* 1: everything on the calling thread; n > 1: n worker threads parse
     * while the calling thread merges; 0: n = CPUs online (at most 8) */
    int threads;
    size_t block_bytes; /* bytes per block (a longer line makes its block longer) */
    ks_lines_stats *stats; /* filled in when not NULL */
    bool slow_only;        /* tests: readers parse every line the general way */
} ks_lines_options;

/* Reads the rest of `in` (after the header) in blocks of whole lines, parses
 * them with parse (on several threads when the input is larger than one
 * block) and appends the rows to p in file order.  The result, error
 * included, is the same as parsing line by line on one thread: the first
 * error in file order wins, with its line number in the file.  An error while
 * reading or decompressing is reported after the complete lines read before
 * it (for damaged compressed data how many those are depends on the block
 * size, as it did on the buffer size of a line-by-line read; never on the
 * thread count).  No thread is started for an input of one block. */
ks_status ks_read_lines(ks_input *in, ks_line_parser parse, const void *ctx, ks_profile *p,
                        const ks_lines_options *options, ks_error *err);

/* The nsys CSV readers with explicit block options (tests compare thread
 * counts and block sizes; the reader table uses the defaults). */
ks_status ks_read_nsys_kern_exec_csv(ks_input *in, const ks_read_options *opt,
                                     const ks_lines_options *lines, ks_profile *p,
                                     ks_error *err);
ks_status ks_read_nsys_gpu_trace_csv(ks_input *in, const ks_read_options *opt,
                                     const ks_lines_options *lines, ks_profile *p,
                                     ks_error *err);

/* Whether two kernel names name the same kernel as different profilers
 * print it (full demangled signature, bare function name, Itanium-mangled
 * name). */
bool ks_kernel_names_match(const char *a, const char *b);

/* Second sources (lib/readers/attach.c): each reads a file into a profile
 * that ks_profile_join aligns with the time profile.  *lines (malloc'd, one
 * per launch, may be NULL) locates each launch in the file for errors. */
ks_status ks_read_ncu_metrics(const char *path, ks_profile **out, long **lines,
                              ks_error *err);
ks_status ks_read_photon_bbv(const char *path, ks_profile **out, long **lines,
                             ks_error *err);
/* An Accel-Sim trace folder as a second source (names, grid, block,
 * instruction counts; lib/readers/read_accelsim.c); *lines is NULL. */
ks_status ks_read_accelsim_traces(const char *path, ks_profile **out, long **lines,
                                  ks_error *err);
/* A MacSim NVBit trace folder, the same way (lib/readers/read_macsim.c). */
ks_status ks_read_macsim_traces(const char *path, ks_profile **out, long **lines,
                                ks_error *err);
/* Either kind of trace folder, told apart by its list file. */
ks_status ks_read_trace_folder(const char *path, ks_profile **out, long **lines,
                               ks_error *err);

/* Growable buffer helpers */
ks_status ks_grow(void **ptr, size_t *capacity, size_t need, size_t elem, ks_error *err);
/* One more element of the array *ptr (*count of them), zeroed and counted:
 * its address, or NULL (err set) when out of memory. */
void *ks_push_zeroed(void **ptr, size_t *count, size_t *capacity, size_t elem, ks_error *err);
/* Resizes the n parallel arrays *cols[i] (columns of one table) to rows
 * rows of row_bytes[i] each; one realloc could not move stays as it was, so
 * every pointer stays valid.  false when any failed. */
bool ks_resize_columns(void **const cols[], const size_t row_bytes[], size_t n, size_t rows);


/* The profile's durations at the plan's samples, in sample order (malloc'd;
 * NULL when out of memory).  p must be the profile the plan's ids index. */
double *ks_plan_sample_durations(const ks_plan *plan, const ks_profile *p);
/* What a method's plan promises: its relative error bound (0: none) and
 * what the bound is about (bound_scope: "total", "per-group", "none"). */
void ks_plan_set_bound(ks_plan *plan, double bound, const char *scope);
/* ks_plan_finish with the profile's total time already known (eval finishes
 * 40 plans of one profile; summing 10 M durations for each showed). */
ks_status ks_plan_finish_total(ks_plan *plan, const ks_profile *p, double total_ns,
                               ks_error *err);
/* The end of a method's fit or model_load: st, with *model = m when st is
 * KS_OK and m released by model_free otherwise (lib/methods/method.c). */
ks_status ks_method_fit_end(ks_status st, void *m, void (*model_free)(void *model),
                            void **model);
/* What a plan simulates on average: m mean per cluster, a census
 * (m >= size) once (lib/eval/eval.c; benchmarks and tests weigh plans by it). */
double ks_plan_expected_cost(const ks_plan *plan);

#endif
