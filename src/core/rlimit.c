#include "kjudge/rlimit.h"

#include <stdio.h>
#include <string.h>

static const char *rname(int resource, int *mib)
{
	*mib = 0;
	switch (resource) {
	case RLIMIT_AS:
		*mib = 1;
		return "RLIMIT_AS";
	case RLIMIT_FSIZE:
		*mib = 1;
		return "RLIMIT_FSIZE";
	case RLIMIT_CPU:
		return "RLIMIT_CPU";
	case RLIMIT_NOFILE:
		return "RLIMIT_NOFILE";
	case RLIMIT_NPROC:
		return "RLIMIT_NPROC";
	case RLIMIT_CORE:
		return "RLIMIT_CORE";
	default:
		return "a resource limit";
	}
}

int kj_rlimit_fit(int resource, struct rlimit *want, char *note, size_t cap)
{
	struct rlimit have;
	rlim_t asked;
	int mib;
	const char *name;
	if (getrlimit(resource, &have) < 0)
		return -1;
	if (have.rlim_max == RLIM_INFINITY || want->rlim_max <= have.rlim_max)
		return 0;
	asked = want->rlim_max;
	want->rlim_max = have.rlim_max;
	if (want->rlim_cur > have.rlim_max)
		want->rlim_cur = have.rlim_max;
	name = rname(resource, &mib);
	if (note && cap) {
		size_t len = strlen(note);
		if (len < cap)
			snprintf(note + len, cap - len, "%s%s %llu%s (kjudge asks %llu%s)", len ? "; " : "", name,
				 (unsigned long long)(mib ? have.rlim_max >> 20 : have.rlim_max), mib ? " MiB" : "",
				 (unsigned long long)(mib ? asked >> 20 : asked), mib ? " MiB" : "");
	}
	return 1;
}
