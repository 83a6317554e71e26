/*
 * output.c - writing an output file without ever destroying what is there.
 *
 * A plan replaces a regular file atomically: the bytes go to an unnamed file
 * in the target's folder (O_TMPFILE), which gets a name only for the instant
 * between linkat() and rename(), with the catchable termination signals
 * blocked, so Ctrl-C or a kill at any point leaves either the old file or
 * the new one and no temporary.  Where the filesystem has no O_TMPFILE a
 * named temporary (mkstemp) is used, as before.
 *
 * The process's own descriptors (/dev/stdout, /dev/fd/N) are written through
 * the descriptor, so `-o /dev/stdout >> log` appends.
 * Anything else that is not a regular file is never renamed over: a device
 * (/dev/null), a FIFO or a terminal is opened and written in place, as any
 * program's output redirection would; a symbolic link is followed, so the
 * file it points to is replaced and the link stays (`-o /dev/stdout` as
 * root used to replace the system's link with a regular file).  A folder is
 * an error.  Every write, flush and close is checked: a full disk is an
 * error, never a silently short file.
 */
#define _GNU_SOURCE /* O_TMPFILE */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static ks_status write_failed(const char *path, int e, ks_error *err)
{
    return ks_error_set(err, KS_ERR_IO, path, 0, "write failed: %s", strerror(e));
}

ks_status ks_write_status(FILE *f, ks_error *err)
{
    return ferror(f) ? write_failed(NULL, errno, err) : KS_OK;
}

/* Runs fn on f, then flushes and closes f; the first failure wins. */
static ks_status write_and_close(FILE *f, const char *path, bool sync, ks_writer_fn fn,
                                 const void *ctx, ks_error *err)
{
    ks_status st = fn(ctx, f, err);
    if (st == KS_OK && (fflush(f) != 0 || ferror(f)))
        st = write_failed(path, errno ? errno : EIO, err);
    if (st == KS_OK && sync && fsync(fileno(f)) != 0 && errno != EINVAL)
        st = write_failed(path, errno, err);
    if (fclose(f) != 0 && st == KS_OK)
        st = write_failed(path, errno, err);
    return st;
}

/* A device, FIFO or terminal: written where it is, never replaced. */
static ks_status write_in_place(const char *path, ks_writer_fn fn, const void *ctx,
                                ks_error *err)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return ks_error_set(err, KS_ERR_IO, path, 0, "cannot open for writing: %s",
                            strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    return write_and_close(f, path, false, fn, ctx, err);
}

/* The descriptor a path names when it is one of the process's own
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1.  Those
 * are written through the descriptor itself: reopening the name would start
 * at offset 0 of the file behind it (clobbering `>> log`), and following the
 * link to rename over that file would replace what the shell opened. */
static int own_descriptor(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    const char *digits = NULL;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        digits = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        digits = path + 14;
    if (!digits || !*digits || strspn(digits, "0123456789") != strlen(digits) ||
        strlen(digits) > 9)
        return -1;
    return atoi(digits);
}

static ks_status write_descriptor(int fd, const char *path, ks_writer_fn fn, const void *ctx,
                                  ks_error *err)
{
    if (fd == 1)
        fflush(stdout); /* what the program printed so far comes first */
    int copy = dup(fd);
    if (copy < 0)
        return ks_error_set(err, KS_ERR_IO, path, 0, "cannot write: %s", strerror(errno));
    FILE *f = fdopen(copy, "w");
    if (!f) {
        close(copy);
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    return write_and_close(f, path, false, fn, ctx, err);
}

/* The folder part of path ("." when there is none), in buf. */
static const char *folder_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= size)
        return NULL;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return buf;
}

/* Gives the unnamed file fd a temporary name next to path and renames it
 * over path, with the termination signals held off so that the name cannot
 * outlive an interruption. */
