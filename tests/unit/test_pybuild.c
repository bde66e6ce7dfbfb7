/*
 * The Python build step (kjj_py_build, src/judge/cand_py.c) end to end
 * without a GPU: the judge starts kjudge_pyworker.py --build in the
 * candidate's jail with a stand-in torch (a virtual environment whose
 * site-packages hold a fake torch and triton), reads its result lines, and
 * maps them: a load_inline build error is a compile_error at the compile
 * stage naming the candidate's line, with the compiler's message in the
 * compile log and the step's time as the compile time; a candidate that
 * imports goes on, after one warm-up call of its entry on each distinct
 * check and GPU bench shape (not the CPU bench shape), tensors then dims; a
 * Python without torch is the judge's error; the build folder is keyed by
 * the source's hash; the compile-ahead's step (kj_py_prebuild) runs without
 * the GPU, with the device's TORCH_CUDA_ARCH_LIST, for load_inline sources
 * of the kernelbench track only.  Needs python3 with its venv
 * module and bubblewrap (without bwrap the step runs unconfined, and says
 * so); the worker is found from the repository root ($KJ_ROOT, default ".").
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/judge_internal.h"
#include "kjudge/hash.h"
#include "kjudge/jail.h"
#include "kjudge/task.h"
#include "py_testlib.h"
#include "tap.h"

static char dir[PATH_MAX], root[PATH_MAX], worker[PATH_MAX];
/* the next build()'s compile-ahead settings (kj_py_prebuild's) */
static int next_cpu_only;
static const char *next_arch_list = "";

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A virtual environment at dir/name; with_torch: a fake torch and triton in
 * its site-packages.  Its interpreter's path goes to py. */
static int make_venv(const char *name, int with_torch, char *py, size_t len)
{
	char cmd[PATH_MAX * 2 + 64], site[PATH_MAX], p[PATH_MAX * 2];
	snprintf(cmd, sizeof(cmd), "python3 -m venv --without-pip '%s/%s' >/dev/null 2>&1", dir, name);
	if (system(cmd) != 0)
		return -1;
	snprintf(py, len, "%s/%s/bin/python3", dir, name);
	if (!with_torch)
		return 0;
	if (kjt_site_packages(py, site, sizeof(site)))
		return -1;
	snprintf(p, sizeof(p), "%s/torch", site);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/torch/__init__.py", site);
	/* enough of torch for the warm-up's tensors: dtypes, randn, zeros */
	if (write_file(p, "import contextlib\n__version__ = '0.0-fake'\nno_grad = contextlib.nullcontext\n"
			  "class _Dtype:\n    def __init__(self, f):\n        self.is_floating_point = f\n"
			  "float32 = float16 = bfloat16 = float8_e4m3fn = _Dtype(True)\n"
			  "int8 = int32 = int64 = bool = _Dtype(False)\n"
			  "class _Tensor:\n    def to(self, dt):\n        return self\n"
			  "def randn(shape, device=None):\n    return _Tensor()\n"
			  "def zeros(shape, dtype=None, device=None):\n    return _Tensor()\n"
			  "class cuda:\n    @staticmethod\n    def synchronize():\n        pass\n"))
		return -1;
	snprintf(p, sizeof(p), "%s/triton", site);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/triton/language", site);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/triton/__init__.py", site);
	if (write_file(p, "__version__ = '0.0-fake'\n"))
		return -1;
	snprintf(p, sizeof(p), "%s/triton/language/__init__.py", site);
	return write_file(p, "");
}

struct run {
	struct judge j;
	struct kj_eval_opts o;
	kj_verdict v;
	struct kjj_py py;
	struct kj_err err;
	int rc;
};

