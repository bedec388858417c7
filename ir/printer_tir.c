/* printer_tir.c - TensorIR expressions, statements and prim_funcs as TVMScript.
 *
 * Follows TVM v0.23's `mod.script()` layout: buffer-param sugar, implicit root
 * block, T.grid nests, T.axis.remap runs, minimal parentheses by Python
 * precedence, typed literals whenever the dtype is not the parser's default. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/printer_internal.h"
#include "ir/structural_equal.h"
#include "ir/visit.h"

/* Python operator precedence, lowest first. */
enum {
  PREC_LOWEST = 0,
  PREC_OR,
  PREC_AND,
  PREC_NOT,
  PREC_CMP,
  PREC_BOR,
  PREC_BXOR,
  PREC_BAND,
  PREC_SHIFT,
  PREC_ADD,
  PREC_MUL,
  PREC_UNARY,
  PREC_ATOM
};

static void expr(Printer *p, const TirExpr *e, int prec);
static void stmt(Printer *p, const TirStmt *s);

static void builtin(Printer *p, const char *name) { pr_color(p, PRC_BUILTIN, name); }
static void keyword(Printer *p, const char *name) { pr_color(p, PRC_KEYWORD, name); }

static const char *dtype_name(DType t, char *buf) {
  if (t.code == DT_VOID) return "void";
  return dt_str(t, buf);
}

/* `"float32"` as a string literal. */
static void dtype_lit(Printer *p, DType t) {
  char buf[DT_STR_MAX];
  pr_string_lit(p, dtype_name(t, buf));
}

/* `T.float32` (annotation / constructor). */
static void dtype_builtin(Printer *p, DType t) {
  char buf[DT_STR_MAX], name[DT_STR_MAX + 4];
  snprintf(name, sizeof name, "T.%s", dtype_name(t, buf));
  builtin(p, name);
}

/* ------------------------------------------------------------ names */

const char *pr_tir_var_name(Printer *p, const TirVar *v) {
  const char *n = pr_lookup(p, v);
  return n ? n : pr_define(p, v, v->name);
}

static const char *buffer_name(Printer *p, const TirBuffer *b) {
  const char *n = pr_lookup(p, b);
  return n ? n : pr_define(p, b, b->name);
}

/* Defines a buffer's printed name and `NAME.data` for its data var (unless
 * the data var already has a name, e.g. from T.allocate). */
static const char *define_buffer(Printer *p, const TirBuffer *b) {
  const char *n = pr_define(p, b, b->name);
  if (b->data && !pr_lookup(p, b->data)) {
    char *alias = xasprintf("%s.data", n);
    pr_define_alias(p, b->data, alias);
    free(alias);
  }
  return n;
}

/* ------------------------------------------------------------ literals */

static void int_lit(Printer *p, DType t, int64_t v) {
  char buf[64];
  if (t.code == DT_BOOL) { /* TVM prints bool constants typed: T.bool(True) */
    pr_color(p, PRC_BUILTIN, "T.bool");
    pr_puts(p, "(");
    pr_color(p, PRC_NUMBER, v ? "True" : "False");
    pr_puts(p, ")");
    return;
  }
  if (t.code == DT_UINT) {
    uint64_t u = (uint64_t)v;
    if (t.bits < 64) u &= (UINT64_C(1) << t.bits) - 1;
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)u);
  } else {
    snprintf(buf, sizeof buf, "%lld", (long long)v);
  }
  /* INT32_MIN would read back as -(2147483648), an int64 literal negated. */
  bool plain = (t.code == DT_INT && t.bits == 32 && t.lanes == 1 && v != INT32_MIN) ||
               (p->int64_plain && t.code == DT_INT && t.bits == 64 && t.lanes == 1);
  if (plain) {
    pr_color(p, PRC_NUMBER, buf);
    return;
  }
  dtype_builtin(p, t);
  pr_puts(p, "(");
  pr_color(p, PRC_NUMBER, buf);
  pr_puts(p, ")");
}

static void float_lit(Printer *p, DType t, double v) {
  dtype_builtin(p, t);
  pr_puts(p, "(");
  if (isnan(v)) pr_string_lit(p, "nan");
  else if (isinf(v)) pr_string_lit(p, v < 0 ? "-inf" : "inf");
  else pr_pyfloat(p, v);
  pr_puts(p, ")");
}

/* ------------------------------------------------------------ expressions */

static const char *binop_text(TirExprKind k, int *prec) {
  switch (k) {
    case TIR_ADD: *prec = PREC_ADD; return " + ";
    case TIR_SUB: *prec = PREC_ADD; return " - ";
    case TIR_MUL: *prec = PREC_MUL; return " * ";
    case TIR_FLOORDIV: *prec = PREC_MUL; return " // ";
    case TIR_FLOORMOD: *prec = PREC_MUL; return " % ";
    case TIR_EQ: *prec = PREC_CMP; return " == ";
    case TIR_NE: *prec = PREC_CMP; return " != ";
    case TIR_LT: *prec = PREC_CMP; return " < ";
    case TIR_LE: *prec = PREC_CMP; return " <= ";
    case TIR_GT: *prec = PREC_CMP; return " > ";
    case TIR_GE: *prec = PREC_CMP; return " >= ";
    case TIR_AND: *prec = PREC_AND; return " and ";
    case TIR_OR: *prec = PREC_OR; return " or ";
    default: return NULL;
  }
}

static void open_paren(Printer *p, bool need) { if (need) pr_puts(p, "("); }
static void close_paren(Printer *p, bool need) { if (need) pr_puts(p, ")"); }

static void infix(Printer *p, const TirExpr *a, const char *op, const TirExpr *b, int own,
                  int ctx, bool chain_left) {
  bool paren = own < ctx;
  open_paren(p, paren);
  expr(p, a, chain_left ? own : own + 1);
  if (!strcmp(op, " and ") || !strcmp(op, " or ")) {
    pr_puts(p, " ");
    keyword(p, op[1] == 'a' ? "and" : "or");
    pr_puts(p, " ");
  } else {
    pr_puts(p, op);
  }
  expr(p, b, own + 1);
  close_paren(p, paren);
}

static void call_args(Printer *p, TirExpr *const *args, int n, bool leading_comma) {
  for (int i = 0; i < n; i++) {
    if (i || leading_comma) pr_puts(p, ", ");
    expr(p, args[i], PREC_LOWEST);
  }
}

/* The dtype an intrinsic has when `dtype=` is not written. */
static bool call_natural_dtype(const TirExpr *e, DType *t) {
  const TirOpInfo *op = e->call.op;
  switch (op->id) {
    case TIR_OP_ISNAN: case TIR_OP_ISINF: case TIR_OP_ISFINITE: case TIR_OP_ASSUME:
    case TIR_OP_LIKELY:
      *t = dt_bool;
      return true;
    case TIR_OP_IF_THEN_ELSE:
      if (e->call.n < 2) return false;
      *t = e->call.args[1]->dtype;
      return true;
    default:
      if (e->call.n < 1) return false;
      *t = e->call.args[0]->dtype;
      return true;
  }
}

/* `T.tvm_fill_fragment(C.data, 16, ...)`: an opaque builtin (args[0] its
 * name), with dtype= when it is not the builtin's usual result type. */
