/* relax_op_infer.c - struct-info inference rules of the Relax operator registry.
 *
 * One function per family of operators (the INFER column of ir/relax_ops.def):
 * numpy broadcasting for the binary operators, astype, the shape-preserving unary operators, the DPS calls whose
 * result is their out_sinfo.  The messages are the elaborator's: they name the
 * operator as written ("R.add") and print struct info in TVMScript form. */
#include "ir/relax_op.h"

#include <string.h>

/* ------------------------------------------------------------- printing */

static void dim_str(StrBuf *sb, const TirExpr *e) {
  switch (e->kind) {
  case TIR_INT: sb_printf(sb, "%lld", (long long)e->ival); return;
  case TIR_VAR: sb_puts(sb, e->var->name); return;
  case TIR_CAST: dim_str(sb, e->un.a); return;
  case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_FLOORDIV: case TIR_FLOORMOD: {
    const char *op = e->kind == TIR_ADD ? " + " : e->kind == TIR_SUB ? " - " : e->kind == TIR_MUL ? " * "
                     : e->kind == TIR_FLOORDIV ? " // " : " % ";
    dim_str(sb, e->bin.a);
    sb_puts(sb, op);
    dim_str(sb, e->bin.b);
    return;
  }
  default: sb_puts(sb, "?"); return;
  }
}

void rx_shape_str(StrBuf *sb, TirExpr **shape, int n) {
  sb_putc(sb, '(');
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(sb, ", ");
    dim_str(sb, shape[i]);
  }
  if (n == 1) sb_putc(sb, ',');
  sb_putc(sb, ')');
}

void rx_sinfo_str(StrBuf *sb, const RxSInfo *s) {
  char buf[DT_STR_MAX];
  switch (s->kind) {
  case RX_SI_OBJECT: sb_puts(sb, "R.Object"); return;
  case RX_SI_FUNC: sb_puts(sb, "R.Callable"); return;
  case RX_SI_PRIM: sb_printf(sb, "R.Prim(\"%s\")", dt_str(s->dtype, buf)); return;
  case RX_SI_SHAPE:
    if (s->shape) {
      sb_puts(sb, "R.Shape([");
      for (int i = 0; i < s->ndim; i++) {
        if (i) sb_puts(sb, ", ");
        dim_str(sb, s->shape[i]);
      }
      sb_puts(sb, "])");
    } else if (s->ndim >= 0) {
      sb_printf(sb, "R.Shape(ndim=%d)", s->ndim);
    } else {
      sb_puts(sb, "R.Shape");
    }
    return;
  case RX_SI_TUPLE:
    sb_puts(sb, "R.Tuple(");
    for (int i = 0; i < s->nfields; i++) {
      if (i) sb_puts(sb, ", ");
      rx_sinfo_str(sb, s->fields[i]);
    }
    sb_putc(sb, ')');
    return;
  case RX_SI_TENSOR: {
    bool any = false;
    sb_puts(sb, "R.Tensor(");
    if (s->shape) {
      rx_shape_str(sb, s->shape, s->ndim);
      any = true;
    }
    if (!dt_is_void(s->dtype)) {
      sb_printf(sb, "%sdtype=\"%s\"", any ? ", " : "", dt_str(s->dtype, buf));
      any = true;
    }
    if (!s->shape && s->ndim >= 0) sb_printf(sb, "%sndim=%d", any ? ", " : "", s->ndim);
    sb_putc(sb, ')');
    return;
  }
  }
}

static const char *sinfo_text(const RxInferCall *c, const RxSInfo *s) {
  StrBuf sb;
  sb_init(&sb);
  rx_sinfo_str(&sb, s);
  const char *r = arena_strdup(c->scratch, sb.data);
  sb_free(&sb);
  return r;
}

static const char *shape_text(const RxInferCall *c, TirExpr **shape, int n) {
  StrBuf sb;
  sb_init(&sb);
  rx_shape_str(&sb, shape, n);
  const char *r = arena_strdup(c->scratch, sb.data);
  sb_free(&sb);
  return r;
}

static const char *dtype_text(const RxInferCall *c, DType t) {
  char buf[DT_STR_MAX];
  return arena_strdup(c->scratch, dt_str(t, buf));
}

/* ------------------------------------------------------------- dims */

bool rx_dim_eq(const TirExpr *a, const TirExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
  case TIR_INT: return a->ival == b->ival;
  case TIR_VAR: return a->var == b->var;
  case TIR_CAST: return dt_eq(a->dtype, b->dtype) && rx_dim_eq(a->un.a, b->un.a);
  case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_FLOORDIV: case TIR_FLOORMOD:
  case TIR_MIN: case TIR_MAX:
    return rx_dim_eq(a->bin.a, b->bin.a) && rx_dim_eq(a->bin.b, b->bin.b);
  default: return false;
  }
}

/* Could a and b be the same size?  False only when both are distinct constants. */
bool rx_dim_may_eq(const TirExpr *a, const TirExpr *b) {
  int64_t x, y;
  if (tir_is_const_int(a, &x) && tir_is_const_int(b, &y)) return x == y;
  return true;
}

/* ------------------------------------------------------------- operands */

#define BAD_SINFO ((const RxSInfo *)-1)

/* Operand i as a tensor: its struct info, NULL when only known as R.Object, or
 * BAD_SINFO after reporting that it is something else. */
