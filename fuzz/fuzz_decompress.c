/*
 * fuzz_decompress.c - the threaded decoding of gzip, xz and zstd input
 * (lib/io/decompress_*.c: the splitter parses zstd frame and xz block,
 * index and footer headers) against the serial decoder.  Where the serial
 * decoder reads the input to its end, the threads must give the same bytes
 * and the same digest; where it fails, they must fail too.
 */
#include "fuzz_input.h"

typedef struct decoded {
    ks_status st;
    unsigned char *bytes;
    size_t len, cap;
    char digest[33];
} decoded;

static decoded decode(const char *path, int threads)
{
    decoded d = {0};
    ks_input *in;
    ks_error err;
    if ((d.st = ks_input_open(path, &in, &err)) != KS_OK)
        return d;
    ks_input_set_decompress_threads(in, threads);
    for (;;) {
        if (d.cap - d.len < 4096) {
            d.cap = d.cap * 2 + 4096;
            unsigned char *b = realloc(d.bytes, d.cap);
            if (!b)
                abort();
            d.bytes = b;
        }
        size_t got;
        d.st = ks_input_read(in, d.bytes + d.len, 1 + d.len % 4000, &got, &err);
        if (d.st != KS_OK || got == 0)
            break;
        d.len += got;
    }
    uint64_t stored;
    if (d.st == KS_OK && ks_input_finish_digest(in, d.digest, &stored, &err) != KS_OK)
        abort();
    if (d.st != KS_OK && (!err.message[0] || !err.file[0]))
        abort();
    ks_input_close(in);
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file f;
    if (fuzz_file_open(&f, data, size) != 0)
        return 0;
    decoded serial = decode(f.path, 0), threads = decode(f.path, 2);
    if ((serial.st == KS_OK) != (threads.st == KS_OK))
        abort();
    if (serial.st == KS_OK &&
        (serial.len != threads.len || (serial.len && memcmp(serial.bytes, threads.bytes, serial.len)) ||
         strcmp(serial.digest, threads.digest) != 0))
        abort();
    free(serial.bytes);
    free(threads.bytes);
    fuzz_file_close(&f);
    return 0;
}
