/*
 * owned.c - what ksample creates, replaces and removes inside a folder it
 * owns (a run's job folders, a job's warm-state carriers, the state:memcpy
 * probe), never through a symbolic link.
 *
 * ks_write_atomic follows a link by design: `-o plan.json` where plan.json
 * links elsewhere replaces the file the user pointed at.  Inside a folder
 * ksample made, a link is never the user's intent, and following one
 * writes or deletes outside the folder (a job's ksample-state-N folder
 * replaced by a link to $HOME once had every file of $HOME unlinked).  So
 * here the folder is opened with O_NOFOLLOW and every entry is reached
 * relative to that descriptor: a new file with O_CREAT | O_EXCL |
 * O_NOFOLLOW, a replacement by renameat() (which replaces a link itself,
 * never its target), a removal by unlinkat() after fstatat(...,
 * AT_SYMLINK_NOFOLLOW), a folder walked by descriptors opened O_NOFOLLOW.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static ks_status linked(const char *path, ks_error *err)
{
    return ks_error_set(err, KS_ERR_USAGE, path, 0,
                        "is a symbolic link inside a folder ksample owns: refusing to "
                        "write or remove through it");
}

int ks_owned_open_dir(const char *path, bool create, ks_error *err)
{
    if (create && mkdir(path, 0777) != 0 && errno != EEXIST) {
        ks_error_set(err, KS_ERR_IO, path, 0, "cannot create the folder: %s", strerror(errno));
        return -1;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        return fd;
    int e = errno;
    struct stat sb;
    if (e == ELOOP || (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)))
        linked(path, err);
    else if (e == ENOTDIR)
        ks_error_set(err, KS_ERR_USAGE, path, 0, "exists and is not a folder");
    else
        ks_error_set(err, KS_ERR_IO, path, 0, "cannot open the folder: %s", strerror(e));
    return -1;
}

/* "dir/name" for messages (a static buffer would not be thread-safe). */
static char *name_in(const char *dir, const char *name)
{
    char *p = ks_path_join(dir ? dir : ".", name);
    return p ? p : strdup(name);
}

static ks_status remove_at(int dir, const char *dir_path, const char *name, int depth,
                           ks_error *err);

/* Every entry of the open folder fd removed (fd is consumed). */
static ks_status empty_folder(int fd, const char *path, int depth, ks_error *err)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return ks_error_set(err, KS_ERR_IO, path, 0, "cannot read the folder: %s",
                            strerror(errno));
    }
    ks_status st = KS_OK;
    struct dirent *e;
    while (st == KS_OK && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        /* removing the entry just read leaves readdir's walk of the others
         * as it was (POSIX: each entry not removed is still returned once) */
        st = remove_at(dirfd(d), path, e->d_name, depth + 1, err);
    }
    closedir(d);
    return st;
}

static ks_status remove_at(int dir, const char *dir_path, const char *name, int depth,
                           ks_error *err)
{
    struct stat sb;
    if (fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return KS_OK;
        char *p = name_in(dir_path, name);
        ks_status st = ks_error_set(err, KS_ERR_IO, p, 0, "cannot remove: %s", strerror(errno));
        free(p);
        return st;
    }
    ks_status st = KS_OK;
    char *p = name_in(dir_path, name);
    if (!p)
        return ks_error_set(err, KS_ERR_NOMEM, name, 0, "out of memory");
    if (S_ISDIR(sb.st_mode)) {
        if (depth > 64) {
            st = ks_error_set(err, KS_ERR_IO, p, 0, "folders nested too deep to remove");
        } else {
            int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0)
                st = ks_error_set(err, KS_ERR_IO, p, 0, "cannot open: %s", strerror(errno));
            else
                st = empty_folder(fd, p, depth, err);
        }
        if (st == KS_OK && unlinkat(dir, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
            st = ks_error_set(err, KS_ERR_IO, p, 0, "cannot remove: %s", strerror(errno));
    } else if (unlinkat(dir, name, 0) != 0 && errno != ENOENT) {
        /* a file or a link: the link itself goes, never what it points to */
        st = ks_error_set(err, KS_ERR_IO, p, 0, "cannot remove: %s", strerror(errno));
    }
    free(p);
    return st;
}

ks_status ks_owned_remove(int dir, const char *dir_path, const char *name, ks_error *err)
{
    return remove_at(dir, dir_path, name, 0, err);
}

int ks_owned_create(int dir, const char *dir_path, const char *name, ks_error *err)
{
    if (ks_owned_remove(dir, dir_path, name, err) != KS_OK)
        return -1;
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        char *p = name_in(dir_path, name);
        ks_error_set(err, KS_ERR_IO, p, 0, "cannot create: %s", strerror(errno));
        free(p);
    }
    return fd;
}

