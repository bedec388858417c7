/* parser.h - the parse driver: .tvs text -> AST.
 *
 * The re2c lexer (lexer.re) turns text into tokens with spans, including
 * NEWLINE/INDENT/DEDENT from an indentation stack; the Lemon grammar
 * (grammar.y) builds the AST with one ast_* call per rule.  Syntax errors are
 * reported to the DiagCtx and recovered from at the next statement, so one run
 * reports several errors.  Never crashes or loops on any input. */
#ifndef TVS_PARSER_PARSER_H
#define TVS_PARSER_PARSER_H

#include <stdbool.h>

#include "lang/ast.h"
#include "base/diag.h"

/* Parses a whole file.  Always returns an AstFile (possibly with a partial
 * module) to free with ast_file_free; check diag->nerr for errors. */
AstFile *parse_file(const SourceFile *src, DiagCtx *diag);

/* For the REPL: true when the text is an incomplete statement that more lines
 * could complete (open brackets, a trailing ':' block header, a syntax error
 * at end of input).  Reports nothing. */
bool parse_is_incomplete(const SourceFile *src);

/* Token kinds produced by the lexer (for tests and the language server). */
typedef struct LexToken {
  int kind;     /* a TK_* code from the generated grammar.h */
  Span span;    /* the token's text */
} LexToken;

/* Tokenizes a whole file (lexer unit tests, `tvs show --stage tokens`).
 * Returns the number of tokens written to *out (malloc'd; free()), including
 * the final end-of-input token, which has kind 0. */
int lex_all(const SourceFile *src, DiagCtx *diag, LexToken **out);
/* The grammar's name of a token kind ("NAME", "INDENT", "LPAREN", ...). */
const char *lex_token_name(int kind);

#endif
