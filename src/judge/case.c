/* kjudge-case headers: see include/kjudge/case.h. */
#include "kjudge/case.h"

#include <stdio.h>
#include <string.h>

static int field(const char *line, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	const char *p = line;
	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			size_t n;
			p += kl + 1;
			n = strcspn(p, " \t\r\n");
			if (n == 0 || n >= len)
				return -1;
			memcpy(out, p, n);
			out[n] = 0;
			return 0;
		}
		p += kl;
	}
	return -1;
}

int kj_case_parse(const char *src, const char *file, struct kj_case *c, struct kj_err *err)
{
	char line[512];
	size_t n = strcspn(src, "\n");
	const char *p;
	memset(c, 0, sizeof(*c));
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	memcpy(line, src, n);
	line[n] = 0;
	p = line;
	if (!strncmp(p, "//", 2))
		p += 2;
	else if (*p == '#')
		p += 1;
	else
		goto bad;
	while (*p == ' ')
		p++;
	if (strncmp(p, "kjudge-case:", 12))
		goto bad;
	p += 12;
	if (field(p, "task", c->task, sizeof(c->task)) || field(p, "expect", c->expect, sizeof(c->expect)))
		return kj_err_set(err, KJ_E_PARSE, "%s:1: kjudge-case header needs task=TASK and expect=STATUS", file);
	if (field(p, "flag", c->flag, sizeof(c->flag)))
		c->flag[0] = 0;
	return 0;
bad:
	return kj_err_set(err, KJ_E_PARSE, "%s:1: first line is not a kjudge-case header (// kjudge-case: task=TASK expect=STATUS)", file);
}
