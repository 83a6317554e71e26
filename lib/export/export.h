/*
 * export.h - what the exporters share (internal).
 */
#ifndef KS_EXPORT_H
#define KS_EXPORT_H

#include "internal.h"

extern const ks_exporter ks_exporter_accelsim;
extern const ks_exporter ks_exporter_accelsim_tracer;
extern const ks_exporter ks_exporter_macsim_tracer;
extern const ks_exporter ks_exporter_ids;

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

#endif
