/* printer_internal.h - state shared by the printer files (printer_*.c).
 *
 * A Printer carries the output buffer, the options, the indentation level and
 * the scoped name table that gives every var/buffer a unique printed name
 * while it is visible.  Not part of the public API (see ir/printer.h). */
#ifndef TVS_IR_PRINTER_INTERNAL_H
#define TVS_IR_PRINTER_INTERNAL_H

#include <stdbool.h>

#include "ir/printer.h"

/* One entry of the name table: an IR object (TirVar, TirBuffer, RxExpr var)
 * mapped to the name it prints as. */
typedef struct PrName {
  const void *key; /* the object (identity) */
  char *name;      /* printed name (owned) */
  bool alias;      /* a derived spelling ("A.data") that does not reserve the name */
} PrName;

/* Buffers a function accesses but never declares (printer_undecl.c). */
typedef struct PrUndecl PrUndecl;

typedef struct Printer {
  StrBuf *out;             /* where text goes */
  PrintOptions opt;        /* colour, header, indent width */
  int level;               /* current indentation level */
  PrName *names;           /* scoped name table (a stack) */
  int nnames, capnames;
  const TirStmt **loops;   /* enclosing For statements (for T.axis.remap) */
  int nloops, caploops;
  bool int64_plain;        /* Relax shape context: int64 literals print plain */
  const char *module_name; /* class name used by `cls = Module` */
  PrUndecl *undecl;        /* the current prim_func's undeclared buffers, or NULL */
  bool seq_more;           /* the statement about to print has siblings after it */
} Printer;

/* Colour classes for PrintOptions.color. */
typedef enum PrColor { PRC_KEYWORD, PRC_BUILTIN, PRC_NUMBER, PRC_STRING, PRC_COMMENT } PrColor;

void pr_init(Printer *p, StrBuf *out, const PrintOptions *opt);
void pr_free(Printer *p);

/* Output helpers. */
void pr_puts(Printer *p, const char *s);
void pr_printf(Printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pr_color(Printer *p, PrColor c, const char *s); /* s wrapped in the colour when enabled */
void pr_indent(Printer *p);                          /* indentation of the current level */
void pr_string_lit(Printer *p, const char *s);       /* "..." with escapes */
void pr_pyfloat(Printer *p, double v);               /* Python repr of a float */

/* Name table. */
int pr_mark(const Printer *p);
void pr_pop(Printer *p, int mark);
const char *pr_define(Printer *p, const void *key, const char *hint);
void pr_define_alias(Printer *p, const void *key, const char *name);
const char *pr_lookup(const Printer *p, const void *key);

/* Undeclared buffers (flat views of params after FlattenBuffer): found once
 * per function; pr_undecl_next returns, one at a time, those to declare just
 * before statement s (NULL when none is left). */
PrUndecl *pr_undecl_scan(const TirFunc *f);
void pr_undecl_free(PrUndecl *u);
const TirBuffer *pr_undecl_next(PrUndecl *u, const TirStmt *s);
/* The same for free variables (used, bound nowhere): `a = T.int32()`. */
const TirVar *pr_undecl_next_var(PrUndecl *u, const TirStmt *s);

/* TIR pieces used by the Relax printer. */
void pr_tir_expr(Printer *p, const TirExpr *e);
const char *pr_tir_var_name(Printer *p, const TirVar *v);
void pr_irvalue(Printer *p, const IrValue *v, bool relax);
/* `T.func_attr({...})` / `R.func_attr({...})` on its own line, leaving out
 * "global_symbol" when drop_gs; prints nothing when no attribute remains. */
void pr_func_attrs(Printer *p, const char *builtin_name, const IrValue *attrs, bool drop_gs, bool relax);
void pr_tir_func(Printer *p, const TirFunc *f, const char *name);
void pr_relax_func(Printer *p, const RxFunc *f, const char *name);

#endif
