/*
 * temporaries.c - named temporary files that an interruption must not leave
 * behind (the decompressed copy of a compressed SQLite export, the fallback
 * temporary of an atomic write).
 *
 * This is the library's one piece of process-wide state, on purpose: a
 * signal handler has no other way to find the files.  The library installs
 * no handler; the program does (the CLI does for SIGINT, SIGTERM, SIGHUP)
 * and calls ks_remove_temporaries(), which only reads fixed slots and calls
 * unlink(), both async-signal-safe.  Slots are claimed with lock-free atomics
 * so threads may register at the same time.
 */
#include "internal.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { SLOTS = 16, SLOT_PATH = 4096 };

/* 0 free, 1 being written, 2 holds a path */
static atomic_int slot_state[SLOTS];
static char slot_path[SLOTS][SLOT_PATH];

int ks_temp_register(const char *path)
{
    if (strlen(path) >= SLOT_PATH)
        return -1;
    for (int i = 0; i < SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&slot_state[i], &expected, 1)) {
            memcpy(slot_path[i], path, strlen(path) + 1);
            atomic_store(&slot_state[i], 2);
            return i;
        }
    }
    return -1; /* all taken: the file is still removed on every normal path */
}

void ks_temp_forget(int slot)
{
    if (slot >= 0 && slot < SLOTS)
        atomic_store(&slot_state[slot], 0);
}

void ks_remove_temporaries(void)
{
    for (int i = 0; i < SLOTS; i++) {
        int expected = 2;
        if (atomic_compare_exchange_strong(&slot_state[i], &expected, 1))
            unlink(slot_path[i]);
    }
}
