/*
 * path.c - file names built from a folder and a name, shared by the job
 * engine, the trace-set reader and the Accel-Sim export.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

char *ks_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (!s)
        return NULL;
    memcpy(s, dir, a);
    size_t k = a;
    if (a > 0 && dir[a - 1] != '/') /* "out/" stays "out/x", not "out//x" */
        s[k++] = '/';
    memcpy(s + k, name, b + 1);
    return s;
}
