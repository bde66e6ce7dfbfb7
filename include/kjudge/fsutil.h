/*
 * Small filesystem helpers shared by the compile cache and the worker's
 * scratch folders.
 */
#ifndef KJUDGE_FSUTIL_H
#define KJUDGE_FSUTIL_H

/* mkdir -p: creates path and its missing parents (mode 0777 & ~umask).
 * Returns 0, or -1 with errno set (ENAMETOOLONG past 4095 bytes). */
int kj_mkdir_p(const char *path);

#endif
