/*
 * The untrusted side.  A candidate runs only inside a kjudge-worker process
 * that the judge starts per candidate (modelled on git's struct child_process):
 * rlimits (CPU time, address space, file size, no core dumps, few open files),
 * its own process group and a scratch working directory, stdin from /dev/null,
 * stdout+stderr into one pipe that the judge drains with a cap, and a
 * socketpair for the protocol.  The judge never believes what the worker says
 * about results: it reads output buffers itself from shared memory it owns,
 * takes times from its own clock, and learns crashes from waitpid().
 *
 * The worker lives in the jail (include/kjudge/jail.h): its own user, PID,
 * mount, IPC, network and UTS namespaces as an unprivileged uid, seeing
 * read-only only the toolchain and library folders, its staged binary and
 * candidate, and its scratch folder read-write.
 *
 * Shared memory: kj_worker_arena() creates a sealed memfd (it can neither
 * shrink nor grow) the judge maps and sends to
 * the worker (SCM_RIGHTS); call arguments are offsets into that arena, so the
 * worker sees exactly the candidate's input copies and output buffers and
 * nothing of the judge's reference data.
 *
 * CUDA track: the judge cudaMallocs one device arena (kj_gpu_alloc) holding
 * the candidate's input copies and output buffers and hands the worker its
 * CUDA IPC handle (kj_worker_arena_cuda); offsets then point into that
 * arena, and the candidate gets the worker's one non-blocking stream.  A
 * CUDA error in a call leaves the worker's context unusable: the worker
 * replies ERROR (cuda_error set) and exits, so the judge needs a new worker.
 *
 * Layer: sandbox (sandbox.h jail.h).  It may use core only.
 */
#ifndef KJUDGE_SANDBOX_H
#define KJUDGE_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kjudge/err.h"

/* The most pointer (tensor) and int64 (dim) arguments one call carries: the
 * worker protocol's limits (src/sandbox/wire.h checks that they agree). */
#define KJ_WORKER_MAX_PTR 64
#define KJ_WORKER_MAX_DIM 32

/* A byte buffer with a hard cap: writes past the cap are counted, not kept. */
struct kj_capbuf {
	char *buf;       /* NUL-terminated, owned */
	size_t len, cap; /* kept bytes, limit */
	size_t total;    /* bytes offered, kept or not */
};
void kj_capbuf_init(struct kj_capbuf *b, size_t cap);
void kj_capbuf_add(struct kj_capbuf *b, const void *p, size_t n);
void kj_capbuf_release(struct kj_capbuf *b);

struct kj_jail;

struct kj_worker_opts {
	const char *worker_path; /* kjudge-worker executable (host path) */
	const char *scratch_dir; /* host folder, the worker's read-write scratch; created if missing */
	double cpu_limit_s;      /* RLIMIT_CPU (whole worker life), 0 = default 60 */
	size_t as_limit;         /* RLIMIT_AS bytes, 0 = default 8 GiB */
	size_t fsize_limit;      /* RLIMIT_FSIZE bytes, 0 = default 1 MiB */
	size_t log_cap;          /* stdout+stderr kept, 0 = default 64 KiB */
	size_t flood_limit;      /* output bytes after which the worker is killed, 0 = default 4 MiB */
	int cuda;                /* worker will use CUDA (no RLIMIT_AS: the driver maps large VAs) */
	int device;              /* CUDA device ordinal (when cuda) */
	const char *cuda_uuid;   /* when cuda: the device's "GPU-..." UUID; the worker then
				  * sees only that GPU (CUDA_VISIBLE_DEVICES=uuid, ordinal 0),
				  * so a candidate cannot launch work on another GPU while
				  * that one times someone else.  NULL: every GPU the judge
				  * sees, ordinal `device` (also in KJUDGE_PROFILE mode) */
	const char *const *argv; /* NULL: the worker runs with argv {worker_path}; else this
				  * NULL-terminated list is its argv (worker_path is still
				  * what is executed: an interpreter and its script), in the
				  * jail's terms (paths as the sandbox sees them) */
	int unconfined;          /* run without the jail (include/kjudge/jail.h): the user's
				  * --unsafe-no-sandbox, or KJUDGE_PROFILE=1 */
	const struct kj_jail *jail; /* NULL: the C worker's jail (worker_path staged, the
				     * folders on LD_LIBRARY_PATH, the GPU's device files when
				     * cuda); else the caller's (a Python interpreter's folders) */
	int spin;                /* wait for a reply by polling without sleeping (for up to
				  * a second): a judge woken from sleep (a virtual machine's
				  * above all) adds up to a millisecond to the round trip
				  * that bounds a call's time (the CUDA track) */
	int freeze;              /* keep the worker stopped (SIGSTOP) except between sending
				  * a request and its reply: it gets no CPU while the judge
				  * prepares inputs, checks outputs or times its baseline */
};

