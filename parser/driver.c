/* driver.c - the parse driver: feeds re2c tokens to the Lemon parser, words
 * syntax errors, and answers the REPL's "is this input incomplete?".
 *
 * Error recovery lives in the grammar (`stmt ::= error NEWLINE ...`); this file
 * only adds one repair: a syntax error on a DEDENT would make Lemon discard the
 * DEDENT and lose the block structure, so the driver re-feeds NEWLINE DEDENT. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "parser/grammar.h"
#include "parser/parse_internal.h"
#include "parser/parser.h"

static const char *const tk_names[] = {
    [0] = "EOF",
    [TK_NAME] = "NAME", [TK_INT] = "INT", [TK_FLOAT] = "FLOAT", [TK_STRING] = "STRING",
    [TK_NEWLINE] = "NEWLINE", [TK_INDENT] = "INDENT", [TK_DEDENT] = "DEDENT",
    [TK_DEF] = "DEF", [TK_CLASS] = "CLASS", [TK_RETURN] = "RETURN", [TK_PASS] = "PASS",
    [TK_FOR] = "FOR", [TK_IN] = "IN", [TK_IF] = "IF", [TK_ELIF] = "ELIF", [TK_ELSE] = "ELSE",
    [TK_WITH] = "WITH", [TK_AS] = "AS", [TK_IMPORT] = "IMPORT", [TK_FROM] = "FROM",
    [TK_AND] = "AND", [TK_OR] = "OR", [TK_NOT] = "NOT", [TK_IS] = "IS", [TK_LAMBDA] = "LAMBDA",
    [TK_NONE] = "NONE", [TK_TRUE] = "TRUE", [TK_FALSE] = "FALSE", [TK_WHILE] = "WHILE",
    [TK_BREAK] = "BREAK", [TK_CONTINUE] = "CONTINUE", [TK_ASSERT] = "ASSERT",
    [TK_PLUS] = "PLUS", [TK_MINUS] = "MINUS", [TK_STAR] = "STAR", [TK_SLASH] = "SLASH",
    [TK_DSLASH] = "DSLASH", [TK_PERCENT] = "PERCENT", [TK_POW] = "POW", [TK_AT] = "AT",
    [TK_LSHIFT] = "LSHIFT", [TK_RSHIFT] = "RSHIFT", [TK_AMP] = "AMP", [TK_PIPE] = "PIPE",
    [TK_CARET] = "CARET", [TK_TILDE] = "TILDE", [TK_LT] = "LT", [TK_GT] = "GT", [TK_LE] = "LE",
    [TK_GE] = "GE", [TK_EQ] = "EQ", [TK_NE] = "NE", [TK_ASSIGN] = "ASSIGN",
    [TK_PLUSEQ] = "PLUSEQ", [TK_MINUSEQ] = "MINUSEQ", [TK_STAREQ] = "STAREQ",
    [TK_SLASHEQ] = "SLASHEQ", [TK_DSLASHEQ] = "DSLASHEQ", [TK_PERCENTEQ] = "PERCENTEQ",
    [TK_POWEQ] = "POWEQ", [TK_ATEQ] = "ATEQ", [TK_AMPEQ] = "AMPEQ", [TK_PIPEEQ] = "PIPEEQ",
    [TK_CARETEQ] = "CARETEQ", [TK_LSHIFTEQ] = "LSHIFTEQ", [TK_RSHIFTEQ] = "RSHIFTEQ",
    [TK_LPAREN] = "LPAREN", [TK_RPAREN] = "RPAREN", [TK_LBRACKET] = "LBRACKET",
    [TK_RBRACKET] = "RBRACKET", [TK_LBRACE] = "LBRACE", [TK_RBRACE] = "RBRACE",
    [TK_COMMA] = "COMMA", [TK_COLON] = "COLON", [TK_DOT] = "DOT", [TK_ELLIPSIS] = "ELLIPSIS",
    [TK_SEMI] = "SEMI", [TK_ARROW] = "ARROW", [TK_UNARY] = "UNARY",
};

const char *lex_token_name(int kind) {
  if (kind < 0 || kind >= (int)(sizeof tk_names / sizeof tk_names[0]) || !tk_names[kind]) return "?";
  return tk_names[kind];
}

/* ---- syntax error messages --------------------------------------------- */

static bool is_header_kw(int k) {
  return k == TK_IF || k == TK_ELIF || k == TK_ELSE || k == TK_FOR || k == TK_WHILE ||
         k == TK_WITH || k == TK_DEF || k == TK_CLASS;
}

static const char *header_kw_text(int k) {
  switch (k) {
  case TK_IF: return "if";
  case TK_ELIF: return "elif";
  case TK_ELSE: return "else";
  case TK_FOR: return "for";
  case TK_WHILE: return "while";
  case TK_WITH: return "with";
  case TK_DEF: return "def";
  case TK_CLASS: return "class";
  default: return "?";
  }
}

/* Tokens after which an expression must follow. */
static bool wants_operand(int k) {
  return (k >= TK_PLUS && k <= TK_RSHIFTEQ) || k == TK_AND || k == TK_OR || k == TK_NOT ||
         k == TK_IN || k == TK_IS || k == TK_IF || k == TK_ELSE;
}

