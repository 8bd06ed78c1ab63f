/* cli_output.c — gcgc's output files (see cli_output.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_output.h"

/* Writes bytes to `path` through a temporary file in the same directory and
 * rename(2). Returns 0, or -1 with errno set. */
static int write_file_atomic(const char *path, const void *data, size_t n)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + sizeof ".tmp.XXXXXX");
    if (!tmp)
        return -1;
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    int rc = f && fchmod(fd, 0644) == 0 && fwrite(data, 1, n, f) == n ? 0 : -1;
    int e = errno;
    if (f && fclose(f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    } else if (!f && fd >= 0) {
        close(fd);
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0 && fd >= 0)
        unlink(tmp);
    free(tmp);
    errno = e;
    return rc;
}

static bool same_file(const struct stat *x, const char *path)
{
    struct stat y;
    return path && stat(path, &y) == 0 && x->st_dev == y.st_dev && x->st_ino == y.st_ino;
}

/* What a non-regular file is, for the message. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) || S_ISBLK(m) ? "a device"
           : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

static int write_stdout(const void *data, size_t n)
{
    if (fwrite(data, 1, n, stdout) != n || fflush(stdout) != 0) {
        fprintf(stderr, "gcgc: cannot write to stdout: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

/* The file a symlink leads to: realpath, or for a link to a file not yet
 * there, the link's own text (relative to the link's directory) when that
 * is not a link again. NULL with errno set otherwise. */
static char *link_target(const char *path)
{
    char *real = realpath(path, NULL);
    if (real || errno != ENOENT)
        return real;
    char text[4096];
    ssize_t n = readlink(path, text, sizeof text - 1);
    if (n < 0)
        return NULL;
    text[n] = '\0';
    const char *slash = strrchr(path, '/');
    int dir = text[0] != '/' && slash ? (int)(slash - path) + 1 : 0;
    char *t = malloc((size_t)dir + (size_t)n + 1);
    if (!t)
        return NULL;
    sprintf(t, "%.*s%s", dir, path, text);
    struct stat sb;
    if (lstat(t, &sb) == 0 || errno != ENOENT) { /* there after all, or a chain: refuse */
        free(t);
        errno = ELOOP;
        return NULL;
    }
    return t;
}

int gcgc_cli_write(const char *path, const void *data, size_t n, const char *const *inputs, size_t n_inputs)
{
    if (strcmp(path, "-") == 0)
        return write_stdout(data, n);
    char *target = NULL;
    struct stat sb;
    int rc = 0;
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && !(target = link_target(path))) {
        fprintf(stderr, "gcgc: cannot write %s: a symlink whose target cannot be resolved (%s)\n",
                path, strerror(errno));
        return 1;
    }
    const char *real = target ? target : path;
    if (stat(real, &sb) == 0) {
        bool input = false;
        for (size_t i = 0; i < n_inputs; i++)
            input |= same_file(&sb, inputs[i]);
        if (!S_ISREG(sb.st_mode)) {
            fprintf(stderr, "gcgc: refusing to write %s: it is %s (-o writes regular files only)\n",
                    path, file_kind(sb.st_mode));
            rc = 1;
        } else if (input) {
            fprintf(stderr, "gcgc: refusing to write %s: it is an input of this command\n", path);
            rc = 1;
        }
    }
    if (rc == 0 && write_file_atomic(real, data, n) != 0) {
        fprintf(stderr, "gcgc: cannot write %s: %s\n", path, strerror(errno));
        rc = 1;
    }
    free(target);
    return rc;
}
