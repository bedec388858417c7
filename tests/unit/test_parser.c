/* test_parser.c - the Lemon grammar and parse driver: AST shapes (through
 * ast_dump), precedence, spans, syntax errors with recovery, the REPL's
 * incompleteness test, and robustness on garbage, truncated and deep input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "base/util.h"
#include "parser/parser.h"

/* Parses text; returns the module dump and the error count. */
static char *dump(const char *text, int *nerr) {
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  DiagCtx d;
  diag_init(&d, NULL);
  AstFile *f = parse_file(src, &d);
  StrBuf sb;
  sb_init(&sb);
  ast_dump(f->module, &sb);
  if (nerr) *nerr = d.nerr;
  ast_file_free(f);
  diag_free(&d);
  src_free(src);
  return sb.data; /* the caller frees */
}

/* Parses "text" as a single expression statement and dumps the expression. */
static char *expr(const char *text) {
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  DiagCtx d;
  diag_init(&d, NULL);
  AstFile *f = parse_file(src, &d);
  StrBuf sb;
  sb_init(&sb);
  if (d.nerr) sb_puts(&sb, "<error>");
  else if (f->module->body.len != 1 || f->module->body.items[0]->kind != AST_EXPR_STMT)
    sb_puts(&sb, "<not one expression>");
  else
    ast_dump(f->module->body.items[0]->a, &sb);
  ast_file_free(f);
  diag_free(&d);
  src_free(src);
  return sb.data; /* the caller frees */
}

/* All diagnostics as "line:col: msg" lines. */
static char *errors(const char *text) {
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  DiagCtx d;
  diag_init(&d, NULL);
  AstFile *f = parse_file(src, &d);
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < d.len; i++)
    sb_printf(&sb, "%u:%u: %s\n", d.items[i].span.line, d.items[i].span.col, d.items[i].msg);
  ast_file_free(f);
  diag_free(&d);
  src_free(src);
  return sb.data; /* the caller frees */
}

static bool incomplete(const char *text) {
  SourceFile *src = src_from_string("<repl>", text, strlen(text));
  bool r = parse_is_incomplete(src);
  src_free(src);
  return r;
}

#define CHECK_EXPR(text, expected)     \
  do {                                 \
    char *got_ = expr(text);           \
    CHECK_EQ_STR(got_, (expected));    \
    free(got_);                        \
  } while (0)

#define CHECK_DUMP(text, expected)          \
  do {                                      \
    int nerr_;                              \
    char *got_ = dump((text), &nerr_);      \
    CHECK_EQ_STR(got_, (expected));         \
    CHECK_EQ_INT(nerr_, 0);                 \
    free(got_);                             \
  } while (0)

#define CHECK_ERRORS(text, expected)   \
  do {                                 \
    char *got_ = errors(text);         \
    CHECK_EQ_STR(got_, (expected));    \
    free(got_);                        \
  } while (0)

