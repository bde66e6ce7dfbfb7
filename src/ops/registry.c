/*
 * The op registry: one lookup over the op tables (table_a.c: elementwise,
 * binary, reductions, softmax/cumsum; table_b.c: linear algebra, shape ops,
 * norms, losses, cast), plus the shape helpers every op uses.
 */
#include "kjudge/ops.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

extern const kj_op kj_ops_a[];
extern const int kj_ops_a_count;
extern const kj_op kj_ops_b[];
extern const int kj_ops_b_count;
extern const kj_op kj_ops_c[];
extern const int kj_ops_c_count;
extern const kj_op kj_ops_d[];
extern const int kj_ops_d_count;
extern const kj_op kj_ops_e[];
extern const int kj_ops_e_count;
extern const kj_op kj_ops_f[];
extern const int kj_ops_f_count;

/* The flat table (flat, nops) is the only mutable state of the registry: it
 * is built once, on the first lookup from any thread, under pthread_once, so
 * that serve's evaluation threads and run's compile pool, which may all make
 * that first lookup at the same time, never see a half-built table; it is
 * never written after that.  No caller needs to build it before starting
 * threads. */
#define KJ_MAX_OPS 256
static kj_op flat[KJ_MAX_OPS];
static int nops;
static pthread_once_t built = PTHREAD_ONCE_INIT;

static void build_once(void)
{
	int n = 0;
	for (int i = 0; i < kj_ops_a_count && n < KJ_MAX_OPS; i++)
		flat[n++] = kj_ops_a[i];
	for (int i = 0; i < kj_ops_b_count && n < KJ_MAX_OPS; i++)
		flat[n++] = kj_ops_b[i];
	for (int i = 0; i < kj_ops_c_count && n < KJ_MAX_OPS; i++)
		flat[n++] = kj_ops_c[i];
	for (int i = 0; i < kj_ops_d_count && n < KJ_MAX_OPS; i++)
		flat[n++] = kj_ops_d[i];
	for (int i = 0; i < kj_ops_e_count && n < KJ_MAX_OPS; i++)
		flat[n++] = kj_ops_e[i];
	for (int i = 0; i < kj_ops_f_count && n < KJ_MAX_OPS; i++)
		flat[n++] = kj_ops_f[i];
	nops = n;
}

static void build(void)
{
	pthread_once(&built, build_once);
}

const kj_op *kj_op_find(const char *name)
{
	build();
	for (int i = 0; i < nops; i++)
		if (!strcmp(flat[i].name, name))
			return &flat[i];
	return NULL;
}

const kj_op *kj_op_table(int *n)
{
	build();
	*n = nops;
	return flat;
}

int kj_op_attr_index(const kj_op *op, const char *name)
{
	int ai = 0;
	for (int k = 0; k < op->nparams; k++) {
		if (op->params[k].kind == KJ_ATTR_TENSOR)
			continue;
		if (!strcmp(op->params[k].name, name))
			return ai;
		ai++;
	}
	return -1;
}

int kj_op_ntensor_params(const kj_op *op)
{
	int n = 0;
	for (int k = 0; k < op->nparams; k++)
		n += op->params[k].kind == KJ_ATTR_TENSOR;
	return n;
}

int64_t kj_shape_numel(const kj_shape *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->rank; i++)
		n *= s->d[i];
	return n;
}

int kj_shape_eq(const kj_shape *a, const kj_shape *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->d[i] != b->d[i])
			return 0;
	return 1;
}

char *kj_shape_str(const kj_shape *s, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "[");
	for (int i = 0; i < s->rank && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? ", " : "", (long long)s->d[i]);
	if (off < len)
		snprintf(buf + off, len - off, "]");
	return buf;
}

char *kj_dim_str(const kj_tinfo *t, int i, char *buf, size_t len)
{
	if (i < 0)
		i += t->shape.rank;
	if (i < 0 || i >= t->shape.rank)
		snprintf(buf, len, "?");
	else if (t->label[i])
		snprintf(buf, len, "%s=%lld", t->label[i], (long long)t->shape.d[i]);
	else
		snprintf(buf, len, "%lld", (long long)t->shape.d[i]);
	return buf;
}
