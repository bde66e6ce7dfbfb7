// kjudge-case: task=level1/relu expect=pass
/* Red team, class 3 (input mutation), the legal edge: uses the input buffer
 * as scratch (flips every sign bit, reads it back, flips again) and leaves it
 * bit-for-bit as it found it.  The judge compares inputs after the call,
 * not during it, so this must pass: a judge that rejected it would be
 * rejecting on something it cannot observe reliably. */
#include <stdint.h>
#include <string.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	float *xm = (float *)(uintptr_t)x;
	int64_t n = B * D;

	for (int64_t i = 0; i < n; i++) {
		uint32_t u;

		memcpy(&u, &xm[i], 4);
		u ^= 0x80000000u;
		memcpy(&xm[i], &u, 4);
	}
	for (int64_t i = 0; i < n; i++) {
		float neg = xm[i];

		y[i] = neg < 0.0f ? -neg : 0.0f;
	}
	for (int64_t i = 0; i < n; i++) {
		uint32_t u;

		memcpy(&u, &xm[i], 4);
		u ^= 0x80000000u;
		memcpy(&xm[i], &u, 4);
	}
}
