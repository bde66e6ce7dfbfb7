// kjudge-case: task=level1/relu expect=crash
/* Red team, class 15 (escaping the worker), CUDA: forks from host code with
 * an inline `syscall` instruction (no fork symbol for the static policy to
 * see), e.g. to leave a process behind that keeps the GPU busy during later
 * candidates' timing.  The worker's seccomp filter (installed after the CUDA
 * context exists, before the candidate is loaded) kills the process on
 * clone without CLONE_THREAD, fork and vfork: SIGSYS, a crash verdict; the
 * CUDA runtime's own threads (clone with CLONE_THREAD) stay allowed. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;
	long pid = -1;

#if defined(__x86_64__)
	asm volatile("syscall" : "=a"(pid) : "0"(57L) : "rcx", "r11", "memory");
	if (pid == 0)
		asm volatile("syscall" : : "a"(231L), "D"(0L) : "rcx", "r11", "memory");
#endif
	(void)pid;
	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
