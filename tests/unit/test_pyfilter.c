/*
 * The Python worker's seccomp filter (src/judge/pyfilter.c), without a GPU
 * or torch: the BPF is generated; a python3 that installs it with the
 * worker's own install_filter() cannot execve (os.execv, subprocess,
 * os.system, ctypes execve), fork (os.fork, raw clone), open an AF_INET,
 * AF_INET6 or netlink socket, or ptrace, and clone3 answers ENOSYS; it can
 * still do ordinary work (threads, futexes, mmap, AF_UNIX sockets, reading
 * files); the audit hook names what was refused; a system call of the x32
 * ABI kills it; and the judge's check of /proc/PID/task/<tid>/status sees
 * the filter on every thread (TSYNC), and sees it missing before.  Needs
 * python3 on PATH (or $KJ_PYTHON); the worker is found from the repository
 * root ($KJ_ROOT, default ".").  No python3 is a failure, not a skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kjudge/err.h"
#include "kjudge/python.h"
#include "py_testlib.h"
#include "tap.h"

static char python[PATH_MAX], root[PATH_MAX], bpf[PATH_MAX];

/* Before the filter: one thread parked on an event (so that TSYNC has a
 * thread to reach), "ready" on stdout, a line on stdin; then the filter,
 * "filtered", a line; then each try prints "name=ok" or "name=no:why". */
static const char script[] =
	"import ctypes, mmap, os, socket, subprocess, sys, threading\n"
	"sys.path.insert(0, sys.argv[1])\n"
	"import kjudge_pyworker as w\n"
	"ev = threading.Event()\n"
	"t = threading.Thread(target=ev.wait, daemon=True)\n"
	"t.start()\n"
	"print('ready', flush=True)\n"
	"sys.stdin.readline()\n"
	"record = []\n"
	"why = w.install_filter(sys.argv[2])\n"
	"w.watch_blocked(lambda: '<string>', record)\n"
	"print('filtered', why or '', flush=True)\n"
	"sys.stdin.readline()\n"
	"out = []\n"
	"def refused(name, fn, want=1):\n"
	"    try:\n"
	"        fn()\n"
	"        out.append(name + '=no:ran')\n"
	"    except OSError as e:\n"
	"        out.append(name + ('=ok' if e.errno == want else '=no:errno%s' % e.errno))\n"
	"refused('execv', lambda: os.execv('/bin/true', ['true']))\n"
	"refused('fork', os.fork)\n"
	"refused('subprocess', lambda: subprocess.run(['/bin/true']))\n"
	"out.append('system=' + ('ok' if os.system('true') != 0 else 'no:ran'))\n"
	"refused('inet', lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))\n"
	"refused('inet6', lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM))\n"
	"refused('netlink', lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))\n"
	"libc = ctypes.CDLL(None, use_errno=True)\n"
	"argv = (ctypes.c_char_p * 2)(b'/bin/true', None)\n"
	"r = libc.execve(b'/bin/true', argv, None)\n"
	"out.append('ctypes_execve=' + ('ok' if r == -1 and ctypes.get_errno() == 1 else 'no:%d' % r))\n"
	"nr = {'x86_64': (56, 435, 101), 'aarch64': (220, 435, 117)}[os.uname().machine]\n"
	"r = libc.syscall(ctypes.c_long(nr[0]), ctypes.c_long(17), 0, 0, 0, 0)\n"
	"out.append('raw_clone=' + ('ok' if r == -1 and ctypes.get_errno() == 1 else 'no:%d' % r))\n"
	"r = libc.syscall(ctypes.c_long(nr[1]), 0, 0)\n"
	"out.append('clone3=' + ('ok' if r == -1 and ctypes.get_errno() == 38 else 'no:%d' % r))\n"
	"r = libc.syscall(ctypes.c_long(nr[2]), 0, 0, 0, 0)\n"
	"out.append('ptrace=' + ('ok' if r == -1 and ctypes.get_errno() == 1 else 'no:%d' % r))\n"
	"box = []\n"
	"th = threading.Thread(target=lambda: box.append(sum(range(1000))))\n"
	"th.start(); th.join()\n"
	"out.append('thread=' + ('ok' if box == [499500] else 'no'))\n"
	"ev.set(); t.join(5)\n"
	"out.append('futex=' + ('ok' if not t.is_alive() else 'no'))\n"
	"m = mmap.mmap(-1, 1 << 20)\n"
	"m[0:5] = b'hello'\n"
	"out.append('mmap=' + ('ok' if m[0:5] == b'hello' else 'no'))\n"
	"a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n"
	"a.send(b'x')\n"
	"out.append('unix=' + ('ok' if b.recv(4) == b'x' else 'no'))\n"
	"with open(w.__file__) as f:\n"
	"    out.append('read=' + ('ok' if 'install_filter' in f.read() else 'no'))\n"
	"with open('/proc/self/status') as f:\n"
	"    out.append('status=' + ('ok' if 'Seccomp:\\t2' in f.read() else 'no'))\n"
	"names = ' '.join(record)\n"
	"out.append('named=' + ('ok' if 'os.system' in names and 'os.fork' in names and 'socket.socket' in names\n"
	"                        and 'execve' in names else 'no:' + names[:200]))\n"
	"print('RESULT ' + ' '.join(out) + ' END', flush=True)\n";

