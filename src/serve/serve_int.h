/*
 * Internal to src/serve: the server's state shared by the HTTP side (api.c)
 * and the evaluation side (serve.c).
 *
 * Locks: `mu` guards stopping, the workers' job ids and the event counters
 * (work_cv wakes evaluation threads on a submit, done_cv wakes long polls
 * when a job ends); `db_mu` guards `db`, the HTTP threads' store connection;
 * the task cache (`tasks`, include/kjudge/record.h) has a lock of its own.
 * Each evaluation thread has its own store connection.  A loaded kj_task is
 * never changed again, so threads share it without a lock.
 */
#ifndef KJ_SERVE_INT_H
#define KJ_SERVE_INT_H

#include <pthread.h>
#include <stdint.h>

#include "kjudge/record.h"
#include "kjudge/serve.h"
#include "kjudge/store.h"

/* A served task: its id and .kt path (loaded through kj_server.tasks). */
struct kj_serve_task {
	const char *id, *path;
};

struct kj_serve_worker {
	struct kj_server *S;
	int index;
	int ordinal;        /* CUDA device */
	kj_db *db;
	kj_gpu *gpu;
	struct kj_pypool *pypool; /* its pre-warmed Python workers (triton, kernelbench), or NULL */
	int64_t device_id;
	int64_t job_id;     /* the job being judged, 0: none (under S->mu) */
	pthread_t th;
	int started;
};

struct kj_server {
	const struct kj_serve_opts *o;
	volatile sig_atomic_t *stop;
	const char *backend;
	char owner[192];
	char run_name[256];
	int64_t run_id;
	char cache_key[256];
	char cache_dir[4096];
	struct kj_eval_opts eval;
	size_t max_body;
	double lease_s, max_wait_s;
	unsigned max_conns, conns_per_ip, read_timeout_s;
	int max_attempts;
	int loopback;

	pthread_mutex_t mu;
	pthread_cond_t work_cv, done_cv;
	uint64_t done_seq;
	int stopping; /* no new jobs taken or accepted */
	int closing;  /* the HTTP side is closing: long polls answer now */

	pthread_mutex_t db_mu;
	kj_db *db;

	struct kj_serve_task *tasks_served; /* the task table, as given */
	int ntasks;
	struct kj_record_tasks tasks;      /* loaded on first use; failed loads kept */

	struct kj_serve_worker *workers;
	int nworkers;
};

double kj_serve_now(void);
void kj_serve_log(struct kj_server *S, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The served task named id, loading it on first use: its entry, with *t and
 * sha256 (may be NULL: the .kt file's hash) set; NULL with a message in err
 * (KJ_E_NOTFOUND: not one of the served tasks; KJ_E_USAGE: it does not
 * load). */
const struct kj_serve_task *kj_serve_task_get(struct kj_server *S, const char *id, const kj_task **t,
					      char sha256[65], struct kj_err *err);

/* The HTTP side: starts libmicrohttpd on addr; returns the daemon (opaque)
 * and the bound port, or NULL with err set.  kj_serve_http_stop stops it. */
struct sockaddr_storage;
void *kj_serve_http_start(struct kj_server *S, const struct sockaddr_storage *addr, int *port,
			  struct kj_err *err);
void kj_serve_http_stop(void *daemon);

/* The gate (gate.c): kj_gate_listen binds and listens on addr (non-blocking)
 * and returns the socket, with the bound port in *port, or a negative code
 * with err set.  kj_gate_start starts the thread that accepts on lfd, reads
 * each request header within S->read_timeout_s, enforces S->max_conns and
 * S->conns_per_ip, answers a malformed header with a JSON error and hands
 * the others to d (started with MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC).
 * kj_gate_stop stops it and closes the connections it holds, not lfd. */
struct kj_gate;
struct MHD_Daemon;
int kj_gate_listen(const struct sockaddr_storage *addr, int *port, struct kj_err *err);
int kj_gate_start(struct kj_server *S, int lfd, struct MHD_Daemon *d, struct kj_gate **out,
		  struct kj_err *err);
void kj_gate_stop(struct kj_gate *g);

#endif
