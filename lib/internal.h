/*
 * internal.h - shared between library files; not part of the public interface.
 */
#ifndef KS_INTERNAL_H
#define KS_INTERNAL_H

#include "ksample.h"

#include <stdbool.h>

/* ------------------------------------------------------------ byte input */

/* A file opened for sequential reading, decompressed on the fly when it
 * starts with a gzip, xz or zstd magic number.  Also computes the SHA-256 of
 * the bytes on disk as they stream past (for the plan's input digest). */
typedef struct ks_input ks_input;

ks_status ks_input_open(const char *path, ks_input **out, ks_error *err);
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
/* Reads the rest of the raw file so the digest covers it; then fills hex. */
ks_status ks_input_finish_digest(ks_input *in, char hex[33], uint64_t *bytes, ks_error *err);

/* ------------------------------------------------------------------- CSV */

/* Splits one CSV line in place.  Quoted fields may hold commas and doubled
 * quotes; quotes are removed.  Leading/trailing spaces of unquoted fields
 * are kept (callers trim where the format pads).  Returns the field count
 * (may exceed max: extra fields are not stored), or -1 on an unterminated
 * quote. */
int ks_csv_split(char *line, size_t len, char **fields, int max);
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
bool ks_is_memcpy_name(const char *name);

/* Reader interface: one file per format.  detect() sees the first decompressed
 * bytes and says how sure it is (0 = not this format). */
typedef struct ks_reader {
    const char *name;
    const char *summary;
    int (*detect)(const char *head, size_t len, const char *path);
    ks_status (*read)(ks_input *in, const ks_read_options *opt, ks_profile *p, ks_error *err);
} ks_reader;

extern const ks_reader ks_reader_nsys_gpu_trace_csv;
extern const ks_reader ks_reader_nsys_kern_exec_csv;
extern const ks_reader ks_reader_plain_csv;
extern const ks_reader ks_reader_kineto_json;
extern const ks_reader ks_reader_nsys_sqlite;
extern const ks_reader ks_reader_rocprof_v3_csv;
extern const ks_reader ks_reader_rocprof_v1_csv;
extern const ks_reader ks_reader_ncu_csv;
extern const ks_reader ks_reader_ncu_raw_csv;

/* Reorders every column so that new row i is old row order[i]. */
ks_status ks_profile_permute(ks_profile *p, uint32_t *order, ks_error *err);

/* Reads lines until the CSV header: the first line whose fields include
 * `anchor` (preamble lines such as nsys NOTICEs are skipped).  Then checks that
 * every name in required[] is a column.  The header's fields stay valid until
 * the next ks_input_getline; *count is the field count. */
ks_status ks_csv_read_header(ks_input *in, const char *anchor, const char *const *required,
                             char **fields, int max, int *count, ks_error *err);

/* Growable buffer helpers */
ks_status ks_grow(void **ptr, size_t *capacity, size_t need, size_t elem, ks_error *err);

/* Plan helpers shared by methods */
ks_status ks_draw_without_replacement(ks_rng *rng, const uint32_t *members, size_t n,
                                      uint64_t m, uint32_t *out);

#endif