static void opaque_call(Printer *p, const TirExpr *e) {
  TirExpr *const *args = e->call.args;
  int n = e->call.n;
  const char *nm = n > 0 && args[0]->kind == TIR_STR ? args[0]->str : "?";
  char name[96];
  snprintf(name, sizeof name, "T.%s", nm);
  builtin(p, name);
  pr_puts(p, "(");
  if (!strcmp(nm, "type_annotation")) {
    dtype_lit(p, e->dtype);
    pr_puts(p, ")");
    return;
  }
  if (!strcmp(nm, "comm_reducer") && n == 3 && args[1]->kind == TIR_STR) { /* lower-cross-thread-reduction's */
    const char *op = args[1]->str;
    pr_printf(p, "lambda x, y: %s, [", !strcmp(op, "add") ? "x + y" : !strcmp(op, "mul") ? "x * y"
                                       : !strcmp(op, "max") ? "T.max(x, y)" : "T.min(x, y)");
    expr(p, args[2], PREC_LOWEST);
    pr_puts(p, "])");
    return;
  }
  call_args(p, args + 1, n - 1, false);
  if (!dt_eq(e->dtype, tir_opaque_default_dtype(nm, args + 1, n - 1))) {
    if (n > 1) pr_puts(p, ", ");
    pr_puts(p, "dtype=");
    dtype_lit(p, e->dtype);
  }
  pr_puts(p, ")");
}

static void call_expr(Printer *p, const TirExpr *e, int ctx) {
  const TirOpInfo *op = e->call.op;
  TirExpr *const *args = e->call.args;
  int n = e->call.n;
  if (op->id == TIR_OP_OPAQUE) {
    opaque_call(p, e);
    return;
  }
  if (op->id == TIR_OP_CALL_GLOBAL) { /* TVM: the GlobalVar printed as Module.f */
    pr_printf(p, "%s.%s(", p->module_name ? p->module_name : "Module",
              n > 0 && args[0]->kind == TIR_STR ? args[0]->str : "?");
    call_args(p, args + 1, n - 1, false);
    pr_puts(p, ")");
    return;
  }
  int own = 0;
  const char *sym = NULL;
  switch (op->id) {
    case TIR_OP_BITWISE_AND: own = PREC_BAND; sym = " & "; break;
    case TIR_OP_BITWISE_OR: own = PREC_BOR; sym = " | "; break;
    case TIR_OP_BITWISE_XOR: own = PREC_BXOR; sym = " ^ "; break;
    case TIR_OP_SHIFT_LEFT: own = PREC_SHIFT; sym = " << "; break;
    case TIR_OP_SHIFT_RIGHT: own = PREC_SHIFT; sym = " >> "; break;
    default: break;
  }
  if (sym && n == 2 && dt_eq(args[0]->dtype, e->dtype)) {
    infix(p, args[0], sym, args[1], own, ctx, true);
    return;
  }
  if (op->id == TIR_OP_BITWISE_NOT && n == 1 && dt_eq(args[0]->dtype, e->dtype)) {
    bool paren = PREC_UNARY < ctx;
    open_paren(p, paren);
    pr_puts(p, "~");
    expr(p, args[0], PREC_UNARY);
    close_paren(p, paren);
    return;
  }
  char name[64];
  snprintf(name, sizeof name, "T.%s", op->name);
  builtin(p, name);
  pr_puts(p, "(");
  if (op->id == TIR_OP_CALL_EXTERN || op->id == TIR_OP_CALL_PURE_EXTERN ||
      op->id == TIR_OP_REINTERPRET) {
    dtype_lit(p, e->dtype);
    call_args(p, args, n, true);
    pr_puts(p, ")");
    return;
  }
  call_args(p, args, n, false);
  DType nat;
  if (!call_natural_dtype(e, &nat) || !dt_eq(nat, e->dtype)) {
    if (n) pr_puts(p, ", ");
    pr_puts(p, "dtype=");
    dtype_lit(p, e->dtype);
  }
  pr_puts(p, ")");
}

static void index_list(Printer *p, TirExpr *const *idx, int n) {
  if (n == 0) {
    pr_puts(p, "()");
    return;
  }
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(p, ", ");
    const TirExpr *r = idx[i];
    int64_t st;
    if (r->kind != TIR_RAMP || !tir_is_const_int(r->ramp.stride, &st)) {
      expr(p, idx[i], PREC_LOWEST);
      continue;
    }
    /* TVM's printer writes a constant-stride T.Ramp index as the slice
     * base:base + lanes * stride[:stride], the stop folded as its `+` folds */
    expr(p, r->ramp.base, PREC_LOWEST);
    pr_puts(p, ":");
    int64_t b, span = st * r->ramp.lanes;
    if (tir_is_const_int(r->ramp.base, &b)) pr_printf(p, "%lld", (long long)(b + span));
    else if (span == 0) expr(p, r->ramp.base, PREC_LOWEST);
    else {
      expr(p, r->ramp.base, PREC_ADD);
      pr_printf(p, " %s %lld", span < 0 ? "-" : "+", (long long)(span < 0 ? -span : span));
    }
    if (st != 1) pr_printf(p, ":%lld", (long long)st);
  }
}

/* Binary operators: infix where TVMScript has an operator, else T.truncdiv,
 * T.truncmod, T.min, T.max calls. */
static void expr_binary(Printer *p, const TirExpr *e, int ctx) {
  int own;
  const char *op;
  switch (e->kind) {
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_FLOORDIV: case TIR_FLOORMOD:
    case TIR_AND: case TIR_OR:
      op = binop_text(e->kind, &own);
      infix(p, e->bin.a, op, e->bin.b, own, ctx, true);
      return;
    case TIR_EQ: case TIR_NE: case TIR_LT: case TIR_LE: case TIR_GT: case TIR_GE:
      op = binop_text(e->kind, &own);
      infix(p, e->bin.a, op, e->bin.b, own, ctx, false);
      return;
    case TIR_DIV:
      if (dt_is_float(e->dtype)) {
        infix(p, e->bin.a, " / ", e->bin.b, PREC_MUL, ctx, true);
        return;
      }
      builtin(p, "T.truncdiv");
      goto two_args;
    case TIR_MOD: builtin(p, "T.truncmod"); goto two_args;
    case TIR_MIN: builtin(p, "T.min"); goto two_args;
    case TIR_MAX: builtin(p, "T.max"); goto two_args;
    two_args:
      pr_puts(p, "(");
      expr(p, e->bin.a, PREC_LOWEST);
      pr_puts(p, ", ");
      expr(p, e->bin.b, PREC_LOWEST);
      pr_puts(p, ")");
      return;
    default: return;
  }
}

/* T.Let(body, where={x: value}); x is visible in body only. */
static void expr_let(Printer *p, const TirExpr *e) {
  int mark = pr_mark(p);
  builtin(p, "T.Let");
  pr_puts(p, "(");
  StrBuf *saved = p->out;
  StrBuf value;
  sb_init(&value);
  p->out = &value;
  expr(p, e->let.value, PREC_LOWEST);
  p->out = saved;
  const char *name = pr_lookup(p, e->let.var); /* declared by `x = T.int32()` above */
  if (!name) name = pr_define(p, e->let.var, e->let.var->name);
  expr(p, e->let.body, PREC_LOWEST);
  pr_printf(p, ", where={%s: %s})", name, value.data);
  sb_free(&value);
  pr_pop(p, mark);
}

