/*
 * The candidate's seccomp filter: an allowlist of the system calls a compute
 * kernel, glibc, libffi and (on the CUDA track) the CUDA runtime and driver
 * make once the worker is set up; anything else is refused with EPERM, and
 * the calls no honest kernel makes (processes, privileges, signals or I/O
 * handed to others) kill the worker with SIGSYS, which the judge reports as
 * a crash.  It is the second line of defence behind the static symbol
 * policy: it sees inline `syscall` instructions and libc functions found by
 * walking ELF tables in memory.  docs/worker-protocol.md ("Seccomp") lists
 * the policy; it must agree with the tables in filter.c.  Used by
 * src/worker/worker.c only.
 *
 * Layer: worker.  It may use core and sandbox (wire.h, the protocol).
 */
#ifndef KJUDGE_WORKER_FILTER_H
#define KJUDGE_WORKER_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* Installs the candidate's seccomp filter on every thread (TSYNC).
 * cuda: the CUDA track (the driver's needs: see filter.c); survey: default action
 * SCMP_ACT_LOG instead of EPERM (a developer's mode to find syscalls the
 * allowlist lacks through dmesg; never used for verdicts).  Returns 0, or -1
 * with a reason in why (the filter could not be built or loaded). */
int kjw_seccomp_install(int cuda, int survey, uint32_t self_pid, char *why, size_t len);

#endif