static void test_precedence(void) {
  CHECK_EXPR("1 + 2 * 3", "(+ 1 (* 2 3))");
  CHECK_EXPR("(1 + 2) * 3", "(* (+ 1 2) 3)");
  CHECK_EXPR("a - b - c", "(- (- a b) c)");
  CHECK_EXPR("a / b // c % d @ e", "(@ (% (// (/ a b) c) d) e)");
  CHECK_EXPR("-2**2", "(- (** 2 2))");
  CHECK_EXPR("2**-1", "(** 2 (- 1))");
  CHECK_EXPR("2**3**2", "(** 2 (** 3 2))");
  CHECK_EXPR("-x.y ** 2 * 3", "(* (- (** x.y 2)) 3)");
  CHECK_EXPR("~a + +b", "(+ (~ a) (+ b))");
  CHECK_EXPR("a | b ^ c & d", "(| a (^ b (& c d)))");
  CHECK_EXPR("a << 1 + 2 >> b", "(>> (<< a (+ 1 2)) b)");
  CHECK_EXPR("a & b == c", "(Compare (& a b) == c)");
  CHECK_EXPR("not a == b", "(not (Compare a == b))");
  CHECK_EXPR("not not a", "(not (not a))");
  CHECK_EXPR("a or b and c", "(or a (and b c))");
  CHECK_EXPR("a and b and c", "(and a b c)");
  CHECK_EXPR("a or b or c and d", "(or a b (and c d))");
  CHECK_EXPR("(a and b) and c", "(and (and a b) c)");
  CHECK_EXPR("not a and b", "(and (not a) b)");
  CHECK_EXPR("0 <= i < n", "(Compare 0 <= i < n)");
  CHECK_EXPR("a < b == c != d > e >= f", "(Compare a < b == c != d > e >= f)");
  CHECK_EXPR("a in b", "(Compare a in b)");
  CHECK_EXPR("a not in b", "(Compare a not in b)");
  CHECK_EXPR("a is b", "(Compare a is b)");
  CHECK_EXPR("a is not None", "(Compare a is not None)");
  CHECK_EXPR("x if c else y", "(IfExp c x y)");
  CHECK_EXPR("x if c else y if d else z", "(IfExp c x (IfExp d y z))");
  CHECK_EXPR("a or b if c and d else e", "(IfExp (and c d) (or a b) e)");
  CHECK_EXPR("lambda: 0", "(Lambda () 0)");
  CHECK_EXPR("lambda i, j=1, *a, **k: i + j", "(Lambda (i j=1 *a **k) (+ i j))");
  CHECK_EXPR("lambda x: lambda y: x if y else 0", "(Lambda (x) (Lambda (y) (IfExp y x 0)))");
}

static void test_primaries(void) {
  CHECK_EXPR("T.axis.spatial", "T.axis.spatial");
  CHECK_EXPR("f(a)(b).c", "(Attr (Call (Call f a) b) c)");
  CHECK_EXPR("f()", "(Call f)");
  CHECK_EXPR("f(a, b,)", "(Call f a b)");
  CHECK_EXPR("f(a, k=1, *xs, **kw)", "(Call f a k=1 *xs **kw)");
  CHECK_EXPR("f(\n  a,\n  b=2,\n)", "(Call f a b=2)");
  CHECK_EXPR("sch.split(i, factors=[None, 32])", "(Call sch.split i factors=(List None 32))");
  CHECK_EXPR("A[i]", "(Subscript A i)");
  CHECK_EXPR("A[i, j]", "(Subscript A (Tuple i j))");
  CHECK_EXPR("A[i,]", "(Subscript A (Tuple i))");
  CHECK_EXPR("A[()]", "(Subscript A (Tuple))");
  CHECK_EXPR("A[0:16, vi*16:vi*16+16]",
             "(Subscript A (Tuple (Slice 0 16 _) (Slice (* vi 16) (+ (* vi 16) 16) _)))");
  CHECK_EXPR("A[::2]", "(Subscript A (Slice _ _ 2))");
  CHECK_EXPR("A[:]", "(Subscript A (Slice _ _ _))");
  CHECK_EXPR("A[1:]", "(Subscript A (Slice 1 _ _))");
  CHECK_EXPR("A[:n, ::]", "(Subscript A (Tuple (Slice _ n _) (Slice _ _ _)))");
  CHECK_EXPR("x[0][1]", "(Subscript (Subscript x 0) 1)");
  CHECK_EXPR("T.Buffer[(128, 128), \"float32\"]",
             "(Subscript T.Buffer (Tuple (Tuple 128 128) \"float32\"))");
  CHECK_EXPR("()", "(Tuple)");
  CHECK_EXPR("(a,)", "(Tuple a)");
  CHECK_EXPR("(a)", "a");
  CHECK_EXPR("(a, *b)", "(Tuple a *b)");
  CHECK_EXPR("[]", "(List)");
  CHECK_EXPR("[a, b,]", "(List a b)");
  CHECK_EXPR("{}", "(Dict)");
  CHECK_EXPR("{\"a\": 1, 2: [3],}", "(Dict (\"a\" 1) (2 (List 3)))");
  CHECK_EXPR("a, b", "(Tuple a b)");
  CHECK_EXPR("None, True, False", "(Tuple None True False)");
}