static void expr(Printer *p, const TirExpr *e, int ctx) {
  if (!e) {
    pr_puts(p, "None");
    return;
  }
  switch (e->kind) {
    case TIR_INT: {
      bool neg = e->ival < 0 && e->dtype.code == DT_INT && (e->dtype.bits == 32 || p->int64_plain);
      bool paren = neg && PREC_UNARY < ctx;
      open_paren(p, paren);
      int_lit(p, e->dtype, e->ival);
      close_paren(p, paren);
      return;
    }
    case TIR_FLOAT: float_lit(p, e->dtype, e->fval); return;
    case TIR_STR: pr_string_lit(p, e->str); return;
    case TIR_VAR: pr_puts(p, pr_tir_var_name(p, e->var)); return;
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_FLOORDIV: case TIR_FLOORMOD:
    case TIR_AND: case TIR_OR: case TIR_EQ: case TIR_NE: case TIR_LT: case TIR_LE:
    case TIR_GT: case TIR_GE: case TIR_DIV: case TIR_MOD: case TIR_MIN: case TIR_MAX:
      expr_binary(p, e, ctx);
      return;
    case TIR_NOT: {
      bool paren = PREC_NOT < ctx;
      open_paren(p, paren);
      keyword(p, "not");
      pr_puts(p, " ");
      expr(p, e->un.a, PREC_NOT);
      close_paren(p, paren);
      return;
    }
    case TIR_SELECT:
      builtin(p, "T.Select");
      pr_puts(p, "(");
      expr(p, e->sel.cond, PREC_LOWEST);
      pr_puts(p, ", ");
      expr(p, e->sel.t, PREC_LOWEST);
      pr_puts(p, ", ");
      expr(p, e->sel.f, PREC_LOWEST);
      pr_puts(p, ")");
      return;
    case TIR_CAST:
      builtin(p, "T.Cast");
      pr_puts(p, "(");
      dtype_lit(p, e->dtype);
      pr_puts(p, ", ");
      expr(p, e->un.a, PREC_LOWEST);
      pr_puts(p, ")");
      return;
    case TIR_LOAD:
      pr_puts(p, buffer_name(p, e->load.buf));
      pr_puts(p, "[");
      index_list(p, e->load.idx, e->load.n);
      pr_puts(p, "]");
      return;
    case TIR_RAMP:
      builtin(p, "T.Ramp");
      pr_puts(p, "(");
      expr(p, e->ramp.base, PREC_LOWEST);
      pr_puts(p, ", ");
      expr(p, e->ramp.stride, PREC_LOWEST);
      pr_printf(p, ", %d)", e->ramp.lanes);
      return;
    case TIR_BROADCAST:
      builtin(p, "T.Broadcast");
      pr_puts(p, "(");
      expr(p, e->bcast.value, PREC_LOWEST);
      pr_printf(p, ", %d)", e->bcast.lanes);
      return;
    case TIR_LET: expr_let(p, e); return;
    case TIR_CALL: call_expr(p, e, ctx); return;
    default: pr_puts(p, "None"); return;
  }
}

void pr_tir_expr(Printer *p, const TirExpr *e) { expr(p, e, PREC_LOWEST); }

void print_tir_expr(StrBuf *out, const TirExpr *e) {
  Printer p;
  pr_init(&p, out, NULL);
  expr(&p, e, PREC_LOWEST);
  pr_free(&p);
}

/* ------------------------------------------------------------ attribute values */

void pr_irvalue(Printer *p, const IrValue *v, bool relax) {
  char buf[32];
  if (!v) {
    keyword(p, "None");
    return;
  }
  switch (v->kind) {
    case IRV_NONE: keyword(p, "None"); return;
    case IRV_BOOL:
      if (relax) {
        pr_color(p, PRC_NUMBER, v->i ? "True" : "False");
      } else {
        builtin(p, "T.bool");
        pr_puts(p, "(");
        pr_color(p, PRC_NUMBER, v->i ? "True" : "False");
        pr_puts(p, ")");
      }
      return;
    case IRV_INT:
      snprintf(buf, sizeof buf, "%lld", (long long)v->i);
      pr_color(p, PRC_NUMBER, buf);
      return;
    case IRV_FLOAT: pr_pyfloat(p, v->f); return;
    case IRV_STR: pr_string_lit(p, v->s); return;
    case IRV_EXPR:
      /* A bool literal in an attribute spells its type, as TVM prints it. */
      if (!relax && v->expr && v->expr->kind == TIR_INT && dt_eq(v->expr->dtype, dt_bool)) {
        builtin(p, "T.bool");
        pr_puts(p, "(");
        pr_color(p, PRC_NUMBER, v->expr->ival ? "True" : "False");
        pr_puts(p, ")");
        return;
      }
      expr(p, v->expr, PREC_LOWEST);
      return;
    case IRV_BUFFER: pr_puts(p, buffer_name(p, v->buf)); return;
    case IRV_ARRAY:
      pr_puts(p, "[");
      for (int i = 0; i < v->n; i++) {
        if (i) pr_puts(p, ", ");
        pr_irvalue(p, v->items[i], relax);
      }
      pr_puts(p, "]");
      return;
    case IRV_DICT:
      pr_puts(p, "{");
      for (int i = 0; i < v->n; i++) {
        if (i) pr_puts(p, ", ");
        pr_string_lit(p, v->keys[i]);
        pr_puts(p, ": ");
        pr_irvalue(p, v->items[i], relax);
      }
      pr_puts(p, "}");
      return;
  }
}

static bool dict_nonempty(const IrValue *d) { return d && d->kind == IRV_DICT && d->n > 0; }

/* ------------------------------------------------------------ buffers and regions */

static void shape_tuple(Printer *p, TirExpr *const *dims, int n) {
  pr_puts(p, "(");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(p, ", ");
    expr(p, dims[i], PREC_LOWEST);
  }
  if (n == 1) pr_puts(p, ",");
  pr_puts(p, ")");
}

/* The keyword arguments of a buffer that differ from the defaults; `scope`
 * is left to the caller when scope_done. */
static void buffer_kwargs(Printer *p, const TirBuffer *b, bool scope_done) {
  if (b->nstrides > 0) {
    pr_puts(p, ", strides=");
    shape_tuple(p, b->strides, b->nstrides);
  }
  if (b->elem_offset && !tir_is_zero(b->elem_offset)) {
    pr_puts(p, ", elem_offset=");
    expr(p, b->elem_offset, PREC_LOWEST);
  }
  if (!scope_done && b->scope && strcmp(b->scope, "global") != 0) {
    pr_puts(p, ", scope=");
    pr_string_lit(p, b->scope);
  }
  if (b->data_alignment) pr_printf(p, ", align=%d", b->data_alignment);
  if (b->offset_factor) pr_printf(p, ", offset_factor=%d", b->offset_factor);
  if (b->auto_broadcast) {
    pr_puts(p, ", buffer_type=");
    pr_string_lit(p, "auto");
  }
  if (b->naxis_separators > 0) {
    pr_puts(p, ", axis_separators=[");
    for (int i = 0; i < b->naxis_separators; i++)
      pr_printf(p, "%s%d", i ? ", " : "", b->axis_separators[i]);
    pr_puts(p, "]");
  }
}

static void opt_dtype(Printer *p, DType t) {
  if (dt_eq(t, dt_float32)) return;
  pr_puts(p, ", ");
  dtype_lit(p, t);
}

/* `name = T.alloc_buffer((128, 128), "int32", scope="shared")` */
static void alloc_buffer_line(Printer *p, const TirBuffer *b) {
  pr_indent(p);
  pr_printf(p, "%s = ", define_buffer(p, b));
  builtin(p, "T.alloc_buffer");
  pr_puts(p, "(");
  shape_tuple(p, b->shape, b->ndim);
  opt_dtype(p, b->dtype);
  buffer_kwargs(p, b, false);
  pr_puts(p, ")\n");
}

/* stop = min + extent, folded when both are integer constants. */
static void range_stop(Printer *p, const TirRange *r) {
  int64_t a, b;
  if (tir_is_const_int(r->min, &a) && tir_is_const_int(r->extent, &b)) {
    int_lit(p, r->min->dtype, a + b);
    return;
  }
  if (tir_is_zero(r->min)) {
    expr(p, r->extent, PREC_LOWEST);
    return;
  }
  expr(p, r->min, PREC_ADD);
  pr_puts(p, " + ");
  expr(p, r->extent, PREC_ADD + 1);
}

static void region(Printer *p, const TirBufferRegion *r) {
  pr_puts(p, buffer_name(p, r->buffer));
  pr_puts(p, "[");
  if (r->n == 0) pr_puts(p, "()");
  for (int i = 0; i < r->n; i++) {
    if (i) pr_puts(p, ", ");
    const TirRange *rg = &r->ranges[i];
    expr(p, rg->min, PREC_LOWEST);
    if (!tir_is_one(rg->extent)) {
      pr_puts(p, ":");
      range_stop(p, rg);
    }
  }
  pr_puts(p, "]");
}

