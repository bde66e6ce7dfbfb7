/*
 * The static stage on a built shared object: see include/kjudge/compile.h.
 * A source check can be fooled by macros, token pasting or inline assembly
 * strings; the dynamic symbol table cannot hide what the object calls
 * through the loader.  The policy lives in the tables below and in
 * docs/worker-protocol.md ("Symbol policy"), which must agree with them.
 * What this cannot see: raw `syscall` instructions and code that finds
 * functions at run time without the loader's help — the worker's seccomp
 * filter (src/worker/worker.c), its limits and the judge's distrust of the
 * worker cover those.
 */
#include "kjudge/compile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Which backends a rule applies to. */
#define ON_CPU 1u
#define ON_CUDA 2u
#define ON_ALL (ON_CPU | ON_CUDA)

struct reject_group {
	const char *const *names;  /* exact names, NULL-terminated */
	const char *const *prefix; /* name prefixes, NULL-terminated (may be NULL) */
	unsigned on;
	const char *why;
};

static const char *const rj_process[] = {
	"fork", "vfork", "clone", "clone3", "__clone", "execve", "execveat", "execv", "execvp",
	"execvpe", "execl", "execlp", "execle", "fexecve", "system", "popen", "posix_spawn",
	"posix_spawnp", NULL};
static const char *const rj_control[] = {
	"ptrace", "process_vm_readv", "process_vm_writev", "prctl", "seccomp", "setrlimit",
	"prlimit", "prlimit64", "setpgid", "setpgrp", "setsid", "unshare", "setns", "chroot",
	"syscall", "setpriority", "nice", "sched_setscheduler", "sched_setparam",
	"sched_setaffinity", "ioprio_set", NULL};
/* Host callbacks run candidate code on a CUDA runtime thread, after the
 * call returned; std::thread (and std::async through it) starts in
 * libstdc++, so its own symbol is what the object names. */
static const char *const rj_thread[] = {"pthread_create", "thrd_create", "cudaLaunchHostFunc",
					"cudaStreamAddCallback", "cuLaunchHostFunc",
					"cuStreamAddCallback", NULL};
static const char *const rj_thread_prefix[] = {"GOMP_", "omp_", "__kmpc_", "_ZNSt6thread",
					       NULL};
static const char *const rj_signal[] = {
	"kill", "killpg", "tkill", "tgkill", "sigqueue", "pthread_kill", "pthread_sigqueue",
	"signal", "sigaction", "__sysv_signal", "sysv_signal", "bsd_signal", "sigset",
	"sigprocmask", "pthread_sigmask", "sigaltstack", NULL};
static const char *const rj_timer[] = {
	"clock_gettime", "__clock_gettime", "gettimeofday", "clock", "times", "timespec_get",
	"ftime", "timer_create", "timer_settime", "setitimer", "alarm", "ualarm",
	"clock_settime", "settimeofday", "adjtime", NULL};
/* nvcc gives every external __device__ function a host body that calls
 * exit (device code called from the host), so an honest CUDA object names
 * exit; the CUDA track lets the judge see such a worker's death instead. */
static const char *const rj_exit[] = {"exit", "_exit", "_Exit", "quick_exit", NULL};
/* nvcc's registration code calls atexit, so only the CPU track rejects it. */
static const char *const rj_exit_cpu[] = {"atexit", "at_quick_exit", "__cxa_atexit",
					  "on_exit", NULL};
/* Besides the loader's own entry points: walking the loaded objects' ELF
 * tables (dl_iterate_phdr, _r_debug, the auxiliary vector) finds any libc
 * function without naming it, and the CUDA entry-point queries hand out
 * driver functions (cuStreamCreate...) by name at run time. */
static const char *const rj_loader[] = {
	"dlopen", "dlmopen", "dlsym", "dlvsym", "dlinfo", "__libc_dlopen_mode", "__libc_dlsym",
	"dl_iterate_phdr", "dladdr", "dladdr1", "_dl_find_object", "_r_debug", "getauxval",
	"cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion", "cuGetProcAddress",
	"cuGetProcAddress_v2", "cudaGetExportTable", "cuGetExportTable", NULL};
