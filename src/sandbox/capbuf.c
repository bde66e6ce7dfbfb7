/* Capped output buffers: see include/kjudge/sandbox.h. */
#include "kjudge/sandbox.h"

#include <stdlib.h>
#include <string.h>

/* Shared by every empty buffer so that buf is always a valid string and an
 * init never allocates; never written (read-only memory: a write would
 * fault), never freed. */
static const char kj_capbuf_empty[1] = "";

void kj_capbuf_init(struct kj_capbuf *b, size_t cap)
{
	b->buf = (char *)kj_capbuf_empty;
	b->len = 0;
	b->cap = cap;
	b->total = 0;
}

/* Grows geometrically but never past cap + 1, so a flood costs at most cap
 * bytes of memory; when an allocation fails the bytes are only counted. */
void kj_capbuf_add(struct kj_capbuf *b, const void *p, size_t n)
{
	size_t keep, want, alloc;
	char *nb;

	b->total += n;
	keep = b->cap - b->len;
	if (keep > n)
		keep = n;
	if (keep == 0)
		return;
	want = b->len + keep + 1;
	alloc = 256;
	while (alloc < want)
		alloc *= 2;
	if (alloc > b->cap + 1)
		alloc = b->cap + 1;
	nb = realloc(b->buf == kj_capbuf_empty ? NULL : b->buf, alloc);
	if (!nb)
		return;
	b->buf = nb;
	memcpy(b->buf + b->len, p, keep);
	b->len += keep;
	b->buf[b->len] = '\0';
}

void kj_capbuf_release(struct kj_capbuf *b)
{
	if (b->buf && b->buf != kj_capbuf_empty)
		free(b->buf);
	kj_capbuf_init(b, b->cap);
}
