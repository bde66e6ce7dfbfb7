// kjudge-case: task=level1/mse_loss expect=pass
/* Mean of squared differences; the sum is kept in double so that it is good
 * to far better than the task's 1e-5 relative tolerance. */
#include <stdint.h>

void mse_loss(const float *pred, const float *target, float *loss, int64_t B, int64_t D)
{
	int64_t n = B * D;
	double s = 0.0;

	for (int64_t i = 0; i < n; i++) {
		double d = (double)pred[i] - target[i];

		s += d * d;
	}
	loss[0] = (float)(s / (double)n);
}