void parse_syntax_error(ParseCtx *c, int kind, const PTok *tok) {
  c->syntax_err = true;
  if (tok->synth) {
    if (kind != TK_NEWLINE) c->err_at_eof = true;
    /* the lexer already explained an unclosed bracket or string */
    if (c->lx.incomplete) return;
  }
  Lexer *lx = &c->lx;
  Span s = tok->span;
  const char *text = lx->src->text + s.off;
  int n = (int)s.len;
  if (c->prev_kind == TK_NEWLINE && c->prev2_kind == TK_COLON && kind != TK_INDENT &&
      is_header_kw(c->line_first_kind)) {
    int h = c->line_first_kind;
    const char *what = h == TK_DEF ? "function definition" : h == TK_CLASS ? "class definition" : NULL;
    if (what)
      lex_error(lx, s, "expected an indented block after %s on line %u", what, c->line_first_line);
    else
      lex_error(lx, s, "expected an indented block after '%s' statement on line %u",
                header_kw_text(h), c->line_first_line);
    return;
  }
  if (c->prev_kind == TK_NEWLINE && c->line_first_kind == TK_AT) {
    lex_error(lx, c->line_first_span, "expected a function or class definition after the decorator");
    return;
  }
  switch (kind) {
  case 0:
    lex_error(lx, s, "unexpected end of input");
    return;
  case TK_NEWLINE:
    if (is_header_kw(c->line_first_kind) && !c->line_colon && c->depth == 0) {
      lex_error(lx, s, "expected ':' after '%s' header", header_kw_text(c->line_first_kind));
      return;
    }
    if (wants_operand(c->prev_kind)) {
      lex_error(lx, s, "expected an expression at end of line");
      return;
    }
    lex_error(lx, s, "unexpected end of line");
    return;
  case TK_INDENT: lex_error(lx, s, "unexpected indent"); return;
  case TK_DEDENT: lex_error(lx, s, "unexpected end of block"); return;
  case TK_NAME: lex_error(lx, s, "unexpected identifier '%.*s'", n, text); return;
  case TK_INT:
  case TK_FLOAT: lex_error(lx, s, "unexpected number '%.*s'", n, text); return;
  case TK_STRING: lex_error(lx, s, "unexpected string literal"); return;
  case TK_ELLIPSIS: lex_error(lx, s, "'...' is not supported here"); return;
  default:
    lex_error(lx, s, "unexpected '%.*s'", n, text);
    return;
  }
}

/* ---- the token loop ---------------------------------------------------- */

static void feed(ParseCtx *c, void *p, int k, const PTok *t) {
  c->syntax_err = false;
  c->cur_span = t->span;
  parse_lemon(p, k, *t);
  /* bookkeeping for the messages (after the parser saw the token) */
  if (k != TK_INDENT && k != TK_DEDENT && k != TK_NEWLINE && k != 0) {
    if (c->prev_kind == TK_NEWLINE || c->prev_kind == TK_INDENT || c->prev_kind == TK_DEDENT ||
        c->prev_kind == -1) {
      c->line_first_kind = k;
      c->line_first_line = t->span.line;
      c->line_first_span = t->span;
      c->line_colon = false;
      c->depth = 0;
    }
  }
  if (k == TK_LPAREN || k == TK_LBRACKET || k == TK_LBRACE) c->depth++;
  else if ((k == TK_RPAREN || k == TK_RBRACKET || k == TK_RBRACE) && c->depth > 0) c->depth--;
  else if (k == TK_COLON && c->depth == 0) c->line_colon = true;
  c->prev2_kind = c->prev_kind;
  c->prev_kind = k;
}

static void run_parse(ParseCtx *c, const SourceFile *src, DiagCtx *diag, Arena *arena) {
  memset(c, 0, sizeof *c);
  lex_init(&c->lx, src, diag, arena);
  c->arena = arena;
  c->module = ast_new(arena, AST_MODULE, src_span(src, 0, (uint32_t)src->len));
  c->prev_kind = c->prev2_kind = -1;
  c->line_first_kind = -1;
  void *p = parse_lemonAlloc(xmalloc, c);
  for (;;) {
    PTok t;
    int k = lex_next(&c->lx, &t);
    feed(c, p, k, &t);
    if (c->fatal || k == 0) break;
    if (k == TK_DEDENT && c->syntax_err) {
      /* Lemon dropped the DEDENT while recovering: close the broken statement
       * and give the DEDENT back, so the enclosing block still ends here. */
      PTok nl = t;
      nl.synth = false;
      feed(c, p, TK_NEWLINE, &nl);
      if (!c->fatal) feed(c, p, TK_DEDENT, &t);
      if (c->fatal) break;
    }
  }
  parse_lemonFree(p, free);
}

AstFile *parse_file(const SourceFile *src, DiagCtx *diag) {
  AstFile *f = xcalloc(1, sizeof *f);
  arena_init(&f->arena);
  f->src = src;
  ParseCtx c;
  run_parse(&c, src, diag, &f->arena);
  f->module = c.module;
  return f;
}

bool parse_is_incomplete(const SourceFile *src) {
  Arena arena;
  arena_init(&arena);
  ParseCtx c;
  run_parse(&c, src, NULL, &arena);
  bool r = c.lx.incomplete || c.err_at_eof;
  arena_free(&arena);
  return r;
}

int lex_all(const SourceFile *src, DiagCtx *diag, LexToken **out) {
  Arena arena;
  arena_init(&arena);
  Lexer lx;
  lex_init(&lx, src, diag, &arena);
  int n = 0, cap = 64;
  LexToken *v = xmalloc((size_t)cap * sizeof *v);
  for (;;) {
    PTok t;
    int k = lex_next(&lx, &t);
    VEC_RESERVE(v, cap, n + 1);
    v[n].kind = k;
    v[n].span = t.span;
    n++;
    if (k == 0) break;
  }
  arena_free(&arena);
  *out = v;
  return n;
}
