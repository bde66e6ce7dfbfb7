/*
 * The reference cache: what the correctness stage's gen, run_ref and
 * run_base leave in a track's buffers for one (task, binding, seed,
 * flavour): the pristine inputs, the fp64 reference's outputs and the eager
 * baseline's (the track's ref_bufs).  A run judges many candidates of a
 * task with one base seed, and the determinism rerun repeats seed 0 within
 * one candidate, so these are the same bytes again and again: computed
 * once, copied back afterwards.
 *
 * Storage, tried in this order: the GPU context's own store in device
 * memory (the CUDA track), within KJ_REF_CACHE_MB (default the smaller of a
 * quarter of the free memory when the store is made and 16 GiB), freed
 * when the context closes (kj_gpu_on_close); then one host store for the
 * process (the CPU track's only one), within KJ_REF_CACHE_HOST_MB (default
 * 1 GiB).  To make room, the least recently used entries go, but never one
 * that the evaluation asking has used itself: a task whose entries do not
 * all fit keeps those of its first candidate instead of evicting them in a
 * cycle.  An entry that does not fit is not kept: it is computed again next
 * time.  KJ_REF_CACHE_MB=0 turns the cache off.
 *
 * Trust: an entry is filled only from the judge's own computation, right
 * after it and before any candidate call on those inputs; entries are the
 * judge's memory, never exported; the worker's arena gets copies of the
 * restored buffers as it gets copies of computed ones.  The key (sha256)
 * covers what those bytes depend on: the track, the baseline's key
 * (harness, baseline sources, task file, binding, device, knobs), the seed
 * and its flavour.  Timed calls' inputs are fresh every call and never
 * pass through here.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_internal.h"
#include "kjudge/hash.h"

#define RC_VERSION "kjudge-refcache-1"
#define RC_DEV_FRAC 0.25
#define RC_DEV_MAX ((size_t)16 << 30)
#define RC_HOST_DEFAULT ((size_t)1 << 30)

struct rc_entry {
	char key[65];
	void *mem;     /* one allocation: the buffers at 256-byte aligned offsets */
	size_t bytes;  /* its size */
	int nbuf;
	size_t sizes[KJJ_RC_MAX_BUFS];
	uint64_t used; /* the store's clock at its last use */
	uint64_t eval; /* the evaluation that used it last (judge.rc_eval) */
	struct rc_entry *next;
};

struct rc_store {
	kj_gpu *g;     /* NULL: host memory */
	pthread_mutex_t mu;
	int have_budget;
	size_t budget, size;
	uint64_t clock;
	struct rc_entry *head;
	struct rc_store *next;
};

static pthread_mutex_t stores_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rc_store *dev_stores; /* one per open GPU context that used the cache */
static uint64_t eval_count;
static struct rc_store host_store = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* $name as a budget in MB (a decimal number: 0.25 is 256 KiB); returns 1
 * and sets *bytes when it is set and valid, else 0. */
static int env_mb(const char *name, size_t *bytes)
{
	const char *s = getenv(name);
	char *end;
	double mb;
	if (!s || !*s)
		return 0;
	mb = strtod(s, &end);
	if (*end || !(mb >= 0) || mb > 1e9)
		return 0;
	*bytes = (size_t)(mb * 1048576.0);
	return 1;
}

static size_t aligned(size_t n)
{
	return (n + 255) / 256 * 256;
}

/* Copies n bytes between the judge's buffers and the cache's (host or
 * device memory of j->gpu either side). */
static int copy(struct judge *j, void *dst, int ddev, const void *src, int sdev, size_t n)
{
	if (!n)
		return 0;
	if (!ddev && !sdev) {
		memcpy(dst, src, n);
		return 0;
	}
	return kj_gpu_copy(j->gpu, dst, src, n, ddev && sdev ? 2 : ddev ? 0 : 1, j->err);
}

static void entry_free(struct rc_store *st, struct rc_entry *e)
{
	if (st->g)
		kj_gpu_free(st->g, e->mem);
	else
		free(e->mem);
	free(e);
}

static void store_clear(struct rc_store *st)
{
	while (st->head) {
		struct rc_entry *e = st->head;
		st->head = e->next;
		entry_free(st, e);
	}
	st->size = 0;
}

