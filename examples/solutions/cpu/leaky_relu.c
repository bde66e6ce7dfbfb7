// kjudge-case: task=level1/leaky_relu expect=pass
/* LeakyReLU with slope 0.01 on negative inputs. */
#include <math.h>
#include <stdint.h>

void leaky_relu(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t i = 0; i < n; i++) {
		double v = x[i];

		y[i] = (float)(v >= 0.0 ? v : 0.01 * v);
	}
}
