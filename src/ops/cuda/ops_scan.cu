/*
 * CUDA scans along one dim: cumsum (table A) and cumprod (table D), for the
 * eager baseline and the reference, mirroring src/ops/cpu/reduce_impl.h
 * (cumsum) and src/ops/cpu/misc_impl.h (cumprod).
 *
 * One template serves every scan: an operator (scan_add, scan_mul: its
 * identity and its combination) and two flags, REV (the scan runs from the
 * end of the dim towards its start, as flip-cumsum-flip) and EXCL (an
 * output leaves out its own element: y[0] is the identity).  The registry's
 * ops are the forward inclusive scans; the flags are there so that a
 * reversed or exclusive op is a new instantiation, not a new kernel.
 * The input is viewed as [outer, len, inner] around the dim, as on the CPU:
 *   - a long last dim (inner == 1, len > 64) of a float dtype: one block per
 *     row, tiles of blockDim * 4 consecutive elements: a scan in each
 *     thread's registers, a warp scan of the thread totals, a scan of the
 *     warp totals, and a running carry from tile to tile;
 *   - otherwise (a middle dim, short rows, integer or bool input, exact in
 *     double with an i64 result): one thread per (outer, inner) run,
 *     coalesced across inner.
 * Nothing is atomic: the order of the combinations is fixed by the launch,
 * so results are deterministic.
 */
#include "ops/cuda/ops_common.cuh"

extern "C" {
#include "ops/table_d.h"
}

#define KJ_SCAN_ITEMS 4

/* An operator: its identity, its combination, and lanes_before, the
 * combination of the lanes before this one from the lane's inclusive value
 * and its own total.  The product takes it from the neighbour lane (a
 * shuffle, which every lane runs before the block's barrier: SHUFFLES); the
 * sum subtracts the lane's total (one shuffle fewer, the rounding cumsum
 * has always had), after the barrier.  Those are the places the two
 * hand-written scans had, so the template compiles to their machine code. */
template <class A> struct scan_add {
	enum { SHUFFLES = 0 };
	static __device__ __forceinline__ A id() { return (A)0; }
	static __device__ __forceinline__ A op(A a, A b) { return a + b; }
	static __device__ __forceinline__ A lanes_before(A incl, A tot) { return incl - tot; }
};

template <class A> struct scan_mul {
	enum { SHUFFLES = 1 };
	static __device__ __forceinline__ A id() { return (A)1; }
	static __device__ __forceinline__ A op(A a, A b) { return a * b; }
	static __device__ __forceinline__ A lanes_before(A incl, A)
	{
		A e = __shfl_up_sync(0xffffffffu, incl, 1);
		return (threadIdx.x & 31) == 0 ? (A)1 : e;
	}
};

/* Position p of the scan's order is element len - 1 - p of the row when REV. */
template <bool REV> __device__ __forceinline__ int64_t scan_at(int64_t p, int64_t len)
{
	return REV ? len - 1 - p : p;
}

template <template <class> class OP, class T, bool REV, bool EXCL>
__global__ void scan_row_k(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t len)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	typedef OP<A> O;
	__shared__ A wtot[32];
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	int64_t tile = (int64_t)blockDim.x * KJ_SCAN_ITEMS;

	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		const T *xr = x + r * len;
		T *yr = y + r * len;
		A carry = O::id();
		for (int64_t t0 = 0; t0 < len; t0 += tile) {
			int64_t j = t0 + (int64_t)threadIdx.x * KJ_SCAN_ITEMS;
			A v[KJ_SCAN_ITEMS];
#pragma unroll
			for (int k = 0; k < KJ_SCAN_ITEMS; k++)
				v[k] = j + k < len ? tt::ld(xr[scan_at<REV>(j + k, len)]) : O::id();
#pragma unroll
			for (int k = 1; k < KJ_SCAN_ITEMS; k++)
				v[k] = O::op(v[k], v[k - 1]);
			A tot = v[KJ_SCAN_ITEMS - 1], incl = tot;
#pragma unroll
			for (int off = 1; off < 32; off <<= 1) {
				A u = __shfl_up_sync(0xffffffffu, incl, off);
				if (lane >= off)
					incl = O::op(incl, u);
			}
			A before = O::SHUFFLES ? O::lanes_before(incl, tot) : O::id();
			if (lane == 31)
				wtot[wid] = incl;
			__syncthreads();
			if (wid == 0) {
				A w = lane < nw ? wtot[lane] : O::id();
#pragma unroll
				for (int off = 1; off < 32; off <<= 1) {
					A u = __shfl_up_sync(0xffffffffu, w, off);
					if (lane >= off)
						w = O::op(w, u);
				}
				wtot[lane] = w;
			}
			__syncthreads();
			A pre = O::op(O::op(carry, wid > 0 ? wtot[wid - 1] : O::id()),
				      O::SHUFFLES ? before : O::lanes_before(incl, tot));
#pragma unroll
			for (int k = 0; k < KJ_SCAN_ITEMS; k++)
				if (j + k < len) {
					A e = !EXCL ? v[k] : k > 0 ? v[k - 1] : O::id();
					yr[scan_at<REV>(j + k, len)] = tt::st(O::op(pre, e));
				}
			carry = O::op(carry, wtot[nw - 1]);
			__syncthreads();
		}
	}
}

