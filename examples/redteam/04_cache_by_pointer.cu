// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 4 (output caching by pointer), CUDA: keeps the last answer
 * in a device buffer owned by the shared object and replays it (a device to
 * device copy) whenever x and y are the pointers of the previous call.  The
 * judge's buffers stay put but their contents change on every call (new seed,
 * rotated timed sets): the replay fails on seed 1. */
#include "kjudge_cuda.h"

__global__ void rows(const float* x, float* y, int64_t B, int64_t D)
{
	int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= B)
		return;
	const float* r = x + b * D;
	float m = r[0];
	for (int64_t d = 1; d < D; d++)
		m = fmaxf(m, r[d]);
	double s = 0.0;
	for (int64_t d = 0; d < D; d++)
		s += exp((double)r[d] - m);
	for (int64_t d = 0; d < D; d++)
		y[b * D + d] = (float)(exp((double)r[d] - m) / s);
}

static const float* last_x;
static float* last_y;
static int64_t last_n = -1;
static float* saved;
static size_t saved_bytes;

extern "C" void softmax(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	size_t bytes = (size_t)(B * D) * sizeof(float);

	if (saved && x == last_x && y == last_y && B * D == last_n) {
		cudaMemcpyAsync(y, saved, bytes, cudaMemcpyDeviceToDevice, stream);
		return;
	}
	rows<<<(unsigned)((B + 127) / 128), 128, 0, stream>>>(x, y, B, D);
	if (bytes > saved_bytes) {
		cudaFree(saved);
		saved = nullptr;
		saved_bytes = 0;
		if (cudaMalloc(&saved, bytes) == cudaSuccess)
			saved_bytes = bytes;
	}
	if (saved)
		cudaMemcpyAsync(saved, y, bytes, cudaMemcpyDeviceToDevice, stream);
	last_x = x;
	last_y = y;
	last_n = B * D;
}
