/*
 * fuzz_run_manifest.c - the run manifest reader (lib/run/manifest.c): any
 * bytes give a manifest whose every job has a folder and ids, or an error
 * naming the file; never a crash or a leak; and a manifest read compares
 * equal to itself (ks_run_manifest_compare, a rerun's check).  The bytes reach the reader as
 * an in-memory file (fuzz_input.h), since it starts from a path.
 */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file file;
    if (fuzz_file_open(&file, data, size) != 0)
        return 0;
    const char *path = file.path;
    ks_run_manifest m;
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_run_manifest_read(path, &m, &err);
    if (st == KS_OK) {
        if (!m.plan || (m.job_count && !m.jobs))
            abort();
        for (size_t j = 0; j < m.job_count; j++)
            if (!m.jobs[j].dir || !m.jobs[j].dir[0] || (m.jobs[j].id_count && !m.jobs[j].ids))
                abort();
        /* a rerun with what the manifest says is the same run (issue 34) */
        if (ks_run_manifest_compare(&m, &m, path, &err) != KS_OK)
            abort();
        ks_run_manifest_free(&m);
    } else if (!err.message[0] || st == KS_ERR_INTERNAL || m.jobs) {
        abort();
    }
    fuzz_file_close(&file);
    return 0;
}
