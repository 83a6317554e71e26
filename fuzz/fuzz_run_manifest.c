/*
 * fuzz_run_manifest.c - the run manifest reader (lib/run/manifest.c): any
 * bytes give a manifest whose every job has a folder and ids, or an error
 * naming the file; never a crash or a leak.  The bytes reach the reader as
 * an in-memory file (memfd), since it starts from a path.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ksample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("ksample-fuzz-manifest", 0);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
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
        ks_run_manifest_free(&m);
    } else if (!err.message[0] || st == KS_ERR_INTERNAL || m.jobs) {
        abort();
    }
    close(fd);
    return 0;
}
