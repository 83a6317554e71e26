/*
 * fuzz_kineto.c - the PyTorch profiler (Kineto) Chrome-trace reader.
 * The first byte picks detection or one forced format, so that the same
 * corpus reaches both the detector and the reader behind it.
 */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {NULL, "kineto-json"};
    if (size == 0)
        return 0;
    fuzz_read_as(data + 1, size - 1, formats[data[0] % (sizeof formats / sizeof formats[0])]);
    return 0;
}