int ks_owned_mkdir(int dir, const char *dir_path, const char *name, ks_error *err)
{
    char *p = name_in(dir_path, name);
    if (!p) {
        ks_error_set(err, KS_ERR_NOMEM, name, 0, "out of memory");
        return -1;
    }
    int fd = -1;
    if (ks_owned_remove(dir, dir_path, name, err) == KS_OK) {
        if (mkdirat(dir, name, 0777) != 0)
            ks_error_set(err, KS_ERR_IO, p, 0, "cannot create the folder: %s", strerror(errno));
        else if ((fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
            ks_error_set(err, KS_ERR_IO, p, 0, "cannot open the folder: %s", strerror(errno));
    }
    free(p);
    return fd;
}

ks_status ks_owned_rename(int dir, const char *dir_path, const char *from, const char *to,
                          ks_error *err)
{
    ks_status st = ks_owned_remove(dir, dir_path, to, err);
    if (st == KS_OK && renameat(dir, from, dir, to) != 0) {
        char *p = name_in(dir_path, to);
        st = ks_error_set(err, KS_ERR_IO, p, 0, "cannot rename %s into place: %s", from,
                          strerror(errno));
        free(p);
    }
    return st;
}

ks_status ks_owned_write(int dir, const char *dir_path, const char *name, ks_writer_fn fn,
                         const void *ctx, ks_error *err)
{
    size_t n = strlen(name) + 40;
    char *tmp = malloc(n);
    char *full = NULL;
    if (!tmp)
        return ks_error_set(err, KS_ERR_NOMEM, name, 0, "out of memory");
    int fd = -1;
    for (unsigned attempt = 0; fd < 0 && attempt <= 100; attempt++) {
        snprintf(tmp, n, "%s.tmp.%ld.%u", name, (long)getpid(), attempt);
        fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    char *p = name_in(dir_path, name);
    if (fd < 0) {
        ks_status st = ks_error_set(err, KS_ERR_IO, p, 0, "cannot create a temporary: %s",
                                    strerror(errno));
        free(p);
        free(tmp);
        return st;
    }
    full = name_in(dir_path, tmp);
    int slot = full ? ks_temp_register(full) : -1;
    ks_status st = KS_OK;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        st = ks_error_set(err, KS_ERR_NOMEM, p, 0, "out of memory");
    } else {
        st = fn(ctx, f, err);
        if (st == KS_OK && (fflush(f) != 0 || ferror(f)))
            st = ks_error_set(err, KS_ERR_IO, p, 0, "write failed: %s",
                              strerror(errno ? errno : EIO));
        if (fclose(f) != 0 && st == KS_OK)
            st = ks_error_set(err, KS_ERR_IO, p, 0, "write failed: %s", strerror(errno));
    }
    /* renameat replaces whatever has the name, a link included, itself */
    if (st == KS_OK && renameat(dir, tmp, dir, name) != 0) {
        if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST)
            st = ks_error_set(err, KS_ERR_IO, p, 0, "is a folder: not replaced");
        else
            st = ks_error_set(err, KS_ERR_IO, p, 0, "cannot rename into place: %s",
                              strerror(errno));
    }
    if (st != KS_OK)
        unlinkat(dir, tmp, 0);
    ks_temp_forget(slot);
    free(full);
    free(p);
    free(tmp);
    return st;
}

ks_status ks_owned_write_path(const char *path, ks_writer_fn fn, const void *ctx, ks_error *err)
{
    const char *slash = strrchr(path, '/');
    char *folder = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path))
                         : strdup(".");
    if (!folder)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    const char *name = slash ? slash + 1 : path;
    ks_status st;
    int dir = ks_owned_open_dir(folder, false, err);
    if (dir < 0)
        st = err ? err->status : KS_ERR_IO;
    else {
        st = ks_owned_write(dir, folder, name, fn, ctx, err);
        close(dir);
    }
    free(folder);
    return st;
}
