/* test_lexer.c - token sequences, layout (INDENT/DEDENT), literals, spans and
 * lexical errors of parser/lexer.re, through lex_all. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/util.h"
#include "parser/grammar.h"
#include "parser/parser.h"

/* Token names of text, space-separated ("NAME ASSIGN INT NEWLINE EOF"). */
static char *toks(const char *text, int *nerr) {
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  DiagCtx d;
  diag_init(&d, NULL);
  LexToken *t;
  int n = lex_all(src, &d, &t);
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < n; i++) {
    if (i) sb_putc(&sb, ' ');
    sb_puts(&sb, lex_token_name(t[i].kind));
  }
  if (nerr) *nerr = d.nerr;
  free(t);
  diag_free(&d);
  src_free(src);
  return sb.data; /* the caller frees */
}

#define CHECK_TOKS(text, expected)       \
  do {                                   \
    char *got_ = toks((text), NULL);     \
    CHECK_EQ_STR(got_, (expected));      \
    free(got_);                          \
  } while (0)

/* The first error's message and position, "line:col: msg" (or "" if none). */
static char *first_error(const char *text, int *nerr) {
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  DiagCtx d;
  diag_init(&d, NULL);
  LexToken *t;
  lex_all(src, &d, &t);
  char *r = d.len ? xasprintf("%u:%u: %s", d.items[0].span.line, d.items[0].span.col, d.items[0].msg)
                  : xstrdup("");
  if (nerr) *nerr = d.nerr;
  free(t);
  diag_free(&d);
  src_free(src);
  return r;
}

#define CHECK_ERR(text, expected)            \
  do {                                       \
    char *got_ = first_error((text), NULL);  \
    CHECK_EQ_STR(got_, (expected));          \
    free(got_);                              \
  } while (0)

static void test_basic(void) {
  CHECK_TOKS("", "EOF");
  CHECK_TOKS("\n\n   \n# only a comment\n", "EOF");
  CHECK_TOKS("x = 1\n", "NAME ASSIGN INT NEWLINE EOF");
  CHECK_TOKS("x = 1", "NAME ASSIGN INT NEWLINE EOF"); /* NEWLINE added at EOF */
  CHECK_TOKS("x = 1  # comment\n", "NAME ASSIGN INT NEWLINE EOF");
  CHECK_TOKS("a.b(c)[d]", "NAME DOT NAME LPAREN NAME RPAREN LBRACKET NAME RBRACKET NEWLINE EOF");
  CHECK_TOKS("def f(a) -> T: pass",
             "DEF NAME LPAREN NAME RPAREN ARROW NAME COLON PASS NEWLINE EOF");
  CHECK_TOKS("x = 1\r\ny = 2\r\n", "NAME ASSIGN INT NEWLINE NAME ASSIGN INT NEWLINE EOF");
}

static void test_keywords(void) {
  CHECK_TOKS("def class return pass for in if elif else with as import from",
             "DEF CLASS RETURN PASS FOR IN IF ELIF ELSE WITH AS IMPORT FROM NEWLINE EOF");
  CHECK_TOKS("and or not is lambda None True False while break continue assert",
             "AND OR NOT IS LAMBDA NONE TRUE FALSE WHILE BREAK CONTINUE ASSERT NEWLINE EOF");
  CHECK_TOKS("define classy _if None_ Trueish", "NAME NAME NAME NAME NAME NEWLINE EOF");
}

static void test_operators(void) {
  CHECK_TOKS("+ - * / // % ** @ << >> & | ^ ~",
             "PLUS MINUS STAR SLASH DSLASH PERCENT POW AT LSHIFT RSHIFT AMP PIPE CARET TILDE NEWLINE EOF");
  CHECK_TOKS("< > <= >= == != =", "LT GT LE GE EQ NE ASSIGN NEWLINE EOF");
  CHECK_TOKS("+= -= *= /= //= %= &= |= ^= <<= >>= **= @=",
             "PLUSEQ MINUSEQ STAREQ SLASHEQ DSLASHEQ PERCENTEQ AMPEQ PIPEEQ CARETEQ LSHIFTEQ "
             "RSHIFTEQ POWEQ ATEQ NEWLINE EOF");
  CHECK_TOKS("( ) [ ] { } , : . ; ->",
             "LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE COMMA COLON DOT SEMI ARROW NEWLINE EOF");
  CHECK_TOKS("a**-b", "NAME POW MINUS NAME NEWLINE EOF");
  CHECK_TOKS("x<<=y>>z", "NAME LSHIFTEQ NAME RSHIFT NAME NEWLINE EOF");
}