static void region_list(Printer *p, const char *fn, const TirBufferRegion *rs, int n) {
  pr_indent(p);
  builtin(p, fn);
  pr_puts(p, "(");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(p, ", ");
    region(p, &rs[i]);
  }
  pr_puts(p, ")\n");
}

/* ------------------------------------------------------------ var collection */

static bool expr_has_var(const TirExpr *e);

static bool exprs_have_var(TirExpr *const *es, int n) {
  for (int i = 0; i < n; i++)
    if (expr_has_var(es[i])) return true;
  return false;
}

static bool expr_has_var(const TirExpr *e) {
  if (!e) return false;
  switch (e->kind) {
    case TIR_INT: case TIR_FLOAT: case TIR_STR: return false;
    case TIR_VAR: return true;
    case TIR_NOT: case TIR_CAST: return expr_has_var(e->un.a);
    case TIR_SELECT:
      return expr_has_var(e->sel.cond) || expr_has_var(e->sel.t) || expr_has_var(e->sel.f);
    case TIR_LOAD: return true;
    case TIR_RAMP: return expr_has_var(e->ramp.base) || expr_has_var(e->ramp.stride);
    case TIR_BROADCAST: return expr_has_var(e->bcast.value);
    case TIR_LET: return true;
    case TIR_CALL: return exprs_have_var(e->call.args, e->call.n);
    default: return expr_has_var(e->bin.a) || expr_has_var(e->bin.b);
  }
}

/* Does e mention var v? */
static bool expr_uses(const TirExpr *e, const TirVar *v) {
  if (!e) return false;
  switch (e->kind) {
    case TIR_INT: case TIR_FLOAT: case TIR_STR: return false;
    case TIR_VAR: return e->var == v;
    case TIR_NOT: case TIR_CAST: return expr_uses(e->un.a, v);
    case TIR_SELECT:
      return expr_uses(e->sel.cond, v) || expr_uses(e->sel.t, v) || expr_uses(e->sel.f, v);
    case TIR_LOAD:
      for (int i = 0; i < e->load.n; i++)
        if (expr_uses(e->load.idx[i], v)) return true;
      return false;
    case TIR_RAMP: return expr_uses(e->ramp.base, v) || expr_uses(e->ramp.stride, v);
    case TIR_BROADCAST: return expr_uses(e->bcast.value, v);
    case TIR_LET: return expr_uses(e->let.value, v) || expr_uses(e->let.body, v);
    case TIR_CALL:
      for (int i = 0; i < e->call.n; i++)
        if (expr_uses(e->call.args[i], v)) return true;
      return false;
    default: return expr_uses(e->bin.a, v) || expr_uses(e->bin.b, v);
  }
}

/* Appends the vars of e not yet in *vars (order of first appearance). */
static void collect_vars(const TirExpr *e, PtrVec *vars) {
  if (!e) return;
  switch (e->kind) {
    case TIR_INT: case TIR_FLOAT: case TIR_STR: return;
    case TIR_VAR:
      for (int i = 0; i < vars->len; i++)
        if (vars->items[i] == e->var) return;
      pv_push(vars, e->var);
      return;
    case TIR_NOT: case TIR_CAST: collect_vars(e->un.a, vars); return;
    case TIR_SELECT:
      collect_vars(e->sel.cond, vars);
      collect_vars(e->sel.t, vars);
      collect_vars(e->sel.f, vars);
      return;
    case TIR_LOAD:
      for (int i = 0; i < e->load.n; i++) collect_vars(e->load.idx[i], vars);
      return;
    case TIR_RAMP: collect_vars(e->ramp.base, vars); collect_vars(e->ramp.stride, vars); return;
    case TIR_BROADCAST: collect_vars(e->bcast.value, vars); return;
    case TIR_LET: collect_vars(e->let.value, vars); collect_vars(e->let.body, vars); return;
    case TIR_CALL:
      for (int i = 0; i < e->call.n; i++) collect_vars(e->call.args[i], vars);
      return;
    default: collect_vars(e->bin.a, vars); collect_vars(e->bin.b, vars); return;
  }
}

/* ------------------------------------------------------------ loops */

static void push_loop(Printer *p, const TirStmt *loop) {
  VEC_PUSH(p->loops, p->nloops, p->caploops, loop);
}

static bool is_grid_loop(const TirStmt *s) {
  return s && s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_SERIAL && tir_is_zero(s->loop.min) &&
         !dict_nonempty(s->loop.annotations) && tir_for_trivial_step(s);
}

/* Prints the body one level deeper in its own name scope. */
static void nested_body(Printer *p, const TirStmt *body) {
  int mark = pr_mark(p);
  p->level++;
  stmt(p, body);
  p->level--;
  pr_pop(p, mark);
}

static void for_stmt(Printer *p, const TirStmt *s) {
  int mark = pr_mark(p);
  int loops_mark = p->nloops;
  /* A perfect nest of plain serial loops prints as one T.grid. */
  const TirStmt *nest[TIR_GRID_MAX];
  int n = 0;
  if (is_grid_loop(s)) {
    const TirStmt *cur = s;
    while (n < TIR_GRID_MAX && is_grid_loop(cur)) {
      bool depends = false;
      for (int i = 0; i < n && !depends; i++)
        depends = expr_uses(cur->loop.extent, nest[i]->loop.var) ||
                  expr_uses(cur->loop.min, nest[i]->loop.var);
      if (depends) break;
      nest[n++] = cur;
      cur = cur->loop.body;
    }
  }
  pr_indent(p);
  keyword(p, "for");
  pr_puts(p, " ");
  const TirStmt *inner;
  if (n >= 2) {
    /* Extents are evaluated outside the loops: print them before defining. */
    StrBuf ext;
    sb_init(&ext);
    StrBuf *saved = p->out;
    p->out = &ext;
    for (int i = 0; i < n; i++) {
      if (i) pr_puts(p, ", ");
      expr(p, nest[i]->loop.extent, PREC_LOWEST);
    }
    p->out = saved;
    for (int i = 0; i < n; i++) {
      pr_printf(p, "%s%s", i ? ", " : "", pr_define(p, nest[i]->loop.var, nest[i]->loop.var->name));
      push_loop(p, nest[i]);
    }
    pr_puts(p, " ");
    keyword(p, "in");
    pr_puts(p, " ");
    builtin(p, "T.grid");
    pr_printf(p, "(%s):\n", ext.data);
    sb_free(&ext);
    inner = nest[n - 1]->loop.body;
  } else {
    StrBuf head;
    sb_init(&head);
    StrBuf *saved = p->out;
    p->out = &head;
    const char *fn = NULL;
    switch (s->loop.kind) {
      case TIR_FOR_SERIAL: fn = dict_nonempty(s->loop.annotations) ? "T.serial" : "range"; break;
      case TIR_FOR_PARALLEL: fn = "T.parallel"; break;
      case TIR_FOR_VECTORIZED: fn = "T.vectorized"; break;
      case TIR_FOR_UNROLLED: fn = "T.unroll"; break;
      case TIR_FOR_THREAD_BINDING: fn = "T.thread_binding"; break;
    }
    if (!strcmp(fn, "range")) keyword(p, fn);
    else builtin(p, fn);
    pr_puts(p, "(");
    TirRange r = {s->loop.min, s->loop.extent};
    bool step = !tir_for_trivial_step(s);
    if (tir_is_zero(s->loop.min) && !step) {
      expr(p, s->loop.extent, PREC_LOWEST);
    } else {
      expr(p, s->loop.min, PREC_LOWEST);
      pr_puts(p, ", ");
      range_stop(p, &r);
    }
    if (s->loop.kind == TIR_FOR_THREAD_BINDING) {
      pr_puts(p, ", thread=");
      pr_string_lit(p, s->loop.thread_tag ? s->loop.thread_tag : "");
    }
    if (dict_nonempty(s->loop.annotations)) {
      pr_puts(p, ", annotations=");
      pr_irvalue(p, s->loop.annotations, false);
    }
    if (step) { /* TVM: range(a, b, s), else T.serial(a, b, step=s) */
      pr_puts(p, strcmp(fn, "range") ? ", step=" : ", ");
      expr(p, s->loop.step, PREC_LOWEST);
    }
    pr_puts(p, ")");
    p->out = saved;
    pr_puts(p, pr_define(p, s->loop.var, s->loop.var->name));
    pr_puts(p, " ");
    keyword(p, "in");
    pr_printf(p, " %s:\n", head.data);
    sb_free(&head);
    push_loop(p, s);
    inner = s->loop.body;
  }
  nested_body(p, inner);
  p->nloops = loops_mark;
  pr_pop(p, mark);
}

