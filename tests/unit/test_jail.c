/*
 * The worker's jail and the judge's defences around it, seen from both
 * sides: a probe candidate reports what it can see and do inside (its uid,
 * the processes it can name, the files it can open, where it may write), and
 * the judge checks from outside what the worker cannot hide (its host uid,
 * the arena's seals, its stopped state between calls, its memory map).
 * Also: SETUP and PROBE are answered only before LOAD, and a worker that
 * shrinks or grows the arena cannot (the memfd is sealed).  The worker
 * comes from $KJ_BUILD/kjudge-worker; probes are built with cc at test time.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kjudge/jail.h"
#include "kjudge/sandbox.h"
#include "so_testlib.h"
#include "tap.h"

static char dir[256], worker_path[4096], scratch[512], secret[600];

/* What the candidate sees, gathered by a constructor (at LOAD, before the
 * CPU worker's post-load filter refuses every open), handed over by the
 * call: o[0] uid inside; o[1] processes it can name in /proc; o[2] the
 * secret file (by its host path, compiled in as SECRET) opens; o[3]
 * /etc/passwd opens; o[4] the staging folder holds the worker; o[5] a file
 * can be made in the scratch folder (seccomp refuses creation: -EPERM
 * expected); o[6] getppid(); o[7] /proc/1/cmdline starts with "bwrap";
 * o[8] the host's /root, /home or /work is there; o[9] writable /usr (EROFS
 * expected); o[10] an open during a call (EPERM: the post-load filter). */
static const char src_look[] =
	"#define _GNU_SOURCE\n#include <dirent.h>\n#include <errno.h>\n#include <fcntl.h>\n"
	"#include <stdint.h>\n#include <string.h>\n#include <unistd.h>\n#include <sys/syscall.h>\n"
	"static int64_t r[10];\n"
	"__attribute__((constructor)) static void gather(void) {\n"
	"  DIR *d = opendir(\"/proc\"); struct dirent *e; int n = 0, fd; char b[64] = \"\";\n"
	"  r[0] = getuid();\n"
	"  while (d && (e = readdir(d))) n += e->d_name[0] >= '1' && e->d_name[0] <= '9';\n"
	"  if (d) closedir(d);\n"
	"  r[1] = n;\n"
	"  fd = open(SECRET, O_RDONLY); r[2] = fd >= 0 ? 1 : -errno; if (fd >= 0) close(fd);\n"
	"  fd = open(\"/etc/passwd\", O_RDONLY); r[3] = fd >= 0 ? 1 : -errno; if (fd >= 0) close(fd);\n"
	"  r[4] = access(\"/kj/kjudge-worker\", X_OK) == 0;\n"
	"  fd = (int)syscall(SYS_openat, AT_FDCWD, \"made-here\", O_WRONLY | O_CREAT, 0600);\n"
	"  r[5] = fd >= 0 ? 1 : -errno; if (fd >= 0) close(fd);\n"
	"  r[6] = getppid();\n"
	"  fd = open(\"/proc/1/cmdline\", O_RDONLY); if (fd >= 0) { if (read(fd, b, 63) < 0) b[0] = 0; close(fd); }\n"
	"  r[7] = strncmp(b, \"bwrap\", 5) == 0 || strstr(b, \"/bwrap\") != NULL;\n"
	"  r[8] = access(\"/root\", F_OK) == 0 || access(\"/home\", F_OK) == 0 || access(\"/work\", F_OK) == 0;\n"
	"  fd = open(\"/usr/kj-made-here\", O_RDONLY | O_CREAT, 0600); r[9] = fd >= 0 ? 1 : -errno;\n"
	"}\n"
	"void look(int64_t *o) {\n"
	"  int fd = (int)syscall(SYS_openat, AT_FDCWD, \"/usr\", O_RDONLY);\n"
	"  memcpy(o, r, sizeof(r)); o[10] = fd >= 0 ? 1 : -errno;\n"
	"}\n";
static const char src_idle[] = "#include <stdint.h>\nvoid idle(int64_t *o) { o[0] = 7; }\n";

static int build_lib(const char *name, const char *src)
{
	char extra[700];
	snprintf(extra, sizeof(extra), "'-DSECRET=\"%s\"'", secret);
	return kjt_build_so(dir, name, src, extra);
}