static void test_indentation(void) {
  CHECK_TOKS("if x:\n    y\nz\n",
             "IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT NAME NEWLINE EOF");
  /* two levels closed at once, and at end of input */
  CHECK_TOKS("if a:\n  if b:\n    c\nd\n",
             "IF NAME COLON NEWLINE INDENT IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT DEDENT "
             "NAME NEWLINE EOF");
  CHECK_TOKS("if a:\n  if b:\n    c",
             "IF NAME COLON NEWLINE INDENT IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT DEDENT EOF");
  /* blank and comment lines at any indentation produce nothing */
  CHECK_TOKS("if a:\n\n        # c\n  b\n\n  c\n",
             "IF NAME COLON NEWLINE INDENT NAME NEWLINE NAME NEWLINE DEDENT EOF");
  /* a tab is 8 columns */
  CHECK_TOKS("if a:\n\tb\n        c\n", "IF NAME COLON NEWLINE INDENT NAME NEWLINE NAME NEWLINE DEDENT EOF");
  int nerr;
  char *s = toks("if a:\n    b\n  c\n", &nerr);
  CHECK_EQ_INT(nerr, 1);
  free(s);
  CHECK_ERR("if a:\n    b\n  c\n", "3:3: unindent does not match any outer indentation level");
  CHECK_ERR("x = 1\n    y = 2\n", "2:5: unexpected indent");
  /* the stray level is remembered: one error only, no INDENT/DEDENT */
  s = toks("x = 1\n    y = 2\n    z = 3\nw\n", &nerr);
  CHECK_EQ_STR(s, "NAME ASSIGN INT NEWLINE NAME ASSIGN INT NEWLINE NAME ASSIGN INT NEWLINE NAME NEWLINE EOF");
  CHECK_EQ_INT(nerr, 1);
  free(s);
}

static void test_joining(void) {
  CHECK_TOKS("f(a,\n  b)\n", "NAME LPAREN NAME COMMA NAME RPAREN NEWLINE EOF");
  CHECK_TOKS("x = [1,\n\n# c\n     2]\ny\n",
             "NAME ASSIGN LBRACKET INT COMMA INT RBRACKET NEWLINE NAME NEWLINE EOF");
  CHECK_TOKS("x = {1:\n 2}\n", "NAME ASSIGN LBRACE INT COLON INT RBRACE NEWLINE EOF");
  CHECK_TOKS("x = 1 + \\\n    2\n", "NAME ASSIGN INT PLUS INT NEWLINE EOF");
  CHECK_TOKS("if a:\n    x = (1,\n2)\n    y\n",
             "IF NAME COLON NEWLINE INDENT NAME ASSIGN LPAREN INT COMMA INT RPAREN NEWLINE NAME "
             "NEWLINE DEDENT EOF");
}

static void test_numbers(void) {
  CHECK_TOKS("0 7 1_000 0x1F 0o17 0b1010 0_0", "INT INT INT INT INT INT INT NEWLINE EOF");
  CHECK_TOKS("1e-5 .5 3. 1_000.5 2.5E+3 1e10 0.0",
             "FLOAT FLOAT FLOAT FLOAT FLOAT FLOAT FLOAT NEWLINE EOF");
  CHECK_TOKS("x.y 1.5.real", "NAME DOT NAME FLOAT DOT NAME NEWLINE EOF");
  CHECK_ERR("x = 1abc\n", "1:5: invalid decimal literal");
  CHECK_ERR("x = 0x\n", "1:5: invalid hexadecimal literal");
  CHECK_ERR("x = 0xfg\n", "1:5: invalid hexadecimal literal");
  CHECK_ERR("x = 1__0\n", "1:5: invalid decimal literal");
  CHECK_ERR("x = 1_\n", "1:5: invalid decimal literal");
  CHECK_ERR("x = 0777\n", "1:5: invalid decimal literal");
}