typedef enum kj_call_status {
	KJ_CALL_OK = 0,
	KJ_CALL_TIMEOUT,   /* watchdog fired; worker killed */
	KJ_CALL_SIGNALED,  /* worker died by a signal (segfault, abort, CPU limit) */
	KJ_CALL_EXITED,    /* worker exited (any status) while it should be working */
	KJ_CALL_FLOOD,     /* wrote more than flood_limit bytes; worker killed */
	KJ_CALL_ERROR,     /* worker reported an error (load failure, CUDA error): see msg */
	KJ_CALL_PROTOCOL,  /* malformed reply: treated as a crash */
} kj_call_status;

struct kj_call_result {
	kj_call_status status;
	int rejected_syscall; /* SIGNALED by SIGSYS: the seccomp filter killed it */
	int signo;            /* SIGNALED */
	int exit_code;        /* EXITED */
	int64_t judge_ns;     /* judge-side round trip of the command: from just before the
			       * worker was let run (freeze) or the request was sent, to the
			       * reply */
	int64_t worker_ns;    /* worker-side time it reported (not trusted) */
	int64_t gpu_ns;       /* CUDA event time of the call on the candidate's stream, -1 if none */
	int64_t devsync_ns;   /* worker clock from the call to cudaDeviceSynchronize()'s return:
			       * the device-wide bound (work left on other streams), -1 if none */
	int cuda_error;       /* cudaError_t the worker reported (ERROR; the worker is then dead), else 0 */
	char msg[512];        /* worker's error text, or a description of the status */
};

struct kj_jail_exec;

struct kj_worker {
	pid_t pid;  /* what the judge forked: bwrap, or the worker itself when unconfined */
	pid_t wpid; /* the worker process as the judge sees it (its /proc, its signals) */
	int sock;   /* protocol socket, judge end */
	int logfd;  /* stdout+stderr pipe, judge end */
	struct kj_capbuf log;
	struct kj_worker_opts opts;
	struct kj_jail_exec *jx; /* the jail it runs in (owned), NULL before start */
	void *arena;       /* judge's mapping of the shared arena */
	size_t arena_size;
	int arena_fd;
	size_t cuda_arena_size; /* bytes of the device arena the worker has open, 0 if none */
	int masked;        /* the worker sees only its GPU (opts.cuda_uuid): device 0 there */
	int frozen;        /* stopped by the judge (opts.freeze) */
	int nstaged;       /* files staged for LOAD */
	int dead;          /* set once the worker is gone; later calls fail fast */
	int status;        /* waitpid status once dead (the worker's own, through the jail) */
	char limits[256];  /* the worker's limits that the caller's hard limits lowered
			    * (kj_rlimit_fit), "" when none */
};

/* Whether KJUDGE_PROFILE=1 is set: workers then get the judge's whole
 * environment and run without their seccomp filter, so that a profiler
 * (ncu --target-processes all, nsys) can inject itself into them.  For a
 * person profiling a kernel they trust; verdicts say `unconfined`. */
int kj_worker_profile_mode(void);

/* Starts a worker.  Returns 0, or KJ_E_SYS/KJ_E_WORKER with err set. */
int kj_worker_start(struct kj_worker *w, const struct kj_worker_opts *o, struct kj_err *err);

/* Asks the worker to dlopen so_path (a host path: staged into the jail
 * first, read-only) and resolve symbol; nptr pointer arguments then ndim
 * int64 arguments (then a cudaStream_t when cuda).  The result says whether
 * loading worked (KJ_CALL_ERROR with dlerror text if not). */
int kj_worker_load(struct kj_worker *w, const char *so_path, const char *symbol,
		   int nptr, int ndim, double timeout_s, struct kj_call_result *res,
		   struct kj_err *err);

