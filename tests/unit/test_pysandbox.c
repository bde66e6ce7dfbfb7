/*
 * The timed Python worker's sandbox end to end, without a GPU: the worker
 * runs in its jail as the judge starts it (the filter staged, --seccomp)
 * with stand-in torch, cupy and triton (a virtual environment whose
 * site-packages hold them: enough for SETUP's imports, stream and events).
 * Before SETUP no filter is on; after SETUP the judge's own check of
 * /proc/PID/task/<tid>/status sees it on every thread; an empty PROBE still
 * works under it; a candidate that runs os.system or opens an AF_INET socket
 * at import is refused by the filter and the LOAD fails naming the attempt
 * and the candidate's line (each candidate in a worker of its own: a second
 * LOAD is refused); the worker lives on (NOP).  Needs python3 with
 * its venv module and bubblewrap (without bwrap: skipped, saying so); the
 * worker is found from the repository root ($KJ_ROOT, default ".").
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kjudge/err.h"
#include "kjudge/jail.h"
#include "kjudge/python.h"
#include "kjudge/sandbox.h"
#include "py_testlib.h"
#include "tap.h"

static char dir[PATH_MAX], worker[PATH_MAX];

static const char abi[] = "{\"entry\":\"relu\",\"syms\":[\"N\"],\"args\":[{\"name\":\"x\",\"dtype\":\"f32\","
			  "\"shape\":[\"N\"],\"kind\":\"input\"},{\"name\":\"y\",\"dtype\":\"f32\",\"shape\":"
			  "[\"N\"],\"kind\":\"output\"}]}";

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* dir/venv with the stand-ins (py_testlib.h); its interpreter into py. */
static int make_venv(char *py, size_t len)
{
	return kjt_make_fake_venv(dir, py, len);
}

int main(void)
{
	char tmpl[] = "/tmp/kj-pysandbox-XXXXXX", python[PATH_MAX], bpf[PATH_MAX + 16], scratch[PATH_MAX + 16];
	char cand[PATH_MAX + 16], path[PATH_MAX * 2], why[512];
	const char *e = getenv("KJ_ROOT"), *argv[14];
	struct kj_jail *jail = NULL;
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	int fd, rc, on;
	snprintf(path, sizeof(path), "%s/python/kjudge_pyworker.py", e && *e ? e : ".");
	if (!realpath(path, worker)) {
		ok(0, "the worker is at %s", path);
		return done_testing();
	}
	kj_err_init(&err);
	if (kj_jail_available(&err)) {
		printf("1..0 # SKIP no sandbox here: %s\n", err.msg);
		return 0;
	}
	if (!mkdtemp(tmpl) || chmod(tmpl, 0755) < 0) {
		ok(0, "a temporary folder");
		return done_testing();
	}
	snprintf(dir, sizeof(dir), "%s", tmpl);
	if (!ok(make_venv(python, sizeof(python)) == 0, "python3 makes a virtual environment with stand-in torch, cupy, triton"))
		return done_testing();
	snprintf(bpf, sizeof(bpf), "%s/seccomp.bpf", dir);
	fd = open(bpf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && kj_py_filter_export(fd, &err) == 0, "the filter is written%s%s", err.msg[0] ? ": " : "",
	   err.msg);
	if (fd >= 0)
		close(fd);
	if (kj_python_jail(python, worker, NULL, &jail, python, sizeof(python), &err)) {
		ok(0, "the Python jail is built: %s", err.msg);
		return done_testing();
	}
	jail->paths[jail->npaths].host = bpf;
	jail->paths[jail->npaths].inner = "seccomp.bpf";
	jail->npaths++;
	snprintf(scratch, sizeof(scratch), "%s/scratch", dir);
	argv[0] = python;
	argv[1] = "-I";
	argv[2] = KJ_JAIL_STAGE "/kjudge_pyworker.py";
	argv[3] = "--backend";
	argv[4] = "triton";
	argv[5] = "--abi";
	argv[6] = abi;
	argv[7] = "--cache";
	argv[8] = KJ_JAIL_SCRATCH;
	argv[9] = "--seccomp";
	argv[10] = KJ_JAIL_STAGE "/seccomp.bpf";
	argv[11] = NULL;
	memset(&o, 0, sizeof(o));
	o.worker_path = python;
	o.argv = argv;
	o.scratch_dir = scratch;
	o.cuda = 1;
	o.cpu_limit_s = 120;
	o.jail = jail;
	rc = kj_worker_start(&w, &o, &err);
	if (!ok(rc == 0, "the worker starts in its jail%s%s", rc ? ": " : "", rc ? err.msg : "")) {
		free(jail);
		return done_testing();
	}
	on = kj_py_filter_on(w.wpid, why, sizeof(why));
	ok(on == 0, "before SETUP no filter is on (%s)", why);
	rc = kj_worker_setup(&w, 60, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_OK, "SETUP is answered OK (%s%s)", res.msg, err.msg);
	on = kj_py_filter_on(w.wpid, why, sizeof(why));
	ok(on == 1, "after SETUP the judge sees the filter on every thread of the worker%s%s", on == 1 ? "" : ": ",
	   on == 1 ? "" : why);
	rc = kj_worker_probe(&w, NULL, 0, NULL, 0, 30, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_OK, "an empty PROBE works under the filter (%s)", res.msg);

	snprintf(cand, sizeof(cand), "%s/cand_system.py", dir);
	write_file(cand, "import os\nos.system('true')\ndef relu(x, y, N):\n    pass\n");
	rc = kj_worker_load(&w, cand, "relu", 2, 1, 60, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_ERROR &&
	   strstr(res.msg, "blocked by the sandbox: os.system('true') at candidate.py:2"),
	   "os.system at import: the LOAD fails naming it and its line ('%s')", res.msg);
	/* one candidate per process: the next case in a worker of its own */
	ok(kj_worker_load(&w, cand, "relu", 2, 1, 60, &res, &err) == 0 && res.status == KJ_CALL_ERROR &&
	   strstr(res.msg, "one candidate per process"), "a second LOAD in that worker is refused (%s)", res.msg);
	kj_worker_stop(&w);
	rc = kj_worker_start(&w, &o, &err);
	if (rc == 0)
		rc = kj_worker_setup(&w, 60, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_OK, "another worker for the next candidate (%s%s)", res.msg, err.msg);
	snprintf(cand, sizeof(cand), "%s/cand_socket.py", dir);
	write_file(cand, "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
			 "def relu(x, y, N):\n    pass\n");
	rc = kj_worker_load(&w, cand, "relu", 2, 1, 60, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_ERROR &&
	   strstr(res.msg, "blocked by the sandbox: socket.socket(family=2) at candidate.py:2"),
	   "an AF_INET socket at import: the LOAD fails naming it ('%s')", res.msg);
	rc = kj_worker_nop(&w, 10, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_OK, "the worker lives on (NOP)");
	kj_worker_stop(&w);
	free(jail);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		ok(0, "the temporary folder is removed");
	return done_testing();
}
