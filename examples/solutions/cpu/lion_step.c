// kjudge-case: task=level2/lion_step expect=pass
/* One Lion step, fused: the interpolation c, its sign, the decayed update and
 * the new momentum in one pass, in f32 as an optimizer kernel computes them
 * (a c within a rounding of zero may take the other sign than the fp64
 * reference: the task's metrics allow those few elements). */
#include <stdint.h>

void lion_step(const float *p, const float *g, const float *m, float *p_new, float *m_new, int64_t N)
{
	for (int64_t i = 0; i < N; i++) {
		float c = m[i] * 0.9f + g[i] * 0.1f;
		float s = (float)(c > 0.0f) - (float)(c < 0.0f);
		p_new[i] = p[i] * 0.999f - s * 0.001f;
		m_new[i] = m[i] * 0.99f + g[i] * 0.01f;
	}
}