/* (Re)creates the shared arena of `bytes` bytes, maps it in the judge
 * (w->arena) and in the worker.  Old contents are lost. */
int kj_worker_arena(struct kj_worker *w, size_t bytes, struct kj_err *err);

/* Calls the loaded function with pointer arguments arena+off[i] and the dims
 * (the device arena on the CUDA track; there the worker's stream follows).
 * Returns 0 when the exchange happened (res says how the call went), or an
 * error when the judge itself failed.  On the CUDA track the worker records
 * events around the call on its stream and then waits for the whole device;
 * a reported CUDA error gives KJ_CALL_ERROR with cuda_error set and msg
 * "CUDA error cudaErrorIllegalAddress: an illegal memory access was
 * encountered"; the worker has then exited (w->dead = 1).  On a CUDA OK,
 * gpu_ns and devsync_ns are checked against judge_ns (a worker claiming more
 * time than the round trip took is a protocol violation); they are the
 * worker's word, which the judge bounds with its own clock. */
int kj_worker_call(struct kj_worker *w, const uint64_t *off, int nptr, const int64_t *dims,
		   int ndim, double timeout_s, struct kj_call_result *res, struct kj_err *err);

/* A train (CUDA workers): reps calls back to back between one pair of
 * events, call r with the pointer arguments arena + off[i] + r * stride,
 * for the judge's bound on short calls (the round trip's noise spread
 * over reps calls).  res as for one call, its times the train's. */
int kj_worker_train(struct kj_worker *w, const uint64_t *off, int nptr, const int64_t *dims,
		    int ndim, int reps, uint64_t stride, double timeout_s, struct kj_call_result *res,
		    struct kj_err *err);

/* Before LOAD only (the worker then runs nothing but kjudge's own code):
 * SETUP makes the CUDA context, stream and events on opts.device (or, for
 * the Python worker, imports its framework), and PROBE is a CALL with these
 * arguments that goes through the whole call path with nothing called, so
 * that the judge can measure what it subtracts from call times on a
 * process no candidate has touched.  Both return 0 when the exchange
 * happened (res says how). */
int kj_worker_setup(struct kj_worker *w, double timeout_s, struct kj_call_result *res,
		    struct kj_err *err);
int kj_worker_probe(struct kj_worker *w, const uint64_t *off, int nptr, const int64_t *dims,
		    int ndim, double timeout_s, struct kj_call_result *res, struct kj_err *err);
/* A PROBE as a train of reps empty calls on the same arguments (stride 0):
 * the harness's own cost per call of a train, before LOAD. */
int kj_worker_probe_train(struct kj_worker *w, const uint64_t *off, int nptr, const int64_t *dims,
			  int ndim, int reps, double timeout_s, struct kj_call_result *res, struct kj_err *err);

/* The worker's memory map (/proc/PID/maps, read by the judge from outside
 * the sandbox) into out (capped).  Returns 0, or -1 when it cannot be read
 * (the worker is gone). */
int kj_worker_read_maps(struct kj_worker *w, struct kj_capbuf *out);

/* Gives the worker the device arena of `bytes` bytes exported as a CUDA IPC
 * handle (kj_gpu_ipc_handle); the worker opens it with
 * cudaIpcOpenMemHandle(cudaIpcMemLazyEnablePeerAccess) on opts.device, closing
 * any previous one (bytes 0: close only).  The judge keeps the allocation
 * alive while the worker uses it.  Returns 0, or KJ_E_WORKER with the
 * worker's reason (a failed open ends the worker: w->dead = 1). */
int kj_worker_arena_cuda(struct kj_worker *w, const unsigned char handle[64], size_t bytes,
			 struct kj_err *err);

/* A call that does nothing in the worker: measures the protocol's round trip. */
int kj_worker_nop(struct kj_worker *w, double timeout_s, struct kj_call_result *res,
		  struct kj_err *err);

/* Kills (SIGKILL to the process group), reaps, unmaps, closes. Safe twice. */
void kj_worker_stop(struct kj_worker *w);

/* "segmentation fault (SIGSEGV)" etc. */
const char *kj_signal_desc(int signo);
const char *kj_call_status_name(kj_call_status s);

#endif
