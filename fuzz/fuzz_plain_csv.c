/*
 * fuzz_plain_csv.c - the plain name,duration CSV reader.
 * The first byte picks detection or one forced format, so that the same
 * corpus reaches both the detector and the reader behind it.
 */
#include "fuzz_input.h"

FUZZ_READER_TARGET("plain-csv")
