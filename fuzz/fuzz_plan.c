/* fuzz_plan.c - the plan reader on arbitrary bytes: it must refuse or read,
 * never crash, and what it reads must write out and read back the same. */
#include "ksample.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ks_plan plan;
    ks_error err;
    if (ks_plan_read_buffer((const char *)data, size, "fuzz.json", &plan, &err) != KS_OK)
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        ks_plan_write_json(&plan, f, &err);
        fclose(f);
        ks_plan again;
        if (ks_plan_read_buffer(text, len, "again.json", &again, &err) != KS_OK)
            abort(); /* the writer's output must read back */
        ks_plan_free(&again);
    }
    free(text);
    ks_plan_free(&plan);
    return 0;
}
