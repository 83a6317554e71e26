/*
 * fuzz_detect.c - content detection over every reader, then whichever reader
 * won: the path a user takes without --format.
 */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_as(data, size, NULL);
    return 0;
}