static const char *lib(const char *name)
{
	return kjt_so_path(dir, name);
}

/* The state letter of a process (R, S, T...), or '?'. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp[2] : '?';
}

/* The real uid of a process, from outside. */
static long proc_uid(pid_t pid)
{
	char path[64], line[256];
	long uid = -1;
	FILE *f;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4))
			uid = strtol(line + 4, NULL, 10);
	fclose(f);
	return uid;
}

/* A "Name:\tvalue" line of /proc/pid/status into out ("?" when none). */
static const char *proc_status(pid_t pid, const char *name, char *out, size_t len)
{
	char path[64], line[256];
	size_t n = strlen(name);
	FILE *f;
	snprintf(out, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return out;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			char *v = line + n + 1;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, len, "%s", v);
			break;
		}
	fclose(f);
	return out;
}

/* No capability in any set, and no way to gain one by exec. */
static void no_privileges(pid_t pid, const char *who)
{
	static const char *const sets[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
	char v[64];
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		is_str(proc_status(pid, sets[i], v, sizeof(v)), "0000000000000000", "%s: %s is empty", who,
		       sets[i]);
	is_str(proc_status(pid, "NoNewPrivs", v, sizeof(v)), "1", "%s: no new privileges", who);
}

static int start(struct kj_worker *w, int freeze, struct kj_err *err)
{
	struct kj_worker_opts o;
	memset(&o, 0, sizeof(o));
	o.worker_path = worker_path;
	o.scratch_dir = scratch;
	o.freeze = freeze;
	kj_err_init(err);
	return kj_worker_start(w, &o, err);
}

static void test_inside(void)
{
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	uint64_t off[1] = { 0 };
	int64_t *o;

	if (!ok(start(&w, 0, &err) == 0, "a jailed worker starts (%s)", err.msg))
		return;
	kj_worker_arena(&w, 4096, &err);
	kj_worker_load(&w, lib("look"), "look", 1, 0, 30, &res, &err);
	if (!is_int(res.status, KJ_CALL_OK, "the probe loads (%s)", res.msg)) {
		kj_worker_stop(&w);
		return;
	}
	kj_worker_call(&w, off, 1, NULL, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "the probe runs");
	o = w.arena;
	is_int(o[0], 1000, "inside, the candidate is uid 1000 of its own user namespace");
	ok(o[1] >= 1 && o[1] <= 3, "it can name only its jail's processes in /proc (%lld)", (long long)o[1]);
	is_int(o[6], 1, "its parent is the jail's pid 1, not the judge");
	is_int(o[7], 1, "and pid 1 is bubblewrap's reaper");
	is_int(o[2], -ENOENT, "a host file beside the test is not there");
	is_int(o[3], -ENOENT, "no /etc/passwd");
	is_int(o[8], 0, "no /root, /home or /work");
	is_int(o[4], 1, "its own binary is staged read-only at /kj");
	is_int(o[5], -EPERM, "creating a file is refused even in the scratch folder");
	ok(o[9] < 0, "/usr cannot be written (%lld)", (long long)o[9]);
	is_int(o[10], -EPERM, "and once the calls begin, nothing can be opened at all");
	ok(w.wpid > 0 && w.wpid != w.pid, "the judge knows the worker's own pid (%d) beside the jail's (%d)",
	   (int)w.wpid, (int)w.pid);
	no_privileges(w.wpid, "the jailed worker");
	if (geteuid() == 0)
		is_int(proc_uid(w.wpid), KJ_JAIL_UID, "a root judge's worker runs as uid %d outside too",
		       KJ_JAIL_UID);
	else
		is_int(proc_uid(w.wpid), (long)getuid(), "the worker keeps the judge's uid outside");
	{
		int seals = fcntl(w.arena_fd, F_GET_SEALS);
		ok(seals >= 0 && (seals & F_SEAL_SHRINK) && (seals & F_SEAL_GROW) && (seals & F_SEAL_SEAL),
		   "the arena is sealed against shrinking, growing and new seals (%#x)", seals);
		ok(ftruncate(w.arena_fd, 0) < 0 && errno == EPERM, "so not even the judge can shrink it");
	}
	{
		struct kj_capbuf maps;
		kj_capbuf_init(&maps, 1 << 20);
		is_int(kj_worker_read_maps(&w, &maps), 0, "the judge reads the worker's memory map");
		like(maps.buf, "/kj/kjudge-worker", "which shows the staged worker");
		like(maps.buf, "/kj/load0.so", "and the candidate loaded from the stage");
		kj_capbuf_release(&maps);
	}
	kj_worker_stop(&w);
}

static void test_freeze_and_probe(void)
{
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	uint64_t off[1] = { 0 };

	if (!ok(start(&w, 1, &err) == 0, "a freezing worker starts (%s)", err.msg))
		return;
	ok(proc_state(w.wpid) == 'T', "it is stopped as soon as it said HELLO (state %c)", proc_state(w.wpid));
	is_int(kj_worker_setup(&w, 30, &res, &err), 0, "SETUP is exchanged");
	is_int(res.status, KJ_CALL_OK, "SETUP before LOAD is answered OK");
	is_int(kj_worker_probe(&w, NULL, 0, NULL, 0, 30, &res, &err), 0, "PROBE is exchanged");
	is_int(res.status, KJ_CALL_OK, "PROBE before LOAD is answered OK");
	ok(res.judge_ns > 0, "and timed on the judge's clock (%lld ns)", (long long)res.judge_ns);
	ok(proc_state(w.wpid) == 'T', "it is stopped again after the reply (state %c)", proc_state(w.wpid));
	kj_worker_arena(&w, 4096, &err);
	kj_worker_load(&w, lib("idle"), "idle", 1, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "LOAD");
	kj_worker_call(&w, off, 1, NULL, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "a CALL runs on a worker that was stopped");
	is_int(((int64_t *)w.arena)[0], 7, "and does its work");
	ok(proc_state(w.wpid) == 'T', "the worker is stopped between calls (state %c)", proc_state(w.wpid));
	kj_worker_probe(&w, NULL, 0, NULL, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "PROBE after LOAD is refused: the candidate is in there now");
	like(res.msg, "PROBE after LOAD", "and says so");
	kj_worker_setup(&w, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "so is SETUP");
	kj_worker_stop(&w);
}

static void test_unconfined(void)
{
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	uint64_t off[1] = { 0 };
	int64_t *v;

	memset(&o, 0, sizeof(o));
	o.worker_path = worker_path;
	o.scratch_dir = scratch;
	o.unconfined = 1;
	kj_err_init(&err);
	if (!ok(kj_worker_start(&w, &o, &err) == 0, "an unconfined worker starts (%s)", err.msg))
		return;
	is_int(w.wpid, w.pid, "unconfined, the worker is the judge's child itself");
	no_privileges(w.wpid, "the unconfined worker");
	kj_worker_arena(&w, 4096, &err);
	kj_worker_load(&w, lib("look"), "look", 1, 0, 30, &res, &err);
	kj_worker_call(&w, off, 1, NULL, 0, 30, &res, &err);
	v = w.arena;
	is_int(v[2], 1, "and it can open host files: what --unsafe-no-sandbox gives up");
	kj_worker_stop(&w);
}

int main(void)
{
	const char *b = getenv("KJ_BUILD");
	struct kj_err err;
	char cmd[700];

	kj_err_init(&err);
	if (kj_jail_available(&err)) {
		/* CI installs bubblewrap: a judge without it must not pass silently */
		ok(0, "the jail works here: %s", err.msg);
		return done_testing();
	}
	/* under /tmp, not a private folder: the sandbox's uid must reach it */
	snprintf(dir, sizeof(dir), "/tmp/kjudge-test-jail-XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0) {
		ok(0, "cannot make a temporary directory: %s", strerror(errno));
		return done_testing();
	}
	snprintf(worker_path, sizeof(worker_path), "%s/kjudge-worker", b && *b ? b : "build");
	snprintf(scratch, sizeof(scratch), "%s/scratch", dir);
	snprintf(secret, sizeof(secret), "%s/host-secret.txt", dir);
	{
		FILE *f = fopen(secret, "w");
		if (f) {
			fputs("KJ-HOST-SECRET\n", f);
			fclose(f);
		}
		chmod(secret, 0644);
	}
	if (!ok(build_lib("look", src_look) == 0 && build_lib("idle", src_idle) == 0, "probes build"))
		return done_testing();
	test_inside();
	test_freeze_and_probe();
	test_unconfined();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return done_testing();
}