/* ------------------------------------------------------------ blocks */

static const char *iter_letter(TirIterType t) { return t == TIR_ITER_REDUCE ? "R" : "S"; }

static const char *iter_fn(TirIterType t) {
  switch (t) {
    case TIR_ITER_SPATIAL: return "T.axis.spatial";
    case TIR_ITER_REDUCE: return "T.axis.reduce";
    case TIR_ITER_SCAN: return "T.axis.scan";
    case TIR_ITER_OPAQUE: return "T.axis.opaque";
  }
  return "T.axis.opaque";
}

/* The enclosing loop whose var is exactly the binding and whose range equals
 * the iter's domain, or NULL. */
static bool remappable(const Printer *p, const TirIterVar *iv, const TirExpr *value,
                       const TirVar **used, int nused) {
  if (iv->type != TIR_ITER_SPATIAL && iv->type != TIR_ITER_REDUCE) return false;
  if (!value || value->kind != TIR_VAR) return false;
  for (int i = 0; i < nused; i++)
    if (used[i] == value->var) return false;
  for (int i = p->nloops - 1; i >= 0; i--) {
    const TirStmt *l = p->loops[i];
    if (l->loop.var != value->var) continue;
    return tir_expr_identical(l->loop.min, iv->dom.min) && tir_expr_identical(l->loop.extent, iv->dom.extent);
  }
  return false;
}

static void single_iter(Printer *p, const TirIterVar *iv, const TirExpr *value) {
  pr_indent(p);
  pr_printf(p, "%s = ", pr_define(p, iv->var, iv->var->name));
  builtin(p, iter_fn(iv->type));
  pr_puts(p, "(");
  if (tir_is_zero(iv->dom.min)) {
    expr(p, iv->dom.extent, PREC_LOWEST);
  } else {
    pr_puts(p, "(");
    expr(p, iv->dom.min, PREC_LOWEST);
    pr_puts(p, ", ");
    range_stop(p, &iv->dom);
    pr_puts(p, ")");
  }
  pr_puts(p, ", ");
  expr(p, value, PREC_LOWEST);
  pr_puts(p, ")\n");
}

static void flush_remap(Printer *p, const TirBlock *b, TirExpr *const *values, const int *run,
                        int n) {
  if (n == 1) {
    single_iter(p, &b->iters[run[0]], values[run[0]]);
    return;
  }
  pr_indent(p);
  for (int i = 0; i < n; i++)
    pr_printf(p, "%s%s", i ? ", " : "", pr_define(p, b->iters[run[i]].var, b->iters[run[i]].var->name));
  pr_puts(p, " = ");
  builtin(p, "T.axis.remap");
  pr_puts(p, "(\"");
  for (int i = 0; i < n; i++) pr_puts(p, iter_letter(b->iters[run[i]].type));
  pr_puts(p, "\", [");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(p, ", ");
    expr(p, values[run[i]], PREC_LOWEST);
  }
  pr_puts(p, "])\n");
}

static void block_iters(Printer *p, const TirBlock *b, TirExpr *const *values, int nvalues) {
  int n = b->niters;
  if (n == 0) return;
  int *run = xmalloc((size_t)n * sizeof *run);
  const TirVar **used = xmalloc((size_t)n * sizeof *used);
  int nrun = 0, nused = 0;
  for (int i = 0; i < n; i++) {
    const TirExpr *v = i < nvalues ? values[i] : NULL;
    if (remappable(p, &b->iters[i], v, used, nused)) {
      run[nrun++] = i;
      used[nused++] = v->var;
      continue;
    }
    if (nrun) flush_remap(p, b, values, run, nrun);
    nrun = 0;
    if (v) single_iter(p, &b->iters[i], v);
    else {
      /* A bare block has no bindings: print the iter bound to its own min. */
      single_iter(p, &b->iters[i], b->iters[i].dom.min);
    }
  }
  if (nrun) flush_remap(p, b, values, run, nrun);
  free(run);
  free(used);
}

/* Block contents after the `with T.block(...)` line, at the current level. */
static void block_contents(Printer *p, const TirBlock *b, const TirStmt *realize) {
  block_iters(p, b, realize ? realize->realize.values : NULL, realize ? realize->realize.n : 0);
  if (realize && realize->realize.pred) {
    int64_t c;
    if (!(tir_is_const_int(realize->realize.pred, &c) && c)) {
      pr_indent(p);
      builtin(p, "T.where");
      pr_puts(p, "(");
      expr(p, realize->realize.pred, PREC_LOWEST);
      pr_puts(p, ")\n");
    }
  }
  region_list(p, "T.reads", b->reads, b->nreads);
  region_list(p, "T.writes", b->writes, b->nwrites);
  if (dict_nonempty(b->annotations)) {
    pr_indent(p);
    builtin(p, "T.block_attr");
    pr_puts(p, "(");
    pr_irvalue(p, b->annotations, false);
    pr_puts(p, ")\n");
  }
  for (int i = 0; i < b->nallocs; i++) alloc_buffer_line(p, b->allocs[i]);
  for (int i = 0; i < b->nmatches; i++) {
    const TirMatchBuffer *mb = &b->matches[i];
    StrBuf src;
    sb_init(&src);
    StrBuf *saved = p->out;
    p->out = &src;
    region(p, &mb->source);
    p->out = saved;
    pr_indent(p);
    pr_printf(p, "%s = ", define_buffer(p, mb->buffer));
    builtin(p, "T.match_buffer");
    pr_printf(p, "(%s, ", src.data);
    sb_free(&src);
    shape_tuple(p, mb->buffer->shape, mb->buffer->ndim);
    opt_dtype(p, mb->buffer->dtype);
    buffer_kwargs(p, mb->buffer, false);
    pr_puts(p, ")\n");
  }
  if (b->init) {
    pr_indent(p);
    keyword(p, "with");
    pr_puts(p, " ");
    builtin(p, "T.init");
    pr_puts(p, "():\n");
    nested_body(p, b->init);
  }
  stmt(p, b->body);
}

static void block_stmt(Printer *p, const TirBlock *b, const TirStmt *realize) {
  pr_indent(p);
  keyword(p, "with");
  pr_puts(p, " ");
  builtin(p, "T.block");
  pr_puts(p, "(");
  pr_string_lit(p, b->name ? b->name : "");
  pr_puts(p, "):\n");
  int mark = pr_mark(p);
  p->level++;
  block_contents(p, b, realize);
  p->level--;
  pr_pop(p, mark);
}

/* ------------------------------------------------------------ statements */

static void line_start(Printer *p) { pr_indent(p); }

static void if_stmt(Printer *p, const TirStmt *s, bool is_elif) {
  line_start(p);
  keyword(p, is_elif ? "elif" : "if");
  pr_puts(p, " ");
  expr(p, s->ifs.cond, PREC_LOWEST);
  pr_puts(p, ":\n");
  nested_body(p, s->ifs.then_s);
  const TirStmt *e = s->ifs.else_s;
  if (!e) return;
  if (e->kind == TIR_S_IF) {
    if_stmt(p, e, true);
    return;
  }
  line_start(p);
  keyword(p, "else");
  pr_puts(p, ":\n");
  nested_body(p, e);
}

