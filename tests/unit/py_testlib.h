/* What the Python worker's tests share: finding the interpreter, a venv's
 * site-packages folder, and a venv with stand-in torch, cupy and triton.
 * Included by test_pyworker.c, test_pyfilter.c, test_pysandbox.c,
 * test_pybuild.c and test_pypool.c. */
#ifndef KJ_TEST_PY_TESTLIB_H
#define KJ_TEST_PY_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* $KJ_PYTHON (a path, or a name looked up on $PATH), else python3 on
 * $PATH, into out.  0 when it is executable. */
__attribute__((unused)) static int kjt_find_python(char *out, size_t len)
{
	const char *e = getenv("KJ_PYTHON"), *path = getenv("PATH");
	if (e && *e && strchr(e, '/')) {
		snprintf(out, len, "%s", e);
		return access(out, X_OK);
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");
		snprintf(out, len, "%.*s/%s", (int)n, path, e && *e ? e : "python3");
		if (access(out, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

/* The first site-packages folder of the interpreter py, into site.  0 when
 * it answered. */
__attribute__((unused)) static int kjt_site_packages(const char *py, char *site, size_t len)
{
	char cmd[PATH_MAX + 96];
	FILE *f;
	snprintf(cmd, sizeof(cmd), "'%s' -I -c 'import site; print(site.getsitepackages()[0])'", py);
	if (!(f = popen(cmd, "r")) || !fgets(site, (int)len, f)) {
		if (f)
			pclose(f);
		return -1;
	}
	pclose(f);
	site[strcspn(site, "\n")] = '\0';
	return 0;
}

/* Stand-in torch, cupy and triton: what the Python worker's SETUP touches of
 * them, and no more (test_pysandbox.c, test_pypool.c). */
__attribute__((unused)) static const struct {
	const char *path, *text;
} kjt_fakes[] = {
	{ "torch/__init__.py",
	  "import contextlib\n__version__ = '0.0-fake'\nno_grad = contextlib.nullcontext\n"
	  "class _Dtype:\n    def __init__(self, f):\n        self.is_floating_point = f\n"
	  "float32 = float16 = bfloat16 = float8_e4m3fn = _Dtype(True)\n"
	  "int8 = int32 = int64 = bool = _Dtype(False)\n"
	  "class Tensor:\n    def zero_(self):\n        return self\n    def view(self, *a):\n        return self\n"
	  "def empty(*a, **k):\n    return Tensor()\n"
	  "def set_grad_enabled(b):\n    pass\n"
	  "class cuda:\n"
	  "    class Event:\n        pass\n"
	  "    @staticmethod\n    def set_device(d):\n        pass\n"
	  "    @staticmethod\n    def ExternalStream(s, device=None):\n        return s\n"
	  "    @staticmethod\n    def set_stream(s):\n        pass\n"
	  "    @staticmethod\n    def synchronize():\n        pass\n"
	  "class _C:\n"
	  "    @staticmethod\n    def _cuda_getCurrentRawStream(d):\n        return 7\n"
	  "    @staticmethod\n    def _len_torch_dispatch_stack():\n        return 0\n" },
	{ "torch/utils/__init__.py", "" },
	{ "torch/utils/_python_dispatch.py",
	  "class TorchDispatchMode:\n    def __enter__(self):\n        return self\n"
	  "    def __exit__(self, *a):\n        return False\n" },
	{ "cupy/__init__.py", "__version__ = '0.0-fake'\nfrom . import cuda\n" },
	{ "cupy/cuda/__init__.py",
	  "class Device:\n    def __init__(self, d):\n        pass\n    def use(self):\n        pass\n" },
	{ "cupy/cuda/runtime.py",
	  "class CUDARuntimeError(Exception):\n    pass\n"
	  "def streamCreateWithFlags(f):\n    return 7\n"
	  "def eventCreate():\n    return 1\n"
	  "def eventRecord(e, s):\n    pass\n"
	  "def eventSynchronize(e):\n    pass\n"
	  "def eventElapsedTime(a, b):\n    return 0.001\n"
	  "def deviceSynchronize():\n    pass\n"
	  "def memsetAsync(*a):\n    pass\n"
	  "def streamSynchronize(s):\n    pass\n"
	  "def ipcOpenMemHandle(h):\n    return 0\n"
	  "def ipcCloseMemHandle(p):\n    pass\n" },
	{ "triton/__init__.py", "__version__ = '0.0-fake'\n" },
	{ "triton/language/__init__.py", "" },
};

/* dir/venv: a virtual environment of python3 whose site-packages hold the
 * stand-ins; its interpreter into py.  0, or -1 (no venv module...). */
__attribute__((unused)) static int kjt_make_fake_venv(const char *dir, char *py, size_t len)
{
	char cmd[PATH_MAX * 2 + 64], site[PATH_MAX], p[PATH_MAX * 2];
	snprintf(cmd, sizeof(cmd), "python3 -m venv --without-pip '%s/venv' >/dev/null 2>&1", dir);
	if (system(cmd) != 0)
		return -1;
	snprintf(py, len, "%s/venv/bin/python3", dir);
	if (kjt_site_packages(py, site, sizeof(site)))
		return -1;
	for (size_t i = 0; i < sizeof(kjt_fakes) / sizeof(kjt_fakes[0]); i++) {
		char *slash;
		FILE *f;
		snprintf(p, sizeof(p), "%s/%s", site, kjt_fakes[i].path);
		for (slash = strchr(p + strlen(site) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			mkdir(p, 0755);
			*slash = '/';
		}
		if (!(f = fopen(p, "w")))
			return -1;
		fputs(kjt_fakes[i].text, f);
		if (fclose(f))
			return -1;
	}
	return 0;
}

#endif
