/* version.c - the version the library was built as (KS_VERSION of its
 * header), for programs and bindings that load the shared library. */
#include "ksample.h"

const char *ks_version(void) { return KS_VERSION; }
