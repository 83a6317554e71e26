/*
 * export.h - what the exporters share (internal).
 */
#ifndef KS_EXPORT_H
#define KS_EXPORT_H

#include "internal.h"
#include "trace.h"

extern const ks_exporter ks_exporter_accelsim;
extern const ks_exporter ks_exporter_accelsim_tracer;
extern const ks_exporter ks_exporter_accelsim_tracer_span;
extern const ks_exporter ks_exporter_accelsim_tracer_ranges;
extern const ks_exporter ks_exporter_accelsim_tracer_regions;
extern const ks_exporter ks_exporter_macsim_tracer;
extern const ks_exporter ks_exporter_ids;
extern const ks_exporter ks_exporter_macsim;

/* The folder exporters in parts, for `ksample run`'s jobs: the plan's
 * samples as entries (checked against the traces, in the order the
 * simulator runs them), warm-up launches added, and one folder written for
 * any entries, whole or not at all (ks_dir_build): an existing folder is
 * replaced only when it holds what an export writes, or anything for a job
 * folder (job: run's, inside a run folder it holds locked). */
typedef ks_status ks_export_entries_fn(const ks_plan *plan, const ks_export_options *opt,
                                       ks_export_entry **out, size_t *count, ks_error *err);
typedef ks_status ks_export_write_fn(const ks_plan *plan, const char *traces,
                                     const ks_export_entry *entries, size_t count,
                                     const ks_warmup *warmup, const char *out, bool job,
                                     ks_error *err);
ks_export_entries_fn ks_export_accelsim_entries, ks_export_macsim_entries;
ks_export_write_fn ks_export_accelsim_write, ks_export_macsim_write;
/* A folder exporter's export: its entries, the warm-up launches added, the
 * folder written (not a job's). */
ks_status ks_export_folder(const ks_plan *plan, const ks_export_options *opt, const char *out,
                           ks_export_entries_fn *entries, ks_export_write_fn *write,
                           ks_error *err);
/* The warm-up mode in words into text ("none" without one); true when some
 * entry is a warm-up launch (not measured). */
bool ks_export_warmup_text(const ks_warmup *warmup, const ks_export_entry *entries,
                           size_t count, char *text, size_t size);
/* weights.csv up to its rows: the plan and the trace folder, what uid is
 * (uid_note: "# " lines), the warm-up note when warmups, the column names;
 * and a row's role column ending the line. */
void ks_export_weights_head(FILE *f, const ks_plan *plan, const char *traces,
                            const char *uid_note, bool warmups, const char *warmup_text);
void ks_export_weights_role(FILE *f, bool warmups, const ks_export_entry *e);
/* *entries with the warm-up launches of each added (nothing for NULL or
 * none). */
ks_status ks_export_with_warmup(const char *traces, const ks_warmup *warmup,
                                ks_export_entry **entries, size_t *count, ks_error *err);


/* --warmup state for a one-folder export: the carriers of entries' state
 * launches written into out (created); nothing for other modes. */
ks_status ks_export_state_into(const char *traces, const ks_warmup *warmup,
                               const ks_export_entry *entries, size_t count, const char *out,
                               ks_error *err);
/* The warm-state carriers of entries in the new folder b->tmp (nothing
 * unless --warmup state): an export writes them there; a job's were written
 * into its folder in one pass over the traces (cmd_run.c), and adopt takes
 * over those of each state entry's launch. */
typedef ks_status ks_export_adopt_fn(const void *ctx, ks_dir_build *b, size_t launch,
                                     ks_error *err);
ks_status ks_export_state_carriers(const char *traces, const ks_warmup *warmup,
                                   const ks_export_entry *entries, size_t count,
                                   ks_dir_build *b, bool job, ks_export_adopt_fn *adopt,
                                   const void *ctx, ks_error *err);

/* --warmup state in the tracer formats (state_trace.c): per sample (plan
 * order) the first launch traced for its state, estimated from the
 * profile's bytes moved (else its threads) and the L2, or opt's window. */
#define KS_STATE_BYTES_PER_THREAD 16.0
#define KS_STATE_TRACE_DEFAULT_L2 (6ull << 20)
typedef struct ks_state_trace {
    uint64_t *first;     /* per sample */
    size_t count;
    uint64_t traced;     /* launches traced in all (the union of the ranges) */
    uint64_t launches;   /* the program's */
    double volume;       /* expected trace bytes; < 0 unknown */
    uint64_t l2_bytes;
    double cut;
    char l2_source[160];
    char basis[400];     /* what the window came from, in words */
} ks_state_trace;
ks_status ks_state_trace_plan(const ks_plan *plan, const ks_export_options *opt, bool macsim,
                              ks_state_trace *t, ks_error *err);
void ks_state_trace_free(ks_state_trace *t);
/* "--warmup state: T of N launches traced (S %), ..." for the terminal. */
void ks_state_trace_summary(const ks_state_trace *t, size_t distinct, char *buf, size_t size);

/* A kernel name reduced to what both a mangled (_Z14forward_kernelPKf...)
 * and a demangled (void forward_kernel<float>(float const*, ...)) spelling
 * of it share: the innermost identifier without template arguments.
 * Writes at most size-1 bytes. */
void ks_export_base_name(const char *name, char *buf, size_t size);

/* Defines the exporter var of a format that is one file: out written
 * atomically (ks_write_atomic) by fn, which gets the plan as its context.
 * Such a format takes none of the export options. */
#define KS_FILE_EXPORTER(var, name, summary, fn)                                           \
    static ks_status var##_write(const ks_plan *plan, const ks_export_options *opt,        \
                                 const char *out, ks_error *err)                           \
    {                                                                                      \
        (void)opt;                                                                         \
        return ks_write_atomic(out, fn, plan, err);                                        \
    }                                                                                      \
    const ks_exporter var = {name, summary, 0, var##_write}

/* Defines the exporter var of a folder format from its two parts, run by
 * ks_export_folder. */
#define KS_FOLDER_EXPORTER(var, name, summary, entries, write)                             \
    static ks_status var##_write(const ks_plan *plan, const ks_export_options *opt,        \
                                 const char *out, ks_error *err)                           \
    {                                                                                      \
        return ks_export_folder(plan, opt, out, entries, write, err);                      \
    }                                                                                      \
    const ks_exporter var = {name, summary, 1, var##_write}

#endif
