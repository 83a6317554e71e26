/*
 * fuzz_number.c - the one strict number rule (ks_parse_decimal, lib/io/
 * csv.c) under every flag: whatever the bytes, a value a stricter rule
 * takes is taken by the looser ones with the same double (KS_NUM_MEASURE
 * within KS_NUM_NONNEG within 0), a KS_NUM_MEASURE value is finite, not
 * negative, at most 2^64 as a double (2^64 - 1 read exactly rounds to it)
 * and written without an exponent, and ks_measure_check agrees with it
 * below 2^64; a refusal says why.  Never a crash.
 */
#include "ksample.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    double any = -1, nonneg = -1, measure = -1;
    const char *why_any = ks_parse_decimal(s, size, 0, &any);
    const char *why_nonneg = ks_parse_decimal(s, size, KS_NUM_NONNEG, &nonneg);
    const char *why_measure = ks_parse_decimal(s, size, KS_NUM_MEASURE, &measure);
    if ((why_any && !*why_any) || (why_nonneg && !*why_nonneg) ||
        (why_measure && !*why_measure))
        abort();
    if (!why_nonneg && (why_any || any != nonneg || nonneg < 0))
        abort();
    if (!why_measure) {
        /* whole numbers up to 2^64 - 1 are read exactly, and their double
         * may be 2^64 itself (2^64 - 1's nearest); anything else is below */
        if (why_nonneg || nonneg != measure || !isfinite(measure) || measure < 0 ||
            measure > 18446744073709551616.0 || memchr(s, 'e', size) || memchr(s, 'E', size))
            abort();
        if (measure < 18446744073709551616.0 && ks_measure_check(measure))
            abort();
    }
    return 0;
}