static ks_status link_into_place(int fd, const char *path, ks_error *err)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (!tmp)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    sigset_t hold, old;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigaddset(&hold, SIGQUIT);
    sigaddset(&hold, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &hold, &old);
    ks_status st = KS_OK;
    int e = 0;
    for (unsigned attempt = 0;; attempt++) {
        snprintf(tmp, n + 32, "%s.tmp.%ld.%u", path, (long)getpid(), attempt);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
            break;
        e = errno;
        if (e != EEXIST || attempt == 100) {
            st = ks_error_set(err, KS_ERR_IO, path, 0, "cannot name the new file: %s",
                              strerror(e));
            break;
        }
    }
    if (st == KS_OK && rename(tmp, path) != 0) {
        e = errno;
        unlink(tmp);
        st = ks_error_set(err, KS_ERR_IO, path, 0, "cannot rename into place: %s",
                          strerror(e));
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    free(tmp);
    return st;
}

/* Without O_TMPFILE (and for the job engine's small files): a named
 * temporary, removed on every error. */
ks_status ks_write_renamed(const char *path, unsigned mode, bool sync, ks_writer_fn fn,
                           const void *ctx, ks_error *err)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        ks_error_set(err, KS_ERR_IO, path, 0, "cannot create temporary file: %s",
                     strerror(errno));
        free(tmp);
        return KS_ERR_IO;
    }
    int slot = ks_temp_register(tmp);
    fchmod(fd, (mode_t)mode);
    FILE *f = fdopen(fd, "w");
    ks_status st;
    if (!f) {
        close(fd);
        st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    } else {
        st = write_and_close(f, path, sync, fn, ctx, err);
    }
    if (st == KS_OK && rename(tmp, path) != 0)
        st = ks_error_set(err, KS_ERR_IO, path, 0, "cannot rename into place: %s",
                          strerror(errno));
    if (st != KS_OK)
        unlink(tmp);
    ks_temp_forget(slot);
    free(tmp);
    return st;
}

/* A regular file (or none yet) at path, which is not a symbolic link. */
static ks_status replace_regular(const char *path, mode_t mode, ks_writer_fn fn,
                                 const void *ctx, ks_error *err)
{
    char buf[PATH_MAX];
    const char *folder = folder_of(path, buf, sizeof buf);
    if (!folder)
        return ks_error_set(err, KS_ERR_IO, path, 0, "path too long");
#ifdef O_TMPFILE
    int fd = open(folder, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    if (fd >= 0) {
        FILE *f = fdopen(fd, "w");
        if (!f) {
            close(fd);
            return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
        }
        /* the descriptor must outlive fclose for linkat: keep a duplicate */
        int keep = dup(fd);
        if (keep < 0) {
            fclose(f);
            return ks_error_set(err, KS_ERR_IO, path, 0, "dup failed: %s", strerror(errno));
        }
        ks_status st = write_and_close(f, path, true, fn, ctx, err);
        if (st == KS_OK)
            st = link_into_place(keep, path, err);
        close(keep);
        return st;
    }
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
        return ks_error_set(err, KS_ERR_IO, path, 0, "cannot create a file in %s: %s", folder,
                            strerror(errno));
#endif
    return ks_write_renamed(path, mode, true, fn, ctx, err);
}

ks_status ks_write_atomic(const char *path, ks_writer_fn fn, const void *ctx, ks_error *err)
{
    if (strcmp(path, "-") == 0) {
        ks_status st = fn(ctx, stdout, err);
        if (st == KS_OK && (fflush(stdout) != 0 || ferror(stdout)))
            st = write_failed("<stdout>", errno ? errno : EIO, err);
        return st;
    }
    int own = own_descriptor(path);
    if (own >= 0)
        return write_descriptor(own, path, fn, ctx, err);
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = 0666 & ~mask;
    struct stat info;
    if (lstat(path, &info) != 0) {
        if (errno != ENOENT)
            return ks_error_set(err, KS_ERR_IO, path, 0, "cannot write: %s", strerror(errno));
        return replace_regular(path, mode, fn, ctx, err);
    }
    const char *target = path;
    char *resolved = NULL;
    if (S_ISLNK(info.st_mode)) {
        /* what the link points to decides, and the link itself stays */
        if (stat(path, &info) != 0)
            return ks_error_set(err, KS_ERR_IO, path, 0,
                                "symbolic link to a missing file (%s): not written",
                                strerror(errno));
        if (S_ISREG(info.st_mode)) {
            resolved = realpath(path, NULL);
            if (!resolved)
                return ks_error_set(err, KS_ERR_IO, path, 0, "cannot resolve the link: %s",
                                    strerror(errno));
            target = resolved;
        }
    }
    ks_status st;
    if (S_ISDIR(info.st_mode))
        st = ks_error_set(err, KS_ERR_IO, path, 0, "is a folder");
    else if (!S_ISREG(info.st_mode))
        st = write_in_place(target, fn, ctx, err);
    else
        st = replace_regular(target, info.st_mode & 07777, fn, ctx, err);
    free(resolved);
    return st;
}

/* --------------------------------------------- folders, whole or not at all */

/* Removes the tree at path without following a link (nftw with FTW_PHYS). */
static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The first entry of folder path that is neither a link nor a regular file
 * named in own (NULL-terminated); NULL when there is none (malloc'd). */
static char *foreign_entry(const char *path, const char *const *own)
{
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    char *found = NULL;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = ks_path_join(path, e->d_name);
        struct stat sb;
        bool ours = p && lstat(p, &sb) == 0 && S_ISLNK(sb.st_mode);
        for (size_t i = 0; !ours && p && own[i]; i++) {
            size_t n = strlen(own[i]);
            if (n > 0 && own[i][n - 1] == '*') /* a prefix: files or folders */
                ours = (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)) &&
                       strncmp(e->d_name, own[i], n - 1) == 0;
            else
                ours = S_ISREG(sb.st_mode) && strcmp(e->d_name, own[i]) == 0;
        }
        if (!ours)
            found = p ? p : strdup(e->d_name);
        else
            free(p);
    }
    closedir(d);
    return found;
}

