/* printer.h - printing IR as canonical .tvs text (TVMScript style).
 *
 * The output parses back to a structurally equal module, and printing that
 * again gives the same bytes (the round-trip invariant).  Layout follows what
 * TVM v0.23's `mod.script()` emits (reference/tir_surface.md section 5). */
#ifndef TVS_IR_PRINTER_H
#define TVS_IR_PRINTER_H

#include <stdbool.h>

#include "ir/module.h"
#include "base/util.h"

typedef struct PrintOptions {
  bool color;          /* ANSI syntax colouring (terminal only) */
  bool show_header;    /* emit the "# from tvm.script import ..." lines (default true) */
  int indent;          /* spaces per level (default 4) */
} PrintOptions;

PrintOptions print_options_default(void);

void print_module(StrBuf *out, const IrModule *m, const PrintOptions *opt);
/* A single prim_func printed as a top-level `@T.prim_func def name(...)`. */
void print_tir_func(StrBuf *out, const TirFunc *f, const char *name, const PrintOptions *opt);
void print_relax_func(StrBuf *out, const RxFunc *f, const char *name, const PrintOptions *opt);
/* The module's graph functions as a Graphviz digraph (ir/printer_dot.c). */
void print_module_dot(StrBuf *out, const IrModule *m);
/* Expressions and statements in isolation (diagnostics, debugging, unit tests). */
void print_tir_expr(StrBuf *out, const TirExpr *e);
void print_tir_stmt(StrBuf *out, const TirStmt *s, int indent_level);

#endif
