/*
 * Models in the loop: the prompts a model is given (one-shot, few-shot from
 * honest solutions of other tasks, refinement with staged judge feedback),
 * the code block taken out of its answer, an OpenAI-compatible
 * chat-completions client (libcurl, retries with backoff), a generator
 * command as the alternative model, and the refinement driver that asks,
 * judges and stores k samples x N rounds per task (docs/refine.md).
 *
 * Ownership: every char ** out-parameter receives a malloc'd NUL-terminated
 * string the caller frees; nothing is handed out on failure.  Options structs
 * only borrow their pointers.  Every function returns 0 or a negative KJ_E_*
 * code with the message in *err (err may be NULL); none prints or exits.
 *
 * Layer: llm.  It may use core, ops, task, verdict, sandbox, judge, store
 * and record (refine judges into the store through kj_record_judge).
 */
#ifndef KJUDGE_LLM_H
#define KJUDGE_LLM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "kjudge/compile.h"
#include "kjudge/err.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/store.h"
#include "kjudge/task.h"

/* ---- prompts -------------------------------------------------------------- */

struct kj_prompt_opts {
	kj_backend backend;    /* cpu or cuda (the Python tracks have their own prompts) */
	const kj_calib *calib; /* hardware facts of the target GPU; NULL: none */
	int shots;             /* worked examples (few-shot); 0: one-shot */
	const char *root;      /* the tree holding tasks/ and examples/solutions/<backend>/;
	                          needed when shots > 0 */
};
void kj_prompt_opts_init(struct kj_prompt_opts *o);

/* A previous attempt, for a refinement prompt. */
struct kj_prompt_prev {
	const char *source;       /* the attempt's source (or the answer with no code block) */
	size_t len;
	const char *verdict_json; /* its kjudge.verdict/1 text; NULL: not judged */
	int round;                /* the round it came from */
	int next_round;           /* the round being asked for */
	int restart;              /* it is the best kernel so far, restarted after a stall */
	int stalled;              /* rounds without progress before the restart */
	const char *history;      /* lines "- round 0: mismatch ..." of this search; NULL: none */
};

/* Renders the prompt for t: the task (its .kt text, read from t->path), the
 * semantics of its ops, hardware facts when o->calib is set, o->shots worked
 * examples, the exact prototype and rules, the shapes; with prev, the
 * previous attempt and the staged feedback on it.  *out is malloc'd.
 * Returns 0, KJ_E_IO (task file, examples), KJ_E_PARSE (a bad verdict JSON),
 * KJ_E_UNSUPPORTED (a backend other than cpu and cuda) or KJ_E_NOMEM. */
int kj_prompt_render(const kj_task *t, const struct kj_prompt_opts *o,
		     const struct kj_prompt_prev *prev, char **out, struct kj_err *err);

/* The few-shot examples for t: files of o->root/examples/solutions/<backend>/
 * whose kjudge-case header says expect=pass for a task other than t (by id
 * and by name), the same category first, then the same level, then shorter
 * files; at most o->shots.  paths[i] and tasks[i] (the task ids) are
 * malloc'd, as are the arrays; *n may be less than shots.  Free with
 * kj_prompt_free_examples. */
int kj_prompt_pick_examples(const kj_task *t, const struct kj_prompt_opts *o, char ***paths,
			    char ***tasks, int *n, struct kj_err *err);
void kj_prompt_free_examples(char **paths, char **tasks, int n);

/* The judge's feedback on one verdict (kjudge.verdict/1 text), stage by
 * stage: the status and reason; a compile log trimmed to its first error
 * lines; up to 3 mismatches with output, shape, multi-index, expected and
 * got; the timing per shape with speedup, SOL fraction, memory- or
 * compute-bound, and the shape furthest from its roofline.  Returns 0,
 * KJ_E_PARSE or KJ_E_NOMEM. */
int kj_prompt_feedback(const kj_task *t, const char *verdict_json, char **out, struct kj_err *err);

/* ---- answers -------------------------------------------------------------- */

/* The code block of a model's answer: among fenced blocks (``` with no
 * language or c, cpp, c++, cc, cxx, cu, cuda, h, hpp) the ones that mention
 * symbol (when non-NULL) win, then the longest, then the last.  A block left
 * open at the end of the answer counts when no closed one does.  Returns 0
 * with *code (and *len, may be NULL), or KJ_E_NOTFOUND "no code block in the
 * answer". */
int kj_llm_extract_code(const char *answer, const char *symbol, char **code, size_t *len,
			struct kj_err *err);

/* ---- the chat-completions client ------------------------------------------ */

struct kj_llm_client_opts {
	const char *base_url;    /* e.g. https://api.openai.com/v1; POST base/chat/completions */
	const char *api_key;     /* NULL or "": no Authorization header */
	const char *model;
	double temperature;      /* < 0: not sent */
	int max_tokens;          /* 0: not sent */
	double connect_timeout_s;/* default 10 */
	double timeout_s;        /* whole request, default 600 */
	int max_retries;         /* retries after the first try, default 6 */
	double backoff_base_s;   /* default 1 */
	double backoff_max_s;    /* default 60; Retry-After is honoured up to 600 */
	size_t max_response;     /* bytes of response body kept, default 16 MiB */
	unsigned seed;           /* jitter's generator state; 0: from the clock */
	/* how to wait before a retry (tests record instead of sleeping); NULL: nanosleep */
	void (*sleep_fn)(void *ctx, double seconds);
	void *sleep_ctx;
	/* one line per retry ("HTTP 429, retry 1 of 6 in 2.0 s"); NULL: silent */
	void (*log_fn)(void *ctx, const char *line);
	void *log_ctx;
};
void kj_llm_client_opts_init(struct kj_llm_client_opts *o);