static void test_literals(void) {
  CHECK_EXPR("0x1F + 0o17 + 0b101 + 1_000", "(+ (+ (+ 31 15) 5) 1000)");
  CHECK_EXPR("9223372036854775807", "9223372036854775807");
  CHECK_EXPR("9223372036854775808", "9223372036854775807:big");
  CHECK_EXPR("0xffffffffffffffffff", "9223372036854775807:big");
  CHECK_EXPR("[1e-5, .5, 3., 1_000.5, 2.5E+3]", "(List 1e-05 0.5 3.0 1000.5 2500.0)");
  CHECK_EXPR("'a\\tb' \"\\x41\\0\\\\\"", "\"a\\tbA\\x00\\\\\"");
  CHECK_EXPR("'\\q\\'\\\"'", "\"\\\\q'\\\"\"");
  CHECK_EXPR("r'\\n' b'x'", "\"\\\\nx\"");
  CHECK_EXPR("'''doc\nstring'''", "\"doc\\nstring\"");
  CHECK_EXPR("'a' 'b'\\\n 'c'", "\"abc\"");
}

static void test_statements(void) {
  CHECK_DUMP("import a.b as c, d\nfrom x.y import z as w, v\nfrom m import (p,\n q,)\nfrom n import *\n",
             "(Module\n  (Import (a.b as c) d)\n  (FromImport x.y (z as w) v)\n"
             "  (FromImport m p q)\n  (FromImport n *))");
  CHECK_DUMP("i, j, k = sch.get_loops(b)\n",
             "(Module\n  (Assign (Tuple i j k) = (Call sch.get_loops b)))");
  CHECK_DUMP("a = b = f()\n", "(Module\n  (Assign a = b = (Call f)))");
  CHECK_DUMP("x: T.int32 = 5\ny: T.int32\n",
             "(Module\n  (Assign x : T.int32 = 5)\n  (Assign y : T.int32))");
  CHECK_DUMP("x += 1\nx -= 1\nx *= 1\nx /= 1\nx //= 1\nx %= 1\nx **= 1\nx @= 1\nx &= 1\n"
             "x |= 1\nx ^= 1\nx <<= 1\nx >>= 1\n",
             "(Module\n  (AugAssign x += 1)\n  (AugAssign x -= 1)\n  (AugAssign x *= 1)\n"
             "  (AugAssign x /= 1)\n  (AugAssign x //= 1)\n  (AugAssign x %= 1)\n"
             "  (AugAssign x **= 1)\n  (AugAssign x @= 1)\n  (AugAssign x &= 1)\n"
             "  (AugAssign x |= 1)\n  (AugAssign x ^= 1)\n  (AugAssign x <<= 1)\n"
             "  (AugAssign x >>= 1))");
  CHECK_DUMP("for i, j in T.grid(4, 4):\n    pass\n",
             "(Module\n  (For (Tuple i j) in (Call T.grid 4 4)\n    (Pass)))");
  CHECK_DUMP("for x in a, b: pass\n", "(Module\n  (For x in (Tuple a b)\n    (Pass)))");
  CHECK_DUMP("with T.block(\"C\") as b, T.init():\n    x = 1\n",
             "(Module\n  (With ((Call T.block \"C\") as b) (Call T.init)\n    (Assign x = 1)))");
  CHECK_DUMP("if a:\n    x\nelif b:\n    y\nelif c: z\nelse:\n    w\n",
             "(Module\n  (If a\n    (Expr x)\n    (else\n      (If b\n        (Expr y)\n"
             "        (else\n          (If c\n            (Expr z)\n            (else\n"
             "              (Expr w))))))))");
  CHECK_DUMP("while i < n:\n    i += 1\n    if i: break\n    continue\n",
             "(Module\n  (While (Compare i < n)\n    (AugAssign i += 1)\n    (If i\n      (Break))\n"
             "    (Continue)))");
  CHECK_DUMP("def f(a: T, b: T = 1, *args, **kw) -> T:\n    return a, b\n",
             "(Module\n  (FuncDef f (params a:T b:T=1 *args **kw) (returns T)\n"
             "    (Return (Tuple a b))))");
  CHECK_DUMP("def g(): return\n", "(Module\n  (FuncDef g (params)\n    (Return)))");
  CHECK_DUMP("@T.prim_func(private=True)\n@other\ndef f(x,):\n    pass\n",
             "(Module\n  (FuncDef f (decorators (Call T.prim_func private=True) other) (params x)\n"
             "    (Pass)))");
  CHECK_DUMP("@I.ir_module\nclass M(Base, metaclass=X):\n    x = 1\nclass N: pass\n",
             "(Module\n  (ClassDef M (decorators I.ir_module) (bases Base metaclass=X)\n"
             "    (Assign x = 1))\n  (ClassDef N\n    (Pass)))");
  CHECK_DUMP("assert x, \"msg\"\nassert y\n",
             "(Module\n  (Assert x \"msg\")\n  (Assert y))");
  CHECK_DUMP("a = 1; b = 2;\nif x: c; d\n",
             "(Module\n  (Assign a = 1)\n  (Assign b = 2)\n  (If x\n    (Expr c)\n    (Expr d)))");
  CHECK_DUMP("x = 1, 2\nreturn\n", "(Module\n  (Assign x = (Tuple 1 2))\n  (Return))");
  CHECK_DUMP("*a, b = c\n", "(Module\n  (Assign (Tuple *a b) = c))");
  CHECK_DUMP("", "(Module)");
  CHECK_DUMP("# nothing\n\n", "(Module)");
}

