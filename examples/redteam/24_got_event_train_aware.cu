// kjudge-case: task=serving/fused_add_rmsnorm_bf16 expect=pass
/* Red team, class 24 (forged device times): the GOT hook of
 * 24_got_event_short, but it tells a train from a single call by counting
 * the candidate's invocations between two reads of the elapsed time (a
 * train is several calls between one pair of events), leaves trains alone,
 * and reports 70% of a single short call's event time: above the 60% of
 * the train's bound that honest kernels' back-to-back regime forces the
 * judge to allow for single calls.  A short shape's time is its train's
 * (docs/threat-model.md), so the forged single calls gain nothing.
 * Expected: pass, unflagged, with the speedup of the honest solution
 * (bench/gpu_check.sh prints the two side by side). */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kjudge_cuda.h"


static long sc(long n, long a, long b, long c, long d = 0, long e = 0, long f = 0)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

/* kjudge-worker's load address: AT_PHDR minus PT_PHDR's address */
static uintptr_t exe_base(void)
{
	char **e = environ;
	const Elf64_auxv_t *av;
	const Elf64_Phdr *ph = NULL;
	long n = 0;

	while (*e)
		e++;
	for (av = (const Elf64_auxv_t *)(e + 1); av->a_type != AT_NULL; av++) {
		if (av->a_type == AT_PHDR)
			ph = (const Elf64_Phdr *)av->a_un.a_val;
		if (av->a_type == AT_PHNUM)
			n = (long)av->a_un.a_val;
	}
	for (long i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			return (uintptr_t)ph - ph[i].p_vaddr;
	return 0;
}

static cudaError_t (*real_elapsed)(float*, cudaEvent_t, cudaEvent_t);

/* Points the worker's GOT slot for `name` at fn (any relocation table). */
static int got_hook(uintptr_t base, const char* name, void* fn)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	const Elf64_Dyn *dy = NULL;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	const Elf64_Rela *rel[2] = {NULL, NULL};
	size_t relsz[2] = {0, 0};

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dy = (const Elf64_Dyn *)(base + ph[i].p_vaddr);
	for (; dy && dy->d_tag != DT_NULL; dy++) {
		uintptr_t a = dy->d_un.d_ptr < base ? base + dy->d_un.d_ptr : dy->d_un.d_ptr;
		switch (dy->d_tag) {
		case DT_SYMTAB: sym = (const Elf64_Sym *)a; break;
		case DT_STRTAB: str = (const char *)a; break;
		case DT_JMPREL: rel[0] = (const Elf64_Rela *)a; break;
		case DT_PLTRELSZ: relsz[0] = dy->d_un.d_val; break;
		case DT_RELA: rel[1] = (const Elf64_Rela *)a; break;
		case DT_RELASZ: relsz[1] = dy->d_un.d_val; break;
		}
	}
	for (int t = 0; t < 2 && sym && str; t++)
		for (size_t k = 0; rel[t] && k < relsz[t] / sizeof(Elf64_Rela); k++) {
			const Elf64_Rela *r = &rel[t][k];
			uint32_t ty = (uint32_t)ELF64_R_TYPE(r->r_info);
			void **slot = (void **)(base + r->r_offset);

			if ((ty != R_X86_64_JUMP_SLOT && ty != R_X86_64_GLOB_DAT) ||
			    strcmp(str + sym[ELF64_R_SYM(r->r_info)].st_name, name))
				continue;
			sc(10 /* mprotect */, (long)((uintptr_t)slot & ~(uintptr_t)0xfff), 0x1000, 3, 0, 0, 0);
			real_elapsed = (cudaError_t(*)(float*, cudaEvent_t, cudaEvent_t))*slot;
			*slot = fn;
			return 1;
		}
	return 0;
}

/* the candidate's calls since the worker last read an elapsed time */
static volatile int calls;

static cudaError_t fake_elapsed(float* ms, cudaEvent_t a, cudaEvent_t b)
{
	cudaError_t e = real_elapsed(ms, a, b);

	if (calls == 1 && *ms < 0.05f)
		*ms *= 0.7f;
	calls = 0;
	return e;
}

__attribute__((constructor)) static void install(void)
{
	uintptr_t b = exe_base();

	if (b && !got_hook(b, "cudaEventElapsedTime", (void*)fake_elapsed))
		real_elapsed = NULL;
}

#include "kjudge_cuda.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define CACHE_MAX 11264

/* Block-wide sum returned to every thread. */
static __device__ __forceinline__ float block_sum(float v, float* red)
{
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < WARPS ? red[lane] : 0.0f;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(0xffffffffu, v, o);
		if (lane == 0)
			red[WARPS] = v;
	}
	__syncthreads();
	return red[WARPS];
}

/* The 8 float sums of two vectors of 8 bf16. */
static __device__ __forceinline__ void add8(uint4 a, uint4 b, float* s)
{
	const uint32_t* pa = reinterpret_cast<const uint32_t*>(&a);
	const uint32_t* pb = reinterpret_cast<const uint32_t*>(&b);

#pragma unroll
	for (int j = 0; j < 4; j++) {
		float2 u = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(pa + j));
		float2 v = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(pb + j));

		s[2 * j] = u.x + v.x;
		s[2 * j + 1] = u.y + v.y;
	}
}

