/* Filesystem helpers: see include/kjudge/fsutil.h. */
#include "kjudge/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kj_mkdir_p(const char *path)
{
	char buf[4096];
	size_t len = strlen(path), i;
	if (len == 0 || len >= sizeof(buf)) {
		errno = len ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			return -1;
		buf[i] = path[i];
	}
	return 0;
}

int kj_which(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	size_t nl = strlen(name);
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		if (n > 0 && path[0] == '/' && n + nl + 2 <= sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, name);
			if (access(buf, X_OK) == 0 && strlen(buf) < len) {
				memcpy(out, buf, strlen(buf) + 1);
				return 0;
			}
		}
		path += n;
		if (*path == ':')
			path++;
	}
	errno = ENOENT;
	return -1;
}

int kj_open_regular(const char *path, const char **kind)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), fl;
	if (kind)
		*kind = "";
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		if (kind)
			*kind = S_ISDIR(st.st_mode)    ? "a directory"
				: S_ISFIFO(st.st_mode) ? "a FIFO"
				: S_ISCHR(st.st_mode)  ? "a character device"
				: S_ISBLK(st.st_mode)  ? "a block device"
				: S_ISSOCK(st.st_mode) ? "a socket"
						       : "not a regular file";
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	/* reads of a regular file never wait; the flag only mattered for open */
	if ((fl = fcntl(fd, F_GETFL)) >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void kj_rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *kj_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;
	int e = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1))) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			e = ferror(f) ? errno : EIO;
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
			if (len)
				*len = (size_t)n;
		}
	} else {
		e = errno ? errno : ENOMEM;
	}
	fclose(f);
	if (!buf)
		errno = e;
	return buf;
}