static const char *const rj_memory[] = {"mmap", "mmap64", "munmap", "mremap", "mprotect",
					"pkey_mprotect", "brk", "sbrk", NULL};
static const char *const rj_network[] = {
	"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto",
	"recvfrom", "getaddrinfo", "gethostbyname", NULL};
/* fd 3 is the worker's protocol socket: raw descriptor writes could forge a
 * reply.  stdio (printf, fwrite, puts) stays allowed. */
static const char *const rj_fdio[] = {
	"write", "writev", "pwrite", "pwrite64", "pwritev", "pwritev2", "send", "sendmsg",
	"sendmmsg", "dprintf", "vdprintf", "__dprintf_chk", "__vdprintf_chk", "fdopen", "dup",
	"dup2", "dup3", "fcntl", "fcntl64", "ioctl", NULL};
static const char *const rj_files[] = {
	"open", "open64", "__open_2", "__open64_2", "openat", "openat64", "__openat_2",
	"__openat64_2", "fopen", "fopen64", "freopen", "freopen64", "creat", "creat64",
	"unlink", "unlinkat", "rename", "renameat", "renameat2", "remove", "mkdir", "mkdirat",
	"rmdir", "opendir", "fdopendir", "readlink", "readlinkat", "symlink", "link", "linkat",
	"truncate", "ftruncate", "tmpfile", "tmpfile64", "mkstemp", "mkostemp", "chdir",
	"chmod", NULL};
static const char *const rj_ipc[] = {"shm_open", "memfd_create", "shmget", "shmat", "msgget",
				     "semget", "mq_open", NULL};
/* A context of its own brings a default stream of its own. */
static const char *const rj_stream[] = {"cudaDeviceReset", "cuDevicePrimaryCtxReset",
					"cuDevicePrimaryCtxReset_v2", NULL};
static const char *const rj_stream_prefix[] = {"cudaStreamCreate", "cuStreamCreate", "cuCtxCreate",
					       "cuGreenCtx", NULL};
static const char *const rj_gpu_ipc_prefix[] = {"cudaIpc", "cuIpc", "cuMemImport", NULL};

static const struct reject_group reject_groups[] = {
	{rj_process, NULL, ON_ALL, "new processes are not allowed in a candidate"},
	{rj_control, NULL, ON_ALL,
	 "process control and raw system calls are not allowed in a candidate"},
	{rj_thread, rj_thread_prefix, ON_ALL,
	 "threads are not allowed in a candidate (work could run outside the timed call)"},
	{rj_signal, NULL, ON_ALL,
	 "signals and handlers are not allowed in a candidate (they could swallow the judge's)"},
	{rj_timer, NULL, ON_ALL, "clocks and timers are not allowed in a candidate (timing interference)"},
	{rj_exit, NULL, ON_CPU, "a candidate may not end the worker process"},
	{rj_exit_cpu, NULL, ON_CPU, "a candidate may not run code at process exit"},
	{rj_loader, NULL, ON_ALL, "dynamic loading is not allowed in a candidate"},
	{rj_memory, NULL, ON_ALL, "page mapping tricks are not allowed in a candidate (use malloc)"},
	{rj_network, NULL, ON_ALL, "network access is not allowed in a candidate"},
	{rj_fdio, NULL, ON_ALL,
	 "raw file-descriptor I/O is not allowed in a candidate (use stdio for debug output)"},
	{rj_files, NULL, ON_ALL, "file access is not allowed in a candidate"},
	{rj_ipc, NULL, ON_ALL, "shared memory and IPC are not allowed in a candidate"},
	{rj_stream, rj_stream_prefix, ON_ALL,
	 "a candidate must work on the stream it is given, not create or reset its own"},
	{NULL, rj_gpu_ipc_prefix, ON_ALL, "a candidate may not open other processes' GPU memory"},
};