static __device__ __forceinline__ uint4 pack8(const float* s)
{
	uint4 o;
	uint32_t* po = reinterpret_cast<uint32_t*>(&o);

#pragma unroll
	for (int j = 0; j < 4; j++) {
		__nv_bfloat162 p = __floats2bfloat162_rn(s[2 * j], s[2 * j + 1]);

		po[j] = *reinterpret_cast<uint32_t*>(&p);
	}
	return o;
}

template <bool VEC, bool CACHE>
__global__ void __launch_bounds__(THREADS)
	addrms_rows(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ r,
		    const __nv_bfloat16* __restrict__ w, __nv_bfloat16* __restrict__ h,
		    __nv_bfloat16* __restrict__ y, int64_t D)
{
	extern __shared__ float4 cache4[];
	__shared__ float red[WARPS + 1];
	float* cache = reinterpret_cast<float*>(cache4);
	int64_t row = (int64_t)blockIdx.x * D;
	const __nv_bfloat16 *xr = x + row, *rr = r + row;
	__nv_bfloat16 *hr = h + row, *yr = y + row;
	float acc = 0.0f, inv;

	if (VEC) {
		const uint4* x8 = reinterpret_cast<const uint4*>(xr);
		const uint4* r8 = reinterpret_cast<const uint4*>(rr);
		const uint4* w8 = reinterpret_cast<const uint4*>(w);
		uint4* h8 = reinterpret_cast<uint4*>(hr);
		uint4* y8 = reinterpret_cast<uint4*>(yr);
		int64_t n8 = D / 8;

#pragma unroll 2 /* lets the loads of one thread be in flight together */
		for (int64_t i = threadIdx.x; i < n8; i += THREADS) {
			float s[8];

			add8(__ldg(x8 + i), __ldg(r8 + i), s);
			h8[i] = pack8(s);
			if (CACHE) {
				cache4[i] = make_float4(s[0], s[1], s[2], s[3]);
				cache4[n8 + i] = make_float4(s[4], s[5], s[6], s[7]);
			}
#pragma unroll
			for (int j = 0; j < 8; j++)
				acc += s[j] * s[j];
		}
		inv = rsqrtf(block_sum(acc, red) / (float)D + 1e-5f);
		for (int64_t i = threadIdx.x; i < n8; i += THREADS) {
			float s[8], g[8];

			if (CACHE) {
				float4 lo = cache4[i], hi = cache4[n8 + i];

				s[0] = lo.x, s[1] = lo.y, s[2] = lo.z, s[3] = lo.w;
				s[4] = hi.x, s[5] = hi.y, s[6] = hi.z, s[7] = hi.w;
			} else {
				add8(__ldg(x8 + i), __ldg(r8 + i), s);
			}
			uint4 wv = __ldg(w8 + i);
			const uint32_t* pw = reinterpret_cast<const uint32_t*>(&wv);

#pragma unroll
			for (int j = 0; j < 4; j++) {
				float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(pw + j));

				g[2 * j] = f.x;
				g[2 * j + 1] = f.y;
			}
#pragma unroll
			for (int j = 0; j < 8; j++)
				s[j] = s[j] * inv * g[j];
			y8[i] = pack8(s);
		}
	} else {
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = __bfloat162float(xr[i]) + __bfloat162float(rr[i]);

			hr[i] = __float2bfloat16_rn(v);
			if (CACHE)
				cache[i] = v;
			acc += v * v;
		}
		inv = rsqrtf(block_sum(acc, red) / (float)D + 1e-5f);
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = CACHE ? cache[i] : __bfloat162float(xr[i]) + __bfloat162float(rr[i]);

			yr[i] = __float2bfloat16_rn(v * inv * __bfloat162float(w[i]));
		}
	}
}

extern "C" void fused_add_rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* r, const __nv_bfloat16* w,
				       __nv_bfloat16* h, __nv_bfloat16* y, int64_t T, int64_t D,
				       cudaStream_t stream)
{
	uintptr_t all = (uintptr_t)x | (uintptr_t)r | (uintptr_t)w | (uintptr_t)h | (uintptr_t)y;
	bool vec = D % 8 == 0 && (all & 15) == 0;
	bool cache = D <= CACHE_MAX;
	size_t smem = cache ? (size_t)D * sizeof(float) : 0;

	calls++;
	if (T <= 0 || D <= 0)
		return;
	if (vec && cache)
		addrms_rows<true, true><<<(unsigned)T, THREADS, smem, stream>>>(x, r, w, h, y, D);
	else if (vec)
		addrms_rows<true, false><<<(unsigned)T, THREADS, 0, stream>>>(x, r, w, h, y, D);
	else if (cache)
		addrms_rows<false, true><<<(unsigned)T, THREADS, smem, stream>>>(x, r, w, h, y, D);
	else
		addrms_rows<false, false><<<(unsigned)T, THREADS, 0, stream>>>(x, r, w, h, y, D);
}