static void test_samples(void) {
  const char *mm =
      "@tvm.script.ir_module\n"
      "class MyModule:\n"
      "    @T.prim_func\n"
      "    def mm_relu(A: T.Buffer[(128, 128), \"float32\"],\n"
      "                C: T.Buffer((128, 128), \"float32\")):\n"
      "        T.func_attr({\"global_symbol\": \"mm_relu\", \"tir.noalias\": True})\n"
      "        Y = T.alloc_buffer((128, 128), dtype=\"float32\")\n"
      "        for i, j, k in T.grid(128, 128, 128):\n"
      "            with T.block(\"Y\"):\n"
      "                vi = T.axis.spatial(128, i)\n"
      "                with T.init():\n"
      "                    Y[vi, vj] = T.float32(0)\n"
      "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  CHECK_DUMP(mm,
             "(Module\n"
             "  (ClassDef MyModule (decorators tvm.script.ir_module)\n"
             "    (FuncDef mm_relu (decorators T.prim_func) (params "
             "A:(Subscript T.Buffer (Tuple (Tuple 128 128) \"float32\")) "
             "C:(Call T.Buffer (Tuple 128 128) \"float32\"))\n"
             "      (Expr (Call T.func_attr (Dict (\"global_symbol\" \"mm_relu\") (\"tir.noalias\" True))))\n"
             "      (Assign Y = (Call T.alloc_buffer (Tuple 128 128) dtype=\"float32\"))\n"
             "      (For (Tuple i j k) in (Call T.grid 128 128 128)\n"
             "        (With (Call T.block \"Y\")\n"
             "          (Assign vi = (Call T.axis.spatial 128 i))\n"
             "          (With (Call T.init)\n"
             "            (Assign (Subscript Y (Tuple vi vj)) = (Call T.float32 0)))\n"
             "          (Assign (Subscript Y (Tuple vi vj)) = (+ (Subscript Y (Tuple vi vj)) "
             "(* (Subscript A (Tuple vi vk)) (Subscript B (Tuple vk vj))))))))))");
  const char *rx =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((16,), dtype=\"float32\")) -> R.Tensor((16,), dtype=\"float32\"):\n"
      "        cls = Module\n"
      "        with R.dataflow():\n"
      "            y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((16,), dtype=\"float32\"))\n"
      "            R.output(y)\n"
      "        return y\n";
  CHECK_DUMP(rx,
             "(Module\n"
             "  (ClassDef Module (decorators I.ir_module)\n"
             "    (FuncDef main (decorators R.function) (params x:(Call R.Tensor (Tuple 16) dtype=\"float32\")) "
             "(returns (Call R.Tensor (Tuple 16) dtype=\"float32\"))\n"
             "      (Assign cls = Module)\n"
             "      (With (Call R.dataflow)\n"
             "        (Assign y = (Call R.call_tir cls.add_one (Tuple x) out_sinfo=(Call R.Tensor (Tuple 16) dtype=\"float32\")))\n"
             "        (Expr (Call R.output y)))\n"
             "      (Return y))))");
  /* the sample files parse cleanly */
  const char *dir = getenv("TVS_SOURCE_DIR");
  if (!dir) return;
  static const char *const files[] = {"mm_relu.tvs", "relax_module.tvs", "schedule.tvs"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char *path = xasprintf("%s/tests/unit/parser_inputs/%s", dir, files[i]);
    const char *err;
    SourceFile *src = src_from_path(path, &err);
    CHECK(src != NULL);
    if (src) {
      DiagCtx d;
      diag_init(&d, stderr);
      AstFile *f = parse_file(src, &d);
      diag_flush(&d);
      CHECK_EQ_INT(d.nerr, 0);
      CHECK(f->module->body.len > 0);
      ast_file_free(f);
      diag_free(&d);
      src_free(src);
    }
    free(path);
  }
}