static bool stmt_has_block(const TirStmt *s) {
  if (!s) return false;
  switch (s->kind) {
    case TIR_S_BLOCK_REALIZE: case TIR_S_BLOCK: return true;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++)
        if (stmt_has_block(s->seq.stmts[i])) return true;
      return false;
    case TIR_S_FOR: return stmt_has_block(s->loop.body);
    case TIR_S_IF: return stmt_has_block(s->ifs.then_s) || stmt_has_block(s->ifs.else_s);
    case TIR_S_LET: return stmt_has_block(s->let.body);
    case TIR_S_ASSERT: return stmt_has_block(s->assrt.body);
    case TIR_S_WHILE: return stmt_has_block(s->loop_while.body);
    case TIR_S_ALLOCATE:
    case TIR_S_ALLOCATE_CONST: return stmt_has_block(s->alloc.body);
    case TIR_S_DECL_BUFFER: return stmt_has_block(s->decl.body);
    case TIR_S_ATTR: return stmt_has_block(s->attr.body);
    default: return false;
  }
}

/* `x: T.int32 = value` then the body, x visible in the body only. */
/* `T.handle("int32")` / `T.handle("int32", "shared")`: a typed pointer's element type. */
static void ptr_type_args(Printer *p, const TirVar *v) {
  if (!dt_is_handle(v->dtype) || dt_is_void(v->ptr_elem)) return;
  pr_puts(p, "(");
  dtype_lit(p, v->ptr_elem);
  if (v->ptr_scope && strcmp(v->ptr_scope, "global")) {
    pr_puts(p, ", ");
    pr_string_lit(p, v->ptr_scope);
  }
  pr_puts(p, ")");
}

/* `x: T.int32 = value` over the rest of its frame, or `with T.LetStmt(value) as x:`
 * when statements follow it (TVM's concise scoping). */
static void let_stmt(Printer *p, const TirStmt *s, bool more) {
  line_start(p);
  StrBuf val;
  sb_init(&val);
  StrBuf *saved = p->out;
  p->out = &val;
  expr(p, s->let.value, PREC_LOWEST);
  p->out = saved;
  int mark = pr_mark(p);
  const char *bound = pr_lookup(p, s->let.var);
  if (bound) { /* a variable defined already (used before): TVM's var= form */
    keyword(p, "with");
    pr_puts(p, " ");
    builtin(p, "T.LetStmt");
    pr_printf(p, "(%s, var=%s):\n", val.data, bound);
    sb_free(&val);
    nested_body(p, s->let.body);
    pr_pop(p, mark);
    return;
  }
  if (more) {
    keyword(p, "with");
    pr_puts(p, " ");
    builtin(p, "T.LetStmt");
    pr_printf(p, "(%s) ", val.data);
    keyword(p, "as");
    pr_printf(p, " %s:\n", pr_define(p, s->let.var, s->let.var->name));
    sb_free(&val);
    nested_body(p, s->let.body);
    pr_pop(p, mark);
    return;
  }
  pr_printf(p, "%s: ", pr_define(p, s->let.var, s->let.var->name));
  dtype_builtin(p, s->let.var->dtype);
  ptr_type_args(p, s->let.var);
  pr_printf(p, " = %s\n", val.data);
  sb_free(&val);
  stmt(p, s->let.body);
  pr_pop(p, mark);
}

/* TVM's sugar: an Allocate whose body declares the buffer over exactly that
 * memory prints as one `B = T.decl_buffer(shape, dtype)` line. */
static bool allocate_decl_pattern(const TirStmt *s) {
  const TirStmt *d = s->alloc.body;
  if (s->kind != TIR_S_ALLOCATE || dict_nonempty(s->alloc.annotations)) return false;
  if (!d || d->kind != TIR_S_DECL_BUFFER) return false;
  const TirBuffer *b = d->decl.buf;
  if (b->data != s->alloc.var || !dt_eq(b->dtype, s->alloc.dtype) || b->ndim != s->alloc.n)
    return false;
  const char *sa = s->alloc.scope ? s->alloc.scope : "global";
  if (strcmp(sa, b->scope ? b->scope : "global") != 0) return false;
  for (int i = 0; i < b->ndim; i++)
    if (!seq_tir_expr(b->shape[i], s->alloc.extents[i])) return false;
  return true;
}

static void decl_buffer_stmt(Printer *p, const TirStmt *s, bool more);

/* `name = fn(args)` over the rest of the frame, or `with fn(args) as name:`
 * when statements follow it (TVM's concise scoping). */
static void scoped_line(Printer *p, const char *name, const char *fn, const char *args,
                        const TirStmt *body, bool more) {
  if (more) {
    keyword(p, "with");
    pr_puts(p, " ");
    builtin(p, fn);
    pr_printf(p, "(%s) ", args);
    keyword(p, "as");
    pr_printf(p, " %s:\n", name);
    nested_body(p, body);
    return;
  }
  pr_printf(p, "%s = ", name);
  builtin(p, fn);
  pr_printf(p, "(%s)\n", args);
  stmt(p, body);
}

/* The data of T.allocate_const, flat, as TVM prints it. */
static void const_data(Printer *p, const TirStmt *s) {
  pr_puts(p, "[");
  for (int i = 0; i < s->alloc.ndata; i++) {
    const TirExpr *x = s->alloc.data[i];
    if (i) pr_puts(p, ", ");
    char num[48];
    if (x->kind == TIR_INT) snprintf(num, sizeof num, "%lld", (long long)x->ival);
    else {
      snprintf(num, sizeof num, "%.17g", x->fval);
      if (!strpbrk(num, ".eni")) strcat(num, ".0"); /* a float, as Python writes it */
    }
    pr_puts(p, num);
  }
  pr_puts(p, "], ");
}

static void extents_list(Printer *p, const TirStmt *s) {
  pr_puts(p, "[");
  for (int i = 0; i < s->alloc.n; i++) {
    if (i) pr_puts(p, ", ");
    expr(p, s->alloc.extents[i], PREC_LOWEST);
  }
  pr_puts(p, "]");
}

/* `x = T.allocate([extents], dtype, scope)` or `x = T.allocate_const(data,
 * dtype, [extents])`, then the body. */
static void allocate_stmt(Printer *p, const TirStmt *s, bool more) {
  if (allocate_decl_pattern(s)) {
    decl_buffer_stmt(p, s->alloc.body, more);
    return;
  }
  bool is_const = s->kind == TIR_S_ALLOCATE_CONST;
  line_start(p);
  StrBuf ext;
  sb_init(&ext);
  StrBuf *saved = p->out;
  p->out = &ext;
  if (is_const) {
    const_data(p, s);
    dtype_lit(p, s->alloc.dtype);
    pr_puts(p, ", ");
    extents_list(p, s);
  } else {
    extents_list(p, s);
    pr_puts(p, ", ");
    dtype_lit(p, s->alloc.dtype);
    pr_puts(p, ", ");
    pr_string_lit(p, s->alloc.scope ? s->alloc.scope : "global");
    if (dict_nonempty(s->alloc.annotations)) {
      pr_puts(p, ", annotations=");
      pr_irvalue(p, s->alloc.annotations, false);
    }
  }
  p->out = saved;
  int mark = pr_mark(p);
  scoped_line(p, pr_define(p, s->alloc.var, s->alloc.var->name),
              is_const ? "T.allocate_const" : "T.allocate", ext.data, s->alloc.body, more);
  sb_free(&ext);
  pr_pop(p, mark);
}

/* `B = T.decl_buffer(shape, dtype, data=..., ...)` then the body. */
static void decl_buffer_stmt(Printer *p, const TirStmt *s, bool more) {
  const TirBuffer *b = s->decl.buf;
  line_start(p);
  StrBuf args;
  sb_init(&args);
  StrBuf *saved = p->out;
  p->out = &args;
  shape_tuple(p, b->shape, b->ndim);
  opt_dtype(p, b->dtype);
  const char *data = b->data ? pr_lookup(p, b->data) : NULL;
  if (data) pr_printf(p, ", data=%s", data);
  buffer_kwargs(p, b, false);
  p->out = saved;
  int mark = pr_mark(p);
  scoped_line(p, define_buffer(p, b), "T.decl_buffer", args.data, s->decl.body, more);
  sb_free(&args);
  pr_pop(p, mark);
}

