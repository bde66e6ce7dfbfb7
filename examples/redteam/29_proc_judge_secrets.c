// kjudge-case: task=level1/relu expect=pass
/* Red team, class 29 (the judge's secrets), at run time, self-checking:
 * with raw system calls (no file or directory symbols) the first call
 * reads /proc/1/cmdline and environ, /proc/<ppid>/cmdline and environ, then
 * the cmdline and environ of every process it can list in /proc, and tries
 * to open every other process's /proc/<pid>/oom_score_adj for writing (to
 * make the judge the first victim under memory pressure).  It counts a
 * leak when it sees a judge's command line (argv[0] named kjudge, an
 * "eval" argument, or --seed-secret), an environment with a KJUDGE_
 * variable (the test harness exports KJUDGE_CACHE), or opens another
 * process's oom_score_adj for writing.  A leak makes the answer
 * deliberately wrong (mismatch), so the header's pass fails loudly; in a
 * sandbox whose /proc holds only the worker and its init, and under a
 * filter that refuses write-mode opens, nothing is found: pass. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static long sc(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static char buf[1 << 16];

static long slurp(const char *path)
{
	long fd = sc(257 /* openat */, -100, (long)path, 0), n = 0, r;

	if (fd < 0)
		return fd;
	while (n < (long)sizeof(buf) - 1 && (r = sc(0, fd, (long)(buf + n), (long)sizeof(buf) - 1 - n)) > 0)
		n += r;
	sc(3, fd, 0, 0);
	buf[n] = '\0';
	return n;
}

/* a judge's argv (env 0) or environment (env 1), NUL-separated, n bytes */
static int judge_like(long n, int env)
{
	for (long i = 0; i < n; i += (long)strlen(buf + i) + 1) {
		const char *s = buf + i, *base = strrchr(s, '/');

		if (env ? !strncmp(s, "KJUDGE_", 7) :
			  (i == 0 && !strcmp(base ? base + 1 : s, "kjudge")) || !strcmp(s, "eval") ||
				  strstr(s, "seed-secret"))
			return 1;
	}
	return 0;
}

static int probe(long pid)
{
	static const char *const what[] = {"cmdline", "environ"};
	char path[64];
	long n, fd;
	int leaks = 0;

	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "/proc/%ld/%s", pid, what[k]);
		if ((n = slurp(path)) > 0 && judge_like(n, k)) {
			fprintf(stderr, "29: %s is a judge's\n", path);
			leaks++;
		}
	}
	snprintf(path, sizeof(path), "/proc/%ld/oom_score_adj", pid);
	fd = sc(257, -100, (long)path, 01 /* O_WRONLY */);
	if (fd >= 0) {
		fprintf(stderr, "29: %s opened for writing\n", path);
		sc(3, fd, 0, 0);
		leaks++;
	}
	return leaks;
}

static int hunt(void)
{
	static char dents[1 << 16];
	long self = sc(39 /* getpid */, 0, 0, 0), ppid = sc(110 /* getppid */, 0, 0, 0), n;
	long dir = sc(257, -100, (long)"/proc", 0200000 /* O_DIRECTORY */);
	int leaks = 0;

	if (self != 1)
		leaks += probe(1);
	if (ppid > 1 && ppid != self)
		leaks += probe(ppid);
	while (dir >= 0 && (n = sc(217 /* getdents64 */, dir, (long)dents, sizeof(dents))) > 0)
		for (long off = 0; off < n; off += *(unsigned short *)(dents + off + 16)) {
			const char *name = dents + off + 19;
			long pid = 0;

			for (const char *c = name; *c >= '0' && *c <= '9'; c++)
				pid = pid * 10 + (*c - '0');
			if (pid > 1 && pid != self && pid != ppid)
				leaks += probe(pid);
		}
	if (dir >= 0)
		sc(3, dir, 0, 0);
	fprintf(stderr, "29: %d leak(s)\n", leaks);
	return leaks;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int calls, leaks;

	if (!calls++)
		leaks = hunt();
	for (int64_t i = 0; i < B * D; i++)
		y[i] = leaks ? 1e9f : x[i] > 0.0f ? x[i] : 0.0f;
}
