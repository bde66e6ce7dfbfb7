/* What the Python worker's tests share: finding the interpreter and a
 * venv's site-packages folder.  Included by test_pyworker.c,
 * test_pyfilter.c, test_pysandbox.c and test_pybuild.c. */
#ifndef KJ_TEST_PY_TESTLIB_H
#define KJ_TEST_PY_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#endif