struct child {
	pid_t pid;
	FILE *in, *out;
};

static int spawn(struct child *c, const char *code, const char *arg1, const char *arg2)
{
	int pin[2], pout[2];
	if (pipe(pin) < 0 || pipe(pout) < 0)
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		close(pin[1]);
		close(pout[0]);
		execl(python, python, "-I", "-c", code, arg1, arg2, (char *)NULL);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	c->in = fdopen(pin[1], "w");
	c->out = fdopen(pout[0], "r");
	return c->in && c->out ? 0 : -1;
}

static int finish(struct child *c)
{
	int st = 0;
	if (c->in)
		fclose(c->in);
	if (c->out)
		fclose(c->out);
	c->in = c->out = NULL;
	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

static void one(const char *result, const char *name, const char *what)
{
	char key[64];
	const char *p;
	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(result, key);
	if (!p) {
		ok(0, "%s: no answer", what);
		return;
	}
	p += strlen(key);
	ok(!strncmp(p, "ok", 2) && (p[2] == ' ' || p[2] == '\0'), "%s (%.*s)", what, (int)strcspn(p, " "), p);
}

static void filtered_python(void)
{
	struct child c;
	char line[4096], why[512], pydir[PATH_MAX + 16];
	int on;
	snprintf(pydir, sizeof(pydir), "%s/python", root);
	if (spawn(&c, script, pydir, bpf) < 0) {
		ok(0, "python3 starts");
		return;
	}
	if (!fgets(line, sizeof(line), c.out) || strncmp(line, "ready", 5)) {
		ok(0, "python3 imports the worker and starts a thread");
		finish(&c);
		return;
	}
	on = kj_py_filter_on(c.pid, why, sizeof(why));
	ok(on == 0, "the judge's check sees no filter before it is installed (%s)", on == 0 ? why : "?");
	fputs("go\n", c.in);
	fflush(c.in);
	if (!fgets(line, sizeof(line), c.out) || strncmp(line, "filtered", 8)) {
		ok(0, "install_filter returns");
		finish(&c);
		return;
	}
	line[strcspn(line, "\n")] = '\0';
	ok(!strcmp(line, "filtered "), "install_filter installs the filter ('%s')", line);
	on = kj_py_filter_on(c.pid, why, sizeof(why));
	ok(on == 1, "the judge's check sees the filter on every thread, the one started before it too%s%s",
	   on == 1 ? "" : ": ", on == 1 ? "" : why);
	fputs("go\n", c.in);
	fflush(c.in);
	if (!fgets(line, sizeof(line), c.out) || strncmp(line, "RESULT ", 7)) {
		ok(0, "the filtered python3 reports its tries: '%.200s'", line);
		finish(&c);
		return;
	}
	one(line, "execv", "os.execv is refused with EPERM");
	one(line, "fork", "os.fork is refused with EPERM");
	one(line, "subprocess", "subprocess.run is refused with EPERM");
	one(line, "system", "os.system starts nothing (fails)");
	one(line, "inet", "an AF_INET socket is refused");
	one(line, "inet6", "an AF_INET6 socket is refused");
	one(line, "netlink", "a netlink socket is refused");
	one(line, "ctypes_execve", "execve called through ctypes is refused with EPERM");
	one(line, "raw_clone", "a raw clone without CLONE_THREAD is refused with EPERM");
	one(line, "clone3", "clone3 answers ENOSYS (glibc falls back to clone)");
	one(line, "ptrace", "ptrace is refused with EPERM");
	one(line, "thread", "a new thread runs");
	one(line, "futex", "a thread started before the filter wakes on its event (futex)");
	one(line, "mmap", "anonymous mmap works");
	one(line, "unix", "an AF_UNIX socket pair carries a message");
	one(line, "read", "a file can be read");
	one(line, "status", "/proc/self/status says Seccomp: 2");
	one(line, "named", "the audit hook names os.system, os.fork, the socket and the execve lookup");
	ok(WIFEXITED(finish(&c)), "the filtered python3 exits normally");
}

/* A system call of the x32 ABI (the native table's numbers with bit 30 set)
 * is judged by no rule of the denylist: it must kill the process. */
static void x32_killed(void)
{
	static const char code[] =
		"import ctypes, sys\n"
		"sys.path.insert(0, sys.argv[1])\n"
		"import kjudge_pyworker as w\n"
		"why = w.install_filter(sys.argv[2])\n"
		"print('filtered', why or '', flush=True)\n"
		"libc = ctypes.CDLL(None)\n"
		"libc.syscall(ctypes.c_long(0x40000000 | 39))\n"
		"print('alive', flush=True)\n";
	struct child c;
	char line[512], pydir[PATH_MAX + 16];
	int st;
#if !defined(__x86_64__)
	ok(1, "# SKIP the x32 ABI is x86_64's");
	return;
#endif
	snprintf(pydir, sizeof(pydir), "%s/python", root);
	if (spawn(&c, code, pydir, bpf) < 0) {
		ok(0, "python3 starts");
		return;
	}
	if (!fgets(line, sizeof(line), c.out))
		line[0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	ok(!strcmp(line, "filtered "), "the filter is installed ('%s')", line);
	if (!fgets(line, sizeof(line), c.out))
		line[0] = '\0';
	st = finish(&c);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS && strncmp(line, "alive", 5),
	   "an x32 system call kills the process with SIGSYS (status %#x)", st);
}

int main(void)
{
	struct kj_err err;
	const char *r = getenv("KJ_ROOT");
	char tmpl[] = "/tmp/kj-pyfilter-XXXXXX";
	int fd;
	off_t size;
	snprintf(root, sizeof(root), "%s", r && *r ? r : ".");
	if (kjt_find_python(python, sizeof(python)) < 0) {
		ok(0, "python3 is on PATH (or $KJ_PYTHON): this test needs it");
		return done_testing();
	}
	kj_err_init(&err);
	fd = mkstemp(tmpl);
	if (fd < 0) {
		ok(0, "a temporary file for the filter");
		return done_testing();
	}
	snprintf(bpf, sizeof(bpf), "%s", tmpl);
	ok(kj_py_filter_export(fd, &err) == 0, "the filter is generated%s%s", err.msg[0] ? ": " : "", err.msg);
	size = lseek(fd, 0, SEEK_END);
	ok(size > 0 && size % 8 == 0, "it is a BPF program (%lld bytes, %lld instructions)", (long long)size,
	   (long long)size / 8);
	close(fd);
	filtered_python();
	x32_killed();
	unlink(bpf);
	return done_testing();
}