template <template <class> class OP, class L, bool REV, bool EXCL>
__global__ void scan_col_k(L x, void *y, int ydt, int64_t outer, int64_t len, int64_t inner)
{
	typedef typename L::A A;
	typedef OP<A> O;
	int64_t nout = outer * inner, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t oi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; oi < nout; oi += stride) {
		int64_t o = oi / inner, i = oi - o * inner, base = o * len * inner + i;
		A acc = O::id();
		for (int64_t p = 0; p < len; p++) {
			int64_t j = scan_at<REV>(p, len);
			if (EXCL)
				kjd_store(ydt, y, (size_t)(base + j * inner), (double)acc);
			acc = O::op(acc, x.ld(base + j * inner));
			if (!EXCL)
				kjd_store(ydt, y, (size_t)(base + j * inner), (double)acc);
		}
	}
}

template <template <class> class OP, class T, bool REV, bool EXCL>
static void scan_typed(kj_gpu *g, const void *x, void *y, int ydt, int64_t outer, int64_t len,
		       int64_t inner)
{
	if (inner == 1 && len > 64)
		scan_row_k<OP, T, REV, EXCL><<<grid_cap(outer, (int64_t)g->info.sm_count * 32),
					       len >= 4096 ? 512 : 128, 0, g->stream>>>(
			(const T *)x, (T *)y, outer, len);
	else
		scan_col_k<OP, ld_typed<T>, REV, EXCL><<<kj_blocks(g, outer * inner, 256), 256, 0,
							 g->stream>>>(ld_typed<T>{(const T *)x}, y,
								      ydt, outer, len, inner);
}

/* The scan of node n's input 0 along its dim (attribute 0) into out. */
template <template <class> class OP, bool REV, bool EXCL>
static int scan_run(kj_gpu *g, const kj_bnode *n, const void *x, void *out, int reference,
		    struct kj_err *err)
{
	int64_t outer, len, inner;
	kj_dtype it = n->in[0].dtype;
	int ydt = kj_buf_dt(n->out.dtype, reference);

	kjo_split(&n->in[0].shape, kjm_dim(kjo_attr_i(n, 0, 0), n->in[0].shape.rank), &outer, &len,
		  &inner);
	if (outer * inner == 0 || len == 0)
		return 0;
	if (reference)
		scan_typed<OP, double, REV, EXCL>(g, x, out, ydt, outer, len, inner);
	else if (it == KJ_F32)
		scan_typed<OP, float, REV, EXCL>(g, x, out, ydt, outer, len, inner);
	else if (it == KJ_F16)
		scan_typed<OP, __half, REV, EXCL>(g, x, out, ydt, outer, len, inner);
	else if (it == KJ_BF16)
		scan_typed<OP, __nv_bfloat16, REV, EXCL>(g, x, out, ydt, outer, len, inner);
	else
		scan_col_k<OP, ld_dyn<double>, REV, EXCL><<<kj_blocks(g, outer * inner, 256), 256, 0,
							    g->stream>>>(ld_dyn<double>{x, (int)it}, out,
									 ydt, outer, len, inner);
	KJ_LAUNCH_CHECK(err, n->op->name);
	return 0;
}

int kj_cuda_cumsum(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		   int reference, struct kj_err *err)
{
	return scan_run<scan_add, false, false>(g, n, in[0], out, reference, err);
}

int kj_cuda_cumprod(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		    struct kj_err *err)
{
	return scan_run<scan_mul, false, false>(g, n, in[0], out, reference, err);
}
