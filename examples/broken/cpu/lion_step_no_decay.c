// kjudge-case: task=level2/lion_step expect=mismatch
/* Broken: Lion without its decoupled weight decay (p - lr sign(c), not
 * p (1 - lr wd) - lr sign(c)): the parameters are off by lr * wd * p, a
 * relative L1 error of ~1e-3 against the task's 1e-4. */
#include <stdint.h>

void lion_step(const float *p, const float *g, const float *m, float *p_new, float *m_new, int64_t N)
{
	for (int64_t i = 0; i < N; i++) {
		float c = m[i] * 0.9f + g[i] * 0.1f;
		float s = (float)(c > 0.0f) - (float)(c < 0.0f);
		p_new[i] = p[i] - s * 0.001f;
		m_new[i] = m[i] * 0.99f + g[i] * 0.01f;
	}
}
