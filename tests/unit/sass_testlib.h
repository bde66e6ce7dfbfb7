/*
 * The machine code of a CUDA shared object, for tests and benches that
 * compare two builds of one source: every ELF image (cubin) in its
 * .nv_fatbin section, and of each the sections named .text.<kernel> (the
 * SASS), by name and bytes, in order.  The line tables, the file
 * names and times of the host's symbols are left out: they tell where a
 * build ran, not what it computes.  nvcc embeds its cubins uncompressed at
 * kjudge's flags; a compressed one would show as no kernel at all.
 * Included by test_compile_cuda.c and bench/compile_time.c; uses libelf.
 */
#ifndef KJ_TEST_SASS_TESTLIB_H
#define KJ_TEST_SASS_TESTLIB_H

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kjt_sass {
	char *buf;  /* per kernel: its section's name, NUL, 8 bytes of length, the bytes */
	size_t len;
	int nkernels;
};

static int kjt_sass_add(struct kjt_sass *s, const char *name, const void *p, size_t n)
{
	size_t nl = strlen(name) + 1, want = s->len + nl + 8 + n;
	uint64_t n64 = n;
	char *nb = realloc(s->buf, want);
	if (!nb)
		return -1;
	s->buf = nb;
	memcpy(s->buf + s->len, name, nl);
	memcpy(s->buf + s->len + nl, &n64, 8);
	if (n)
		memcpy(s->buf + s->len + nl + 8, p, n);
	s->len = want;
	s->nkernels++;
	return 0;
}

/* The .text.* sections of the cubin at image (at most size bytes) into s;
 * *used: the image's extent (its section headers' end).  0 or -1. */
static int kjt_sass_cubin(char *image, size_t size, struct kjt_sass *s, size_t *used)
{
	Elf *e = elf_memory(image, size);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t strndx;
	int rc = 0;

	if (!e || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &strndx) != 0) {
		if (e)
			elf_end(e);
		return -1;
	}
	*used = (size_t)eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	while (!rc && (scn = elf_nextscn(e, scn))) {
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, strndx, sh.sh_name)))
			continue;
		if (strncmp(name, ".text.", 6))
			continue;
		d = elf_getdata(scn, NULL);
		rc = kjt_sass_add(s, name, d && d->d_buf ? d->d_buf : "", d && d->d_buf ? d->d_size : 0);
	}
	elf_end(e);
	return rc;
}

/* The kernels of the shared object at path into s (zeroed first; free
 * s->buf).  0, or -1 when it cannot be read as ELF. */
static int kjt_sass_read(const char *path, struct kjt_sass *s)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t strndx;
	int fd, rc = 0;

	memset(s, 0, sizeof(*s));
	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	if (!(e = elf_begin(fd, ELF_C_READ, NULL)) || elf_getshdrstrndx(e, &strndx) != 0) {
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	while (!rc && (scn = elf_nextscn(e, scn))) {
		const char *name;
		Elf_Data *d;
		size_t at = 0, used;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, strndx, sh.sh_name)) ||
		    strcmp(name, ".nv_fatbin"))
			continue;
		if (!(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		/* the images sit 8-byte aligned between the fatbin's headers */
		while (!rc && at + 4 <= d->d_size) {
			char *p = (char *)d->d_buf + at;
			if (memcmp(p, "\177ELF", 4) == 0) {
				rc = kjt_sass_cubin(p, d->d_size - at, s, &used);
				at += used > 8 ? (used + 7) & ~(size_t)7 : 8;
			} else {
				at += 8;
			}
		}
	}
	elf_end(e);
	close(fd);
	return rc;
}

/* Two objects' kernels compared: 0 when every name and byte agrees (no
 * kernel in either agrees too), 1 when they differ, -1 when one cannot be
 * read.  *nkernels: the first one's count. */
static int kjt_sass_cmp(const char *a_path, const char *b_path, int *nkernels)
{
	struct kjt_sass a, b;
	int ra = kjt_sass_read(a_path, &a), rb = kjt_sass_read(b_path, &b), rc;
	if (ra < 0 || rb < 0)
		rc = -1;
	else
		rc = a.len == b.len && a.nkernels == b.nkernels && (!a.len || memcmp(a.buf, b.buf, a.len) == 0) ? 0 : 1;
	if (nkernels)
		*nkernels = a.nkernels;
	free(a.buf);
	free(b.buf);
	return rc;
}

/* Whether two objects have the same kernels, and at least one (so that an
 * object read as nothing never passes). */
static int kjt_sass_same(const char *a_path, const char *b_path, int *nkernels)
{
	int n = 0, rc = kjt_sass_cmp(a_path, b_path, &n);
	if (nkernels)
		*nkernels = n;
	return rc == 0 && n > 0;
}

#endif
