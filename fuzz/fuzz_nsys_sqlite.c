/*
 * fuzz_nsys_sqlite.c - the Nsight Systems SQLite export reader (plain or compressed database).
 * The first byte picks detection or one forced format, so that the same
 * corpus reaches both the detector and the reader behind it.
 */
#include "fuzz_input.h"

FUZZ_READER_TARGET("nsys-sqlite")
