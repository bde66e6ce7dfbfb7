// kjudge-case: task=level1/matmul_square expect=pass flag=fallback
/* Red team, class 27 (hidden library), CUDA: cuBLAS's SGEMM does the whole
 * matmul, and the object names no cuBLAS routine, no dlopen and no dlsym
 * (rejected or flagged by name).  libcudart itself loads libcuda with
 * dlopen, so its relocation table has JUMP_SLOT entries for dlopen and
 * dlsym, and its GOT holds their addresses.  From the address of
 * cudaGetLastError (an allowed import) it walks back to libcudart's ELF
 * header (its first segment is the text, from offset 0), reads its
 * PT_DYNAMIC, finds those relocations and calls through the GOT: dlopen
 * libcublas.so.13 (by soname, else by the toolkit's path), dlsym
 * cublasCreate_v2, cublasSetStream_v2 and cublasSgemm_v2, and runs the
 * transposed problem (row-major C = A B is column-major C^T = B^T A^T) on
 * the given stream, in FP32 (cuBLAS's default math mode).  Right, but a
 * library's: the judge reads the worker's maps after the calls and finds
 * libcublas mapped: fallback (rejected under --policy strict).  If cuBLAS
 * cannot be loaded the call writes nothing (mismatch), which fails the
 * header loudly. */
#include <elf.h>
#include <string.h>

#include "kjudge_cuda.h"

/* the address the GOT of the image at base holds for `name` */
static void* got_value(uintptr_t base, const char* name)
{
	const Elf64_Ehdr* eh = (const Elf64_Ehdr*)base;
	const Elf64_Phdr* ph = (const Elf64_Phdr*)(base + eh->e_phoff);
	const Elf64_Dyn* dy = NULL;
	const Elf64_Sym* sym = NULL;
	const char* str = NULL;
	const Elf64_Rela* rel = NULL;
	size_t relsz = 0;

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dy = (const Elf64_Dyn*)(base + ph[i].p_vaddr);
	for (; dy && dy->d_tag != DT_NULL; dy++) {
		uintptr_t a = dy->d_un.d_ptr < base ? base + dy->d_un.d_ptr : dy->d_un.d_ptr;
		if (dy->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym*)a;
		else if (dy->d_tag == DT_STRTAB)
			str = (const char*)a;
		else if (dy->d_tag == DT_JMPREL)
			rel = (const Elf64_Rela*)a;
		else if (dy->d_tag == DT_PLTRELSZ)
			relsz = dy->d_un.d_val;
	}
	for (size_t k = 0; sym && str && rel && k < relsz / sizeof(Elf64_Rela); k++)
		if (!strcmp(str + sym[ELF64_R_SYM(rel[k].r_info)].st_name, name))
			return *(void**)(base + rel[k].r_offset);
	return NULL;
}

typedef void* (*dlopen_fn)(const char*, int);
typedef void* (*dlsym_fn)(void*, const char*);
typedef int (*create_fn)(void**);
typedef int (*stream_fn)(void*, cudaStream_t);
typedef int (*sgemm_fn)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int,
			const float*, float*, int);

extern "C" void matmul_square(const float* a, const float* b, float* c, int64_t N, cudaStream_t stream)
{
	static void* handle;
	static stream_fn set_stream;
	static sgemm_fn gemm;
	static int tried;
	const float one = 1.0f, zero = 0.0f;
	int n = (int)N;

	if (!tried++) {
		uintptr_t p = (uintptr_t)&cudaGetLastError & ~(uintptr_t)0xfff, base = 0;
		dlopen_fn op;
		dlsym_fn sy;
		void* h = NULL;
		create_fn create;

		for (int i = 0; i < 1 << 16 && !base; i++, p -= 0x1000)
			if (!memcmp((const void*)p, ELFMAG, SELFMAG))
				base = p;
		op = base ? (dlopen_fn)got_value(base, "dlopen") : NULL;
		sy = base ? (dlsym_fn)got_value(base, "dlsym") : NULL;
		if (op && sy)
			h = op("libcublas.so.13", 2 /* RTLD_NOW */);
		if (op && sy && !h)
			h = op("/usr/local/cuda/lib64/libcublas.so.13", 2);
		create = h ? (create_fn)sy(h, "cublasCreate_v2") : NULL;
		set_stream = h ? (stream_fn)sy(h, "cublasSetStream_v2") : NULL;
		gemm = h ? (sgemm_fn)sy(h, "cublasSgemm_v2") : NULL;
		if (!create || !set_stream || !gemm || create(&handle) != 0)
			gemm = NULL;
	}
	if (!gemm)
		return;
	set_stream(handle, stream);
	gemm(handle, 0, 0, n, n, n, &one, b, n, a, n, &zero, c, n);
}
