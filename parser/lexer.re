/* lexer.re - the re2c tokenizer of the Python subset TVMScript uses.
 *
 * Layout: NEWLINE ends a logical line; INDENT/DEDENT come from a stack of
 * indentation columns.  Tabs advance the column to the next multiple of 8
 * (consistently, like Python 2; mixing is allowed).  Blank and comment-only
 * lines produce nothing; inside (), [], {} and after a backslash, lines join.
 * Whitespace, comments, strings and layout are scanned by hand; re2c matches
 * identifiers, keywords, numbers and operators. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "parser/grammar.h"
#include "parser/parse_internal.h"

void lex_init(Lexer *lx, const SourceFile *src, DiagCtx *diag, Arena *arena) {
  memset(lx, 0, sizeof *lx);
  lx->src = src;
  lx->diag = diag;
  lx->arena = arena;
  lx->base = (const unsigned char *)src->text;
  lx->cur = lx->base;
  lx->end = lx->base + src->len;
  lx->nindent = 1;
  lx->at_bol = true;
  lx->last_kind = -1;
}

void lex_error(Lexer *lx, Span span, const char *fmt, ...) {
  lx->nerr++;
  if (span.line != 0 && span.line == lx->last_err_line) return;
  lx->last_err_line = span.line;
  if (!lx->diag) return;
  va_list ap;
  va_start(ap, fmt);
  diag_report(lx->diag, DIAG_ERROR, span, fmt, ap);
  va_end(ap);
}

static uint32_t lex_off(const Lexer *lx, const unsigned char *p) { return (uint32_t)(p - lx->base); }

/* Tokens come in increasing offset order, so the line is found by walking
 * forward from the previous token's line (amortized O(1), no binary search). */
static Span lex_span(Lexer *lx, const unsigned char *b, const unsigned char *e) {
  uint32_t off = lex_off(lx, b);
  const SourceFile *f = lx->src;
  if (off < f->lines[lx->line_idx]) return src_span(f, off, (uint32_t)(e - b));
  while (lx->line_idx + 1 < f->nlines && f->lines[lx->line_idx + 1] <= off) lx->line_idx++;
  Span s = {f, off, (uint32_t)(e - b), lx->line_idx + 1, off - f->lines[lx->line_idx] + 1};
  return s;
}

/* An invalid byte (or UTF-8 sequence) at p: reports it and returns the end. */
static const unsigned char *lex_invalid_char(Lexer *lx, const unsigned char *p) {
  unsigned c = *p;
  const unsigned char *e = p + 1;
  if (c >= 0xC2 && c <= 0xF4) {
    int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    uint32_t cp = c & (0x3F >> n);
    int i;
    for (i = 0; i < n && e < lx->end && (*e & 0xC0) == 0x80; i++, e++) cp = (cp << 6) | (*e & 0x3F);
    if (i == n) {
      lex_error(lx, lex_span(lx, p, e), "invalid character '%.*s' (U+%04X)", (int)(e - p),
                (const char *)p, cp);
      return e;
    }
    e = p + 1;
  }
  if (c >= 0x21 && c < 0x7F)
    lex_error(lx, lex_span(lx, p, e), "invalid character '%c' in source text", (int)c);
  else
    lex_error(lx, lex_span(lx, p, e), "invalid character (byte 0x%02X) in source text", c);
  return e;
}

/* ---- numbers ----------------------------------------------------------- */

