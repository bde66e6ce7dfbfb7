// kjudge-case: task=serving/fused_add_rmsnorm_bf16 expect=pass
/* vLLM's fused_add_rms_norm on the CPU: h = x + r rounded to bf16 (the
 * residual stream as stored), then the RMSNorm of the stored h in double
 * with the bf16 weight, rounded once to bf16. */
#include <math.h>
#include <stdint.h>

#include "kjudge_cpu.h"

void fused_add_rmsnorm_bf16(const kj_bfloat16 *x, const kj_bfloat16 *r, const kj_bfloat16 *w,
			    kj_bfloat16 *h, kj_bfloat16 *y, int64_t T, int64_t D)
{
	for (int64_t t = 0; t < T; t++) {
		const kj_bfloat16 *xr = x + t * D, *rr = r + t * D;
		kj_bfloat16 *hr = h + t * D, *yr = y + t * D;
		double ss = 0.0, inv;

		for (int64_t j = 0; j < D; j++) {
			float v = kj_bfloat16_to_float(xr[j]) + kj_bfloat16_to_float(rr[j]);

			hr[j] = kj_float_to_bfloat16(v);
			v = kj_bfloat16_to_float(hr[j]);
			ss += (double)v * v;
		}
		inv = 1.0 / sqrt(ss / (double)D + 1e-5);
		for (int64_t j = 0; j < D; j++)
			yr[j] = kj_float_to_bfloat16((float)(kj_bfloat16_to_float(hr[j]) * inv *
							     kj_bfloat16_to_float(w[j])));
	}
}
