/* Probe libraries for the worker and jail tests: a C source built into a
 * shared object in the test's folder.  Included by test_worker.c,
 * test_sandbox.c and test_jail.c. */
#ifndef KJ_TEST_SO_TESTLIB_H
#define KJ_TEST_SO_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>

/* Writes src to dir/name.c and builds dir/name.so with cc (extra: more
 * flags for its command line, "" for none).  0 when it built. */
static int kjt_build_so(const char *dir, const char *name, const char *src, const char *extra)
{
	char path[512], cmd[4096];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s.c", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -std=gnu11 -O1 -shared -fPIC -o %s/%s.so %s %s", dir, name, path,
		 extra);
	return system(cmd);
}

/* dir/name.so; the last eight results stay valid. */
static const char *kjt_so_path(const char *dir, const char *name)
{
	static char p[8][512];
	static int i;
	i = (i + 1) % 8;
	snprintf(p[i], sizeof(p[i]), "%s/%s.so", dir, name);
	return p[i];
}

#endif
