/* Error records: see include/kjudge/err.h. */
#include "kjudge/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kj_err_init(struct kj_err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

static void fill(struct kj_err *e, const char *file, int line, int code)
{
	e->code = code;
	e->file = file;
	e->line = line;
}

int kj_err_set_at(struct kj_err *e, const char *file, int line, int code, const char *fmt, ...)
{
	va_list ap;
	if (!e)
		return code;
	fill(e, file, line, code);
	e->sys_errno = 0;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int kj_err_sys_at(struct kj_err *e, const char *file, int line, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t len;
	if (!e)
		return KJ_E_SYS;
	fill(e, file, line, KJ_E_SYS);
	e->sys_errno = saved;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len, ": %s", strerror(saved));
	errno = saved;
	return KJ_E_SYS;
}

void kj_err_prefix(struct kj_err *e, const char *fmt, ...)
{
	char head[KJ_ERR_MSG], old[KJ_ERR_MSG];
	va_list ap;
	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%s: %s", head, old);
}

const char *kj_code_name(int code)
{
	switch (code) {
	case KJ_OK: return "ok";
	case KJ_E_NOMEM: return "out of memory";
	case KJ_E_IO: return "I/O error";
	case KJ_E_PARSE: return "parse error";
	case KJ_E_TYPE: return "type error";
	case KJ_E_USAGE: return "usage error";
	case KJ_E_SYS: return "system error";
	case KJ_E_COMPILE: return "compile error";
	case KJ_E_WORKER: return "worker error";
	case KJ_E_UNSUPPORTED: return "unsupported";
	case KJ_E_INTERNAL: return "internal error";
	case KJ_E_CUDA: return "CUDA error";
	case KJ_E_NOTFOUND: return "not found";
	case KJ_E_TIMEOUT: return "timeout";
	}
	return "unknown error";
}
