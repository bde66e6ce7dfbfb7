/*
 * Broadcasting and type promotion for binary ops, following NumPy/PyTorch:
 * shapes align on the right and a size-1 (or missing) dim stretches; the
 * result dtype follows PyTorch's result_type, where dimensioned tensors
 * outrank zero-dim tensors, which outrank literals, and a lower tier only
 * matters when it brings a higher category (bool < integer < floating).
 */
#include "kjudge/ops.h"
#include "op_util.h"

/* torch.promote_types for two dtypes, -1 standing for "no operand". */
static int promote_types(int a, int b)
{
	int ca, cb;

	if (a < 0)
		return b;
	if (b < 0 || a == b)
		return a;
	ca = kjo_category((kj_dtype)a);
	cb = kjo_category((kj_dtype)b);
	if (ca != cb)
		return ca > cb ? a : b;
	if (ca == 1) {
		int wa = (int)kj_dtype_size((kj_dtype)a), wb = (int)kj_dtype_size((kj_dtype)b);

		return wa >= wb ? a : b;
	}
	/* Two different floats: f16 and bf16 meet at f32, and f32 wins anyway. */
	return KJ_F32;
}

/* A literal stands for PyTorch's default dtype of its category. */
static int literal_dtype(kj_dtype t)
{
	switch (kjo_category(t)) {
	case 0:
		return KJ_BOOL;
	case 1:
		return KJ_I64;
	default:
		return KJ_F32;
	}
}

/* The higher tier's type wins unless the lower tier brings a higher
 * category: a float below an int/bool above promotes, an int below a bool
 * above promotes; anything below a float stays out. */
static int combine_tiers(int higher, int lower)
{
	if (higher < 0)
		return lower;
	if (lower < 0)
		return higher;
	if (kjo_category((kj_dtype)higher) == 2)
		return higher;
	if (higher == KJ_BOOL || kjo_category((kj_dtype)lower) == 2)
		return promote_types(higher, lower);
	return higher;
}

kj_dtype kj_promote(const kj_tinfo *a, const kj_tinfo *b)
{
	int tier[3] = {-1, -1, -1}; /* dimensioned, zero-dim, literal */
	const kj_tinfo *v[2] = {a, b};

	for (int k = 0; k < 2; k++) {
		int t = v[k]->weak ? 2 : v[k]->shape.rank == 0 ? 1 : 0;
		int dt = v[k]->weak ? literal_dtype(v[k]->dtype) : (int)v[k]->dtype;

		tier[t] = promote_types(tier[t], dt);
	}
	return (kj_dtype)combine_tiers(tier[0], combine_tiers(tier[1], tier[2]));
}

int kj_broadcast(const kj_tinfo *a, const kj_tinfo *b, kj_tinfo *out, const char *opname,
		 char *msg, size_t msglen)
{
	int ra = a->shape.rank, rb = b->shape.rank;
	int r = ra > rb ? ra : rb;
	kj_tinfo res;

	memset(&res, 0, sizeof(res));
	res.shape.rank = r;
	for (int i = r - 1; i >= 0; i--) {
		int ia = i - (r - ra), ib = i - (r - rb);
		int64_t da = ia >= 0 ? a->shape.d[ia] : 1;
		int64_t db = ib >= 0 ? b->shape.d[ib] : 1;
		const char *la = ia >= 0 ? a->label[ia] : NULL;
		const char *lb = ib >= 0 ? b->label[ib] : NULL;

		if (da != db && da != 1 && db != 1) {
			char sa[256], sb[256], ea[64], eb[64];

			return kjo_fail(msg, msglen,
					"%s: shapes %s and %s cannot broadcast (dim %d: %s vs %s)",
					opname, kjo_dims_str(a, sa, sizeof(sa)),
					kjo_dims_str(b, sb, sizeof(sb)), i - r,
					kjo_dim_str(a, ia, ea, sizeof(ea)),
					kjo_dim_str(b, ib, eb, sizeof(eb)));
		}
		if (da == db) {
			res.shape.d[i] = da;
			res.label[i] = la ? la : lb;
		} else if (da == 1) {
			res.shape.d[i] = db;
			res.label[i] = lb;
		} else {
			res.shape.d[i] = da;
			res.label[i] = la;
		}
	}
	res.dtype = kj_promote(a, b);
	res.weak = 0;
	*out = res;
	return 0;
}
