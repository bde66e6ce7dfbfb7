// kjudge-case: task=level1/relu expect=compile_error
/* Red team, class 29 (host files at compile time, the assembler's
 * route): .incbin copies any file the assembler can read into the object,
 * byte for byte; the candidate then holds the build host's /etc/hostname
 * at run time and can print it into its log, which the verdict carries
 * (any readable host file works the same way: keys, configs, the judge's
 * sources of other candidates in the compile cache).  Self-checking: a
 * non-empty blob is printed and the answer made deliberately wrong
 * (mismatch).  A compiler in a sandbox without the host's /etc fails to
 * assemble ("file not found"): compile_error. */
#include <stdint.h>
#include <stdio.h>

extern const char host_blob[], host_blob_end[];
__asm__(".section .rodata\n"
	".globl host_blob\n.type host_blob, @object\nhost_blob:\n"
	".incbin \"/etc/hostname\"\n"
	".globl host_blob_end\nhost_blob_end:\n.byte 0\n"
	".previous\n");

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int said;
	long n = (long)(host_blob_end - host_blob);

	if (n > 0 && !said++)
		fprintf(stderr, "29: the build host's /etc/hostname (%ld bytes): %.*s\n", n, (int)n, host_blob);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = n > 0 ? 1e9f : x[i] > 0.0f ? x[i] : 0.0f;
}