/* One build step of the source src as backend b, with the interpreter py. */
static void build(struct run *r, const kj_task *t, kj_backend b, const char *python, const char *src,
		  int unconfined)
{
	char cache[PATH_MAX + 16];
	memset(r, 0, sizeof(*r));
	kj_eval_opts_init(&r->o);
	r->o.backend = b;
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	r->o.cache_dir = cache;
	kj_verdict_init(&r->v);
	r->v.status = KJ_ST_PASS;
	r->v.stage = KJ_STAGE_DONE;
	kj_sha256_hex(src, strlen(src), r->v.sha256);
	kj_err_init(&r->err);
	r->j.t = t;
	r->j.o = &r->o;
	r->j.v = &r->v;
	r->j.err = &r->err;
	r->j.load_timeout_s = 60;
	kjj_py_init(&r->py);
	snprintf(r->py.python, sizeof(r->py.python), "%s", python);
	snprintf(r->py.worker, sizeof(r->py.worker), "%s", worker);
	snprintf(r->py.cache, sizeof(r->py.cache), "%s", cache);
	snprintf(r->py.cand, sizeof(r->py.cand), "%s/cand-%.8s.py", dir, r->v.sha256);
	mkdir(cache, 0755);
	if (write_file(r->py.cand, src)) {
		r->rc = -100;
		return;
	}
	r->py.cpu_only = next_cpu_only;
	snprintf(r->py.arch_list, sizeof(r->py.arch_list), "%s", next_arch_list);
	r->rc = kjj_py_build(&r->j, &r->py, NULL, unconfined);
}

static void done(struct run *r)
{
	kjj_py_release(&r->py);
	kj_verdict_release(&r->v);
}

static const char warm_src[] =
	"import os\nimport torch\nimport triton\ndef relu(x, y, B, D):\n"
	"    os.makedirs(os.path.join(os.environ['TRITON_CACHE_DIR'], 'B%d_D%d' % (B, D)), exist_ok=True)\n"
	"    os.makedirs(os.path.join(os.environ['TRITON_CACHE_DIR'], 'at' + os.environ['TRITON_CACHE_DIR'].replace('/', "
	"'_')), exist_ok=True)\n";