/* Library calls that make a candidate correct without being a kernel. */
enum match { M_PREFIX, M_CONTAINS, M_MANGLED_CONTAINS, M_FORTRAN_BLAS };
struct fallback_rule {
	enum match how;
	const char *pat;
	const char *lib;
};

static const struct fallback_rule fallback_rules[] = {
	{M_PREFIX, "cblas_", "BLAS"},
	{M_PREFIX, "openblas_", "BLAS"},
	{M_FORTRAN_BLAS, NULL, "BLAS"},
	{M_PREFIX, "LAPACKE_", "LAPACK"},
	{M_PREFIX, "mkl_", "MKL"},
	{M_PREFIX, "cublas", "cuBLAS"},
	{M_PREFIX, "cudnn", "cuDNN"},
	{M_PREFIX, "cufft", "cuFFT"},
	{M_PREFIX, "cusparse", "cuSPARSE"},
	{M_PREFIX, "cusolver", "cuSOLVER"},
	{M_PREFIX, "cutlass", "CUTLASS"},
	{M_CONTAINS, "thrust", "Thrust"},
	{M_MANGLED_CONTAINS, "3cub", "CUB"},
	{M_CONTAINS, "at6native", "PyTorch"},
	{M_CONTAINS, "torch", "PyTorch"},
	{M_MANGLED_CONTAINS, "3c10", "PyTorch"},
	{M_PREFIX, "dnnl_", "oneDNN"},
	{M_PREFIX, "mkldnn_", "oneDNN"},
};

static int in_list(const char *const *l, const char *s)
{
	for (; l && *l; l++)
		if (strcmp(*l, s) == 0)
			return 1;
	return 0;
}

static int has_prefix(const char *const *l, const char *s)
{
	for (; l && *l; l++)
		if (strncmp(*l, s, strlen(*l)) == 0)
			return 1;
	return 0;
}

/* Reference BLAS/LAPACK through the Fortran ABI: a lower-case routine name
 * with a type letter (optionally after i, as in isamax) and a trailing
 * underscore, e.g. sgemm_, dgetrf_, zgemm3m_. */