/* kj_gpu_close's hook: the context's store goes with it, while its device
 * memory can still be freed. */
static void on_close(kj_gpu *g, void *ctx)
{
	struct rc_store *st = ctx, **pp;
	pthread_mutex_lock(&stores_mu);
	for (pp = &dev_stores; *pp; pp = &(*pp)->next)
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	pthread_mutex_unlock(&stores_mu);
	pthread_mutex_lock(&st->mu);
	store_clear(st);
	pthread_mutex_unlock(&st->mu);
	pthread_mutex_destroy(&st->mu);
	free(st);
	kj_gpu_on_close(g, NULL, NULL);
}

/* The device store of j->gpu, made at its first use (NULL: none, or out of
 * memory). */
static struct rc_store *dev_store(struct judge *j)
{
	struct rc_store *st;
	pthread_mutex_lock(&stores_mu);
	for (st = dev_stores; st && st->g != j->gpu; st = st->next)
		;
	if (!st && (st = calloc(1, sizeof(*st)))) {
		size_t fr = 0, tot = 0;
		struct kj_err e;
		kj_err_init(&e);
		st->g = j->gpu;
		pthread_mutex_init(&st->mu, NULL);
		st->have_budget = 1;
		if (!env_mb("KJ_REF_CACHE_MB", &st->budget)) {
			st->budget = kj_gpu_mem_info(j->gpu, &fr, &tot, &e) ? 0 : (size_t)(RC_DEV_FRAC * (double)fr);
			if (st->budget > RC_DEV_MAX)
				st->budget = RC_DEV_MAX;
		}
		st->next = dev_stores;
		dev_stores = st;
		kj_gpu_on_close(j->gpu, on_close, st);
	}
	pthread_mutex_unlock(&stores_mu);
	return st;
}

/* The entry of key whose layout is b's (the store locked), or NULL. */
static struct rc_entry *find(struct rc_store *st, const char *key, const struct kjj_rcbuf *b, int n)
{
	for (struct rc_entry *e = st->head; e; e = e->next) {
		int same = e->nbuf == n && !strcmp(e->key, key);
		for (int i = 0; same && i < n; i++)
			same = e->sizes[i] == b[i].bytes;
		if (same)
			return e;
	}
	return NULL;
}

/* Copies the entry of key back into b; *hit = 1 when there was one. */
static int get(struct judge *j, struct rc_store *st, const char *key, const struct kjj_rcbuf *b, int n, int *hit)
{
	struct rc_entry *e;
	int rc = 0;
	pthread_mutex_lock(&st->mu);
	if ((e = find(st, key, b, n))) {
		size_t at = 0;
		for (int i = 0; i < n && !rc; i++) {
			rc = copy(j, b[i].p, b[i].dev, (char *)e->mem + at, st->g != NULL, b[i].bytes);
			at += aligned(b[i].bytes);
		}
		e->used = ++st->clock;
		e->eval = j->rc_eval;
		*hit = !rc;
	}
	pthread_mutex_unlock(&st->mu);
	return rc;
}

/* Keeps a copy of b under key when it fits, evicting entries that this
 * evaluation has not used, least recently used first; *stored = 1 when it
 * was kept (or another evaluation had just kept it). */
