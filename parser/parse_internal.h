/* parse_internal.h - state shared by the lexer (lexer.re), the Lemon grammar
 * actions (grammar.y) and the parse driver (driver.c).  Not a public API: the
 * rest of TVS goes through parser/parser.h.
 *
 * Errors are limited to one per source line (lexer and parser together), so
 * that a broken line does not produce a cascade of follow-on reports. */
#ifndef TVS_PARSER_PARSE_INTERNAL_H
#define TVS_PARSER_PARSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "lang/ast.h"
#include "base/diag.h"
#include "base/source.h"

#define LEX_MAX_INDENT 100 /* nested indentation levels (Python's limit too) */
#define LEX_MAX_DEPTH 200  /* nested (), [], {} */

/* The semantic value of a terminal (Lemon's %token_type, passed by value). */
typedef struct PTok {
  Span span;        /* the token's text */
  const char *text; /* NAME: identifier (arena); STRING: decoded contents (arena) */
  int64_t ival;     /* INT: value (saturated); STRING: length of text */
  double fval;      /* FLOAT: value */
  int big;          /* INT: literal did not fit in int64 */
  bool synth;       /* NEWLINE/DEDENT/EOF made up at end of input */
} PTok;

typedef struct Lexer {
  const SourceFile *src;           /* text being scanned */
  DiagCtx *diag;                   /* errors go here (NULL: count only) */
  Arena *arena;                    /* identifier and string values */
  const unsigned char *base;       /* src->text */
  const unsigned char *cur;        /* next unread byte */
  const unsigned char *end;        /* src->text + src->len (a NUL is there) */
  int indent[LEX_MAX_INDENT];      /* indentation stack (columns); indent[0] == 0 */
  bool phantom[LEX_MAX_INDENT];    /* level pushed by error recovery: no DEDENT on pop */
  int nindent;                     /* levels in use (>= 1) */
  int pending_dedents;             /* DEDENTs still to emit */
  Span dedent_span;                /* where those DEDENTs point */
  int depth;                       /* open brackets */
  unsigned char open_ch[LEX_MAX_DEPTH]; /* the bracket characters */
  uint32_t open_off[LEX_MAX_DEPTH];     /* and their offsets */
  bool at_bol;                     /* at the beginning of a logical line */
  bool line_has_tokens;            /* a token was produced since the last NEWLINE */
  int last_kind;                   /* kind of the last token produced (-1: none) */
  int line_first_kind;             /* kind of the first token of the current line */
  bool line_colon;                 /* a ':' outside brackets was seen on this line */
  bool colon_before_newline;       /* the last logical line may open a block (ended
                                      with ':' or began with a block keyword) */
  int eof_state;                   /* 0 scanning, 1 final NEWLINE done, 2 EOF returned */
  uint32_t line_idx;               /* 0-based line of the last span made (cache) */
  uint32_t last_err_line;          /* line of the last error reported (0: none) */
  int nerr;                        /* errors found, reported or not */
  bool incomplete;                 /* input ended inside brackets, a triple-quoted
                                      string or after a backslash continuation */
  bool fatal;                      /* stop: the rest of the input is not scanned */
} Lexer;

void lex_init(Lexer *lx, const SourceFile *src, DiagCtx *diag, Arena *arena);
/* The next token: its TK_* kind (0 at end of input, returned forever after)
 * and value. */
int lex_next(Lexer *lx, PTok *tok);
/* Reports an error unless one was already reported on span's line. */
void lex_error(Lexer *lx, Span span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The context of one parse (Lemon's %extra_context). */
typedef struct ParseCtx {
  Lexer lx;                 /* the token source; also owns the error limiter */
  Arena *arena;             /* AST memory (the AstFile's arena) */
  Ast *module;              /* top-level statements are appended here as parsed */
  bool fatal;               /* parser stack overflow: stop feeding tokens */
  bool syntax_err;          /* %syntax_error fired for the token being fed */
  bool err_at_eof;          /* a syntax error hit a token made up at end of input */
  /* what the error messages look at */
  int prev_kind, prev2_kind;  /* the two tokens fed before the current one */
  int line_first_kind;        /* first token of the current logical line */
  uint32_t line_first_line;   /* and its line number */
  Span line_first_span;       /* and its span */
  bool line_colon;            /* a ':' outside brackets was seen on this line */
  int depth;                  /* bracket depth as seen by the parser */
  Span cur_span;              /* span of the token being fed */
} ParseCtx;

/* Lemon-generated entry points (grammar.y, %name parse_lemon). */
void *parse_lemonAlloc(void *(*alloc)(size_t), ParseCtx *ctx);
void parse_lemon(void *parser, int kind, PTok tok);
void parse_lemonFree(void *parser, void (*dealloc)(void *));

/* Reports a syntax error for token `kind` (grammar.y's %syntax_error). */
void parse_syntax_error(ParseCtx *ctx, int kind, const PTok *tok);

#endif
