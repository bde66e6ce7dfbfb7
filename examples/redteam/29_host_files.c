// kjudge-case: task=level1/relu expect=pass
/* Red team, class 29 (the judge's host files), at run time, self-checking:
 * with raw system calls (no file or directory symbols) the first call
 * reads /etc/passwd, lists /root and /root/.cache/kjudge (the default
 * compile cache: other candidates' sources, logs and objects), and walks
 * up from its working folder (the scratch folder) listing every parent,
 * looking for a run's store (*.sqlite), a compile cache (.cache, cache,
 * kjtest.* of the test harness) or other workers' scratch folders
 * (kjudge-*).  Any of these found is a leak: the answer is deliberately
 * wrong (mismatch), so the header's pass fails loudly.  A sandbox that
 * holds /usr, the worker, the candidate and the scratch folder only
 * leaves nothing to find: pass. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static long sc(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static char dents[1 << 16];

/* entries of a directory that give the judge away, or -1 if unreadable */
static int scan_dir(const char *path, const char *own)
{
	long dir = sc(257 /* openat */, -100, (long)path, 0200000 /* O_DIRECTORY */), n;
	int hits = 0, any = 0;

	if (dir < 0)
		return -1;
	while ((n = sc(217 /* getdents64 */, dir, (long)dents, sizeof(dents))) > 0)
		for (long off = 0; off < n; off += *(unsigned short *)(dents + off + 16)) {
			const char *e = dents + off + 19;
			size_t l = strlen(e);

			if (!strcmp(e, ".") || !strcmp(e, ".."))
				continue;
			any++;
			if ((l > 7 && !strcmp(e + l - 7, ".sqlite")) || !strcmp(e, ".cache") || !strcmp(e, "cache") ||
			    !strncmp(e, "kjtest.", 7) || (!strncmp(e, "kjudge-", 7) && (!own || strcmp(e, own)))) {
				fprintf(stderr, "29: %s/%s\n", path, e);
				hits++;
			}
		}
	sc(3, dir, 0, 0);
	return hits ? hits : any && !strncmp(path, "/root", 5) ? 1 : 0;
}

static int hunt(void)
{
	char cwd[4096], name[256], buf[64];
	long fd = sc(257, -100, (long)"/etc/passwd", 0), n;
	int leaks = 0, h;

	if (fd >= 0) {
		n = sc(0 /* read */, fd, (long)buf, sizeof(buf));
		sc(3, fd, 0, 0);
		if (n > 0) {
			fprintf(stderr, "29: /etc/passwd: %ld bytes read\n", n);
			leaks++;
		}
	}
	if ((h = scan_dir("/root", NULL)) > 0)
		leaks += h;
	if ((h = scan_dir("/root/.cache/kjudge", NULL)) > 0)
		leaks += h;
	/* from the working folder up to / */
	if (sc(79 /* getcwd */, (long)cwd, sizeof(cwd), 0) > 0) {
		for (char *s; (s = strrchr(cwd, '/')) != NULL;) {
			snprintf(name, sizeof(name), "%s", s + 1);
			s[s == cwd ? 1 : 0] = '\0';
			if ((h = scan_dir(cwd, name)) > 0)
				leaks += h;
			if (s == cwd)
				break;
		}
	}
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
