/*
 * The formulas behind the scores, on plain numbers (docs/scores.md).  They
 * know nothing of the store so that unit tests can check them on hand-made
 * values.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/score.h"

const double kj_score_p[KJ_SCORE_NP] = { 0, 0.5, 0.8, 1, 1.5, 2 };
const char *const kj_score_p_key[KJ_SCORE_NP] = { "0", "0.5", "0.8", "1", "1.5", "2" };

double kj_score_pass_at_k(int n, int c, int k)
{
	double miss = 1.0;
	if (n <= 0 || k <= 0 || c < 0 || c > n)
		return NAN;
	if (k > n)
		return c > 0 ? 1.0 : 0.0;
	if (n - c < k)
		return 1.0;
	/* C(n-c, k) / C(n, k) as a product, which never overflows */
	for (int i = n - c + 1; i <= n; i++)
		miss *= 1.0 - (double)k / i;
	return 1.0 - miss;
}

double kj_score_geomean(const double *x, size_t n)
{
	double s = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0) || isinf(x[i]))
			continue;
		s += log(x[i]);
		m++;
	}
	return m ? exp(s / (double)m) : NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double kj_score_median(const double *x, size_t n)
{
	double *v, r;
	size_t m = 0;
	if (!n)
		return NAN;
	v = malloc(n * sizeof(*v));
	if (!v)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			v[m++] = x[i];
	if (!m) {
		free(v);
		return NAN;
	}
	qsort(v, m, sizeof(*v), cmp_double);
	r = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
	free(v);
	return r;
}

double kj_score_fast_p(const int *correct, const double *speedup, size_t n, double p)
{
	size_t hit = 0;
	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		hit += correct[i] && speedup[i] > p;
	return (double)hit / (double)n;
}

double kj_score_task_sol(const double *w, const double *sol_ms, const double *ms, size_t n,
			 int correct)
{
	double wsum = 0, s = 0;
	int equal = 1;
	if (!correct)
		return 0;
	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (w && w[i] > 0 && isfinite(w[i]))
			equal = 0;
	for (size_t i = 0; i < n; i++) {
		double wi = equal ? 1.0 : (w[i] > 0 && isfinite(w[i]) ? w[i] : 0);
		double si = 0;
		wsum += wi;
		/* a shape below T_sol means the measurement (or the roofline) is
		 * wrong: it earns nothing rather than more than perfect */
		if (sol_ms[i] > 0 && ms[i] > 0 && isfinite(sol_ms[i]) && isfinite(ms[i]) &&
		    sol_ms[i] <= ms[i])
			si = sol_ms[i] / ms[i];
		s += wi * si;
	}
	return wsum > 0 ? s / wsum : 0;
}

int kj_score_is_optimisation(double before, double after, double rel_iqr)
{
	double noise = 3 * (isfinite(rel_iqr) && rel_iqr > 0 ? rel_iqr : 0);
	if (!(before > 0) || !(after > 0) || !isfinite(before) || !isfinite(after))
		return 0;
	return after / before - 1 > (noise > 0.05 ? noise : 0.05);
}

/* Binomial deviance of y against probabilities mu. */
static double deviance(const int *y, const double *mu, size_t n)
{
	double d = 0;
	for (size_t i = 0; i < n; i++) {
		double m = y[i] ? mu[i] : 1 - mu[i];
		d += m > 0 ? -2 * log(m) : 1e300;
	}
	return d;
}

/* Solves A x = b for a symmetric positive definite p x p A by Cholesky
 * (A is overwritten).  Returns 0, or -1 when A is not positive definite. */
static int chol_solve(double *a, double *b, int p)
{
	for (int j = 0; j < p; j++) {
		double d = a[j * p + j];
		for (int k = 0; k < j; k++)
			d -= a[j * p + k] * a[j * p + k];
		if (!(d > 0))
			return -1;
		d = sqrt(d);
		a[j * p + j] = d;
		for (int i = j + 1; i < p; i++) {
			double s = a[i * p + j];
			for (int k = 0; k < j; k++)
				s -= a[i * p + k] * a[j * p + k];
			a[i * p + j] = s / d;
		}
	}
	for (int i = 0; i < p; i++) {
		for (int k = 0; k < i; k++)
			b[i] -= a[i * p + k] * b[k];
		b[i] /= a[i * p + i];
	}
	for (int i = p - 1; i >= 0; i--) {
		for (int k = i + 1; k < p; k++)
			b[i] -= a[k * p + i] * b[k];
		b[i] /= a[i * p + i];
	}
	return 0;
}

