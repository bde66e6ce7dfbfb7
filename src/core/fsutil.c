/* Filesystem helpers: see include/kjudge/fsutil.h. */
#include "kjudge/fsutil.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

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
