/*
 * fuzz_nsys_csv.c - the Nsight Systems CSV readers (cuda_gpu_trace, cuda_kern_exec_trace).
 * The first byte picks detection or one forced format, so that the same
 * corpus reaches both the detector and the reader behind it.
 */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {NULL, "nsys-gpu-trace-csv", "nsys-kern-exec-csv"};
    if (size == 0)
        return 0;
    fuzz_read_as(data + 1, size - 1, formats[data[0] % (sizeof formats / sizeof formats[0])]);
    return 0;
}
