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
    ks_export_entries_fn *entries = ks_export_folder_is_macsim(opt->traces)
                                        ? ks_export_macsim_entries
                                        : ks_export_accelsim_entries;
    ks_status st = entries(plan, opt, out, count, err);
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
    ks_export_write_fn *write =
        ks_export_folder_is_macsim(traces) ? ks_export_macsim_write : ks_export_accelsim_write;
    return write(plan, traces, entries, count, warmup, out, true, err);
}

ks_status ks_export_folder(const ks_plan *plan, const ks_export_options *opt, const char *out,
                           ks_export_entries_fn *entries, ks_export_write_fn *write,
                           ks_error *err)
{
    ks_export_entry *e;
    size_t n;
    ks_status st = entries(plan, opt, &e, &n, err);
    if (st == KS_OK)
        st = ks_export_with_warmup(opt->traces, opt->warmup, &e, &n, err);
    if (st == KS_OK)
        st = write(plan, opt->traces, e, n, opt->warmup, out, false, err);
    free(e);
    return st;
}

ks_status ks_export_state_carriers(const char *traces, const ks_warmup *warmup,
                                   const ks_export_entry *entries, size_t count,
                                   ks_dir_build *b, bool job, ks_export_adopt_fn *adopt,
                                   const void *ctx, ks_error *err)
{
    if (!warmup || warmup->mode != KS_WARMUP_STATE)
        return KS_OK;
    if (!job)
        return ks_export_state_into(traces, warmup, entries, count, b->tmp, err);
    ks_status st = KS_OK;
    for (size_t k = 0; k < count && st == KS_OK; k++)
        if (entries[k].state)
            st = adopt(ctx, b, entries[k].launch, err);
    return st;
}

bool ks_export_warmup_text(const ks_warmup *warmup, const ks_export_entry *entries,
                           size_t count, char *text, size_t size)
{
    snprintf(text, size, "none");
    if (warmup)
        ks_warmup_format(warmup, text, size);
    bool warmups = false;
    for (size_t k = 0; k < count; k++)
        warmups = warmups || !entries[k].measured;
    return warmups;
}

void ks_export_weights_head(FILE *f, const ks_plan *plan, const char *traces,
                            const char *uid_note, bool warmups, const char *warmup_text)
{
    fprintf(f, "# ksample plan of %s (%s, seed %llu), traces from %s\n",
            plan->input_path[0] ? plan->input_path : "(unknown input)", plan->method,
            (unsigned long long)plan->params.seed, traces);
    fputs(uid_note, f);
    if (warmups)
        fprintf(f, "# warm-up %s: a launch of role warmup runs only to warm the caches for "
                   "the measured launch after it; its statistics are not results\n",
                warmup_text);
    fputs(warmups ? "uid,id,weight,trace_launch,trace,role\n"
                  : "uid,id,weight,trace_launch,trace\n",
          f);
}

void ks_export_weights_role(FILE *f, bool warmups, const ks_export_entry *e)
{
    fputs(warmups ? (e->measured ? ",measured\n" : ",warmup\n") : "\n", f);
}