static int lex_digit(unsigned c) {
  if (c >= '0' && c <= '9') return (int)(c - '0');
  if (c >= 'a' && c <= 'f') return (int)(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return (int)(c - 'A' + 10);
  return 99;
}

static void lex_int_value(const unsigned char *b, const unsigned char *e, PTok *t) {
  unsigned base = 10;
  if (e - b > 2 && b[0] == '0') {
    unsigned x = b[1] | 0x20;
    base = x == 'x' ? 16 : x == 'o' ? 8 : x == 'b' ? 2 : 10;
    if (base != 10) b += 2;
  }
  uint64_t v = 0;
  int big = 0;
  for (; b < e; b++) {
    if (*b == '_') continue;
    unsigned d = (unsigned)lex_digit(*b);
    if (!big && v > ((uint64_t)INT64_MAX - d) / base) big = 1;
    if (!big) v = v * base + d;
  }
  t->ival = big ? INT64_MAX : (int64_t)v;
  t->big = big;
}

static void lex_float_value(const unsigned char *b, const unsigned char *e, PTok *t) {
  char small[128];
  size_t n = (size_t)(e - b);
  char *buf = n < sizeof small ? small : xmalloc(n + 1);
  size_t k = 0;
  for (; b < e; b++)
    if (*b != '_') buf[k++] = (char)*b;
  buf[k] = '\0';
  t->fval = strtod(buf, NULL);
  if (buf != small) free(buf);
}

static bool lex_is_idchar(unsigned c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A number glued to letters ("1abc", "0x", "1_") is one bad literal. */
static const unsigned char *lex_check_number_end(Lexer *lx, const unsigned char *b,
                                                 const unsigned char *e, const char *what) {
  if (e < lx->end && lex_is_idchar(*e)) {
    /* "0x" with no digits: name the base the user meant. */
    if (e - b == 1 && *b == '0') {
      unsigned k = *e | 0x20;
      if (k == 'x') what = "hexadecimal";
      else if (k == 'o') what = "octal";
      else if (k == 'b') what = "binary";
    }
    while (e < lx->end && (lex_is_idchar(*e) || *e == '.')) e++;
    lex_error(lx, lex_span(lx, b, e), "invalid %s literal", what);
  }
  return e;
}

/* ---- strings ----------------------------------------------------------- */

static void lex_put_utf8(char *out, size_t *k, uint32_t cp) {
  if (cp < 0x80) {
    out[(*k)++] = (char)cp;
  } else if (cp < 0x800) {
    out[(*k)++] = (char)(0xC0 | (cp >> 6));
    out[(*k)++] = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out[(*k)++] = (char)(0xE0 | (cp >> 12));
    out[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*k)++] = (char)(0x80 | (cp & 0x3F));
  } else {
    out[(*k)++] = (char)(0xF0 | (cp >> 18));
    out[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*k)++] = (char)(0x80 | (cp & 0x3F));
  }
}

/* Decodes the escapes of body [b, e) into the arena. Unknown escapes are kept
 * as written (backslash included), as Python does.  \uXXXX becomes UTF-8,
 * which is never longer than the 6 source bytes it replaces. */
static void lex_decode_string(Lexer *lx, const unsigned char *b, const unsigned char *e, bool raw,
                              PTok *t) {
  char *out = arena_alloc(lx->arena, (size_t)(e - b) + 1);
  size_t k = 0;
  while (b < e) {
    unsigned c = *b++;
    if (c != '\\' || raw || b >= e) {
      out[k++] = (char)c;
      continue;
    }
    const unsigned char *esc = b - 1;
    c = *b++;
    switch (c) {
    case '\n': break; /* backslash-newline: line continuation inside the string */
    case '\\': out[k++] = '\\'; break;
    case '\'': out[k++] = '\''; break;
    case '"': out[k++] = '"'; break;
    case 'n': out[k++] = '\n'; break;
    case 't': out[k++] = '\t'; break;
    case 'r': out[k++] = '\r'; break;
    case 'a': out[k++] = '\a'; break;
    case 'b': out[k++] = '\b'; break;
    case 'f': out[k++] = '\f'; break;
    case 'v': out[k++] = '\v'; break;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
      unsigned v = c - '0';
      for (int i = 0; i < 2 && b < e && *b >= '0' && *b <= '7'; i++) v = v * 8 + (*b++ - '0');
      out[k++] = (char)(v & 0xFF);
      break;
    }
    case 'x':
      if (b + 1 < e + 0 && lex_digit(b[0]) < 16 && lex_digit(b[1]) < 16) {
        out[k++] = (char)(lex_digit(b[0]) * 16 + lex_digit(b[1]));
        b += 2;
      } else {
        const unsigned char *q = b;
        while (q < e && q < b + 2 && lex_digit(*q) < 16) q++;
        lex_error(lx, lex_span(lx, esc, q), "invalid \\x escape: expected two hex digits");
        out[k++] = '\\';
        out[k++] = 'x';
      }
      break;
    case 'u': case 'U': {
      int n = c == 'u' ? 4 : 8, i;
      uint32_t v = 0;
      for (i = 0; i < n && b + i < e && lex_digit(b[i]) < 16; i++) v = v * 16 + (uint32_t)lex_digit(b[i]);
      if (i == n && v <= 0x10FFFF) {
        lex_put_utf8(out, &k, v);
        b += n;
      } else {
        lex_error(lx, lex_span(lx, esc, b + i), "invalid \\%c escape", (int)c);
        out[k++] = '\\';
        out[k++] = (char)c;
      }
      break;
    }
    default: /* unknown escape: kept literally */
      out[k++] = '\\';
      out[k++] = (char)c;
      break;
    }
  }
  out[k] = '\0';
  t->text = out;
  t->ival = (int64_t)k;
}

