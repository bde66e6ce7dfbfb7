/*
 * The Python worker (python/kjudge_pyworker.py) against the judge's own
 * client, without a GPU: it says HELLO with the protocol's version, answers
 * NOPs, refuses the CPU track (a LOAD without cuda, a host arena: the memfd
 * is closed, the worker lives on), refuses a CALL before a LOAD, reports a
 * missing torch as an environment error (kjudge-env:) rather than a verdict,
 * and ends on a malformed request.  Then what the os calls a candidate may
 * make since issue 21 reach in its jail.  Needs python3 on PATH (or $KJ_PYTHON);
 * the script is found from the repository root ($KJ_ROOT, default ".").
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kjudge/jail.h"
#include "kjudge/python.h"
#include "kjudge/sandbox.h"
#include "sandbox/wire.h"
#include "py_testlib.h"
#include "tap.h"

static char python[PATH_MAX], script[PATH_MAX + 64], scratch[256];
static const char abi[] = "{\"entry\":\"relu\",\"syms\":[\"N\"],\"args\":[{\"name\":\"x\",\"dtype\":\"f32\","
			  "\"shape\":[\"N\"],\"kind\":\"input\"},{\"name\":\"y\",\"dtype\":\"f32\",\"shape\":"
			  "[\"N\"],\"kind\":\"output\"}]}";

/* The worker in its jail, as the judge starts it (cand_py.c). */
static int start(struct kj_worker *w, int cuda, struct kj_err *err)
{
	static const char *argv[12];
	static struct kj_jail *jail;
	struct kj_worker_opts o;
	int rc;
	if (!jail && (rc = kj_python_jail(python, script, NULL, &jail, python, sizeof(python), err)))
		return rc;
	argv[0] = python;
	argv[1] = "-I";
	argv[2] = KJ_JAIL_STAGE "/kjudge_pyworker.py";
	argv[3] = "--backend";
	argv[4] = "triton";
	argv[5] = "--abi";
	argv[6] = abi;
	argv[7] = "--cache";
	argv[8] = KJ_JAIL_SCRATCH;
	argv[9] = NULL;
	memset(&o, 0, sizeof(o));
	o.worker_path = python;
	o.argv = argv;
	o.scratch_dir = scratch;
	o.cuda = cuda;
	o.cpu_limit_s = 120;
	o.jail = jail;
	return kj_worker_start(w, &o, err);
}

/* What os calls the static check lets a candidate make (issue 21: os for
 * paths, the environment and folders) reach in the Python worker's jail: a
 * stand-in script, staged where the worker would be, tries each and prints
 * one word per try; it sends no HELLO, so the start fails and its output
 * comes back in the error.  The scratch folder, /tmp and the build cache are
 * writable (and / itself, the jail's own tmpfs); /usr and the interpreter's
 * folders are not; no route leaves the network namespace.  exec is printed, not asserted: the jail
 * allows it (the build step needs it); the timed worker's seccomp filter
 * refuses it (test_pyfilter, test_pysandbox). */
static const char jail_probe[] =
	"import os, socket, sys\n"
	"def w(path):\n"
	"    try:\n"
	"        os.makedirs(path, exist_ok=True)\n"
	"        os.rmdir(path)\n"
	"        return 'ok'\n"
	"    except OSError as e:\n"
	"        return 'no'\n"
	"out = ['usr=' + w('/usr/kj_probe'), 'prefix=' + w(os.path.join(sys.prefix, 'kj_probe')),\n"
	"       'root=' + w('/kj_probe'), 'tmp=' + w('/tmp/kj_probe'), 'cwd=' + w('kj_probe'),\n"
	"       'build=' + w(os.path.join(sys.argv[1], 'kj_probe'))]\n"
	"try:\n"
	"    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
	"    s.settimeout(2)\n"
	"    s.connect(('1.1.1.1', 53))\n"
	"    out.append('net=ok')\n"
	"except OSError:\n"
	"    out.append('net=no')\n"
	"out.append('exec=' + ('ok' if os.system('true') == 0 else 'no'))\n"
	"print('PROBE ' + ' '.join(out) + ' END', flush=True)\n";