/* What an interrupted build of path left beside it: path.tmp.PID.N (and
 * its .old) of a process that is gone, removed (a kill -9 or power loss
 * gives no chance to clean up then). */
static void remove_stale_builds(const char *path)
{
    const char *slash = strrchr(path, '/');
    char folder[PATH_MAX];
    const char *dir = folder_of(path, folder, sizeof folder);
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned long pid;
        unsigned attempt;
        char tail[8] = "";
        if (strncmp(e->d_name, base, n) != 0 || strncmp(e->d_name + n, ".tmp.", 5) != 0 ||
            sscanf(e->d_name + n + 5, "%lu.%u%7s", &pid, &attempt, tail) < 2 ||
            (tail[0] && strcmp(tail, ".old") != 0) || pid == 0 || pid > INT_MAX ||
            (pid_t)pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char *p = ks_path_join(dir, e->d_name);
        struct stat sb;
        if (p && lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            remove_tree(p);
        free(p);
    }
    closedir(d);
}

ks_status ks_dir_build_begin(const char *path, const char *const *own, ks_dir_build *b,
                             ks_error *err)
{
    memset(b, 0, sizeof *b);
    struct stat sb;
    /* a folder that holds anything (a job folder inside a run folder) is
     * never reached through a link: the link could lead anywhere */
    if (!own && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode))
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "is a symbolic link: refusing to replace what it points to");
    /* a link to an export folder is followed: its target is replaced, the
     * link stays */
    if (!(b->path = ks_path_resolve(path)))
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    if (lstat(b->path, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode)) {
            ks_dir_build_abort(b);
            return ks_error_set(err, KS_ERR_USAGE, path, 0, "exists and is not a folder");
        }
        char *foreign = own ? foreign_entry(b->path, own) : NULL;
        if (foreign) {
            ks_error_set(err, KS_ERR_USAGE, path, 0,
                         "the folder exists and holds %s, which this export does not write: "
                         "refusing to replace it (give a new or empty folder)",
                         foreign);
            free(foreign);
            ks_dir_build_abort(b);
            return KS_ERR_USAGE;
        }
    } else if (errno != ENOENT) {
        ks_status st = ks_error_set(err, KS_ERR_IO, path, 0, "%s", strerror(errno));
        ks_dir_build_abort(b);
        return st;
    }
    remove_stale_builds(b->path);
    size_t n = strlen(b->path);
    if (!(b->tmp = malloc(n + 40))) {
        ks_dir_build_abort(b);
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    for (unsigned attempt = 0;; attempt++) {
        snprintf(b->tmp, n + 40, "%s.tmp.%ld.%u", b->path, (long)getpid(), attempt);
        if (mkdir(b->tmp, 0777) == 0)
            break;
        int e = errno;
        if (e != EEXIST || attempt == 100) {
            free(b->tmp);
            b->tmp = NULL;
            ks_dir_build_abort(b);
            return ks_error_set(err, KS_ERR_IO, path, 0, "cannot create the folder: %s",
                                strerror(e));
        }
    }
    return KS_OK;
}

