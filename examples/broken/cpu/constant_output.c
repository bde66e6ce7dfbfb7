// kjudge-case: task=level1/mse_loss expect=mismatch
/* Broken: returns 2.0, the expected MSE of two independent unit normals,
 * without reading the inputs.  Small shapes and uniform draws expose it. */
#include <stdint.h>

void mse_loss(const float *pred, const float *target, float *loss, int64_t B, int64_t D)
{
	(void)pred;
	(void)target;
	(void)B;
	(void)D;
	loss[0] = 2.0f;
}
