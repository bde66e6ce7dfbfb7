/* The job queue of the store (kjudge serve) on SQLite: the checks of
 * queue_checks.h on a new store file with two connections. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/store.h"
#include "queue_checks.h"
#include "tap.h"

int main(void)
{
	char path[] = "/tmp/kjq.XXXXXX";
	int fd = mkstemp(path);
	kj_db *s = NULL, *s2 = NULL;
	struct kj_err err;

	close(fd);
	unlink(path);
	kj_err_init(&err);
	ok(kj_store_open(path, &s, &err) == 0, "open a new store (%s)", err.msg);
	ok(kj_store_open(path, &s2, &err) == 0, "a second connection to it");
	queue_checks(s, s2);

	kj_store_close(s);
	kj_store_close(s2);
	unlink(path);
	{
		char p2[sizeof(path) + 8];
		snprintf(p2, sizeof(p2), "%s-wal", path);
		unlink(p2);
		snprintf(p2, sizeof(p2), "%s-shm", path);
		unlink(p2);
	}
	return done_testing();
}
