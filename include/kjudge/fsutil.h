/*
 * Small filesystem helpers shared by the compile cache, the worker's
 * scratch folders and the sandbox.
 */
#ifndef KJUDGE_FSUTIL_H
#define KJUDGE_FSUTIL_H

#include <stddef.h>

/* mkdir -p: creates path and its missing parents (mode 0777 & ~umask).
 * Returns 0, or -1 with errno set (ENAMETOOLONG past 4095 bytes). */
int kj_mkdir_p(const char *path);

/* The first executable file called name in the folders of $PATH (absolute
 * entries only; /usr/local/bin:/usr/bin:/bin when $PATH is unset or empty),
 * as an absolute path in out, not resolved further.  Returns 0, or -1 with
 * errno ENOENT. */
int kj_which(const char *name, char *out, size_t len);

/* Opens path for reading when it is a regular file, and only then: a FIFO
 * blocks its reader in open or read until a writer comes, a device never
 * ends, a directory is not text.  Returns a descriptor (close-on-exec), or
 * -1 with errno set (from open, or EISDIR for a directory and EINVAL for
 * any other kind, *kind then naming it: "a directory", "a FIFO", "a
 * character device", "a block device", "a socket"; kind may be NULL). */
int kj_open_regular(const char *path, const char **kind);

/* The whole file at path, NUL-terminated (malloc'd; *len its size when len
 * is not NULL), or NULL with errno set. */
char *kj_read_file(const char *path, size_t *len);

/* rm -rf: removes path and everything under it, links not followed; what
 * cannot be removed is left (best effort, as cleanup needs). */
void kj_rm_tree(const char *path);

#endif
