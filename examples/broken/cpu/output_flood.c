// kjudge-case: task=level1/relu expect=runtime_error
/* Broken: prints 256 MiB to stdout (4 KiB lines in a loop) before computing
 * ReLU correctly; the worker's capped output must stop it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	char line[4096];

	memset(line, 'A', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	for (int i = 0; i < 65536; i++)
		puts(line);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