ks_status ks_dir_build_finish(ks_dir_build *b, ks_status st, ks_error *err)
{
    if (st == KS_OK)
        return ks_dir_build_commit(b, err);
    ks_dir_build_abort(b);
    return st;
}

ks_status ks_dir_build_commit(ks_dir_build *b, ks_error *err)
{
    ks_status st = KS_OK;
    if (rename(b->tmp, b->path) != 0) {
        if (errno != EEXIST && errno != ENOTEMPTY) {
            st = ks_error_set(err, KS_ERR_IO, b->path, 0, "cannot rename into place: %s",
                              strerror(errno));
        } else if (renameat2(AT_FDCWD, b->tmp, AT_FDCWD, b->path, RENAME_EXCHANGE) == 0) {
            /* one step: the new folder in place, the old one under the
             * temporary name */
        } else {
            /* no exchange on this file system: the old one aside first */
            size_t n = strlen(b->tmp);
            char *old = malloc(n + 8);
            if (!old)
                st = ks_error_set(err, KS_ERR_NOMEM, b->path, 0, "out of memory");
            else {
                snprintf(old, n + 8, "%s.old", b->tmp);
                if (rename(b->path, old) != 0) {
                    st = ks_error_set(err, KS_ERR_IO, b->path, 0,
                                      "cannot rename into place: %s", strerror(errno));
                } else if (rename(b->tmp, b->path) != 0) {
                    st = ks_error_set(err, KS_ERR_IO, b->path, 0,
                                      "cannot rename into place: %s", strerror(errno));
                    rename(old, b->path); /* the old folder back */
                } else {
                    remove_tree(old);
                }
                free(old);
            }
        }
    } else {
        free(b->tmp);
        b->tmp = NULL;
    }
    ks_dir_build_abort(b); /* the old folder, or what failed */
    return st;
}

ks_status ks_dir_build_adopt(ks_dir_build *b, const char *name, ks_error *err)
{
    char *from = ks_path_join(b->path, name), *to = ks_path_join(b->tmp, name);
    ks_status st = KS_OK;
    struct stat sb;
    if (!from || !to)
        st = ks_error_set(err, KS_ERR_NOMEM, name, 0, "out of memory");
    else if (lstat(from, &sb) != 0)
        st = ks_error_set(err, KS_ERR_IO, from, 0, "missing: %s", strerror(errno));
    else if (S_ISLNK(sb.st_mode))
        st = ks_error_set(err, KS_ERR_USAGE, from, 0, "is a symbolic link: not taken over");
    else if (rename(from, to) != 0)
        st = ks_error_set(err, KS_ERR_IO, from, 0, "cannot move into the new folder: %s",
                          strerror(errno));
    free(from);
    free(to);
    return st;
}

void ks_dir_build_abort(ks_dir_build *b)
{
    if (b->tmp)
        remove_tree(b->tmp);
    free(b->tmp);
    free(b->path);
    memset(b, 0, sizeof *b);
}
