/*
 * A TAP producer for C unit tests: ok(cond, fmt, ...) prints "ok N - name" or
 * "not ok N - name", done_testing() prints the plan and returns the exit code.
 */
#ifndef KJ_TAP_H
#define KJ_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

__attribute__((unused)) static int near(double got, double want, double tol)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return fabs(got - want) <= tol * (1.0 + fabs(want));
}

#define is_near(got, want, tol, ...) \
	(ok(near((got), (want), (tol)), __VA_ARGS__) ? 1 : \
	 (printf("#   got %.17g, want %.17g\n", (double)(got), (double)(want)), 0))
#define is_int(got, want, ...) \
	(ok((long long)(got) == (long long)(want), __VA_ARGS__) ? 1 : \
	 (printf("#   got %lld, want %lld\n", (long long)(got), (long long)(want)), 0))
#define is_str(got, want, ...) \
	(ok((got) && strcmp((got), (want)) == 0, __VA_ARGS__) ? 1 : \
	 (printf("#   got '%s'\n#  want '%s'\n", (got) ? (got) : "(null)", (want)), 0))
#define like(got, sub, ...) \
	(ok((got) && strstr((got), (sub)) != NULL, __VA_ARGS__) ? 1 : \
	 (printf("#   got '%s'\n#  want to contain '%s'\n", (got) ? (got) : "(null)", (sub)), 0))

static int done_testing(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# failed %d of %d\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif
