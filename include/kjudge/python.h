/*
 * Python candidates (--backend triton|kernelbench): the signature a candidate
 * writes, generated from the task like the C prototype (kj_task_prototype).
 * The judge runs them in python/kjudge_pyworker.py (docs/kernelbench.md,
 * docs/worker-protocol.md).
 */
#ifndef KJUDGE_PYTHON_H
#define KJUDGE_PYTHON_H

#include <stddef.h>
#include <sys/types.h>

#include "kjudge/compile.h"
#include "kjudge/task.h"

/* The candidate's Python signature with one comment line per argument
 * (dtype, shape, role), no trailing newline:
 *   triton:      "def softmax(x, y, B: int, D: int) -> None:" and comments
 *   kernelbench: "class ModelNew(nn.Module):" with forward(self, x) and the
 *                params bound onto its parameters, in order
 * Returns 0, or KJ_E_USAGE when it does not fit in len bytes. */
int kj_task_py_signature(const kj_task *t, kj_backend b, char *buf, size_t len);

struct kj_jail;
struct kj_err;
/* The jail of a Python worker (include/kjudge/jail.h): the interpreter's
 * folders (asked of it once per process: its prefixes and sys.path) read-only,
 * the worker script staged as KJ_JAIL_STAGE/kjudge_pyworker.py, the build
 * folder (Triton's and torch's caches of this candidate; may be NULL)
 * read-write at its own path, the GPU.  exe gets the interpreter to run
 * there (its sys.executable: a launcher such as pyenv's shim is not in the
 * jail).  *out is malloc'd: free() it.  Returns 0, or an error with err set. */
int kj_python_jail(const char *python, const char *script, const char *build, struct kj_jail **out,
		   char *exe, size_t exe_len, struct kj_err *err);

/* Writes the Python worker's seccomp filter to fd as raw BPF (an array of
 * struct sock_filter, for seccomp(2)): a denylist of what no timed call needs
 * (exec, fork, sockets other than AF_UNIX, ptrace, namespaces, mounts, bpf,
 * perf events, keyrings, io_uring...: src/judge/pyfilter.c, docs/kernelbench.md).
 * The worker installs it on all its threads at the end of SETUP.  Returns 0,
 * or an error with err set. */
int kj_py_filter_export(int fd, struct kj_err *err);

/* Whether every thread of process pid runs under a seccomp filter
 * ("Seccomp: 2" in /proc/pid/task/<tid>/status): the judge's own check,
 * from outside, before it sends the candidate.  Returns 1; 0 with why
 * naming the thread that is not; -1 with why when pid cannot be read. */
int kj_py_filter_on(pid_t pid, char *why, size_t len);

/* The task of a KernelBench problem file (docs/kernelbench.md, "KernelBench
 * problem files as tasks"): the trusted describe step (`kjudge_pyworker.py
 * --describe PROBLEM` in $KJ_PYTHON, which imports the problem, builds its
 * Model under KernelBench's seed and runs forward once on the GPU for the
 * outputs' shapes), cached under <cache>/kbdesc/ by the sha256 of the
 * problem file, the worker script and the interpreter's path, then
 * kj_task_from_kernelbench.  cache_dir: kj_cache_dir's override (NULL: the
 * default); include_dir: the candidate headers' folder, beside which the
 * worker script is found (or $KJ_PYWORKER).  Returns 0 with *out set
 * (kj_task_free), KJ_E_NOTFOUND (no such file), KJ_E_PARSE (the file is not
 * a KernelBench problem: no Model, get_inputs or get_init_inputs, or what
 * they give kjudge cannot pass), or KJ_E_WORKER / KJ_E_UNSUPPORTED (the
 * describe step failed: no python3 or torch, no CUDA device, the problem's
 * code raised; the message has the exception's last line). */
int kj_kb_task_load(const char *problem, const char *cache_dir, const char *include_dir, kj_task **out,
		    struct kj_err *err);

/* "torch.float32" for a task dtype. */
const char *kj_dtype_torch_name(kj_dtype d);

#endif
