/*
 * Table E of the op registry: signatures, shape/dtype rules and cost rules of
 * the random ops rand_like and randn_like and the comparisons less,
 * less_equal, greater, greater_equal (table_e.h defines rand_like's values).
 * The kernels are in src/ops/cpu/ (cpu64_e.c, cpu32_e.c from random_impl.h)
 * and src/ops/cuda/ (ops_random.cu; the comparisons in ops_elementwise.cu).
 * Cost conventions: docs/ops.md.
 */
#include <stdio.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_e.h"

#define T_REQ(nm) {.name = nm, .kind = KJ_ATTR_TENSOR, .required = 1}
#define A_I_REQ(nm) {.name = nm, .kind = KJ_ATTR_INT, .required = 1}
#define A_I(nm, v) {.name = nm, .kind = KJ_ATTR_INT, .def = {.kind = KJ_ATTR_INT, .i = (v)}}

static const kj_param p_rand_like[] = {T_REQ("input"), A_I_REQ("seed"), A_I("offset", 0)};
static const kj_param p_compare[] = {T_REQ("input"), T_REQ("other")};

/* rand_like and randn_like */
static int infer_rand_like(kj_bnode *n, char *msg, size_t len)
{
	int64_t seed = kjo_attr_i(n, KJE_RAND_SEED, 0), off = kjo_attr_i(n, KJE_RAND_OFFSET, 0);
	if (seed < 0)
		return kjo_fail(msg, len, "%s: seed %lld is negative (expected 0 .. 2^63-1)",
				n->op->name, (long long)seed);
	if (off < 0)
		return kjo_fail(msg, len, "%s: offset %lld is negative (expected >= 0)",
				n->op->name, (long long)off);
	n->out = n->in[0];
	n->out.weak = 0;
	n->out.dtype = KJ_F32;
	return 0;
}

/* Only the output moves: the input gives its shape, never its values. */
static void cost_rand_like(const kj_bnode *n, kj_cost *c)
{
	c->flops = (double)kjo_numel(&n->out.shape);
	c->min_bytes = kjo_bytes(&n->out);
}

static int infer_compare(kj_bnode *n, char *msg, size_t len)
{
	if (kj_broadcast(&n->in[0], &n->in[1], &n->out, n->op->name, msg, len))
		return -1;
	n->out.dtype = KJ_BOOL;
	return 0;
}

static void cost_compare(const kj_bnode *n, kj_cost *c)
{
	c->flops = (double)kjo_numel(&n->out.shape);
	c->min_bytes = kjo_io_bytes(n);
}

#define NP(p) (int)(sizeof(p) / sizeof((p)[0])), p
#define KERNELS(k) kj_cpu64_##k, kj_cpu32_##k
/* Philox4x32-10's rounds, in both random ops' docs: a prompt lists only the
 * ops a task uses, so randn_like's text must not lean on rand_like's. */
#define PHILOX_DOC \
	"Philox4x32-10: 10 rounds of (c0, c1, c2, c3) <- (hi(0xCD9E8D57*c2) ^ c1 ^ k0, " \
	"lo(0xCD9E8D57*c2), hi(0xD2511F53*c0) ^ c3 ^ k1, lo(0xD2511F53*c0)) with 32x32->64-bit " \
	"products, the key bumped by (0x9E3779B9, 0xBB67AE85) before every round but the first"
#define CMP_NOTE \
	"both operands are converted to their promoted dtype (a literal to a bf16 tensor's bf16) " \
	"before comparing, as PyTorch does"

const kj_op kj_ops_e[] = {
	{"rand_like",
	 "rand_like(input, seed, offset=0): f32 tensor of input's shape (input's values are not "
	 "read), uniform in [0, 1), exactly specified: the element of row-major flat index i is "
	 "(w[i % 4] >> 8) * 2^-24 where w[0..3] = Philox4x32-10 with counter (c0, c1, 0, 0), "
	 "c0 + 2^32*c1 = offset + i / 4 (integer division), and key (seed & 0xFFFFFFFF, seed >> 32); "
	 PHILOX_DOC,
	 NP(p_rand_like), infer_rand_like, cost_rand_like, KERNELS(rand_like),
	 "not torch.rand_like's generator: the values are defined by seed and offset alone, always "
	 "f32 whatever input's dtype; seed and offset are integers >= 0"},
	{"randn_like",
	 "randn_like(input, seed, offset=0): f32 tensor of input's shape (input's values are not "
	 "read), standard normal by Box-Muller, exactly specified, four elements per Philox block: "
	 "with w[0..3] = Philox4x32-10 with counter (c0, c1, 0, 0), c0 + 2^32*c1 = offset + i / 4 "
	 "(integer division), and key (seed & 0xFFFFFFFF, seed >> 32), p = (i / 2) % 2, "
	 "a = w[2 * p], b = w[2 * p + 1], u1 = ((a >> 8) + 1) * 2^-24 in (0, 1], "
	 "u2 = (b >> 8) * 2^-24, the element of row-major flat index i is "
	 "sqrt(-2 * ln(u1)) * cos(2 * pi * u2) for even i and sqrt(-2 * ln(u1)) * "
	 "sin(2 * pi * u2) for odd i; " PHILOX_DOC,
	 NP(p_rand_like), infer_rand_like, cost_rand_like, KERNELS(randn_like),
	 "not torch.randn_like's generator; always f32; the values go through log, sqrt and "
	 "cos/sin, so they are exact up to the last bits of those functions; offset=k starts at "
	 "element 4k; rand_like and randn_like with one seed read the same Philox blocks (use "
	 "another seed or offset for independent draws)"},
	{"less",
	 "less(input, other): input < other elementwise (torch.less), bool, with "
	 "broadcasting; false where either is NaN",
	 NP(p_compare), infer_compare, cost_compare, KERNELS(less), CMP_NOTE},
	{"less_equal",
	 "less_equal(input, other): input <= other elementwise (torch.less_equal), bool, with "
	 "broadcasting; false where either is NaN",
	 NP(p_compare), infer_compare, cost_compare, KERNELS(less_equal), CMP_NOTE},
	{"greater",
	 "greater(input, other): input > other elementwise (torch.greater), bool, with "
	 "broadcasting; false where either is NaN",
	 NP(p_compare), infer_compare, cost_compare, KERNELS(greater), CMP_NOTE},
	{"greater_equal",
	 "greater_equal(input, other): input >= other elementwise (torch.greater_equal), bool, with "
	 "broadcasting; false where either is NaN",
	 NP(p_compare), infer_compare, cost_compare, KERNELS(greater_equal), CMP_NOTE},
};

const int kj_ops_e_count = (int)(sizeof(kj_ops_e) / sizeof(kj_ops_e[0]));