static const RxSInfo *tensor_arg(const RxInferCall *c, int i) {
  const RxSInfo *s = c->args[i];
  if (s->kind == RX_SI_TENSOR) return s;
  if (s->kind == RX_SI_OBJECT) return NULL;
  diag_error(c->diag, c->arg_spans[i], "R.%s expects a tensor, got %s", c->op->script_name, sinfo_text(c, s));
  return BAD_SINFO;
}

static RxSInfo *unknown_tensor(const RxInferCall *c, DType t, int ndim) { return rx_sinfo_tensor(c->h, NULL, ndim, t); }

/* The dtype attribute `key` (text, "void" for none). */
static DType dtype_attr(const RxInferCall *c, const char *key) {
  const IrValue *v = irv_dict_get(c->attrs, key);
  DType t = dt_void;
  if (v && v->kind == IRV_STR && strcmp(v->s, "void") != 0) dt_parse(v->s, &t);
  return t;
}

/* ------------------------------------------------------------- rules */

/* numpy broadcasting of two tensor struct infos. */
static RxSInfo *infer_broadcast(const RxInferCall *c, const char *op, const RxSInfo *a, const RxSInfo *b,
                                bool to_bool, Span span) {
  DType t = a->dtype;
  if (!dt_is_void(a->dtype) && !dt_is_void(b->dtype) && !dt_eq(a->dtype, b->dtype)) {
    diag_error(c->diag, span, "R.%s: dtype mismatch '%s' vs '%s'", op, dtype_text(c, a->dtype),
               dtype_text(c, b->dtype));
    return NULL;
  }
  if (dt_is_void(t)) t = b->dtype;
  if (to_bool) t = dt_bool;
  if (a->ndim < 0 || b->ndim < 0) return unknown_tensor(c, t, -1);
  int n = a->ndim > b->ndim ? a->ndim : b->ndim;
  if (!a->shape || !b->shape) return unknown_tensor(c, t, n);
  TirExpr **out = arena_alloc(c->scratch, (size_t)(n + 1) * sizeof *out);
  bool known = true;
  for (int i = 0; i < n; i++) {
    int ia = a->ndim - n + i, ib = b->ndim - n + i;
    TirExpr *da = ia >= 0 ? a->shape[ia] : NULL, *db = ib >= 0 ? b->shape[ib] : NULL;
    if (!da) { out[i] = db; continue; }
    if (!db) { out[i] = da; continue; }
    int64_t x, y;
    bool cx = tir_is_const_int(da, &x), cy = tir_is_const_int(db, &y);
    if (cx && cy) {
      if (x == y || y == 1) out[i] = da;
      else if (x == 1) out[i] = db;
      else {
        diag_error(c->diag, span, "R.%s: shapes %s and %s cannot be broadcast", op,
                   shape_text(c, a->shape, a->ndim), shape_text(c, b->shape, b->ndim));
        return NULL;
      }
    } else if (cx && x == 1) out[i] = db;
    else if (cy && y == 1) out[i] = da;
    else if (rx_dim_eq(da, db)) out[i] = da;
    else known = false;
  }
  return rx_sinfo_tensor(c->h, known ? out : NULL, n, t);
}

static RxSInfo *binary(const RxInferCall *q, bool to_bool) {
  const RxSInfo *a = tensor_arg(q, 0), *b = tensor_arg(q, 1);
  if (a == BAD_SINFO || b == BAD_SINFO) return NULL;
  if (!a || !b) return unknown_tensor(q, to_bool ? dt_bool : a ? a->dtype : b ? b->dtype : dt_void, -1);
  return infer_broadcast(q, q->op->script_name, a, b, to_bool, q->span);
}

RxSInfo *rx_infer_binary_bcast(const RxInferCall *q) { return binary(q, false); }

RxSInfo *rx_infer_compare_bcast(const RxInferCall *q) { return binary(q, true); }

RxSInfo *rx_infer_astype(const RxInferCall *q) {
  DType t = dtype_attr(q, "dtype");
  const RxSInfo *a = tensor_arg(q, 0);
  if (a == BAD_SINFO) return NULL;
  return a ? rx_sinfo_tensor(q->h, a->shape, a->ndim, t) : unknown_tensor(q, t, -1);
}

RxSInfo *rx_infer_unary_same(const RxInferCall *q) {
  const RxSInfo *a = q->n >= 1 ? tensor_arg(q, 0) : NULL;
  if (a == BAD_SINFO) return NULL;
  return a ? rx_sinfo_tensor(q->h, a->shape, a->ndim, a->dtype) : unknown_tensor(q, dt_void, -1);
}

RxSInfo *rx_infer_first_dtype(const RxInferCall *q) {
  const RxSInfo *a = q->n >= 1 ? tensor_arg(q, 0) : NULL;
  if (a == BAD_SINFO) return NULL;
  return unknown_tensor(q, a ? a->dtype : dt_void, -1);
}

RxSInfo *rx_infer_dps(const RxInferCall *q) {
  if (q->nsinfo_args < 1) return rx_sinfo_object(q->h);
  return q->out_tuple ? rx_sinfo_tuple(q->h, q->sinfo_args, q->nsinfo_args) : q->sinfo_args[0];
}

RxSInfo *rx_infer_packed(const RxInferCall *q) {
  return q->nsinfo_args >= 1 ? q->sinfo_args[0] : rx_sinfo_object(q->h);
}

RxSInfo *rx_infer_object(const RxInferCall *q) { return rx_sinfo_object(q->h); }