int kj_score_logit_deviance(const int *y, const int *group, size_t n, int ngroups, double *dev,
			    double *null_dev, struct kj_err *err)
{
	/* Column 0 is the intercept, column g (g >= 1) the dummy of group g;
	 * group 0 is the reference level. */
	int p = ngroups > 0 ? ngroups : 1;
	double *beta = calloc((size_t)p, sizeof(double)), *a = malloc((size_t)p * p * sizeof(double));
	double *b = malloc((size_t)p * sizeof(double)), *mu = malloc((n ? n : 1) * sizeof(double));
	double ybar = 0, prev = INFINITY, d = 0;
	if (!beta || !a || !b || !mu) {
		free(beta), free(a), free(b), free(mu);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory fitting a logistic regression");
	}
	for (size_t i = 0; i < n; i++) {
		if (group[i] < 0 || group[i] >= p) {
			free(beta), free(a), free(b), free(mu);
			return kj_err_set(err, KJ_E_USAGE, "group %d of item %zu is outside [0, %d)",
					  group[i], i, p);
		}
		ybar += y[i] != 0;
	}
	ybar = n ? ybar / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		mu[i] = ybar;
	*null_dev = deviance(y, mu, n);
	for (int it = 0; it < 100; it++) {
		memset(a, 0, (size_t)p * p * sizeof(double));
		memset(b, 0, (size_t)p * sizeof(double));
		for (size_t i = 0; i < n; i++) {
			int g = group[i];
			double eta = beta[0] + (g ? beta[g] : 0), m, w, z;
			/* a separable group drives eta to infinity: stop it where
			 * the fitted probability is 1 to double precision */
			if (eta > 30)
				eta = 30;
			if (eta < -30)
				eta = -30;
			m = 1 / (1 + exp(-eta));
			w = m * (1 - m);
			z = eta + ((y[i] != 0) - m) / w;
			a[0] += w;
			b[0] += w * z;
			if (g) {
				a[g] += w;
				a[g * p] += w;
				a[g * p + g] += w;
				b[g] += w * z;
			}
		}
		for (int j = 0; j < p; j++)
			a[j * p + j] += 1e-12 * (a[0] > 0 ? a[0] : 1);
		if (chol_solve(a, b, p))
			break;
		memcpy(beta, b, (size_t)p * sizeof(double));
		for (size_t i = 0; i < n; i++) {
			double eta = beta[0] + (group[i] ? beta[group[i]] : 0);
			mu[i] = 1 / (1 + exp(-eta));
		}
		d = deviance(y, mu, n);
		if (fabs(prev - d) <= 1e-12 * (d + 1e-12))
			break;
		prev = d;
	}
	*dev = d;
	free(beta), free(a), free(b), free(mu);
	return 0;
}

double kj_score_deviance_explained(const int *y, const int *group, size_t n, int ngroups)
{
	double dev, nd;
	if (!n || kj_score_logit_deviance(y, group, n, ngroups, &dev, &nd, NULL))
		return NAN;
	if (!(nd > 0))
		return NAN;
	dev = 1 - dev / nd;
	return dev < 0 ? 0 : dev > 1 ? 1 : dev;
}

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

void kj_score_code_metrics(const char *src, size_t len, struct kj_code_metrics *m)
{
	enum { CODE, LINE_C, BLOCK_C, STR, CHR } st = CODE;
	int has_code = 0, has_comment = 0, preproc = 0, first = 1, nonblank = 0;
	memset(m, 0, sizeof(*m));
	m->cyclomatic = 1;
	for (size_t i = 0; i <= len; i++) {
		int c = i < len ? (unsigned char)src[i] : '\n';
		int nx = i + 1 < len ? (unsigned char)src[i + 1] : 0;
		if (c == '\n') {
			if (has_code)
				m->lines++;
			if (has_comment)
				m->comment_lines++;
			if (has_code || has_comment)
				nonblank++;
			if (!has_code && !has_comment && i < len)
				m->blank_lines++;
			/* a backslash continues a preprocessor line or a string */
			if (!(i > 0 && src[i - 1] == '\\'))
				preproc = 0;
			if (st == LINE_C && !(i > 0 && src[i - 1] == '\\'))
				st = CODE;
			has_code = 0;
			has_comment = st == BLOCK_C;
			first = 1;
			if (i == len)
				break;
			continue;
		}
		switch (st) {
		case LINE_C:
			break;
		case BLOCK_C:
			if (c == '*' && nx == '/') {
				st = CODE;
				i++;
			}
			break;
		case STR:
		case CHR:
			if (c == '\\')
				i++;
			else if (c == (st == STR ? '"' : '\''))
				st = CODE;
			break;
		case CODE:
			if (isspace(c))
				break;
			if (c == '/' && nx == '/') {
				st = LINE_C;
				has_comment = 1;
				i++;
				break;
			}
			if (c == '/' && nx == '*') {
				st = BLOCK_C;
				has_comment = 1;
				i++;
				break;
			}
			has_code = 1;
			if (first && c == '#')
				preproc = 1;
			first = 0;
			if (c == '"') {
				st = STR;
			} else if (c == '\'') {
				st = CHR;
			} else if (preproc) {
				break;
			} else if ((c == '&' && nx == '&') || (c == '|' && nx == '|')) {
				m->cyclomatic++;
				i++;
			} else if (c == '?') {
				m->cyclomatic++;
			} else if (is_ident(c) && (i == 0 || !is_ident((unsigned char)src[i - 1]))) {
				size_t e = i;
				while (e < len && is_ident((unsigned char)src[e]))
					e++;
				if ((e - i == 2 && !memcmp(src + i, "if", 2)) ||
				    (e - i == 3 && !memcmp(src + i, "for", 3)) ||
				    (e - i == 5 && !memcmp(src + i, "while", 5)) ||
				    (e - i == 4 && !memcmp(src + i, "case", 4)))
					m->cyclomatic++;
				i = e - 1;
			}
			break;
		}
	}
	/* a line with code and a comment is one non-blank line */
	if (nonblank > 0)
		m->comment_ratio = (double)m->comment_lines / nonblank;
}