/* A thread attr: `T.launch_thread(tx, 32)` for a thread declared already
 * (T.env_thread), else `tx = T.launch_thread("threadIdx.x", 32)`, as TVM prints. */
static void launch_thread_stmt(Printer *p, const TirStmt *s, bool more) {
  const TirVar *v = s->attr.node;
  const char *name = pr_lookup(p, v);
  int mark = pr_mark(p);
  line_start(p);
  if (more) {
    keyword(p, "with");
    pr_puts(p, " ");
  }
  if (!name && !more) pr_printf(p, "%s = ", pr_define(p, v, v->name));
  builtin(p, "T.launch_thread");
  pr_puts(p, "(");
  if (name) pr_puts(p, name);
  else pr_string_lit(p, v->thread_tag);
  pr_puts(p, ", ");
  expr(p, s->attr.value, PREC_LOWEST);
  pr_puts(p, ")");
  if (!name && more) pr_printf(p, " as %s", pr_define(p, v, v->name));
  if (more) {
    pr_puts(p, ":\n");
    nested_body(p, s->attr.body);
  } else {
    pr_puts(p, "\n");
    stmt(p, s->attr.body);
  }
  pr_pop(p, mark);
}

static bool is_thread_attr(const TirStmt *s) {
  return s->attr.node && s->attr.node->thread_tag &&
         (!strcmp(s->attr.key, "thread_extent") || !strcmp(s->attr.key, "virtual_thread"));
}

/* `T.attr(node, key, value)` over the rest of its frame, or `with T.attr(...):`
 * when statements follow it (TVM's concise scoping); node 0 when it has none. */
static void attr_stmt(Printer *p, const TirStmt *s, bool more) {
  if (is_thread_attr(s)) {
    launch_thread_stmt(p, s, more);
    return;
  }
  line_start(p);
  if (more) {
    keyword(p, "with");
    pr_puts(p, " ");
  }
  builtin(p, "T.attr");
  pr_puts(p, "(");
  if (!s->attr.node && !strcmp(s->attr.key, "reduce_scope")) { /* TVM's node: the comm_reducer */
    expr(p, s->attr.value, PREC_LOWEST);
    pr_puts(p, ", \"reduce_scope\", ");
    builtin(p, "T.reinterpret");
    pr_puts(p, "(");
    builtin(p, "T.uint64");
    pr_puts(p, "(0), dtype=\"handle\")");
  } else {
    if (s->attr.node) pr_puts(p, pr_tir_var_name(p, s->attr.node));
    else pr_puts(p, "0");
    pr_puts(p, ", ");
    pr_string_lit(p, s->attr.key);
    pr_puts(p, ", ");
    expr(p, s->attr.value, PREC_LOWEST);
  }
  if (more) {
    pr_puts(p, "):\n");
    nested_body(p, s->attr.body);
  } else {
    pr_puts(p, ")\n");
    stmt(p, s->attr.body);
  }
}

/* `n = T.int32()` for each variable of vars not defined yet; frees vars. */
static void declare_vars(Printer *p, PtrVec *vars, bool in_body) {
  for (int i = 0; i < vars->len; i++) {
    const TirVar *v = vars->items[i];
    if (pr_lookup(p, v)) continue;
    if (in_body) line_start(p);
    else pr_indent(p);
    pr_printf(p, "%s = ", pr_define(p, v, v->name));
    dtype_builtin(p, v->dtype);
    if (dt_is_handle(v->dtype) && !dt_is_void(v->ptr_elem)) ptr_type_args(p, v);
    else pr_puts(p, "()");
    pr_puts(p, "\n");
  }
  pv_free(vars);
}

/* `A_1 = T.Buffer((16384,), data=A.data)`: a view the IR uses undeclared.
 * Variables of its strides and offset no statement binds (`strides=("s0",)`
 * in the source) are declared before it. */
static void undecl_line(Printer *p, const TirBuffer *b) {
  PtrVec vars = {0};
  for (int d = 0; d < b->nstrides; d++) collect_vars(b->strides[d], &vars);
  collect_vars(b->elem_offset, &vars);
  declare_vars(p, &vars, true);
  StrBuf args;
  sb_init(&args);
  StrBuf *saved = p->out;
  p->out = &args;
  shape_tuple(p, b->shape, b->ndim);
  opt_dtype(p, b->dtype);
  /* a data pointer nothing declares is the view's own (B.data), as TVM inlines it */
  if (b->data && pr_lookup(p, b->data)) pr_printf(p, ", data=%s", pr_tir_var_name(p, b->data));
  buffer_kwargs(p, b, false);
  p->out = saved;
  line_start(p);
  pr_printf(p, "%s = ", define_buffer(p, b));
  builtin(p, "T.Buffer");
  pr_printf(p, "(%s)\n", args.data);
  sb_free(&args);
}

/* `a = T.int32()`: a free variable, declared in the lowest frame holding
 * its uses (unless a size var declaration above named it already). */
static void undecl_vars(Printer *p, const TirStmt *s) {
  const TirVar *v;
  while ((v = pr_undecl_next_var(p->undecl, s))) {
    if (pr_lookup(p, v)) continue;
    line_start(p);
    pr_printf(p, "%s = ", pr_define(p, v, v->name));
    if (v->thread_tag) { /* used outside one launch: TVM's T.env_thread line */
      builtin(p, "T.env_thread");
      pr_puts(p, "(");
      pr_string_lit(p, v->thread_tag);
      pr_puts(p, ")\n");
      continue;
    }
    dtype_builtin(p, v->dtype);
    if (dt_is_handle(v->dtype) && !dt_is_void(v->ptr_elem)) ptr_type_args(p, v);
    else pr_puts(p, "()");
    pr_puts(p, "\n");
  }
}

static void stmt(Printer *p, const TirStmt *s) {
  bool more = p->seq_more;
  p->seq_more = false;
  if (s && s->kind != TIR_S_SEQ) {
    const TirBuffer *b;
    undecl_vars(p, s);
    while ((b = pr_undecl_next(p->undecl, s))) undecl_line(p, b);
  }
  if (!s) {
    line_start(p);
    builtin(p, "T.evaluate");
    pr_puts(p, "(0)\n");
    return;
  }
  switch (s->kind) {
    case TIR_S_STORE:
      line_start(p);
      pr_puts(p, buffer_name(p, s->store.buf));
      pr_puts(p, "[");
      index_list(p, s->store.idx, s->store.n);
      pr_puts(p, "] = ");
      expr(p, s->store.value, PREC_LOWEST);
      pr_puts(p, "\n");
      return;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) {
        p->seq_more = more || i + 1 < s->seq.n;
        stmt(p, s->seq.stmts[i]);
      }
      return;
    case TIR_S_FOR: for_stmt(p, s); return;
    case TIR_S_IF: if_stmt(p, s, false); return;
    case TIR_S_LET: let_stmt(p, s, more); return;
    case TIR_S_EVAL:
      line_start(p);
      if (s->eval.value->kind == TIR_CALL && s->eval.value->call.op->id == TIR_OP_CALL_GLOBAL) {
        expr(p, s->eval.value, PREC_LOWEST); /* TVM: a call statement prints bare */
        pr_puts(p, "\n");
        return;
      }
      builtin(p, "T.evaluate");
      pr_puts(p, "(");
      expr(p, s->eval.value, PREC_LOWEST);
      pr_puts(p, ")\n");
      return;
    case TIR_S_ASSERT:
      line_start(p);
      keyword(p, "assert");
      pr_puts(p, " ");
      expr(p, s->assrt.cond, PREC_LOWEST);
      pr_puts(p, ", ");
      expr(p, s->assrt.msg, PREC_LOWEST);
      pr_puts(p, "\n");
      stmt(p, s->assrt.body);
      return;
    case TIR_S_WHILE:
      line_start(p);
      keyword(p, "while");
      pr_puts(p, " ");
      expr(p, s->loop_while.cond, PREC_LOWEST);
      pr_puts(p, ":\n");
      nested_body(p, s->loop_while.body);
      return;
    case TIR_S_BLOCK_REALIZE: block_stmt(p, tir_realize_block(s), s); return;
    case TIR_S_BLOCK: block_stmt(p, &s->block, NULL); return;
    case TIR_S_ALLOCATE:
    case TIR_S_ALLOCATE_CONST: allocate_stmt(p, s, more); return;
    case TIR_S_DECL_BUFFER: decl_buffer_stmt(p, s, more); return;
    case TIR_S_ATTR: attr_stmt(p, s, more); return;
    default:
      return;
  }
}