static void test_spans(void) {
  const char *text = "x = f(a, b)\nif c:\n    y = A[i, 0:2]\n";
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  DiagCtx d;
  diag_init(&d, NULL);
  AstFile *f = parse_file(src, &d);
  Ast *m = f->module;
  CHECK_EQ_INT(m->body.len, 2);
  Ast *as = m->body.items[0];
  CHECK_EQ_INT(as->span.off, 0);
  CHECK_EQ_INT(as->span.len, 11);
  Ast *call = as->a;
  CHECK_EQ_INT(call->kind, AST_CALL);
  CHECK_EQ_INT(call->span.col, 5);
  CHECK_EQ_INT(call->span.len, 7);
  CHECK_EQ_INT(call->list.items[1]->span.col, 10);
  Ast *ifs = m->body.items[1];
  CHECK_EQ_INT(ifs->span.line, 2);
  CHECK_EQ_INT(ifs->span.off + ifs->span.len, strlen(text) - 1); /* through the body */
  Ast *sub = ifs->body.items[0]->a;
  CHECK_EQ_INT(sub->kind, AST_SUBSCRIPT);
  CHECK_EQ_INT(sub->span.line, 3);
  CHECK_EQ_INT(sub->span.col, 9);
  CHECK_EQ_INT(sub->span.len, 9);
  Ast *sl = sub->b->list.items[1];
  CHECK_EQ_INT(sl->kind, AST_SLICE);
  CHECK_EQ_INT(sl->span.col, 14);
  CHECK_EQ_INT(sl->span.len, 3);
  CHECK_EQ_STR(ast_dotted_name(&f->arena, m->body.items[0]->list.items[0]), "x");
  ast_file_free(f);
  diag_free(&d);
  src_free(src);
  /* ast_dotted_name of chains */
  src = src_from_string("t.tvs", "T.axis.remap\nf().x\n", 19);
  diag_init(&d, NULL);
  f = parse_file(src, &d);
  CHECK_EQ_INT(d.nerr, 0);
  CHECK_EQ_STR(ast_dotted_name(&f->arena, f->module->body.items[0]->a), "T.axis.remap");
  CHECK(ast_dotted_name(&f->arena, f->module->body.items[1]->a) == NULL);
  ast_file_free(f);
  diag_free(&d);
  src_free(src);
}

