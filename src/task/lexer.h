/*
 * Lexer of the task language.  Produces tokens with their line:col.  Newlines
 * are tokens (statements end at them) except inside () and [], where the
 * lexer swallows them so a call may span lines.  The token text points into
 * a buffer the lexer owns (tok.text, NUL-terminated, valid until the next
 * call to kj_lex_next).
 */
#ifndef KJ_LEXER_H
#define KJ_LEXER_H

#include <stddef.h>
#include <stdint.h>

enum kj_tok {
	KJ_T_EOF = 0,
	KJ_T_NEWLINE,
	KJ_T_IDENT,
	KJ_T_INT,
	KJ_T_FLOAT,
	KJ_T_STRING,
	KJ_T_PUNCT, /* ( ) [ ] , : ~ = ; + - * / ** >= <= */
	KJ_T_ERROR,
};

struct kj_lexer {
	const char *src;
	size_t len, pos;
	int line, col;
	int depth; /* () and [] nesting */
	/* current token */
	enum kj_tok tok;
	int tline, tcol;
	char text[256];
	int64_t ival;
	double fval;
};

void kj_lex_init(struct kj_lexer *lx, const char *src, size_t len);
/* Advances to the next token; on a lexical error tok is KJ_T_ERROR and text
 * holds the message. */
void kj_lex_next(struct kj_lexer *lx);
int kj_lex_is(const struct kj_lexer *lx, const char *punct);
const char *kj_tok_desc(const struct kj_lexer *lx, char *buf, size_t len);

#endif
