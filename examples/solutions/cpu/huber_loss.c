// kjudge-case: task=level1/huber_loss expect=pass
/* Mean Huber loss (delta 1): 0.5 d^2 below |d| = 1, |d| - 0.5 above, summed
 * in double (one pass, no temporaries). */
#include <math.h>
#include <stdint.h>

void huber_loss(const float *pred, const float *target, float *loss, int64_t B, int64_t D)
{
	int64_t n = B * D;
	double s = 0.0;

	for (int64_t i = 0; i < n; i++) {
		double d = fabs((double)pred[i] - (double)target[i]);

		s += d < 1.0 ? 0.5 * d * d : d - 0.5;
	}
	loss[0] = (float)(s / (double)n);
}
