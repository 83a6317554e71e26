/*
 * export.c - the table of exporters: a plan turned into what a tracer or a
 * simulator reads.  An exporter is one file (lib/export/<name>.c) and one row
 * here.
 */
#include "export.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const ks_exporter *const exporters[] = {
    &ks_exporter_accelsim,
    &ks_exporter_macsim,
    &ks_exporter_accelsim_tracer,
    &ks_exporter_accelsim_tracer_span,
    &ks_exporter_accelsim_tracer_ranges,
    &ks_exporter_accelsim_tracer_regions,
    &ks_exporter_macsim_tracer,
    &ks_exporter_ids,
    NULL,
};

const ks_exporter *const *ks_exporters(void) { return exporters; }

const ks_exporter *ks_exporter_find(const char *name)
{
    for (size_t i = 0; exporters[i]; i++)
        if (strcmp(exporters[i]->name, name) == 0)
            return exporters[i];
    return NULL;
}

/* Itanium mangling: _Z, then N...E for a nested name of <length><id> parts
 * (and I...E template arguments after a part).  The last part is the
 * function's own name. */
static void mangled_base(const char *s, char *buf, size_t size)
{
    const char *p = s + 2;
    if (*p == 'N')
        p++;
    const char *last = NULL;
    size_t last_len = 0;
    while (*p && (isdigit((unsigned char)*p) || *p == 'L')) {
        if (*p == 'L') { /* internal linkage marker */
            p++;
            continue;
        }
        size_t len = 0;
        while (isdigit((unsigned char)*p))
            len = len * 10 + (size_t)(*p++ - '0');
        if (len == 0 || strlen(p) < len)
            break;
        last = p;
        last_len = len;
        p += len;
        if (*p == 'I' || *p == 'E' || *p == 'v' || *p == 'P')
            break;
    }
    if (!last) {
        snprintf(buf, size, "%s", s);
        return;
    }
    snprintf(buf, size, "%.*s", (int)last_len, last);
}

void ks_export_base_name(const char *name, char *buf, size_t size)
{
    while (*name == ' ')
        name++;
    if (name[0] == '_' && name[1] == 'Z') {
        mangled_base(name, buf, size);
        return;
    }
    /* demangled: drop the parameter list and template arguments, then the
     * return type and enclosing scopes */
    size_t end = strcspn(name, "(<");
    while (end > 0 && name[end - 1] == ' ')
        end--;
    size_t start = end;
    while (start > 0 && name[start - 1] != ' ' && name[start - 1] != ':')
        start--;
    snprintf(buf, size, "%.*s", (int)(end - start), name + start);
}

/* ------------------------------------------- simulator folders for jobs */

int ks_export_folder_is_macsim(const char *traces) { return ks_macsim_dir_detect(traces) > 0; }

ks_status ks_export_plan_entries(const ks_plan *plan, const ks_export_options *opt,
                                 ks_export_entry **out, size_t *count, ks_error *err)
{
    *out = NULL;
    *count = 0;
    if (!opt || !opt->traces)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "no trace folder given");
    bool macsim = ks_export_folder_is_macsim(opt->traces);
    ks_status st = macsim ? ks_export_macsim_entries(plan, opt, out, count, err)
                          : ks_export_accelsim_entries(plan, opt, out, count, err);
    if (st == KS_OK)
        st = ks_export_with_warmup(opt->traces, opt->warmup, out, count, err);
    if (st != KS_OK) {
        free(*out);
        *out = NULL;
        *count = 0;
    }
    return st;
}

ks_status ks_export_entries_write(const ks_plan *plan, const char *traces,
                                  const ks_export_entry *entries, size_t count,
                                  const ks_warmup *warmup, const char *out, ks_error *err)
{
    return ks_export_folder_is_macsim(traces)
               ? ks_export_macsim_write(plan, traces, entries, count, warmup, out, true, err)
               : ks_export_accelsim_write(plan, traces, entries, count, warmup, out, true, err);
}
