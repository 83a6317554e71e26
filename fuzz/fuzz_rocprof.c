/*
 * fuzz_rocprof.c - the rocprof readers (rocprofv3 kernel trace, v1 results.csv).
 * The first byte picks detection or one forced format, so that the same
 * corpus reaches both the detector and the reader behind it.
 */
#include "fuzz_input.h"

FUZZ_READER_TARGET("rocprof-v3-csv", "rocprof-v1-csv")