static void test_strings(void) {
  CHECK_TOKS("'a' \"b\" '''c''' \"\"\"d\"\"\" r'e' b\"f\" rb'g'",
             "STRING STRING STRING STRING STRING STRING STRING NEWLINE EOF");
  CHECK_TOKS("x = '''a\nb\n  c'''\ny\n", "NAME ASSIGN STRING NEWLINE NAME NEWLINE EOF");
  CHECK_TOKS("'a#b' # c", "STRING NEWLINE EOF");
  CHECK_TOKS("'it\\'s' \"q\\\"\"", "STRING STRING NEWLINE EOF");
  CHECK_ERR("s = 'abc\n", "1:5: unterminated string literal");
  CHECK_ERR("s = \"abc", "1:5: unterminated string literal");
  CHECK_ERR("s = '''abc\n\n", "1:5: unterminated triple-quoted string literal");
  CHECK_ERR("s = '\\xZ1'\n", "1:6: invalid \\x escape: expected two hex digits");
}

static void test_spans(void) {
  const char *text = "def f(x):\n    return x + 10\n";
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  DiagCtx d;
  diag_init(&d, NULL);
  LexToken *t;
  int n = lex_all(src, &d, &t);
  CHECK_EQ_INT(n, 15);
  CHECK_EQ_INT(t[0].kind, TK_DEF);
  CHECK_EQ_INT(t[0].span.line, 1);
  CHECK_EQ_INT(t[0].span.col, 1);
  CHECK_EQ_INT(t[0].span.len, 3);
  CHECK_EQ_INT(t[1].kind, TK_NAME);
  CHECK_EQ_INT(t[1].span.col, 5);
  CHECK_EQ_INT(t[7].kind, TK_INDENT);
  CHECK_EQ_INT(t[7].span.line, 2);
  CHECK_EQ_INT(t[7].span.len, 4);
  CHECK_EQ_INT(t[8].kind, TK_RETURN);
  CHECK_EQ_INT(t[8].span.col, 5);
  CHECK_EQ_INT(t[11].kind, TK_INT);
  CHECK_EQ_INT(t[11].span.col, 16);
  CHECK_EQ_INT(t[11].span.len, 2);
  CHECK_EQ_INT(t[13].kind, TK_DEDENT);
  CHECK_EQ_INT(t[14].kind, 0);
  CHECK_EQ_INT(d.nerr, 0);
  free(t);
  diag_free(&d);
  src_free(src);
}

static void test_errors(void) {
  CHECK_ERR("x = $\n", "1:5: invalid character '$' in source text");
  CHECK_ERR("x = a ? b\n", "1:7: invalid character '?' in source text");
  CHECK_ERR("x = \xe2\x80\xa6\n", "1:5: invalid character '\xe2\x80\xa6' (U+2026)");
  CHECK_ERR("x = \xff\n", "1:5: invalid character (byte 0xFF) in source text");
  CHECK_ERR("f(a, b\n", "1:2: '(' was never closed");
  CHECK_ERR("x = a)\n", "1:6: unmatched ')'");
  CHECK_ERR("x = (a]\n", "1:7: closing ']' does not match opening '('");
  CHECK_ERR("x = 1 \\ y\n", "1:7: unexpected character after line continuation character");
  CHECK_ERR("x = 1 +\\", "1:8: unexpected end of input after line continuation");
  /* one error per line */
  int nerr;
  char *s = first_error("x = $ $ $\ny = $\n", &nerr);
  CHECK_EQ_INT(nerr, 2);
  free(s);
  /* embedded NUL is an invalid character, not the end of input */
  SourceFile *src = src_from_string("t.tvs", "a\0b\n", 4);
  DiagCtx d;
  diag_init(&d, NULL);
  LexToken *t;
  int n = lex_all(src, &d, &t);
  CHECK_EQ_INT(n, 4); /* NAME NAME NEWLINE EOF */
  CHECK_EQ_INT(d.len, 1);
  free(t);
  diag_free(&d);
  src_free(src);
  /* too deep nesting stops cleanly */
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "x = ");
  for (int i = 0; i < 300; i++) sb_putc(&sb, '(');
  s = first_error(sb.data, &nerr);
  CHECK_EQ_STR(s, "1:205: too many nested parentheses (the limit is 200)");
  free(s);
  sb_free(&sb);
}

int main(void) {
  test_basic();
  test_keywords();
  test_operators();
  test_indentation();
  test_joining();
  test_numbers();
  test_strings();
  test_spans();
  test_errors();
  CHECK_EQ_STR(lex_token_name(TK_INDENT), "INDENT");
  CHECK_EQ_STR(lex_token_name(TK_LPAREN), "LPAREN");
  CHECK_EQ_STR(lex_token_name(0), "EOF");
  CHECK_EQ_STR(lex_token_name(9999), "?");
  TEST_MAIN_END();
}