int main(void)
{
	char tmpl[] = "/tmp/kj-pybuild-XXXXXX", fake[PATH_MAX], bare[PATH_MAX], path[PATH_MAX * 2];
	const char *e = getenv("KJ_ROOT");
	kj_task *t = NULL;
	struct kj_err err;
	struct run r;
	struct stat st;
	int unconfined;
	snprintf(root, sizeof(root), "%s", e && *e ? e : ".");
	snprintf(path, sizeof(path), "%s/python/kjudge_pyworker.py", root);
	if (!realpath(path, worker)) {
		ok(0, "the worker is at %s", path);
		return done_testing();
	}
	if (!mkdtemp(tmpl) || chmod(tmpl, 0755) < 0) {
		ok(0, "a temporary folder");
		return done_testing();
	}
	snprintf(dir, sizeof(dir), "%s", tmpl);
	kj_err_init(&err);
	snprintf(path, sizeof(path), "%s/tasks/level1/relu.kt", root);
	if (kj_task_load(path, &t, &err)) {
		ok(0, "level1/relu loads: %s", err.msg);
		return done_testing();
	}
	if (!ok(make_venv("fake", 1, fake, sizeof(fake)) == 0 && make_venv("bare", 0, bare, sizeof(bare)) == 0,
		"python3 makes two virtual environments (one with a stand-in torch)"))
		return done_testing();
	kj_err_init(&err);
	unconfined = kj_jail_available(&err) != 0;
	ok(1, "the build step runs %s", unconfined ? "UNCONFINED (no bubblewrap here)" : "in its jail");

	build(&r, t, KJ_BACKEND_KERNELBENCH, fake,
	      "import torch\nx = 1\nraise RuntimeError(\"Error building extension 'kj_relu': nvcc fatal   : "
	      "Unsupported gpu architecture 'compute_999'\")\nclass ModelNew(object):\n    pass\n",
	      unconfined);
	ok(r.rc == 1, "a load_inline build error: kjj_py_build set a verdict (rc %d%s%s)", r.rc,
	   r.err.msg[0] ? ": " : "", r.err.msg);
	ok(r.v.status == KJ_ST_COMPILE_ERROR && r.v.stage == KJ_STAGE_COMPILE,
	   "it is a compile_error at the compile stage (status %d stage %d)", r.v.status, r.v.stage);
	ok(strstr(r.v.reason, "candidate.py:3") && strstr(r.v.reason, "Error building extension"),
	   "the reason names the candidate's line and the build error: '%s'", r.v.reason);
	ok(r.v.compile_log && strstr(r.v.compile_log, "Unsupported gpu architecture 'compute_999'"),
	   "the compiler's whole message is in the compile log");
	ok(r.v.compile_s > 0 && r.v.stage_s[KJ_STAGE_COMPILE] == r.v.compile_s,
	   "its time is the compile time (%.3f s)", r.v.compile_s);
	done(&r);

	/* the warm-up calls leave one folder per shape in Triton's cache, and
	 * one that names where the cache is: in the jail, KJ_JAIL_BUILD, where
	 * the timed worker has its copy (Triton's group files name their
	 * members by absolute path) */
	build(&r, t, KJ_BACKEND_TRITON, fake,
	      warm_src,
	      unconfined);
	ok(r.rc == 0 && r.v.status == KJ_ST_PASS, "a candidate that imports goes on (rc %d status %d%s%s)", r.rc,
	   r.v.status, r.err.msg[0] ? ": " : "", r.err.msg);
	snprintf(path, sizeof(path), "%s/cache/pybuild/%.2s/%s", dir, r.v.sha256, r.v.sha256);
	ok(stat(path, &st) == 0 && S_ISDIR(st.st_mode), "its build folder is keyed by the source's sha256");
	{
		static const char *const shapes[] = { "B1_D1", "B3_D1000", "B17_D4097", "B5_D31", "B8192_D65536",
						      "B4096_D131071" };
		int all = 1;
		for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
			snprintf(path, sizeof(path), "%s/cache/pybuild/%.2s/%s/triton/%s", dir, r.v.sha256,
				 r.v.sha256, shapes[i]);
			if (stat(path, &st) != 0) {
				all = 0;
				printf("# no warm-up call on %s\n", shapes[i]);
			}
		}
		ok(all, "the entry was called once on each check shape and GPU bench shape");
		snprintf(path, sizeof(path), "%s/cache/pybuild/%.2s/%s/triton/B256_D4096", dir, r.v.sha256, r.v.sha256);
		ok(stat(path, &st) != 0, "and not on the CPU track's bench shape");
		if (!unconfined) {
			snprintf(path, sizeof(path), "%s/cache/pybuild/%.2s/%s/triton/at_kjbuild_triton", dir,
				 r.v.sha256, r.v.sha256);
			ok(stat(path, &st) == 0, "in the jail the build step's Triton cache is " KJ_JAIL_BUILD "/triton");
		}
	}
	ok(!r.v.compile_cached, "the first build is no cached one");
	done(&r);

	/* the same source again: the judge's stamp says the build completed */
	snprintf(path, sizeof(path), "%s/cache/pybuild/%.2s/%s/triton/B1_D1", dir, r.v.sha256, r.v.sha256);
	rmdir(path);
	build(&r, t, KJ_BACKEND_TRITON, fake,
	      warm_src,
	      unconfined);
	ok(r.rc == 0 && r.v.compile_cached && stat(path, &st) != 0,
	   "a second judgement of the same source reuses the completed build (no step run: rc %d cached %d)", r.rc,
	   r.v.compile_cached);
	done(&r);

	/* unconfined (--unsafe-no-sandbox): the same step, run directly */
	build(&r, t, KJ_BACKEND_KERNELBENCH, fake,
	      "import torch\nraise RuntimeError(\"Error building extension 'kj_x': nvcc fatal\")\n"
	      "class ModelNew(object):\n    pass\n",
	      1);
	ok(r.rc == 1 && r.v.status == KJ_ST_COMPILE_ERROR && strstr(r.v.reason, "candidate.py:2"),
	   "unconfined, the build step gives the same verdict (rc %d: '%s'%s%s)", r.rc, r.v.reason,
	   r.err.msg[0] ? "; " : "", r.err.msg);
	done(&r);

	/* the compile-ahead's step (kj_py_prebuild): no GPU, the device's
	 * architecture named for nvcc; what the import sees names a folder */
	{
		static const char see[] =
			"import os\nimport torch\n"
			"os.makedirs(os.path.join(os.environ['TORCH_EXTENSIONS_DIR'], 'arch=%s cvd=%s nvidiactl=%s' % ("
			"os.environ.get('TORCH_CUDA_ARCH_LIST', 'unset'), os.environ.get('CUDA_VISIBLE_DEVICES', 'unset') "
			"or 'empty', os.path.exists('/dev/nvidiactl'))), exist_ok=True)\n"
			"class ModelNew(object):\n    pass\n";
		next_cpu_only = 1;
		next_arch_list = "9.0+PTX";
		build(&r, t, KJ_BACKEND_KERNELBENCH, fake, see, unconfined);
		next_cpu_only = 0;
		next_arch_list = "";
		snprintf(path, sizeof(path), "%s/cache/pybuild/%.2s/%s/torch_extensions/arch=9.0+PTX cvd=empty nvidiactl=False",
			 dir, r.v.sha256, r.v.sha256);
		ok(r.rc == 0 && stat(path, &st) == 0,
		   "without the GPU the build step sees no device and the device's TORCH_CUDA_ARCH_LIST (rc %d%s%s)",
		   r.rc, r.err.msg[0] ? ": " : "", r.err.msg);
		done(&r);
	}
	{
		char cache[PATH_MAX + 16];
		struct kj_eval_opts o;
		int built = -1, rc;
		/* (the stand-in torch has no cpp_extension: the import stops there) */
		static const char inl[] = "import os\nimport torch\n"
					  "os.makedirs(os.path.join(os.environ['TORCH_EXTENSIONS_DIR'], 'imported'), "
					  "exist_ok=True)\nfrom torch.utils.cpp_extension import load_inline\n"
					  "class ModelNew(object):\n    pass\n";
		char sha[65];
		kj_eval_opts_init(&o);
		o.backend = KJ_BACKEND_KERNELBENCH;
		snprintf(cache, sizeof(cache), "%s/cache", dir);
		o.cache_dir = cache;
		o.unconfined = unconfined;
		setenv("KJ_PYTHON", fake, 1);
		setenv("KJ_PYWORKER", worker, 1);
		kj_err_init(&err);
		rc = kj_py_prebuild(t, inl, strlen(inl), &o, "sm_90a", &built, &err);
		kj_sha256_hex(inl, strlen(inl), sha);
		snprintf(path, sizeof(path), "%s/cache/pybuild/%.2s/%s/torch_extensions/imported", dir, sha, sha);
		ok(rc == 0 && built == 1 && stat(path, &st) == 0,
		   "kj_py_prebuild runs the import of a load_inline candidate ahead (rc %d built %d%s%s)", rc, built,
		   err.msg[0] ? ": " : "", err.msg);
		rc = kj_py_prebuild(t, "import torch\nclass ModelNew(object):\n    pass\n", 40, &o, "sm_90a", &built, &err);
		ok(rc == 0 && built == 0, "and nothing for a candidate without load_inline (it needs the GPU to warm up)");
		o.backend = KJ_BACKEND_TRITON;
		rc = kj_py_prebuild(t, inl, strlen(inl), &o, "sm_90a", &built, &err);
		ok(rc == 0 && built == 0, "nor on the triton track");
		unsetenv("KJ_PYTHON");
		unsetenv("KJ_PYWORKER");
	}

	build(&r, t, KJ_BACKEND_TRITON, bare, "import torch\ndef relu(x, y, B, D):\n    pass\n", unconfined);
	ok(r.rc == KJ_E_UNSUPPORTED && strstr(r.err.msg, "cannot import torch") && r.v.status == KJ_ST_PASS,
	   "a Python without torch is the judge's error, not a verdict (rc %d: %s)", r.rc, r.err.msg);
	done(&r);

	kj_task_free(t);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		ok(0, "the temporary folder is removed");
	return done_testing();
}
