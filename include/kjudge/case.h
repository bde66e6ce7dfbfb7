/*
 * Case files.  Example, broken and red-team candidates are data: each begins
 * with one header line
 *   // kjudge-case: task=<TASK> expect=<status>[ flag=<flag>]
 * (`#` instead of `//` for Python candidates).  This module reads that line;
 * the demo and the case tests judge every case file and compare.
 */
#ifndef KJUDGE_CASE_H
#define KJUDGE_CASE_H

#include "kjudge/err.h"

struct kj_case {
	char task[256];
	char expect[32];
	char flag[64]; /* empty when none */
};

/* Parses the header from the first line of src.  Returns 0, or KJ_E_PARSE
 * with "file: first line is not a kjudge-case header". */
int kj_case_parse(const char *src, const char *file, struct kj_case *c, struct kj_err *err);

#endif