/* Scans a string literal whose opening quote is at q (prefix starts at b). */
static int lex_string(Lexer *lx, const unsigned char *b, const unsigned char *q, PTok *t) {
  bool raw = false;
  for (const unsigned char *p = b; p < q; p++)
    if ((*p | 0x20) == 'r') raw = true;
  unsigned quote = *q;
  const unsigned char *p = q + 1, *body, *body_end;
  bool triple = p + 1 < lx->end + 0 && p[0] == quote && p[1] == quote;
  if (triple) {
    body = p += 2;
    for (;;) {
      if (p >= lx->end) {
        body_end = p;
        lex_error(lx, lex_span(lx, b, q + 3), "unterminated triple-quoted string literal");
        lx->incomplete = true;
        break;
      }
      if (*p == '\\' && p + 1 < lx->end) {
        p += 2;
        continue;
      }
      if (*p == quote && p + 2 < lx->end + 1 && p[1] == quote && p[2] == quote) {
        body_end = p;
        p += 3;
        break;
      }
      p++;
    }
  } else {
    body = p;
    for (;;) {
      if (p >= lx->end || *p == '\n') {
        body_end = p;
        lex_error(lx, lex_span(lx, b, q + 1), "unterminated string literal");
        break;
      }
      if (*p == '\\' && p + 1 < lx->end) {
        p += 2;
        continue;
      }
      if (*p == quote) {
        body_end = p;
        p++;
        break;
      }
      p++;
    }
  }
  lx->cur = p;
  t->span = lex_span(lx, b, p);
  lex_decode_string(lx, body, body_end, raw, t);
  return TK_STRING;
}

/* ---- brackets ---------------------------------------------------------- */

static void lex_open(Lexer *lx, const unsigned char *p) {
  if (lx->depth >= LEX_MAX_DEPTH) {
    lex_error(lx, lex_span(lx, p, p + 1), "too many nested parentheses (the limit is %d)",
              LEX_MAX_DEPTH);
    lx->fatal = true;
    return;
  }
  lx->open_ch[lx->depth] = *p;
  lx->open_off[lx->depth] = lex_off(lx, p);
  lx->depth++;
}

static void lex_close(Lexer *lx, const unsigned char *p) {
  static const char pairs[] = "()[]{}";
  if (lx->depth == 0) {
    lex_error(lx, lex_span(lx, p, p + 1), "unmatched '%c'", (int)*p);
    return;
  }
  unsigned open = lx->open_ch[lx->depth - 1];
  const char *po = strchr(pairs, (int)open);
  if (po && (unsigned char)po[1] != *p) {
    Span s = lex_span(lx, p, p + 1);
    Span o = src_span(lx->src, lx->open_off[lx->depth - 1], 1);
    if (o.line == s.line)
      lex_error(lx, s, "closing '%c' does not match opening '%c'", (int)*p, (int)open);
    else
      lex_error(lx, s, "closing '%c' does not match opening '%c' on line %u", (int)*p, (int)open,
                o.line);
  }
  lx->depth--;
}

/* ---- layout ------------------------------------------------------------ */