static int put(struct judge *j, struct rc_store *st, const char *key, const struct kjj_rcbuf *b, int n,
	       size_t total, int *stored)
{
	struct rc_entry *e;
	void *mem = NULL;
	size_t at = 0;
	int rc = 0;
	pthread_mutex_lock(&st->mu);
	if (!st->have_budget) {
		if (!env_mb("KJ_REF_CACHE_HOST_MB", &st->budget))
			st->budget = RC_HOST_DEFAULT;
		st->have_budget = 1;
	}
	if (find(st, key, b, n)) {
		*stored = 1;
		goto out;
	}
	if (total > st->budget)
		goto out;
	while (st->size + total > st->budget) {
		struct rc_entry **pp, **lru = NULL;
		for (pp = &st->head; *pp; pp = &(*pp)->next)
			if ((*pp)->eval != j->rc_eval && (!lru || (*pp)->used < (*lru)->used))
				lru = pp;
		if (!lru)
			goto out;
		e = *lru;
		*lru = e->next;
		st->size -= e->bytes;
		entry_free(st, e);
	}
	if (!(e = calloc(1, sizeof(*e))))
		goto out;
	if (st->g) {
		struct kj_err ae;
		kj_err_init(&ae);
		if (kj_gpu_alloc(st->g, total, &mem, &ae))
			mem = NULL; /* the device is short of memory: not kept here */
	} else {
		mem = malloc(total ? total : 1);
	}
	if (!mem) {
		free(e);
		goto out;
	}
	e->mem = mem;
	for (int i = 0; i < n && !rc; i++) {
		rc = copy(j, (char *)mem + at, st->g != NULL, b[i].p, b[i].dev, b[i].bytes);
		e->sizes[i] = b[i].bytes;
		at += aligned(b[i].bytes);
	}
	if (rc) {
		entry_free(st, e);
		goto out;
	}
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->bytes = total;
	e->nbuf = n;
	e->used = ++st->clock;
	e->eval = j->rc_eval;
	e->next = st->head;
	st->head = e;
	st->size += total;
	*stored = 1;
out:
	pthread_mutex_unlock(&st->mu);
	return rc;
}

static int off(void)
{
	size_t mb;
	return env_mb("KJ_REF_CACHE_MB", &mb) && mb == 0;
}

static int key_of(struct judge *j, int bind, uint64_t seed, kj_seed_flavour fl, char key[65])
{
	char base[2048], text[2300];
	if (kjj_baseline_key_text(j, bind, base, sizeof(base)))
		return -1;
	snprintf(text, sizeof(text), "%s|%s|%s|%llu|%d", RC_VERSION, j->track->name, base, (unsigned long long)seed,
		 (int)fl);
	kj_sha256_hex(text, strlen(text), key);
	return 0;
}

static int compute(struct judge *j, struct kjj_shape *s, uint64_t seed, kj_seed_flavour fl)
{
	int rc;
	if ((rc = j->track->gen(j, s, seed, fl)) || (rc = j->track->run_ref(j, s)))
		return rc;
	return j->track->run_base(j, s);
}

int kjj_inputs_ref_base(struct judge *j, struct kjj_shape *s, int bind, uint64_t seed, kj_seed_flavour fl)
{
	const struct kjj_track *tr = j->track;
	struct kjj_rcbuf b[KJJ_RC_MAX_BUFS];
	struct rc_store *dst = NULL;
	char key[65];
	size_t total = 0;
	int n, rc = 0, hit = 0, stored = 0, ondev = 0;
	if (!tr->ref_bufs || !tr->ref_restored || off() || key_of(j, bind, seed, fl, key))
		return compute(j, s, seed, fl);
	if ((n = tr->ref_bufs(j, s, b, KJJ_RC_MAX_BUFS)) < 0)
		return n;
	if (n == 0)
		return compute(j, s, seed, fl);
	for (int i = 0; i < n; i++) {
		total += aligned(b[i].bytes);
		ondev |= b[i].dev;
	}
	if (!j->rc_eval) {
		pthread_mutex_lock(&stores_mu);
		j->rc_eval = ++eval_count;
		pthread_mutex_unlock(&stores_mu);
	}
	if (ondev && j->gpu)
		dst = dev_store(j);
	kjj_prof_begin(j, KJ_PROF_REF_CACHE);
	if (dst)
		rc = get(j, dst, key, b, n, &hit);
	if (!rc && !hit)
		rc = get(j, &host_store, key, b, n, &hit);
	if (!rc && hit)
		rc = tr->ref_restored(j, s);
	kjj_prof_end(j);
	if (rc || hit) {
		j->v->ref_cache_hits += hit && !rc;
		return rc;
	}
	if ((rc = compute(j, s, seed, fl)))
		return rc;
	kjj_prof_begin(j, KJ_PROF_REF_CACHE);
	if (dst)
		rc = put(j, dst, key, b, n, total, &stored);
	if (!rc && !stored)
		rc = put(j, &host_store, key, b, n, total, &stored);
	kjj_prof_end(j);
	j->v->ref_cache_stored += stored;
	return rc;
}
