/* mem.c - ks_free_each, behind KS_FREE in internal.h, and ks_free for
 * programs that link the shared library. */
#include "internal.h"

#include <stdlib.h>

void ks_free_each(void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

void ks_free(void *p) { free(p); }