struct kj_llm_usage {
	long http_status;     /* of the last try; 0 when no answer came */
	int attempts;         /* tries made */
	double waited_s;      /* total backoff */
	long prompt_tokens, completion_tokens; /* -1 when not reported */
	char finish_reason[32];
};

/* The request body: {"model", "messages": [system?, user], "temperature"?,
 * "max_tokens"?, "stream": false}.  system may be NULL.  NULL when out of
 * memory. */
char *kj_llm_request_json(const struct kj_llm_client_opts *o, const char *system, const char *user);
/* Parses a response body.  http_status 2xx: choices[0].message.content into
 * *content, usage into *u (may be NULL).  Otherwise, or when the body holds
 * {"error": {...}}: KJ_E_IO with "HTTP 429: <error.message> (<type/code>)".
 * A 2xx body that is not a completion: KJ_E_PARSE. */
int kj_llm_parse_response(long http_status, const char *body, size_t len, char **content,
			  struct kj_llm_usage *u, struct kj_err *err);
/* The wait before retry number attempt (1, 2...): retry_after_s when >= 0
 * (capped at 600), else min(backoff_max, base * 2^(attempt-1)) halved plus a
 * uniform jitter of up to the other half. */
double kj_llm_backoff(const struct kj_llm_client_opts *o, int attempt, double retry_after_s,
		      unsigned *state);
/* 1 when an HTTP status is worth retrying: 408, 409, 425, 429 and 5xx. */
int kj_llm_retryable_status(long status);
/* One chat completion: POST, retried on connection errors, timeouts, 408,
 * 409, 425, 429 and 5xx with backoff (Retry-After honoured).  Returns 0 with
 * *content; KJ_E_USAGE for an answer that retrying cannot fix (400, 401,
 * 403, 404...: u->http_status says which); KJ_E_IO when the retries ran out;
 * KJ_E_PARSE for a 2xx that is not a completion. */
int kj_llm_chat(const struct kj_llm_client_opts *o, const char *system, const char *user,
		char **content, struct kj_llm_usage *u, struct kj_err *err);

/* ---- the generator command ------------------------------------------------ */

struct kj_gen_opts {
	const char *cmd;          /* run as /bin/sh -c cmd */
	double timeout_s;         /* default 600; then its process group is killed */
	size_t max_output;        /* default 4 MiB; more is an error */
	const char *const *env;   /* extra "NAME=value" strings, NULL-terminated; may be NULL */
};
/* Runs o->cmd with prompt on stdin and returns its stdout in *answer (its
 * stderr is the caller's).  Returns 0 when it exits 0; KJ_E_TIMEOUT,
 * KJ_E_IO (exit status, signal, output over the cap) or KJ_E_SYS. */
int kj_llm_generate(const struct kj_gen_opts *o, const char *prompt, char **answer,
		    struct kj_err *err);

/* ---- the refinement driver ------------------------------------------------ */

/* One question to the model. */
struct kj_refine_ask {
	const char *system, *prompt;
	const char *task;     /* task id */
	const char *method;   /* "oneshot", "fewshot", "refine", "refine-restart" */
	int sample, round;
};

/* The answer to a question: 0 with *answer, or an error.  KJ_E_USAGE
 * (misconfiguration: bad key, unknown model) stops the whole run; any other
 * error stops this (task, sample) chain for this run only. */
typedef int (*kj_refine_ask_fn)(void *ctx, const struct kj_refine_ask *q, char **answer,
				struct kj_err *err);

struct kj_refine_opts {
	const char *model;
	int samples, rounds;      /* k >= 1, N >= 1 (rounds 0 .. N-1) */
	int stall;                /* rounds without progress before a restart; 0: never */
	struct kj_prompt_opts prompt;
	const struct kj_eval_opts *eval;
	kj_db *db;
	int64_t run_id, device_id;
	const char *cache_key;    /* kj_store_cache_key of eval */
	kj_refine_ask_fn ask;
	void *ask_ctx;
	void (*progress)(void *ctx, const char *line); /* NULL: silent */
	void *progress_ctx;
	volatile sig_atomic_t *stop; /* set (by a signal handler): finish the attempt in hand and return */
};
void kj_refine_opts_init(struct kj_refine_opts *o);

/* The best candidate of one (task, sample) chain. */
struct kj_refine_best {
	const char *task;     /* borrowed from the task */
	int sample;
	int64_t candidate_id; /* 0: no attempt stored */
	int round;
	kj_status status;
	double speedup;       /* 0 when not timed */
	int rounds_done, restarts;
	int stopped;          /* the chain stopped on an error */
};

struct kj_refine_stats {
	int asked;      /* model answers received in this call */
	int no_code;    /* of which had no code block */
	int judged;     /* attempts judged in this call */
	int reused;     /* verdicts copied from an identical source */
	int resumed;    /* attempts found in the store */
	int ask_errors; /* chains stopped by an error */
	int restarts;   /* restarts in this call */
	int interrupted;
	int nbest;
	struct kj_refine_best *best; /* per (task, sample): ntasks x samples, malloc'd */
};
void kj_refine_stats_release(struct kj_refine_stats *s);

/* Runs the loop over tasks x samples x rounds (round by round), resuming
 * after the attempts the run already holds for o->model: rows found are not
 * asked again (a stored attempt without a verdict is judged).  Each attempt
 * is a candidate (model, task, sample, round, method, parent) with its
 * verdict.  Returns 0 (whatever the verdicts, chains stopped by errors
 * included: see stats), KJ_E_USAGE when ask said so, or the store's or the
 * judge's error. */
int kj_refine_run(const kj_task *const *tasks, int ntasks, const struct kj_refine_opts *o,
		  struct kj_refine_stats *st, struct kj_err *err);

#endif
