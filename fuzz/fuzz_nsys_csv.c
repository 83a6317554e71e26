/*
 * fuzz_nsys_csv.c - the Nsight Systems CSV readers (cuda_gpu_trace, cuda_kern_exec_trace).
 * The first byte picks detection or one forced format, so that the same
 * corpus reaches both the detector and the reader behind it.
 */
#include "fuzz_input.h"

FUZZ_READER_TARGET("nsys-gpu-trace-csv", "nsys-kern-exec-csv")
