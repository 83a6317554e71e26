/*
 * fuzz_model.c - libFuzzer target for the GCL model file parser (.ksm):
 * any bytes must give a model or a clean KS_ERR_FORMAT, never a crash, a
 * hang or an absurd allocation.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ksample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ks_gcl_model *m = NULL;
    ks_error err;
    if (ks_gcl_model_parse(data, size, "fuzz.ksm", &m, &err) == KS_OK) {
        if (!m || ks_gcl_embedding_dim(m) == 0)
            abort();
        ks_gcl_model_free(m);
    } else if (m) {
        abort();
    }
    return 0;
}