static void test_errors(void) {
  CHECK_ERRORS("x = = 1\ny = 2\nz = ) 3\n", "1:5: unexpected '='\n3:5: unmatched ')'\n");
  CHECK_ERRORS("for i in range(10)\n    pass\nx = 1\n",
               "1:19: expected ':' after 'for' header\n");
  CHECK_ERRORS("def f(x) -> int\n    return x\n", "1:16: expected ':' after 'def' header\n");
  CHECK_ERRORS("if x:\ny = 1\n", "2:1: expected an indented block after 'if' statement on line 1\n");
  CHECK_ERRORS("def f():\nreturn 1\n",
               "2:1: expected an indented block after function definition on line 1\n");
  CHECK_ERRORS("x = 1 +\n", "1:8: expected an expression at end of line\n");
  CHECK_ERRORS("x = (1 +\n", "1:5: '(' was never closed\n");
  CHECK_ERRORS("f(a b)\n", "1:5: unexpected identifier 'b'\n");
  CHECK_ERRORS("x = 1 2\n", "1:7: unexpected number '2'\n");
  CHECK_ERRORS("x = 'a' if\n", "1:11: expected an expression at end of line\n");
  CHECK_ERRORS("f() = 1\n1 = x\n", "1:1: cannot assign to function call\n2:1: cannot assign to literal\n");
  CHECK_ERRORS("a, b += 1\n", "1:1: only a single target can be used here, not a tuple\n");
  CHECK_ERRORS("f(a=1, b)\n", "1:8: positional argument follows keyword argument\n");
  CHECK_ERRORS("class A:\n    @dec\nx = 1\n",
               "2:5: expected a function or class definition after the decorator\n");
  CHECK_ERRORS("x = ...\n", "1:5: '...' is not supported here\n");
  /* several errors in one run, each on its own line; the good code between
   * them is kept */
  const char *multi =
      "def f(A):\n"
      "    x = = 1\n"
      "    y = 2\n"
      "    for i in range(4)\n"
      "        z = i\n"
      "    w = (1 + ]\n"
      "    return y\n"
      "def g() x:\n"
      "    pass\n"
      "v = 3\n";
  CHECK_ERRORS(multi,
               "2:9: unexpected '='\n"
               "4:22: expected ':' after 'for' header\n"
               "6:14: closing ']' does not match opening '('\n"
               "8:9: unexpected identifier 'x'\n");
  int nerr;
  char *s = dump(multi, &nerr);
  CHECK_EQ_INT(nerr, 4);
  CHECK_EQ_STR(s, "(Module\n  (FuncDef f (params A)\n    (Error)\n    (Assign y = 2)\n    (Error)\n"
                  "    (Error)\n    (Return y))\n  (Error)\n  (Assign v = 3))");
  free(s);
  /* errors inside a block do not break the block structure */
  s = dump("class A:\n    def f():\n        x = (]\n    def g():\n        pass\nz = 1\n", &nerr);
  CHECK_EQ_INT(nerr, 1);
  CHECK_EQ_STR(s, "(Module\n  (ClassDef A\n    (FuncDef f (params)\n      (Error))\n"
                  "    (FuncDef g (params)\n      (Pass)))\n  (Assign z = 1))");
  free(s);
}

static void test_incomplete(void) {
  CHECK(incomplete("if x:"));
  CHECK(incomplete("if x:\n"));
  CHECK(incomplete("def f(a,\n"));
  CHECK(incomplete("x = [1, 2"));
  CHECK(incomplete("s = '''doc\n"));
  CHECK(incomplete("x = 1 + \\\n"));
  CHECK(incomplete("@T.prim_func\n"));
  CHECK(incomplete("class A:\n    @dec\n"));
  CHECK(!incomplete("x = 1\n"));
  CHECK(!incomplete("x = 1"));
  CHECK(!incomplete("if x:\n    pass\n"));
  CHECK(!incomplete("x = = 1\n"));
  CHECK(!incomplete("x = )\n"));
  CHECK(!incomplete("s = 'abc\n"));
  CHECK(!incomplete(""));
}

