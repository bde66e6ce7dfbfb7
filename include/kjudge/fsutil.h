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

#endif
