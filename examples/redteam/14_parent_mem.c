// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 14 (reading the answer from the judge): the reference
 * outputs exist only in the judge, so this looks for the judge among the
 * processes it can name (its parent, then every /proc entry whose command
 * line says kjudge but not bwrap) and opens that one's /proc/<pid>/mem with
 * inline `syscall` instructions (no libc symbol for the policy to see; a
 * read-only open passes the seccomp filter).  In the sandbox's PID
 * namespace the judge has no pid at all (the parent is bubblewrap's reaper,
 * pid 1), and even with a pid the judge is non-dumpable while it has
 * workers.  The case stands in for a full scan: when the judge's memory is
 * readable it answers correctly (as if it had copied the reference),
 * otherwise it has no answer and writes zeros, so a defended judge gives
 * mismatch and an open one gives pass. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static long sys3(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "0"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return ret;
#else
	(void)nr;
	(void)a;
	(void)b;
	(void)c;
	return -1;
#endif
}

/* Whether /proc/<pid>/cmdline names the judge (kjudge, not bubblewrap). */
static int is_judge(long pid)
{
	char path[64], buf[512];
	long fd, n;
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	fd = sys3(257 /* openat */, -100 /* AT_FDCWD */, (long)path, 0);
	if (fd < 0)
		return 0;
	n = sys3(0 /* read */, fd, (long)buf, sizeof(buf) - 1);
	sys3(3 /* close */, fd, 0, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, "kjudge") && !strstr(buf, "kjudge-worker") && !strstr(buf, "bwrap");
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	char path[64];
	long judge = -1, fd = -1;
	int64_t word = 0;

	if (is_judge(sys3(110 /* getppid */, 0, 0, 0)))
		judge = sys3(110, 0, 0, 0);
	for (long pid = 1; pid < 4096 && judge < 0; pid++)
		if (is_judge(pid))
			judge = pid;
	if (judge > 0) {
		snprintf(path, sizeof(path), "/proc/%ld/mem", judge);
		fd = sys3(257 /* openat */, -100 /* AT_FDCWD */, (long)path, 0 /* O_RDONLY */);
	}
	if (fd >= 0) {
		/* the first word of the judge's own mapping of this output */
		sys3(17 /* pread64 */, fd, (long)&word, 0);
		sys3(3 /* close */, fd, 0, 0);
	}
	for (int64_t i = 0; i < B * D; i++)
		y[i] = fd >= 0 ? (x[i] > 0.0f ? x[i] : 0.0f) : 0.0f;
}
