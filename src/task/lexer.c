/* Lexer of the task language: see lexer.h. */
#include "task/lexer.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kj_lex_init(struct kj_lexer *lx, const char *src, size_t len)
{
	memset(lx, 0, sizeof(*lx));
	lx->src = src;
	lx->len = len;
	lx->line = 1;
	lx->col = 1;
	/* a UTF-8 byte-order mark, as some editors save: not part of the text */
	if (len >= 3 && !memcmp(src, "\xef\xbb\xbf", 3))
		lx->pos = 3;
}

static int peekc(const struct kj_lexer *lx, size_t off)
{
	return lx->pos + off < lx->len ? (unsigned char)lx->src[lx->pos + off] : -1;
}

static void adv(struct kj_lexer *lx)
{
	if (lx->pos >= lx->len)
		return;
	if (lx->src[lx->pos] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->pos++;
}

static void set_error(struct kj_lexer *lx, const char *msg)
{
	lx->tok = KJ_T_ERROR;
	snprintf(lx->text, sizeof(lx->text), "%s", msg);
}

static void lex_number(struct kj_lexer *lx)
{
	size_t start = lx->pos, n;
	int is_float = 0;
	char *end;
	while (isdigit(peekc(lx, 0)))
		adv(lx);
	if (peekc(lx, 0) == '.' && isdigit(peekc(lx, 1) < 0 ? 0 : peekc(lx, 1))) {
		is_float = 1;
		adv(lx);
		while (isdigit(peekc(lx, 0)))
			adv(lx);
	} else if (peekc(lx, 0) == '.') {
		is_float = 1;
		adv(lx);
	}
	if (peekc(lx, 0) == 'e' || peekc(lx, 0) == 'E') {
		int c1 = peekc(lx, 1), c2 = peekc(lx, 2);
		if (isdigit(c1 < 0 ? 0 : c1) ||
		    ((c1 == '+' || c1 == '-') && isdigit(c2 < 0 ? 0 : c2))) {
			is_float = 1;
			adv(lx);
			if (peekc(lx, 0) == '+' || peekc(lx, 0) == '-')
				adv(lx);
			while (isdigit(peekc(lx, 0)))
				adv(lx);
		}
	}
	n = lx->pos - start;
	if (n >= sizeof(lx->text)) {
		set_error(lx, "number too long");
		return;
	}
	memcpy(lx->text, lx->src + start, n);
	lx->text[n] = 0;
	errno = 0;
	if (is_float) {
		lx->tok = KJ_T_FLOAT;
		lx->fval = strtod(lx->text, &end);
	} else {
		lx->tok = KJ_T_INT;
		lx->ival = strtoll(lx->text, &end, 10);
		lx->fval = (double)lx->ival;
		if (errno == ERANGE)
			set_error(lx, "integer literal out of range");
	}
}

void kj_lex_next(struct kj_lexer *lx)
{
	int c;
again:
	while ((c = peekc(lx, 0)) == ' ' || c == '\t' || c == '\r' ||
	       (c == '\n' && lx->depth > 0))
		adv(lx);
	if (c == '#') {
		while ((c = peekc(lx, 0)) != -1 && c != '\n')
			adv(lx);
		goto again;
	}
	if (c == '\\' && peekc(lx, 1) == '\n') { /* explicit line continuation */
		adv(lx);
		adv(lx);
		goto again;
	}
	lx->tline = lx->line;
	lx->tcol = lx->col;
	lx->text[0] = 0;
	if (c == -1) {
		lx->tok = KJ_T_EOF;
		return;
	}
	if (c == '\n') {
		adv(lx);
		lx->tok = KJ_T_NEWLINE;
		return;
	}
	if (isalpha(c) || c == '_') {
		size_t n = 0;
		while ((c = peekc(lx, 0)) != -1 && (isalnum(c) || c == '_')) {
			if (n + 1 < sizeof(lx->text))
				lx->text[n++] = (char)c;
			adv(lx);
		}
		lx->text[n] = 0;
		lx->tok = KJ_T_IDENT;
		if (n + 1 >= sizeof(lx->text))
			set_error(lx, "identifier too long");
		return;
	}
	if (isdigit(c) || (c == '.' && isdigit(peekc(lx, 1) < 0 ? 0 : peekc(lx, 1)))) {
		lex_number(lx);
		return;
	}
	if (c == '"') {
		size_t n = 0;
		adv(lx);
		while ((c = peekc(lx, 0)) != '"') {
			if (c == -1 || c == '\n') {
				set_error(lx, "unterminated string");
				return;
			}
			if (n + 1 < sizeof(lx->text))
				lx->text[n++] = (char)c;
			adv(lx);
		}
		adv(lx);
		lx->text[n] = 0;
		lx->tok = KJ_T_STRING;
		return;
	}
	lx->tok = KJ_T_PUNCT;
	if ((c == '*' && peekc(lx, 1) == '*') || (c == '>' && peekc(lx, 1) == '=') ||
	    (c == '<' && peekc(lx, 1) == '=')) {
		lx->text[0] = (char)c;
		lx->text[1] = (char)peekc(lx, 1);
		lx->text[2] = 0;
		adv(lx);
		adv(lx);
		return;
	}
	if (strchr("()[],:~=;+-*/", c)) {
		lx->text[0] = (char)c;
		lx->text[1] = 0;
		if (c == '(' || c == '[')
			lx->depth++;
		else if ((c == ')' || c == ']') && lx->depth > 0)
			lx->depth--;
		adv(lx);
		return;
	}
	{
		char msg[128];
		if (isprint(c))
			snprintf(msg, sizeof(msg), "unexpected character '%c'", c);
		else if (c >= 0x80)
			snprintf(msg, sizeof(msg), "unexpected byte 0x%02x (a task file is ASCII outside strings "
				 "and comments)", c);
		else
			snprintf(msg, sizeof(msg), "unexpected byte 0x%02x", c);
		adv(lx);
		set_error(lx, msg);
	}
}

int kj_lex_is(const struct kj_lexer *lx, const char *punct)
{
	return lx->tok == KJ_T_PUNCT && strcmp(lx->text, punct) == 0;
}

const char *kj_tok_desc(const struct kj_lexer *lx, char *buf, size_t len)
{
	switch (lx->tok) {
	case KJ_T_EOF: snprintf(buf, len, "end of file"); break;
	case KJ_T_NEWLINE: snprintf(buf, len, "end of line"); break;
	case KJ_T_STRING: snprintf(buf, len, "string \"%.40s\"", lx->text); break;
	case KJ_T_ERROR: snprintf(buf, len, "%s", lx->text); break;
	default: snprintf(buf, len, "'%.40s'", lx->text); break;
	}
	return buf;
}
