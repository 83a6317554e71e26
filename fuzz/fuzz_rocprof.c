/*
 * fuzz_rocprof.c - the rocprof readers (rocprofv3 kernel trace, v1 results.csv).
 * The first byte picks detection or one forced format, so that the same
 * corpus reaches both the detector and the reader behind it.
 */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {NULL, "rocprof-v3-csv", "rocprof-v1-csv"};
    if (size == 0)
        return 0;
    fuzz_read_as(data + 1, size - 1, formats[data[0] % (sizeof formats / sizeof formats[0])]);
    return 0;
}
