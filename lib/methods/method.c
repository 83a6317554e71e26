/*
 * method.c - the table of sampling methods.  A method is one file in this
 * folder (its parameter table, fit and select) and one row here.
 */
#include "internal.h"

#include <string.h>

extern const ks_method ks_method_root;
extern const ks_method ks_method_stem;
extern const ks_method ks_method_allegro;
extern const ks_method ks_method_random;
extern const ks_method ks_method_pka;
extern const ks_method ks_method_sieve;
extern const ks_method ks_method_photon;
extern const ks_method ks_method_gcl;

static const ks_method *const methods[] = {
    &ks_method_root,
    &ks_method_stem,
    &ks_method_allegro,
    &ks_method_random,
    &ks_method_pka,
    &ks_method_sieve,
    &ks_method_photon,
    &ks_method_gcl,
    NULL,
};

const ks_method *const *ks_methods(void) { return methods; }

const ks_method *ks_method_find(const char *name)
{
    for (size_t i = 0; methods[i]; i++)
        if (strcmp(methods[i]->name, name) == 0)
            return methods[i];
    return NULL;
}

ks_status ks_method_fit_end(ks_status st, void *m, void (*model_free)(void *model), void **model)
{
    if (st != KS_OK)
        model_free(m);
    else
        *model = m;
    return st;
}