/* Skips spaces, comments and backslash continuations within a line. */
static void lex_skip_space(Lexer *lx) {
  const unsigned char *p = lx->cur;
  for (;;) {
    while (p < lx->end && (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\r')) p++;
    if (p < lx->end && *p == '#') {
      while (p < lx->end && *p != '\n') p++;
      continue;
    }
    if (p < lx->end && *p == '\\') {
      const unsigned char *q = p + 1;
      while (q < lx->end && *q == '\r') q++;
      if (q < lx->end && *q == '\n') {
        p = q + 1;
        if (p >= lx->end) lx->incomplete = true; /* the REPL reads another line */
        continue;
      }
      if (q >= lx->end) {
        lex_error(lx, lex_span(lx, p, p + 1), "unexpected end of input after line continuation");
        lx->incomplete = true;
        p = q;
        continue;
      }
      lex_error(lx, lex_span(lx, p, p + 1), "unexpected character after line continuation character");
      p++;
      continue;
    }
    break;
  }
  lx->cur = p;
}

/* At the beginning of a line outside brackets: measures indentation, skips
 * blank lines, and queues INDENT/DEDENT.  Returns TK_INDENT when an INDENT is
 * due (its span in *t), TK_DEDENT when DEDENTs are queued, 0 otherwise. */
static int lex_layout(Lexer *lx, PTok *t) {
  for (;;) {
    const unsigned char *p = lx->cur, *b = p;
    int col = 0;
    while (p < lx->end) {
      if (*p == ' ') col++;
      else if (*p == '\t') col = (col / 8 + 1) * 8;
      else if (*p == '\f') col = 0;
      else if (*p != '\r') break;
      p++;
    }
    if (p >= lx->end) { /* trailing whitespace at end of input */
      lx->cur = p;
      return 0;
    }
    if (*p == '#' || *p == '\n' || (*p == '\\' && p + 1 < lx->end && p[1] == '\n')) {
      /* blank or comment-only line (a lone backslash line is blank too) */
      while (p < lx->end && *p != '\n') p++;
      if (p < lx->end) p++;
      lx->cur = p;
      continue;
    }
    lx->cur = p;
    lx->at_bol = false;
    int top = lx->indent[lx->nindent - 1];
    if (col == top) return 0;
    if (col > top) {
      if (lx->nindent >= LEX_MAX_INDENT) {
        lex_error(lx, lex_span(lx, b, p), "too many levels of indentation (the limit is %d)",
                  LEX_MAX_INDENT);
        lx->fatal = true;
        return 0;
      }
      bool ok = lx->colon_before_newline;
      lx->indent[lx->nindent] = col;
      lx->phantom[lx->nindent] = !ok;
      lx->nindent++;
      if (!ok) {
        /* Parse the line as if it were not indented; the level is remembered
         * so that the lines after it do not report again. */
        lex_error(lx, lex_span(lx, p, p + 1), "unexpected indent");
        return 0;
      }
      t->span = lex_span(lx, b, p);
      return TK_INDENT;
    }
    int n = 0;
    while (lx->nindent > 1 && lx->indent[lx->nindent - 1] > col) {
      if (!lx->phantom[lx->nindent - 1]) n++;
      lx->nindent--;
    }
    if (lx->indent[lx->nindent - 1] != col) {
      lex_error(lx, lex_span(lx, p, p + 1), "unindent does not match any outer indentation level");
      lx->indent[lx->nindent] = col;
      lx->phantom[lx->nindent] = true;
      lx->nindent++;
    }
    lx->pending_dedents = n;
    lx->dedent_span = lex_span(lx, p, p);
    return n ? TK_DEDENT : 0;
  }
}

/* ---- tokens ------------------------------------------------------------ */

/*!re2c
  re2c:define:YYCTYPE = "unsigned char";
  re2c:yyfill:enable = 0;

  dig = [0-9];
  digpart = dig ("_"? dig)*;
  decint = [1-9] ("_"? dig)* | "0" ("_"? "0")*;
  hexint = "0" [xX] ("_"? [0-9a-fA-F])+;
  octint = "0" [oO] ("_"? [0-7])+;
  binint = "0" [bB] ("_"? [01])+;
  exponent = [eE] [+-]? digpart;
  pointfloat = digpart? "." digpart | digpart ".";
  floatlit = pointfloat exponent? | digpart exponent;
  ident = [a-zA-Z_] [a-zA-Z0-9_]*;
  strprefix = [rRbBuU] | [rR][bB] | [bB][rR];
*/

/* Scans one token at lx->cur (not whitespace, newline or end of input).
 * Returns its kind, or -1 after reporting an invalid character. */
static int lex_scan(Lexer *lx, PTok *t) {
  const unsigned char *YYCURSOR = lx->cur, *YYMARKER = YYCURSOR;
  const unsigned char *b = YYCURSOR;
  int k;
#define TOK(kind) do { k = (kind); goto done; } while (0)
  /*!re2c
    "def"      { TOK(TK_DEF); }
    "class"    { TOK(TK_CLASS); }
    "return"   { TOK(TK_RETURN); }
    "pass"     { TOK(TK_PASS); }
    "for"      { TOK(TK_FOR); }
    "in"       { TOK(TK_IN); }
    "if"       { TOK(TK_IF); }
    "elif"     { TOK(TK_ELIF); }
    "else"     { TOK(TK_ELSE); }
    "with"     { TOK(TK_WITH); }
    "as"       { TOK(TK_AS); }
    "import"   { TOK(TK_IMPORT); }
    "from"     { TOK(TK_FROM); }
    "and"      { TOK(TK_AND); }
    "or"       { TOK(TK_OR); }
    "not"      { TOK(TK_NOT); }
    "is"       { TOK(TK_IS); }
    "lambda"   { TOK(TK_LAMBDA); }
    "None"     { TOK(TK_NONE); }
    "True"     { TOK(TK_TRUE); }
    "False"    { TOK(TK_FALSE); }
    "while"    { TOK(TK_WHILE); }
    "break"    { TOK(TK_BREAK); }
    "continue" { TOK(TK_CONTINUE); }
    "assert"   { TOK(TK_ASSERT); }

    strprefix? ["'] {
      return lex_string(lx, b, YYCURSOR - 1, t);
    }
    ident {
      t->text = arena_strndup(lx->arena, (const char *)b, (size_t)(YYCURSOR - b));
      TOK(TK_NAME);
    }
    decint | hexint | octint | binint {
      lex_int_value(b, YYCURSOR, t);
      YYCURSOR = lex_check_number_end(lx, b, YYCURSOR, (b[0] == '0' && YYCURSOR - b > 1 &&
          (b[1] | 0x20) == 'x') ? "hexadecimal" : (b[0] == '0' && YYCURSOR - b > 1 &&
          (b[1] | 0x20) == 'o') ? "octal" : (b[0] == '0' && YYCURSOR - b > 1 &&
          (b[1] | 0x20) == 'b') ? "binary" : "decimal");
      TOK(TK_INT);
    }
    floatlit {
      lex_float_value(b, YYCURSOR, t);
      YYCURSOR = lex_check_number_end(lx, b, YYCURSOR, "decimal");
      TOK(TK_FLOAT);
    }

    "+"   { TOK(TK_PLUS); }
    "-"   { TOK(TK_MINUS); }
    "*"   { TOK(TK_STAR); }
    "/"   { TOK(TK_SLASH); }
    "//"  { TOK(TK_DSLASH); }
    "%"   { TOK(TK_PERCENT); }
    "**"  { TOK(TK_POW); }
    "@"   { TOK(TK_AT); }
    "<<"  { TOK(TK_LSHIFT); }
    ">>"  { TOK(TK_RSHIFT); }
    "&"   { TOK(TK_AMP); }
    "|"   { TOK(TK_PIPE); }
    "^"   { TOK(TK_CARET); }
    "~"   { TOK(TK_TILDE); }
    "<"   { TOK(TK_LT); }
    ">"   { TOK(TK_GT); }
    "<="  { TOK(TK_LE); }
    ">="  { TOK(TK_GE); }
    "=="  { TOK(TK_EQ); }
    "!="  { TOK(TK_NE); }
    "="   { TOK(TK_ASSIGN); }
    "+="  { TOK(TK_PLUSEQ); }
    "-="  { TOK(TK_MINUSEQ); }
    "*="  { TOK(TK_STAREQ); }
    "/="  { TOK(TK_SLASHEQ); }
    "//=" { TOK(TK_DSLASHEQ); }
    "%="  { TOK(TK_PERCENTEQ); }
    "**=" { TOK(TK_POWEQ); }
    "@="  { TOK(TK_ATEQ); }
    "&="  { TOK(TK_AMPEQ); }
    "|="  { TOK(TK_PIPEEQ); }
    "^="  { TOK(TK_CARETEQ); }
    "<<=" { TOK(TK_LSHIFTEQ); }
    ">>=" { TOK(TK_RSHIFTEQ); }
    "("   { lex_open(lx, b); TOK(TK_LPAREN); }
    ")"   { lex_close(lx, b); TOK(TK_RPAREN); }
    "["   { lex_open(lx, b); TOK(TK_LBRACKET); }
    "]"   { lex_close(lx, b); TOK(TK_RBRACKET); }
    "{"   { lex_open(lx, b); TOK(TK_LBRACE); }
    "}"   { lex_close(lx, b); TOK(TK_RBRACE); }
    ","   { TOK(TK_COMMA); }
    ":"   { TOK(TK_COLON); }
    "."   { TOK(TK_DOT); }
    "..." { TOK(TK_ELLIPSIS); }
    ";"   { TOK(TK_SEMI); }
    "->"  { TOK(TK_ARROW); }

    * {
      lx->cur = lex_invalid_char(lx, b);
      return -1;
    }
  */
done:
#undef TOK
  lx->cur = YYCURSOR;
  t->span = lex_span(lx, b, YYCURSOR);
  return k;
}

/* The token after whitespace: NEWLINE/INDENT/DEDENT, a real token, or end of input. */
static int lex_raw(Lexer *lx, PTok *t) {
  memset(t, 0, sizeof *t);
  for (;;) {
    if (lx->pending_dedents > 0) {
      lx->pending_dedents--;
      t->span = lx->dedent_span;
      t->synth = lx->eof_state > 0;
      return TK_DEDENT;
    }
    if (lx->eof_state == 2) {
      t->span = src_span(lx->src, (uint32_t)lx->src->len, 0);
      t->synth = true;
      return 0;
    }
    if (lx->fatal) lx->cur = lx->end; /* stop scanning: finish the layout */
    if (lx->at_bol && lx->depth == 0 && lx->eof_state == 0) {
      int k = lex_layout(lx, t);
      if (k == TK_INDENT) return k;
      if (k == TK_DEDENT) continue;
    }
    lex_skip_space(lx);
    const unsigned char *p = lx->cur;
    if (p >= lx->end) {
      if (lx->eof_state == 0) {
        if (lx->depth > 0) {
          Span o = src_span(lx->src, lx->open_off[lx->depth - 1], 1);
          if (!lx->fatal) lex_error(lx, o, "'%c' was never closed", (int)lx->open_ch[lx->depth - 1]);
          lx->incomplete = true;
          lx->depth = 0;
        }
        lx->eof_state = 1;
        if (lx->line_has_tokens) {
          t->span = src_span(lx->src, (uint32_t)lx->src->len, 0);
          t->synth = true;
          lx->line_has_tokens = false;
          return TK_NEWLINE;
        }
      }
      int n = 0;
      for (int i = lx->nindent - 1; i > 0; i--)
        if (!lx->phantom[i]) n++;
      lx->nindent = 1;
      lx->pending_dedents = n;
      lx->dedent_span = src_span(lx->src, (uint32_t)lx->src->len, 0);
      lx->eof_state = 2;
      continue;
    }
    if (*p == '\n') {
      lx->cur = p + 1;
      if (lx->depth > 0) continue; /* implicit line joining */
      lx->at_bol = true;
      if (!lx->line_has_tokens) continue;
      lx->line_has_tokens = false;
      t->span = lex_span(lx, p, p + 1);
      return TK_NEWLINE;
    }
    int k = lex_scan(lx, t);
    if (k < 0) continue;
    return k;
  }
}

static bool lex_is_header_kw(int k) {
  return k == TK_IF || k == TK_ELIF || k == TK_ELSE || k == TK_FOR || k == TK_WHILE ||
         k == TK_WITH || k == TK_DEF || k == TK_CLASS;
}

int lex_next(Lexer *lx, PTok *t) {
  int k = lex_raw(lx, t);
  if (k == TK_NEWLINE) {
    /* An indented line may follow a line ending in ':', or a block header
     * that forgot its ':' (the parser reports that; the block still parses). */
    lx->colon_before_newline = lx->last_kind == TK_COLON ||
                               (lex_is_header_kw(lx->line_first_kind) && !lx->line_colon);
  } else if (k != TK_INDENT && k != TK_DEDENT && k != 0) {
    if (!lx->line_has_tokens) {
      lx->line_first_kind = k;
      lx->line_colon = false;
    }
    lx->line_has_tokens = true;
    if (k == TK_COLON && lx->depth == 0) lx->line_colon = true;
  }
  lx->last_kind = k;
  return k;
}
