/* cmd_formats.c - `ksample formats`: the readers and methods this build has. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cmd_formats(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: ksample formats\n\nLists the input formats (for --format) and the "
               "sampling methods (for --method).\nAny input may be gzip, xz or zstd "
               "compressed.\n\noptions:\n  -h, --help         this text\n");
        return 0;
    }
    printf("input formats (detected from content; --format forces one):\n");
    const char *const *names = ks_reader_names();
    for (size_t i = 0; names[i]; i++)
        printf("  %s\n", names[i]);
    printf("\nmethods:\n");
    const ks_method *const *m = ks_methods();
    for (size_t i = 0; m[i]; i++)
        printf("  %-8s %s\n", m[i]->name, m[i]->summary);
    return 0;
}