static int fortran_blas(const char *s)
{
	size_t n = strlen(s), i;
	if (n < 4 || n > 9 || s[n - 1] != '_')
		return 0;
	i = s[0] == 'i' ? 1 : 0;
	if (s[i] == '\0' || !strchr("sdcz", s[i]))
		return 0;
	for (i++; i < n - 1; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

static const struct reject_group *rejected(const char *s, unsigned on)
{
	size_t i;
	for (i = 0; i < sizeof(reject_groups) / sizeof(reject_groups[0]); i++) {
		const struct reject_group *g = &reject_groups[i];
		if (!(g->on & on))
			continue;
		if (in_list(g->names, s) || has_prefix(g->prefix, s))
			return g;
	}
	return NULL;
}

static const char *fallback_lib(const char *s)
{
	size_t i;
	for (i = 0; i < sizeof(fallback_rules) / sizeof(fallback_rules[0]); i++) {
		const struct fallback_rule *r = &fallback_rules[i];
		int hit = 0;
		switch (r->how) {
		case M_PREFIX:
			hit = strncmp(s, r->pat, strlen(r->pat)) == 0;
			break;
		case M_CONTAINS:
			hit = strstr(s, r->pat) != NULL;
			break;
		case M_MANGLED_CONTAINS:
			hit = strncmp(s, "_Z", 2) == 0 && strstr(s, r->pat) != NULL;
			break;
		case M_FORTRAN_BLAS:
			hit = fortran_blas(s);
			break;
		}
		if (hit)
			return r->lib;
	}
	return NULL;
}

/* What the scan has found so far. */
struct scan {
	struct kj_symcheck *out;
	unsigned on;
	const char *libs[sizeof(fallback_rules) / sizeof(fallback_rules[0])];
	size_t nlibs;
};

static void add_lib(struct scan *sc, const char *lib)
{
	size_t i;
	for (i = 0; i < sc->nlibs; i++)
		if (strcmp(sc->libs[i], lib) == 0)
			return;
	sc->libs[sc->nlibs++] = lib;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted, so that the list does not depend on symbol table order. */
static void join_libs(struct scan *sc)
{
	size_t i, len;
	qsort(sc->libs, sc->nlibs, sizeof(sc->libs[0]), cmp_str);
	for (i = 0; i < sc->nlibs; i++) {
		len = strlen(sc->out->libs);
		snprintf(sc->out->libs + len, sizeof(sc->out->libs) - len, "%s%s", i ? "," : "",
			 sc->libs[i]);
	}
}

/* A CUDA runtime or driver API name: "cuda" or "cu" and a capital letter
 * (cudaEventElapsedTime, cuStreamSynchronize), not a kernel called cumsum. */
static int cuda_api_name(const char *s)
{
	if (strncmp(s, "cuda", 4) == 0 && s[4] >= 'A' && s[4] <= 'Z')
		return 1;
	return strncmp(s, "cu", 2) == 0 && s[2] >= 'A' && s[2] <= 'Z';
}

static void judge_symbol(struct scan *sc, const char *name, int undefined)
{
	struct kj_symcheck *out = sc->out;
	const struct reject_group *g = rejected(name, sc->on);
	const char *lib;

	if (!undefined) {
		/* Exporting a libc or CUDA name could interpose it for the
		 * worker's own lookups (timers, exit, event timing, device
		 * synchronisation) were the object ever loaded globally. */
		if (out->verdict < 2 && (g || cuda_api_name(name))) {
			out->verdict = 2;
			snprintf(out->reason, sizeof(out->reason),
				 "defines %s: a candidate may not replace library functions", name);
		}
		return;
	}
	out->nundef++;
	if (g) {
		if (out->verdict < 2) {
			out->verdict = 2;
			snprintf(out->reason, sizeof(out->reason), "calls %s: %s", name, g->why);
		}
		return;
	}
	lib = fallback_lib(name);
	if (lib) {
		add_lib(sc, lib);
		if (out->verdict < 1) {
			out->verdict = 1;
			snprintf(out->reason, sizeof(out->reason),
				 "calls %s: library fallback (%s) instead of a kernel", name, lib);
		}
	}
}

int kj_symcheck_so(const char *so_path, kj_backend b, struct kj_symcheck *out, struct kj_err *err)
{
	struct scan sc;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *name;
	size_t i, n;
	int fd, found = 0, rc = 0, bind;

	memset(out, 0, sizeof(*out));
	memset(&sc, 0, sizeof(sc));
	sc.out = out;
	sc.on = b == KJ_BACKEND_CUDA ? ON_CUDA : ON_CPU;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return kj_err_set(err, KJ_E_INTERNAL, "libelf is unusable: %s", elf_errmsg(-1));
	fd = open(so_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kj_err_sys(err, "cannot open '%s'", so_path);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = kj_err_set(err, KJ_E_IO, "'%s' is not an ELF object: %s", so_path,
				elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || sh.sh_entsize == 0)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data) {
			rc = kj_err_set(err, KJ_E_IO, "cannot read the symbols of '%s': %s", so_path,
					elf_errmsg(-1));
			goto out;
		}
		found = 1;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n; i++) {
			if (!gelf_getsym(data, (int)i, &sym))
				break;
			bind = GELF_ST_BIND(sym.st_info);
			if (bind != STB_GLOBAL && bind != STB_WEAK)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (sym.st_shndx == SHN_UNDEF)
				judge_symbol(&sc, name, 1);
			else if (GELF_ST_TYPE(sym.st_info) == STT_FUNC ||
				 GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC)
				judge_symbol(&sc, name, 0);
		}
	}
	if (!found)
		rc = kj_err_set(err, KJ_E_IO, "'%s' has no dynamic symbol table", so_path);
	join_libs(&sc);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