void print_tir_stmt(StrBuf *out, const TirStmt *s, int indent_level) {
  Printer p;
  pr_init(&p, out, NULL);
  p.level = indent_level;
  stmt(&p, s);
  pr_free(&p);
}

/* ------------------------------------------------------------ functions */

/* The body is an implicit root block the parser would recreate. */
static bool implicit_root(const TirStmt *body) {
  if (!body || body->kind != TIR_S_BLOCK_REALIZE || body->realize.n != 0) return false;
  int64_t c;
  if (body->realize.pred && !(tir_is_const_int(body->realize.pred, &c) && c)) return false;
  const TirBlock *b = tir_realize_block(body);
  if (!b->name || strcmp(b->name, "root") != 0) return false;
  if (b->niters || b->nreads || b->nwrites || b->nmatches || b->init ||
      dict_nonempty(b->annotations))
    return false;
  return b->nallocs > 0 || stmt_has_block(b->body);
}

static bool buffer_is_static(const TirBuffer *b) {
  return !exprs_have_var(b->shape, b->ndim) && !exprs_have_var(b->strides, b->nstrides) &&
         !expr_has_var(b->elem_offset);
}

static bool note_var(TirVisitor *v, const TirExpr *e) {
  if (e->kind == TIR_VAR) *(bool *)v->ctx = true;
  return true;
}

/* Whether a function attribute holds a variable. */
static bool attrs_use_vars(const IrValue *attrs) {
  bool found = false;
  TirVisitor v;
  memset(&v, 0, sizeof v);
  v.pre_expr = note_var;
  v.ctx = &found;
  if (attrs) tir_visit_value(&v, attrs);
  return found;
}

static bool push_var(TirVisitor *v, const TirExpr *e) {
  if (e->kind == TIR_VAR) collect_vars(e, v->ctx);
  return true;
}

/* The variables attrs name, in order: a free one (`a = T.int32()` used only in
 * T.func_attr) is declared before the T.func_attr line, or it would not parse back. */
static void collect_attr_vars(const IrValue *attrs, PtrVec *vars) {
  TirVisitor v;
  memset(&v, 0, sizeof v);
  v.pre_expr = push_var;
  v.ctx = vars;
  if (attrs) tir_visit_value(&v, attrs);
}

/* Whether param i's buffer shares its data var with an earlier param's
 * (`T.match_buffer(B_handle, ..., data=A.data)`, an alias of A). */
static bool data_aliased(const TirFunc *f, int i) {
  const TirBuffer *b = f->buffer_map[i];
  for (int j = 0; j < i; j++)
    if (f->buffer_map[j] && f->buffer_map[j]->data == b->data) return true;
  return false;
}

void pr_tir_func(Printer *p, const TirFunc *f, const char *name) {
  int base_level = p->level;
  int mark = pr_mark(p);
  PrUndecl *saved_undecl = p->undecl;
  p->undecl = pr_undecl_scan(f);
  /* Decorator and the attrs left for T.func_attr. */
  const IrValue *gs = irv_dict_get(f->attrs, "global_symbol");
  bool drop_gs = gs && gs->kind == IRV_STR && !strcmp(gs->s, name);
  pr_indent(p);
  builtin(p, "@T.prim_func");
  if (!gs) pr_puts(p, "(private=True)");
  pr_puts(p, "\n");

  bool *sugar = xcalloc((size_t)(f->nparams ? f->nparams : 1), sizeof *sugar);
  pr_indent(p);
  keyword(p, "def");
  pr_printf(p, " %s(", name);
  for (int i = 0; i < f->nparams; i++) {
    if (i) pr_puts(p, ", ");
    const TirBuffer *b = f->buffer_map[i];
    const TirVar *v = f->params[i];
    if (b && f->buffer_param_sugar && buffer_is_static(b) && !data_aliased(f, i)) {
      sugar[i] = true;
      pr_printf(p, "%s: ", define_buffer(p, b));
      builtin(p, "T.Buffer");
      pr_puts(p, "(");
      shape_tuple(p, b->shape, b->ndim);
      pr_puts(p, ", ");
      dtype_lit(p, b->dtype);
      buffer_kwargs(p, b, false);
      pr_puts(p, ")");
    } else if (b) {
      pr_printf(p, "%s: ", pr_define(p, v, v->name));
      builtin(p, "T.handle");
    } else {
      pr_printf(p, "%s: ", pr_define(p, v, v->name));
      dtype_builtin(p, v->dtype);
    }
  }
  pr_puts(p, ")");
  if (!dt_is_void(f->ret_type)) {
    pr_puts(p, " -> ");
    dtype_builtin(p, f->ret_type);
  }
  pr_puts(p, ":\n");
  p->level++;

  /* Size vars of the matched buffers, declared once in order of appearance;
   * before T.func_attr when an attribute names them (make-packed-api's
   * "tvs.bind_vars"), since the parser reads top to bottom. */
  bool vars_first = attrs_use_vars(f->attrs);
  if (!vars_first) pr_func_attrs(p, "T.func_attr", f->attrs, drop_gs, false);
  PtrVec vars = {0};
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map[i];
    if (!b || sugar[i]) continue;
    for (int d = 0; d < b->ndim; d++) collect_vars(b->shape[d], &vars);
    for (int d = 0; d < b->nstrides; d++) collect_vars(b->strides[d], &vars);
    collect_vars(b->elem_offset, &vars);
  }
  if (vars_first) collect_attr_vars(f->attrs, &vars);
  declare_vars(p, &vars, false);
  if (vars_first) pr_func_attrs(p, "T.func_attr", f->attrs, drop_gs, false);
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map[i];
    if (!b || sugar[i]) continue;
    const char *handle = pr_lookup(p, f->params[i]);
    StrBuf args;
    sb_init(&args);
    StrBuf *saved = p->out;
    p->out = &args;
    shape_tuple(p, b->shape, b->ndim);
    opt_dtype(p, b->dtype);
    if (data_aliased(f, i)) pr_printf(p, ", data=%s", pr_tir_var_name(p, b->data));
    buffer_kwargs(p, b, false);
    p->out = saved;
    pr_indent(p);
    pr_printf(p, "%s = ", define_buffer(p, b));
    builtin(p, "T.match_buffer");
    pr_printf(p, "(%s, %s)\n", handle, args.data);
    sb_free(&args);
  }
  free(sugar);

  if (implicit_root(f->body)) {
    const TirBlock *root = tir_realize_block(f->body);
    undecl_vars(p, f->body);
    pr_indent(p);
    pr_color(p, PRC_COMMENT, "# with T.block(\"root\"):");
    pr_puts(p, "\n");
    for (int i = 0; i < root->nallocs; i++) alloc_buffer_line(p, root->allocs[i]);
    stmt(p, root->body);
  } else {
    stmt(p, f->body);
  }
  pr_undecl_free(p->undecl);
  p->undecl = saved_undecl;
  p->level = base_level;
  pr_pop(p, mark);
}
