/*
 * Errors.  Every fallible kjudge function returns int: 0 (KJ_OK) on success or a
 * negative KJ_E* code, and fills the caller's struct kj_err with a message that
 * says what failed and on what ("cannot open task 'x.kt': No such file or
 * directory").  The library never prints and never exits; the CLI prints
 * err.msg.  A NULL struct kj_err pointer is allowed: the message is dropped.
 *
 * Layer: core (err.h dtype.h rng.h fsutil.h rlimit.h version.h gpu_state.h
 * hash.h): it uses nothing of kjudge's; every other layer may use it.
 */
#ifndef KJUDGE_ERR_H
#define KJUDGE_ERR_H

#include <stddef.h>

enum kj_code {
	KJ_OK = 0,
	KJ_E_NOMEM = -1,       /* allocation failed */
	KJ_E_IO = -2,          /* file or pipe I/O */
	KJ_E_PARSE = -3,       /* task file syntax */
	KJ_E_TYPE = -4,        /* shape/dtype inference, semantic errors */
	KJ_E_USAGE = -5,       /* bad argument from the caller/user */
	KJ_E_SYS = -6,         /* system call failed (errno set) */
	KJ_E_COMPILE = -7,     /* the candidate did not compile */
	KJ_E_WORKER = -8,      /* worker protocol or lifecycle */
	KJ_E_UNSUPPORTED = -9, /* feature not available in this build */
	KJ_E_INTERNAL = -10,   /* invariant broken inside kjudge */
	KJ_E_CUDA = -11,       /* CUDA runtime/driver/library call failed */
	KJ_E_NOTFOUND = -12,   /* named thing does not exist */
	KJ_E_TIMEOUT = -13,    /* a time limit passed */
};

#define KJ_ERR_MSG 1024

struct kj_err {
	int code;          /* last KJ_E* code, 0 when none */
	int sys_errno;     /* errno when the failure came from the system, else 0 */
	int vendor_status; /* CUDA/cuBLAS/cuDNN/NVRTC status, else 0 */
	const char *file;  /* where in kjudge the error was raised */
	int line;
	char msg[KJ_ERR_MSG];
};

void kj_err_init(struct kj_err *e);

/* Sets e (if non-NULL) to code and a printf-formatted message; returns code. */
int kj_err_set_at(struct kj_err *e, const char *file, int line, int code,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Like kj_err_set, appends ": strerror(errno)" and records errno. */
int kj_err_sys_at(struct kj_err *e, const char *file, int line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Prepends "prefix: " to an existing message (context as an error travels up). */
void kj_err_prefix(struct kj_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define kj_err_set(e, code, ...) kj_err_set_at((e), __FILE__, __LINE__, (code), __VA_ARGS__)
#define kj_err_sys(e, ...) kj_err_sys_at((e), __FILE__, __LINE__, __VA_ARGS__)

const char *kj_code_name(int code);

#endif
