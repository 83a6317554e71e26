/*
 * fingerprint.c - what a run folder's jobs were cut from, beyond the trace
 * folder's path: a rerun into a folder whose traces were made again at the
 * same path (another tracer run, another synth seed) would mix finished
 * jobs of the old traces with new ones.  Reading every trace again would
 * cost as much as the export itself (gigabytes), so the fingerprint takes
 * what changes when a trace changes: the list file's bytes (kernelslist.g,
 * or MacSim's kernel_config.txt) and, for each entry of the folder in name
 * order, its name, its size and its first 4 KiB (an Accel-Sim trace's
 * header: kernel, grid, block, ...; a MacSim kernel folder's trace.txt).
 * Modification times are left out: copying or unpacking the same traces
 * again must not count as a change.
 */
#include "run_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

enum { HEAD_BYTES = 4096 };

/* name, size and head of one regular file (the size -1 when it is none) */
static void add_file(XXH3_state_t *h, const char *name, const char *path, bool whole)
{
    XXH3_128bits_update(h, name, strlen(name) + 1);
    struct stat st;
    int fd = -1;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    long long size = fd >= 0 ? (long long)st.st_size : -1;
    XXH3_128bits_update(h, &size, sizeof size);
    if (fd < 0)
        return;
    char buf[HEAD_BYTES];
    size_t left = whole ? (size_t)st.st_size : HEAD_BYTES;
    while (left > 0) {
        ssize_t r = read(fd, buf, left < sizeof buf ? left : sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        XXH3_128bits_update(h, buf, (size_t)r);
        left -= (size_t)r;
    }
    close(fd);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

ks_status ks_run_traces_fingerprint(const char *traces, char out[33], ks_error *err)
{
    out[0] = '\0';
    DIR *d = opendir(traces);
    if (!d)
        return ks_error_set(err, KS_ERR_IO, traces, 0, "cannot read the trace folder: %s",
                            strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    ks_status st = KS_OK;
    struct dirent *e;
    while (st == KS_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 256;
            char **grown = realloc(names, c * sizeof *names);
            if (!grown) {
                st = ks_error_set(err, KS_ERR_NOMEM, traces, 0, "out of memory");
                break;
            }
            names = grown;
            cap = c;
        }
        if (!(names[n] = strdup(e->d_name)))
            st = ks_error_set(err, KS_ERR_NOMEM, traces, 0, "out of memory");
        else
            n++;
    }
    closedir(d);
    XXH3_state_t *h = st == KS_OK ? XXH3_createState() : NULL;
    if (st == KS_OK && !h)
        st = ks_error_set(err, KS_ERR_NOMEM, traces, 0, "out of memory");
    if (st == KS_OK) {
        qsort(names, n, sizeof *names, by_name);
        XXH3_128bits_reset(h);
        for (size_t i = 0; i < n && st == KS_OK; i++) {
            char *path = ks_path_join(traces, names[i]);
            if (!path) {
                st = ks_error_set(err, KS_ERR_NOMEM, traces, 0, "out of memory");
                break;
            }
            struct stat sb;
            if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
                /* a MacSim kernel folder: its trace.txt */
                char *inner = ks_path_join(path, "trace.txt");
                if (inner)
                    add_file(h, names[i], inner, false);
                else
                    st = ks_error_set(err, KS_ERR_NOMEM, traces, 0, "out of memory");
                free(inner);
            } else {
                bool list = strcmp(names[i], "kernelslist.g") == 0 ||
                            strcmp(names[i], "kernel_config.txt") == 0;
                add_file(h, names[i], path, list);
            }
            free(path);
        }
        if (st == KS_OK) {
            XXH128_hash_t v = XXH3_128bits_digest(h);
            snprintf(out, 33, "%016llx%016llx", (unsigned long long)v.high64,
                     (unsigned long long)v.low64);
        }
    }
    if (h)
        XXH3_freeState(h);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}

/* Every byte of one regular file, its name first; a FIFO or device where a
 * configuration is expected is refused rather than waited on. */
static ks_status add_whole(XXH3_state_t *h, const char *name, const char *path, ks_error *err)
{
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ks_status r = fd < 0 ? ks_error_set(err, KS_ERR_IO, path, 0, "cannot read: %s",
                                            strerror(errno))
                             : ks_error_set(err, KS_ERR_USAGE, path, 0, "is not a regular file");
        if (fd >= 0)
            close(fd);
        return r;
    }
    XXH3_128bits_update(h, name, strlen(name) + 1);
    char buf[1 << 16];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            return ks_error_set(err, KS_ERR_IO, path, 0, "cannot read: %s", strerror(e));
        }
        XXH3_128bits_update(h, buf, (size_t)r);
    }
    close(fd);
    return KS_OK;
}

ks_status ks_run_config_digest(const char *const *paths, size_t count, char out[33],
                               ks_error *err)
{
    out[0] = '\0';
    XXH3_state_t *h = XXH3_createState();
    if (!h)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    XXH3_128bits_reset(h);
    ks_status st = KS_OK;
    for (size_t i = 0; i < count && st == KS_OK; i++) {
        struct stat sb;
        if (!paths[i])
            continue;
        if (stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            /* a configuration folder: its regular files in name order */
            struct dirent **list = NULL;
            int n = scandir(paths[i], &list, NULL, alphasort);
            if (n < 0)
                st = ks_error_set(err, KS_ERR_IO, paths[i], 0, "cannot read the folder: %s",
                                  strerror(errno));
            for (int k = 0; k < n; k++) {
                char *f = ks_path_join(paths[i], list[k]->d_name);
                struct stat fb;
                if (st == KS_OK && list[k]->d_name[0] != '.' && f && stat(f, &fb) == 0 &&
                    S_ISREG(fb.st_mode))
                    st = add_whole(h, list[k]->d_name, f, err);
                free(f);
                free(list[k]);
            }
            free(list);
        } else {
            st = add_whole(h, "", paths[i], err);
        }
    }
    if (st == KS_OK) {
        XXH128_hash_t v = XXH3_128bits_digest(h);
        snprintf(out, 33, "%016llx%016llx", (unsigned long long)v.high64,
                 (unsigned long long)v.low64);
    }
    XXH3_freeState(h);
    return st;
}