static uint32_t rng = 12345;
static uint32_t next_rand(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

/* Parses arbitrary bytes; must not crash, hang or leak (ASan/LSan run). */
static int parse_bytes(const char *text, size_t len) {
  SourceFile *src = src_from_string("g.tvs", text, len);
  DiagCtx d;
  diag_init(&d, NULL);
  AstFile *f = parse_file(src, &d);
  StrBuf sb;
  sb_init(&sb);
  ast_dump(f->module, &sb);
  sb_free(&sb);
  (void)parse_is_incomplete(src);
  int n = d.nerr;
  ast_file_free(f);
  diag_free(&d);
  src_free(src);
  return n;
}

static void test_robustness(void) {
  /* random bytes and random token soup */
  static const char *const pieces[] = {"(", ")", "[", "]", "{", "}", ":", "\n", "    ", "\t", "x",
                                       "=", "if", "def", "class", "@", ",", "'", "\"\"\"", "1",
                                       "2.5", "+", "**", "-", "lambda", "not", "in", "\\", "#",
                                       "else", "for", ";", "\xff", "\0", "return", "*", "."};
  int total = 0;
  char buf[600];
  for (int iter = 0; iter < 300; iter++) {
    size_t n = 0;
    if (iter % 2 == 0) {
      n = next_rand() % sizeof buf;
      for (size_t i = 0; i < n; i++) buf[i] = (char)(next_rand() & 0xFF);
    } else {
      while (n < sizeof buf - 16) {
        const char *p = pieces[next_rand() % (sizeof pieces / sizeof pieces[0])];
        size_t k = p[0] ? strlen(p) : 1;
        memcpy(buf + n, p, k);
        n += k;
        if (next_rand() % 3 == 0) buf[n++] = ' ';
      }
    }
    total += parse_bytes(buf, n) >= 0;
  }
  CHECK_EQ_INT(total, 300);
  /* every truncation of a real module */
  const char *text =
      "@I.ir_module\nclass M:\n    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")):\n"
      "        for i in T.serial(4):\n            with T.block(\"B\"):\n"
      "                A[i] = A[i] * 2.0 if i > 0 else -A[i]\n";
  size_t len = strlen(text);
  int ok = 0;
  for (size_t i = 0; i <= len; i++) ok += parse_bytes(text, i) >= 0;
  CHECK_EQ_INT(ok, (int)len + 1);
  CHECK_EQ_INT(parse_bytes(text, len), 0);
  /* deep nesting: brackets are capped, other recursion stops at the stack limit */
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "x = ");
  for (int i = 0; i < 5000; i++) sb_putc(&sb, '(');
  CHECK(parse_bytes(sb.data, sb.len) >= 1);
  sb.len = 0;
  sb_puts(&sb, "x = ");
  for (int i = 0; i < 20000; i++) sb_puts(&sb, "-");
  sb_puts(&sb, "1\ny = 2\n");
  CHECK(parse_bytes(sb.data, sb.len) >= 1);
  sb.len = 0;
  sb_puts(&sb, "x = 1");
  for (int i = 0; i < 20000; i++) sb_puts(&sb, " + 1");
  sb_putc(&sb, '\n');
  CHECK_EQ_INT(parse_bytes(sb.data, sb.len), 0);
  sb.len = 0;
  for (int i = 0; i < 150; i++) {
    for (int j = 0; j < i; j++) sb_putc(&sb, ' ');
    sb_puts(&sb, "if x:\n");
  }
  CHECK(parse_bytes(sb.data, sb.len) >= 1);
  sb_free(&sb);
}

static void test_performance(void) {
  StrBuf sb;
  sb_init(&sb);
  int lines = 0;
  while (lines < 10000) {
    sb_puts(&sb, "@T.prim_func\ndef f(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128,), \"float32\")):\n");
    sb_puts(&sb, "    for i, j in T.grid(128, 128):\n        with T.block(\"B\"):\n");
    sb_puts(&sb, "            vi, vj = T.axis.remap(\"SR\", [i, j])\n");
    sb_puts(&sb, "            B[vi] = B[vi] + A[vi, vj] * T.float32(2.5) - (vi // 4 % 3)  # sum\n\n");
    lines += 7;
  }
  clock_t t0 = clock();
  int nerr = parse_bytes(sb.data, sb.len);
  double ms = (double)(clock() - t0) * 1000.0 / CLOCKS_PER_SEC;
  CHECK_EQ_INT(nerr, 0);
  /* generous bound (debug and sanitizer builds); release parses in a few ms */
  CHECK(ms < 1000.0);
  printf("parse of %d lines (+ incompleteness check + dump): %.1f ms\n", lines, ms);
  sb_free(&sb);
}

int main(void) {
  test_precedence();
  test_primaries();
  test_literals();
  test_statements();
  test_samples();
  test_spans();
  test_errors();
  test_incomplete();
  test_robustness();
  test_performance();
  CHECK_EQ_STR(ast_kind_name(AST_FUNCDEF), "FuncDef");
  CHECK_EQ_STR(ast_op_str(OP_NOT_IN), "not in");
  CHECK_EQ_STR(ast_op_str(OP_FLOORDIV), "//");
  TEST_MAIN_END();
}
