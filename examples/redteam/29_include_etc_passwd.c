// kjudge-case: task=level1/relu expect=compile_error
/* Red team, class 29 (host files at compile time): the preprocessor
 * includes any file it can read, so this pulls the build host's
 * /etc/passwd into the translation unit.  It cannot compile, and that is
 * the point: the compiler's diagnostics quote the lines it choked on, and
 * the verdict carries the compiler's log back to the candidate's author
 * (an RL policy reads it as feedback).  A compiler running in a sandbox
 * without the host's /etc finds no such file: compile_error, with nothing
 * of the host in the log (t25_redteam.sh checks a marker file and a marker
 * in the judge's environment never reach the verdict). */
#include "/etc/passwd"
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
