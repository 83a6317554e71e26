/*
 * replay.c - runs one fuzz target over files without libFuzzer: every file of
 * each folder (or each file) named on the command line, in name order.  Built
 * with the normal compiler for every target, so `make test` and
 * `make test-asan` replay each seed corpus and every input that once crashed
 * (fuzz/regressions/<name>/), as SQLite's fuzzcheck does.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) {
            uint8_t *q = realloc(buf, cap *= 2);
            if (!q)
                free(buf);
            buf = q;
        }
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_path(const char *path, size_t *count)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* a target without regressions has no folder */
    if (!S_ISDIR(st.st_mode)) {
        ++*count;
        return replay_file(path);
    }
    struct dirent **names;
    int n = scandir(path, &names, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s\n", path);
        return 1;
    }
    int failures = 0;
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            char file[4096];
            snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
            if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
                ++*count;
                failures += replay_file(file);
            }
        }
        free(names[i]);
    }
    free(names);
    return failures;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    int failures = 0;
    for (int i = 1; i < argc; i++)
        failures += replay_path(argv[i], &count);
    printf("replayed %zu inputs\n", count);
    return failures ? 1 : 0;
}
