// kjudge-case: task=level1/relu expect=pass
/* Red team, class 29 (the judge's files), CUDA, self-checking: the CUDA
 * driver opens /dev/nvidia* read-write, so the CUDA track's filter allows
 * O_RDWR opens of existing files, and a worker running as the judge's user
 * can rewrite anything that user can: the compile cache (other candidates'
 * and later runs' cached objects: poison one and an honest candidate fails,
 * or a cheat passes), the store.  With raw system calls (no file symbols)
 * the first call looks for the cache where kjudge keeps it
 * (/root/.cache/kjudge, /tmp/kjcache of the GPU tests, the test harness's
 * /tmp/kjtest.XXXXXX/cache) and opens the first cached object it finds
 * (<cache>/<backend>/<xx>/<key>.so) read-write, without writing.  Success
 * makes the answer deliberately wrong (mismatch), so the header's pass
 * fails loudly; a sandbox that holds no cache leaves nothing to open:
 * pass. */
#include <stdio.h>
#include <string.h>

#include "kjudge_cuda.h"

static long sc(long n, long a, long b, long c)
{
	long r;
	asm volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

/* calls fn(dir, name) for each entry of dir but . and .. (4 levels at
 * most); stops at the first nonzero */
static int each(const char* dir, int (*fn)(const char*, const char*))
{
	static char dents[4][1 << 14];
	static int depth;
	long fd = sc(257 /* openat */, -100, (long)dir, 0200000 /* O_DIRECTORY */), n;
	int r = 0;

	if (fd < 0 || depth >= 4)
		return fd < 0 ? 0 : (sc(3, fd, 0, 0), 0);
	depth++;
	while (!r && (n = sc(217 /* getdents64 */, fd, (long)dents[depth - 1], sizeof(dents[0]))) > 0)
		for (long off = 0; !r && off < n; off += *(unsigned short*)(dents[depth - 1] + off + 16)) {
			const char* e = dents[depth - 1] + off + 19;

			if (strcmp(e, ".") && strcmp(e, ".."))
				r = fn(dir, e);
		}
	depth--;
	sc(3, fd, 0, 0);
	return r;
}

static int try_object(const char* dir, const char* e)
{
	char path[1024];
	size_t l = strlen(e);
	long fd;

	snprintf(path, sizeof(path), "%s/%s", dir, e);
	if (l > 3 && !strcmp(e + l - 3, ".so")) {
		fd = sc(257, -100, (long)path, 02 /* O_RDWR */);
		if (fd >= 0) {
			fprintf(stderr, "29: %s opened read-write\n", path);
			sc(3, fd, 0, 0);
			return 1;
		}
		return 0;
	}
	return each(path, try_object); /* <backend>/<xx>/ */
}

static int try_tmp(const char* dir, const char* e)
{
	char path[1024];

	if (strncmp(e, "kjtest.", 7))
		return 0;
	snprintf(path, sizeof(path), "%s/%s/cache", dir, e);
	return each(path, try_object);
}

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void wrong_k(float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 1e9f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	static int calls, hit;
	int64_t n = B * D;

	if (!calls++)
		hit = each("/root/.cache/kjudge", try_object) || each("/tmp/kjcache", try_object) ||
		      each("/tmp", try_tmp);
	if (hit)
		wrong_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(y, n);
	else
		relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