static void jail_reach(void)
{
	char probe[PATH_MAX], build[PATH_MAX];
	const char *argv[4];
	struct kj_jail *jail = NULL;
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_err err;
	FILE *f;
	int rc;
	const char *m;
	snprintf(probe, sizeof(probe), "%s-probe.py", scratch);
	snprintf(build, sizeof(build), "%s-build", scratch);
	kj_err_init(&err);
	if (!(f = fopen(probe, "w")) || fputs(jail_probe, f) < 0 || fclose(f) || mkdir(build, 0777)) {
		ok(0, "the jail probe is written");
		return;
	}
	if (kj_python_jail(python, probe, build, &jail, python, sizeof(python), &err)) {
		ok(0, "the Python jail is built: %s", err.msg);
		remove(probe);
		rmdir(build);
		return;
	}
	argv[0] = python;
	argv[1] = KJ_JAIL_STAGE "/kjudge_pyworker.py";
	argv[2] = build;
	argv[3] = NULL;
	memset(&o, 0, sizeof(o));
	o.worker_path = python;
	o.argv = argv;
	o.scratch_dir = scratch;
	o.cpu_limit_s = 60;
	o.jail = jail;
	rc = kj_worker_start(&w, &o, &err);
	m = strstr(err.msg, "PROBE ");
	if (m && strstr(m, " END"))
		strstr(m, " END")[4] = '\0';
	ok(rc != 0 && m && strstr(m, " END"), "the jail probe ran in the Python worker's jail (%s)",
	   m ? m : err.msg);
	if (m) {
		ok(strstr(m, "usr=no") && strstr(m, "prefix=no"),
		   "  os.makedirs in /usr or the interpreter's folders fails (read-only binds)");
		printf("# / in the Python jail: %s (the jail's own tmpfs, gone with it)\n",
		       strstr(m, "root=ok") ? "writable" : "read-only");
		ok(strstr(m, "tmp=ok") && strstr(m, "cwd=ok") && strstr(m, "build=ok"),
		   "  /tmp, the scratch folder and the build cache are writable");
		ok(strstr(m, "net=no") != NULL, "  no connection leaves the network namespace");
		printf("# exec in the Python jail: %s (the jail allows it; the timed worker's seccomp filter does not)\n",
		       strstr(m, "exec=ok") ? "possible" : "blocked");
	}
	if (rc == 0)
		kj_worker_stop(&w);
	free(jail);
	remove(probe);
	rmdir(build);
}

int main(void)
{
	struct kj_worker w;
	struct kj_err err;
	struct kj_call_result res;
	const char *root = getenv("KJ_ROOT");
	uint64_t off[2] = { 0, 256 };
	int64_t dims[1] = { 4 };
	int rc;
	char cwd[PATH_MAX];
	/* absolute: the worker runs in its scratch folder */
	snprintf(script, sizeof(script), "%s/python/kjudge_pyworker.py",
		 root && *root ? root : getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	snprintf(scratch, sizeof(scratch), "%s/kjpyw-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	if (kjt_find_python(python, sizeof(python)) || access(script, R_OK)) {
		printf("1..0 # SKIP no python3 or no %s\n", script);
		return 0;
	}
	kj_err_init(&err);

	if (!is_int(start(&w, 0, &err), 0, "the Python worker starts and its HELLO carries version %d",
		    KJ_WIRE_VERSION)) {
		printf("#   %s\n#   log: %s\n", err.msg, w.log.buf ? w.log.buf : "");
		return done_testing();
	}
	rc = kj_worker_nop(&w, 10, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_OK, "NOP is answered OK");
	ok(res.gpu_ns == -1 && res.devsync_ns == -1, "a NOP reports no GPU times");
	rc = kj_worker_call(&w, off, 2, dims, 1, 10, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_ERROR, "a CALL before any LOAD is an ERROR");
	like(res.msg, "no candidate is loaded", "  and says so");
	rc = kj_worker_load(&w, "/nonexistent/cand.py", "relu", 2, 1, 10, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_ERROR, "a LOAD without cuda is refused");
	like(res.msg, "only on the CUDA track", "  the Python worker runs only on the CUDA track");
	rc = kj_worker_arena(&w, 4096, &err);
	ok(rc != 0, "a host (memfd) arena is refused");
	like(err.msg, "CUDA track", "  naming the CUDA track");
	rc = kj_worker_nop(&w, 10, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_OK && !w.dead, "the worker lives on after its refusals");
	rc = kj_worker_load(&w, "/nonexistent/cand.py", "relu", 3, 1, 10, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_ERROR, "a LOAD whose counts differ from the ABI is refused");
	kj_worker_stop(&w);

	/* with cuda: the interpreter here may have no torch; then LOAD names it */
	if (!is_int(start(&w, 1, &err), 0, "a CUDA-track Python worker starts")) {
		printf("#   %s\n", err.msg);
		return done_testing();
	}
	rc = kj_worker_load(&w, "/nonexistent/cand.py", "relu", 2, 1, 120, &res, &err);
	ok(rc == 0 && (res.status == KJ_CALL_ERROR || res.status == KJ_CALL_OK),
	   "a CUDA LOAD is answered (status %s: %s)", kj_call_status_name(res.status), res.msg);
	if (strstr(res.msg, "kjudge-env:"))
		like(res.msg, "cannot import torch", "  without torch: an environment error, not a verdict");
	else
		ok(strstr(res.msg, "cannot read") || strstr(res.msg, "CUDA") || res.status == KJ_CALL_OK,
		   "  with torch: the missing file or the missing device is named");
	kj_worker_stop(&w);

	/* a malformed request ends the worker with status 3 */
	if (start(&w, 0, &err) == 0) {
		unsigned char junk[12] = { (unsigned char)KJ_WIRE_NOP, 0, 0, 0, 7, 0, 0, 0, 1, 2, 3, 4 };
		int st = 0;
		ok(send(w.sock, junk, sizeof(junk), 0) == (ssize_t)sizeof(junk), "a NOP of the wrong size is sent");
		int got = waitpid(w.pid, &st, 0) == w.pid && WIFEXITED(st) && WEXITSTATUS(st) == 3;
		ok(got, "the worker exits with status 3 on a malformed request (wait status %d)", st);
		w.pid = 0;
		w.dead = 1;
		kj_worker_stop(&w);
	}
	jail_reach();
	rmdir(scratch);
	return done_testing();
}
