/*
 * Resource limits under the caller's: a process cannot raise its own hard
 * limit, and batch systems often set one (a hard RLIMIT_AS of a few GiB),
 * so every limit kjudge sets on a worker or a compiler is first fitted
 * under what the caller allows, and the fitting is said in the verdict.
 */
#ifndef KJUDGE_RLIMIT_H
#define KJUDGE_RLIMIT_H

#include <stddef.h>
#include <sys/resource.h>

/* Lowers *want (soft and hard) to this process's hard limit for resource
 * when it asks for more.  Returns 1 when it was lowered, with a line such
 * as "RLIMIT_AS 4096 MiB (kjudge asks 8192 MiB)" appended to note (cap
 * bytes, "; " between lines; note may be NULL), 0 when it fits, -1 when
 * the limit cannot be read (errno set; *want unchanged). */
int kj_rlimit_fit(int resource, struct rlimit *want, char *note, size_t cap);

#endif
