/*
 * fuzz_kineto.c - the PyTorch profiler (Kineto) Chrome-trace reader.
 * The first byte picks detection or one forced format, so that the same
 * corpus reaches both the detector and the reader behind it.
 */
#include "fuzz_input.h"

FUZZ_READER_TARGET("kineto-json")
