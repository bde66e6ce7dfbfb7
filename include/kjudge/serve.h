/*
 * kjudge serve: an HTTP JSON service that judges candidates for agents and
 * RL trainers (docs/api.md).  Requests become jobs in the store's persistent
 * queue (the "job queue" block of kjudge/store.h); evaluation threads, one per
 * GPU (or --workers on the CPU track), claim them in order, judge them with
 * kj_eval and store each verdict as a candidate of one run, so `kjudge
 * report RUN` scores served jobs like any other run.  A job a crash left
 * running is claimed again once its lease runs out, its attempt counter
 * showing it; a restart loses no accepted job.
 *
 * HTTP is libmicrohttpd, one thread per connection (a long poll blocks only
 * its own connection), behind a gate that accepts connections, limits them
 * per address and reads each request header within a time limit; every
 * error is JSON.  Before listening, kj_serve_run checks that a job could be
 * judged (candidate header, worker, sandbox).  The server binds to loopback
 * unless told otherwise; on any other address it refuses to start while the
 * store holds no bearer token.  Once tokens exist, every endpoint but /v1/health wants one.
 *
 * Ownership: the caller owns every string and array in kj_serve_opts for
 * the duration of kj_serve_run().  The library never prints: lines for a
 * log go to opts->log.
 *
 * Layer: serve.  It may use core, ops, task, verdict, sandbox, judge, store
 * and record (jobs are judged into the store through kj_record_judge).
 */
#ifndef KJUDGE_SERVE_H
#define KJUDGE_SERVE_H

#include <signal.h>
#include <stddef.h>

#include "kjudge/err.h"
#include "kjudge/judge.h"

#define KJ_SERVE_MAX_GPUS 16
/* "kjt_" and 64 hex digits (32 random bytes), NUL-terminated */
#define KJ_SERVE_TOKEN_LEN 69

struct kj_serve_opts {
	const char *listen;       /* "ADDR:PORT", "[v6]:PORT"; NULL: "127.0.0.1:8421"; port 0: any */
	const char *db_path;      /* the store */
	const char *run_name;     /* the run verdicts are stored in; NULL: "serve" */
	struct kj_eval_opts eval; /* backend, seeds, timeouts, policy, worker, headers, cache */
	int gpus[KJ_SERVE_MAX_GPUS]; /* CUDA track: one evaluation thread per device */
	int ngpus;
	int workers;              /* CPU track: evaluation threads (default 1) */
	/* the tasks a job may name: ids ("level1/relu") and their .kt files */
	const char *const *task_ids;
	const char *const *task_paths;
	int ntasks;
	size_t max_body;          /* request body limit in bytes (0: 1 MiB) */
	double lease_s;           /* a claim's lease, renewed while judging (0: 30) */
	int max_attempts;         /* claims before a job is abandoned as failed (0: 3) */
	double max_wait_s;        /* the longest long poll (0: 60) */
	/* against clients that open connections and hold them (slowloris): at
	 * most max_conns connections in all (0: 1024) and conns_per_ip from one
	 * address whose header is being read, as many being answered (0: 64),
	 * beyond which a connection is closed at once; a request header must be
	 * complete within read_timeout_s seconds (else 408), and a body may
	 * pause at most that long (0: 10) */
	unsigned max_conns, conns_per_ip, read_timeout_s;
	const char *port_file;    /* when set, the bound port is written there once listening */
	void (*log)(void *ctx, const char *line); /* NULL: silent */
	void *log_ctx;
};

void kj_serve_opts_init(struct kj_serve_opts *o);

/* Parses "ADDR:PORT" (IPv4, or [IPv6]:PORT) into a socket address; *loopback
 * is 1 for 127.0.0.0/8 and ::1.  Returns 0 or KJ_E_USAGE. */
struct sockaddr_storage;
int kj_serve_parse_listen(const char *s, struct sockaddr_storage *addr, int *loopback,
			  struct kj_err *err);

/* Serves until *stop becomes non-zero (a signal handler sets it): 1 stops
 * gracefully (no new jobs are accepted, the jobs being judged finish, then it
 * returns); 2 (a second signal) hands the jobs being judged back to the queue
 * and returns at once, leaving their evaluation threads running: the caller
 * must then exit the process.  Returns 0 after a stop, or an error when the
 * server cannot start (the store, the address, no tokens on a non-loopback
 * address, a GPU, or what a job needs: KJ_E_NOTFOUND for a missing candidate
 * header or worker, KJ_E_UNSUPPORTED without a sandbox). */
int kj_serve_run(const struct kj_serve_opts *o, volatile sig_atomic_t *stop, struct kj_err *err);

/* A fresh random bearer token into out ("kjt_" + 64 hex digits) and the hex
 * sha256 of its text, the only thing the store keeps, into sha256_hex.
 * Returns 0 or KJ_E_SYS (no randomness). */
int kj_serve_token_new(char out[KJ_SERVE_TOKEN_LEN], char sha256_hex[65], struct kj_err *err);

#endif
