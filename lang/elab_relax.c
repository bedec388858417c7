/* elab_relax.c - elaboration of `@R.function` bodies into the graph IR.
 *
 * Struct info annotations (R.Tensor/Tuple/Shape/Prim/Object, string dims that
 * declare symbolic int64 sizes), bindings in A-normal form, dataflow blocks
 * with R.output, if/else, match_cast, call_tir/call_dps_packed and the
 * high-level operators: arguments and attributes by the operator's registry row
 * (ir/relax_ops.def), struct info by its INFER rule (ir/relax_op_infer.c). */
#include "lang/elab_internal.h"
#include "ir/relax_op.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- state */

/* One SeqExpr under construction: the function body or an if branch. */
typedef struct Frame {
  RxBlock *blocks;     /* finished blocks */
  int nblocks, capblocks;
  RxBinding *cur;      /* bindings of the open block */
  int ncur, capcur;
  bool cur_df;         /* the open block is a dataflow block */
} Frame;

typedef struct RxState {
  const char *fname;   /* the function's name, for messages */
  Scope *fn_scope;     /* where size vars are defined */
  TirVar **syms;       /* size vars in order of declaration */
  int nsyms, capsyms;
  const char **expired; /* dataflow-local names of finished blocks */
  int nexpired, capexpired;
  Frame *frame;        /* the SeqExpr being built */
  bool in_dataflow;    /* inside `with R.dataflow():` */
  int fresh;           /* counter for normalizer-introduced vars */
  const Ast *binding_value; /* the value of the binding being elaborated */
  RxSInfo *binding_ann;     /* and its annotation, or NULL */
} RxState;

#define ST(c) ((RxState *)(c)->rx)

/* ------------------------------------------------------------- printing */

static const char *sinfo_text(ElabCtx *c, const RxSInfo *s) {
  StrBuf sb;
  sb_init(&sb);
  rx_sinfo_str(&sb, s);
  const char *r = arena_strdup(&c->scratch, sb.data);
  sb_free(&sb);
  return r;
}

static const char *dtype_text(ElabCtx *c, DType t) {
  char buf[DT_STR_MAX];
  return arena_strdup(&c->scratch, dt_str(t, buf));
}

/* ------------------------------------------------------------- dims */

static TirExpr *i64(ElabCtx *c, int64_t v) { return tir_int(c->h, dt_int64, v); }

/* ------------------------------------------------------------- size vars */

static TirVar *find_sym(ElabCtx *c, const char *name) {
  RxState *st = ST(c);
  for (int i = st->nsyms - 1; i >= 0; i--)
    if (!strcmp(st->syms[i]->name, name)) return st->syms[i];
  return NULL;
}

/* Declares (or, with `reuse`, finds) the size var `name` in the function scope. */
static TirVar *declare_sym(ElabCtx *c, const char *name, DType t, Span span, bool reuse) {
  RxState *st = ST(c);
  TirVar *v = reuse ? find_sym(c, name) : NULL;
  if (!v) {
    v = tir_var(c->h, name, t);
    v->is_size_var = true;
    v->span = span;
    st->syms = elab_grow(c, st->syms, st->nsyms, &st->capsyms, sizeof *st->syms);
    st->syms[st->nsyms++] = v;
  }
  Scope *saved = c->scope;
  c->scope = st->fn_scope;
  elab_define(c, name, SYM_TIR_VAR, v, span);
  c->scope = saved;
  return v;
}

/* One dimension of a shape annotation: an int, a string (size var), or an
 * integer expression over declared size vars. */
static TirExpr *elab_dim(ElabCtx *c, const Ast *d) {
  if (d->kind == AST_STR) {
    if (!d->str[0]) {
      diag_error(c->diag, d->span, "a symbolic dimension needs a name");
      return NULL;
    }
    return tir_var_ref(c->h, declare_sym(c, d->str, dt_int64, d->span, true));
  }
  if (d->kind == AST_INT) {
    if (d->ival < 0) {
      diag_error(c->diag, d->span, "shape dimension %lld is negative", (long long)d->ival);
      return NULL;
    }
    return i64(c, d->ival);
  }
  TirExpr *e = elab_tir_int_expr(c, d, dt_int64, "shape dimension");
  if (!e) return NULL;
  if (!dt_eq(e->dtype, dt_int64)) e = elab_tir_int_cast(c->h, e, dt_int64);
  return e;
}

/* A tuple/list of dims; *n receives the rank.  NULL after errors (or for ()). */
static bool elab_dims(ElabCtx *c, const Ast *t, TirExpr ***out, int *n) {
  if (t->kind != AST_TUPLE && t->kind != AST_LIST) {
    diag_error(c->diag, t->span, "expected a shape such as (16, 16) or [m, n]");
    return false;
  }
  *n = t->list.len;
  *out = arena_alloc(&c->scratch, (size_t)(*n + 1) * sizeof **out);
  bool ok = true;
  for (int i = 0; i < *n; i++) {
    (*out)[i] = elab_dim(c, t->list.items[i]);
    if (!(*out)[i]) ok = false;
  }
  return ok;
}

/* ------------------------------------------------------------- struct info */

static RxSInfo *elab_sinfo(ElabCtx *c, const Ast *a);

static bool is_name(const Ast *a, const char *n) { return a && a->kind == AST_NAME && !strcmp(a->name, n); }

/* Canonical name of a callee, with the MLC-2022 bare `Tensor` accepted. */
static const char *callee_name(ElabCtx *c, const Ast *callee) {
  const char *cn = elab_canonical_name(c, callee);
  if (!cn && is_name(callee, "Tensor") && !elab_lookup(c, "Tensor")) return "R.Tensor";
  return cn;
}

static bool kw_ndim(ElabCtx *c, const Ast *call, int *ndim) {
  const Ast *nd = elab_kwarg(call, "ndim");
  if (!nd) return true;
  if (nd->kind == AST_UNARY && nd->op == OP_NEG && nd->a->kind == AST_INT && nd->a->ival == 1) {
    *ndim = -1;
    return true;
  }
  if (nd->kind != AST_INT || nd->ival < 0 || nd->ival > 64) {
    diag_error(c->diag, nd->span, "ndim must be a small non-negative integer");
    return false;
  }
  *ndim = (int)nd->ival;
  return true;
}

/* R.Tensor(shape?, dtype?, ndim=?) */
static RxSInfo *elab_tensor_sinfo(ElabCtx *c, const Ast *call) {
  static const char *const kws[] = {"shape", "dtype", "ndim", NULL};
  if (!elab_check_kwargs(c, call, kws)) return NULL;
  const Ast *shape = elab_kwarg(call, "shape"), *dtype = elab_kwarg(call, "dtype");
  int np = elab_num_posargs(call);
  if (np > 2) {
    diag_error(c->diag, elab_posarg(call, 2)->span, "R.Tensor takes at most a shape and a dtype");
    return NULL;
  }
  const Ast *p0 = elab_posarg(call, 0), *p1 = elab_posarg(call, 1);
  if (p0 && p0->kind == AST_STR && !p1 && !dtype) {
    dtype = p0; /* R.Tensor("float32", ndim=2) */
  } else {
    if (p0) shape = p0;
    if (p1) dtype = p1;
  }
  DType t = dt_void;
  if (dtype && !elab_dtype_arg(c, dtype, &t)) return NULL;
  int ndim = -1;
  if (!kw_ndim(c, call, &ndim)) return NULL;
  if (shape && shape->kind != AST_NONE) {
    TirExpr **dims;
    int n;
    if (!elab_dims(c, shape, &dims, &n)) return NULL;
    if (ndim >= 0 && ndim != n) {
      diag_error(c->diag, call->span, "R.Tensor: ndim=%d but the shape has %d dimensions", ndim, n);
      return NULL;
    }
    RxSInfo *s = rx_sinfo_tensor(c->h, dims, n, t);
    s->span = call->span;
    return s;
  }
  RxSInfo *s = rx_sinfo_tensor(c->h, NULL, ndim, t);
  s->span = call->span;
  return s;
}

static RxSInfo *elab_sinfo(ElabCtx *c, const Ast *a) {
  const Ast *callee = a->kind == AST_CALL ? a->a : a;
  const char *cn = callee_name(c, callee);
  RxSInfo *s = NULL;
  if (!cn) goto bad;
  if (!strcmp(cn, "R.Tensor")) {
    if (a->kind != AST_CALL) s = rx_sinfo_tensor(c->h, NULL, -1, dt_void);
    else s = elab_tensor_sinfo(c, a);
  } else if (!strcmp(cn, "R.Object")) {
    s = rx_sinfo_object(c->h);
  } else if (!strcmp(cn, "R.Tuple")) {
    int n = a->kind == AST_CALL ? a->list.len : 0;
    const AstList *fl = a->kind == AST_CALL ? &a->list : NULL;
    if (n == 1 && (a->list.items[0]->kind == AST_LIST || a->list.items[0]->kind == AST_TUPLE)) {
      fl = &a->list.items[0]->list;
      n = fl->len;
    }
    RxSInfo **fs = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *fs);
    for (int i = 0; i < n; i++) {
      if (fl->items[i]->kind == AST_KEYWORD) {
        diag_error(c->diag, fl->items[i]->span, "R.Tuple takes only positional fields");
        return NULL;
      }
      fs[i] = elab_sinfo(c, fl->items[i]);
      if (!fs[i]) return NULL;
    }
    s = rx_sinfo_tuple(c->h, fs, n);
  } else if (!strcmp(cn, "R.Shape")) {
    int ndim = -1;
    if (a->kind == AST_CALL) {
      static const char *const kws[] = {"values", "ndim", NULL};
      if (!elab_check_kwargs(c, a, kws) || !kw_ndim(c, a, &ndim)) return NULL;
      const Ast *v = elab_posarg(a, 0);
      if (!v) v = elab_kwarg(a, "values");
      if (v && v->kind != AST_NONE) {
        TirExpr **dims;
        int n;
        if (!elab_dims(c, v, &dims, &n)) return NULL;
        s = rx_sinfo_shape(c->h, dims, n);
      }
    }
    if (!s) s = rx_sinfo_shape(c->h, NULL, ndim);
  } else if (!strcmp(cn, "R.Prim")) {
    DType t = dt_void;
    const Ast *d = a->kind == AST_CALL ? elab_posarg(a, 0) : NULL;
    if (!d && a->kind == AST_CALL) d = elab_kwarg(a, "dtype");
    if (d && !elab_dtype_arg(c, d, &t)) return NULL;
    s = rx_sinfo_prim(c->h, t);
  } else if (!strcmp(cn, "R.Callable")) {
    s = rx_global_var(c->h, "")->sinfo;
  } else {
    goto bad;
  }
  if (s) s->span = a->span;
  return s;
bad:
  diag_error(c->diag, a->span,
             "expected a struct info annotation such as R.Tensor((16,), \"float32\"), R.Tuple(...), "
             "R.Shape(...), R.Prim(...) or R.Object");
  return NULL;
}

/* Is `want` (an annotation) possibly satisfied by a value of struct info `have`? */
static bool sinfo_compatible(const RxSInfo *want, const RxSInfo *have) {
  if (want->kind == RX_SI_OBJECT || have->kind == RX_SI_OBJECT) return true;
  if (want->kind != have->kind) return false;
  switch (want->kind) {
  case RX_SI_TENSOR:
  case RX_SI_SHAPE:
    if (want->kind == RX_SI_TENSOR && !dt_is_void(want->dtype) && !dt_is_void(have->dtype) &&
        !dt_eq(want->dtype, have->dtype))
      return false;
    if (want->ndim >= 0 && have->ndim >= 0 && want->ndim != have->ndim) return false;
    if (want->shape && have->shape)
      for (int i = 0; i < want->ndim; i++)
        if (!rx_dim_may_eq(want->shape[i], have->shape[i])) return false;
    return true;
  case RX_SI_PRIM:
    return dt_is_void(want->dtype) || dt_is_void(have->dtype) || dt_eq(want->dtype, have->dtype);
  case RX_SI_TUPLE:
    if (want->nfields != have->nfields) return false;
    for (int i = 0; i < want->nfields; i++)
      if (!sinfo_compatible(want->fields[i], have->fields[i])) return false;
    return true;
  default: return true;
  }
}

/* ------------------------------------------------------------- frames */

static void frame_flush(ElabCtx *c, Frame *f) {
  if (f->ncur == 0 && !f->cur_df) return;
  f->blocks = elab_grow(c, f->blocks, f->nblocks, &f->capblocks, sizeof *f->blocks);
  f->blocks[f->nblocks++] = (RxBlock){f->cur_df, f->cur, f->ncur};
  f->cur = NULL;
  f->ncur = f->capcur = 0;
}

static RxExpr *emit(ElabCtx *c, RxExpr *var, RxExpr *value, RxSInfo *cast_to, Span span) {
  Frame *f = ST(c)->frame;
  f->cur = elab_grow(c, f->cur, f->ncur, &f->capcur, sizeof *f->cur);
  f->cur[f->ncur++] = (RxBinding){var, value, cast_to, span};
  return var;
}

/* Binds a non-leaf value (call, if) to a fresh var, keeping A-normal form. */
static RxExpr *normalize(ElabCtx *c, RxExpr *e) {
  if (!e || (e->kind != RX_CALL && e->kind != RX_IF && e->kind != RX_SEQ)) return e;
  RxState *st = ST(c);
  char name[32];
  snprintf(name, sizeof name, st->fresh ? "lv%d" : "lv", st->fresh);
  st->fresh++;
  RxExpr *v = rx_var(c->h, name, e->sinfo, st->in_dataflow);
  v->span = e->span;
  return emit(c, v, e, NULL, e->span);
}

/* ------------------------------------------------------------- expressions */

static RxExpr *elab_expr(ElabCtx *c, const Ast *a);

static RxExpr *set_span(RxExpr *e, Span s) {
  if (e) e->span = s;
  return e;
}

/* The FUNCDEF of module function `name`, or NULL. */
static const Ast *find_global(ElabCtx *c, const char *name) {
  for (Scope *s = c->scope; s; s = s->parent)
    for (int i = s->n - 1; i >= 0; i--)
      if (s->syms[i].kind == SYM_GLOBAL_FUNC && !strcmp(s->syms[i].name, name)) return s->syms[i].ptr;
  return NULL;
}

static bool names_module(ElabCtx *c, const Ast *a) {
  if (!a || a->kind != AST_NAME) return false;
  Sym *s = elab_lookup(c, a->name);
  return s && s->kind == SYM_MODULE;
}

/* `cls.f` / `Module.f`: a global var (errors for unknown functions). */
static RxExpr *elab_gvar_attr(ElabCtx *c, const Ast *a) {
  if (!find_global(c, a->name)) {
    diag_error(c->diag, a->span, "module has no function '%s'", a->name);
    return NULL;
  }
  return set_span(rx_global_var(c->h, a->name), a->span);
}

static RxExpr *elab_name(ElabCtx *c, const Ast *a) {
  Sym *s = elab_lookup(c, a->name);
  if (!s) {
    RxState *st = ST(c);
    for (int i = 0; i < st->nexpired; i++)
      if (!strcmp(st->expired[i], a->name)) {
        diag_error(c->diag, a->span,
                   "'%s' is local to its dataflow block; list it in R.output(...)", a->name);
        return NULL;
      }
    elab_undefined(c, a);
    return NULL;
  }
  switch (s->kind) {
  case SYM_RX_VAR: return s->ptr;
  case SYM_TIR_VAR: return set_span(rx_prim_value(c->h, tir_var_ref(c->h, s->ptr)), a->span);
  case SYM_GLOBAL_FUNC: return set_span(rx_global_var(c->h, a->name), a->span);
  default:
    diag_error(c->diag, a->span, "'%s' is not a Relax value", a->name);
    return NULL;
  }
}

static RxExpr *mk_string(ElabCtx *c, const char *v, Span span) {
  RxExpr *e = ir_alloc(c->h, sizeof *e);
  e->kind = RX_STRING;
  e->str.value = ir_strdup(c->h, v);
  e->sinfo = rx_sinfo_object(c->h);
  e->span = span;
  return e;
}

/* --- R.const */

static void put_value(void *dst, DType t, double f, int64_t i, bool is_float) {
  double v = is_float ? f : (double)i;
  switch (t.code) {
  case DT_BOOL: *(uint8_t *)dst = is_float ? f != 0 : i != 0; return;
  case DT_INT:
  case DT_UINT: {
    int64_t x = is_float ? (int64_t)f : i;
    if (t.bits == 8) *(uint8_t *)dst = (uint8_t)x;
    else if (t.bits == 16) *(uint16_t *)dst = (uint16_t)x;
    else if (t.bits == 32) *(uint32_t *)dst = (uint32_t)x;
    else *(uint64_t *)dst = (uint64_t)x;
    return;
  }
  case DT_FLOAT:
    if (t.bits == 64) { *(double *)dst = v; return; }
    if (t.bits == 32) { *(float *)dst = (float)v; return; }
    { /* float16: round to nearest even */
      float fv = (float)v;
      uint32_t b;
      memcpy(&b, &fv, 4);
      uint32_t sign = (b >> 16) & 0x8000u;
      int32_t exp = (int32_t)((b >> 23) & 0xff) - 127 + 15;
      uint32_t man = b & 0x7fffffu;
      uint16_t hbits;
      if (((b >> 23) & 0xff) == 0xff) hbits = (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
      else if (exp >= 31) hbits = (uint16_t)(sign | 0x7c00u);
      else if (exp <= 0) {
        if (exp < -10) hbits = (uint16_t)sign;
        else {
          man |= 0x800000u;
          uint32_t shift = (uint32_t)(14 - exp);
          uint32_t hm = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
          if (rem > half || (rem == half && (hm & 1))) hm++;
          hbits = (uint16_t)(sign | hm);
        }
      } else {
        uint32_t hm = man >> 13, rem = man & 0x1fffu;
        uint32_t r = sign | ((uint32_t)exp << 10) | hm;
        if (rem > 0x1000u || (rem == 0x1000u && (hm & 1))) r++;
        hbits = (uint16_t)r;
      }
      *(uint16_t *)dst = hbits;
    }
    return;
  case DT_BFLOAT: {
    float fv = (float)v;
    uint32_t b;
    memcpy(&b, &fv, 4);
    uint32_t r = b + 0x7fffu + ((b >> 16) & 1);
    *(uint16_t *)dst = (uint16_t)(r >> 16);
    return;
  }
  default: return;
  }
}

typedef struct ConstScan {
  int64_t shape[16];  /* dims found */
  int ndim;           /* -1 until the first leaf fixes it */
  int64_t count;      /* leaves */
  bool any_float, all_bool;
} ConstScan;

/* Checks a nested literal list for a rectangular shape. */
static bool const_scan(ElabCtx *c, const Ast *a, int depth, ConstScan *cs) {
  if (a->kind == AST_LIST || a->kind == AST_TUPLE) {
    if (depth >= 16) {
      diag_error(c->diag, a->span, "R.const: too many dimensions");
      return false;
    }
    if (cs->ndim >= 0 && depth >= cs->ndim) goto ragged;
    if (cs->ndim < 0 || cs->shape[depth] < 0) {
      if (cs->ndim >= 0 && cs->shape[depth] != a->list.len) goto ragged;
      cs->shape[depth] = a->list.len;
    } else if (cs->shape[depth] != a->list.len) {
      goto ragged;
    }
    if (a->list.len == 0) {
      if (cs->ndim < 0) cs->ndim = depth + 1;
      else if (cs->ndim != depth + 1) goto ragged;
    }
    for (int i = 0; i < a->list.len; i++)
      if (!const_scan(c, a->list.items[i], depth + 1, cs)) return false;
    return true;
  }
  const Ast *v = a;
  if (v->kind == AST_UNARY && (v->op == OP_NEG || v->op == OP_POS)) v = v->a;
  if (v->kind == AST_FLOAT) cs->any_float = true, cs->all_bool = false;
  else if (v->kind == AST_INT) cs->all_bool = false;
  else if (v->kind != AST_TRUE && v->kind != AST_FALSE) {
    diag_error(c->diag, a->span, "R.const expects a number, a bool or a nested list of them");
    return false;
  }
  if (cs->ndim < 0) cs->ndim = depth;
  else if (cs->ndim != depth) goto ragged;
  cs->count++;
  return true;
ragged:
  diag_error(c->diag, a->span, "R.const: ragged nested list (rows of different lengths)");
  return false;
}

static void const_fill(const Ast *a, DType t, uint8_t *data, int64_t *k) {
  if (a->kind == AST_LIST || a->kind == AST_TUPLE) {
    for (int i = 0; i < a->list.len; i++) const_fill(a->list.items[i], t, data, k);
    return;
  }
  bool neg = a->kind == AST_UNARY && a->op == OP_NEG;
  const Ast *v = a->kind == AST_UNARY ? a->a : a;
  double f = 0;
  int64_t i = 0;
  bool is_float = v->kind == AST_FLOAT;
  if (is_float) f = neg ? -v->fval : v->fval;
  else if (v->kind == AST_INT) i = neg ? -v->ival : v->ival;
  else i = v->kind == AST_TRUE;
  put_value(data + (*k) * (int64_t)dt_bytes(t), t, f, i, is_float);
  (*k)++;
}

static RxExpr *elab_const(ElabCtx *c, const Ast *call) {
  static const char *const kws[] = {"value", "dtype", NULL};
  if (!elab_check_kwargs(c, call, kws)) return NULL;
  const Ast *val = elab_posarg(call, 0), *dt = elab_posarg(call, 1);
  if (!val) val = elab_kwarg(call, "value");
  if (!dt) dt = elab_kwarg(call, "dtype");
  if (!val) {
    diag_error(c->diag, call->span, "R.const needs a value");
    return NULL;
  }
  ConstScan cs;
  memset(&cs, 0, sizeof cs);
  cs.ndim = -1;
  cs.all_bool = true;
  for (int i = 0; i < 16; i++) cs.shape[i] = -1;
  if (!const_scan(c, val, 0, &cs)) return NULL;
  if (cs.ndim < 0) cs.ndim = 0;
  DType t = cs.count == 0 ? dt_float32 : cs.any_float ? dt_float32 : cs.all_bool ? dt_bool : dt_int32;
  if (dt && !elab_dtype_arg(c, dt, &t)) return NULL;
  if (dt_is_void(t) || dt_is_handle(t) || t.lanes != 1) {
    diag_error(c->diag, dt->span, "R.const: '%s' is not a tensor element dtype", dtype_text(c, t));
    return NULL;
  }
  uint8_t *data = arena_alloc(&c->scratch, (size_t)(cs.count + 1) * dt_bytes(t));
  int64_t k = 0;
  const_fill(val, t, data, &k);
  return set_span(rx_const(c->h, t, cs.shape, cs.ndim, data), call->span);
}

/* --- R.shape / R.prim_value */

static RxExpr *elab_shape_literal(ElabCtx *c, const Ast *call) {
  const Ast *v = elab_posarg(call, 0);
  if (!v || elab_num_posargs(call) != 1 || (v->kind != AST_LIST && v->kind != AST_TUPLE)) {
    diag_error(c->diag, call->span, "R.shape expects one list of dimensions: R.shape([m, n])");
    return NULL;
  }
  TirExpr **dims;
  int n;
  if (!elab_dims(c, v, &dims, &n)) return NULL;
  return set_span(rx_shape_expr(c->h, dims, n), call->span);
}

static RxExpr *elab_prim_value(ElabCtx *c, const Ast *call) {
  const Ast *v = elab_posarg(call, 0);
  if (!v || elab_num_posargs(call) != 1) {
    diag_error(c->diag, call->span, "R.prim_value expects one value");
    return NULL;
  }
  TirExpr *e;
  if (v->kind == AST_INT) e = i64(c, v->ival);
  else if (v->kind == AST_FLOAT) e = tir_float(c->h, dt_float32, v->fval);
  else if (v->kind == AST_TRUE || v->kind == AST_FALSE) e = tir_bool(c->h, v->kind == AST_TRUE);
  else e = elab_tir_expr(c, v);
  if (!e) return NULL;
  return set_span(rx_prim_value(c->h, e), call->span);
}

/* --- operators */

/* Attributes written as keywords become an IrValue dict (strings, numbers, lists). */
static IrValue *kw_attrs(ElabCtx *c, const Ast *call) {
  IrValue *d = NULL;
  for (int i = 0; i < call->list.len; i++) {
    const Ast *kw = call->list.items[i];
    if (kw->kind != AST_KEYWORD) continue;
    IrValue *v = elab_tir_attr_value(c, kw->a);
    if (!v) return NULL;
    d = irv_dict_set(c->h, d, kw->name, v);
  }
  return d;
}

/* layout_transform's index_map: a lambda (or T.index_map(lambda ...)) kept
 * as its canonical text. */
static IrValue *index_map_attr(ElabCtx *c, const Ast *v) {
  if (v->kind == AST_CALL && v->list.len >= 1 && v->list.items[0]->kind == AST_LAMBDA) {
    const char *d = ast_dotted_name(&c->scratch, v->a);
    if (d && (!strcmp(d, "T.index_map") || !strcmp(d, "tvm.tir.IndexMap.from_func"))) v = v->list.items[0];
  }
  if (v->kind != AST_LAMBDA || !v->span.file) {
    diag_error(c->diag, v->span, "index_map must be a lambda, as lambda n, c, h, w: (n, c // 16, h, w, c %% 16)");
    return NULL;
  }
  char *text = xmalloc(v->span.len + 1);
  memcpy(text, v->span.file->text + v->span.off, v->span.len);
  text[v->span.len] = 0;
  RxIndexMap m;
  StrBuf err, out;
  sb_init(&err);
  sb_init(&out);
  IrValue *r = NULL;
  if (rx_index_map_parse(text, &m, &err)) {
    rx_index_map_print(&m, &out);
    r = irv_str(c->h, out.data);
  } else {
    diag_error(c->diag, v->span, "R.layout_transform: %s", err.data);
  }
  free(text);
  sb_free(&err);
  sb_free(&out);
  return r;
}

/* One attribute as written (a dtype is read as its text). */
static IrValue *written_attr(ElabCtx *c, const RxAttrSpec *sp, const Ast *v) {
  if (sp->kind == RX_ATTR_INDEX_MAP) return index_map_attr(c, v);
  if (sp->kind != RX_ATTR_DTYPE) return elab_tir_attr_value(c, v);
  DType t;
  if (!elab_dtype_arg(c, v, &t)) return NULL;
  return irv_str(c->h, dt_is_void(t) ? "void" : dtype_text(c, t));
}

/* The attributes of a call by op's schema: positional ones (already read into
 * given[]), then keywords, then defaults, each normalized (rx_attr_normalize)
 * and stored in schema order.  An open schema keeps every keyword as written.
 * False after an error. */
static bool schema_attrs(ElabCtx *c, const Ast *call, const RxOpInfo *op, IrValue **given,
                         const Span *given_span, IrValue **attrs) {
  const RxAttrSchema *sc = op->attrs;
  if (sc->open) {
    *attrs = kw_attrs(c, call);
    return true;
  }
  if (sc->check_keywords) {
    const char **kws = arena_alloc(&c->scratch, (size_t)(sc->n + 1) * sizeof *kws);
    for (int i = 0; i < sc->n; i++) kws[i] = sc->specs[i].name;
    kws[sc->n] = NULL;
    if (!elab_check_kwargs(c, call, kws)) return false;
  }
  for (int i = 0; i < sc->n; i++) {
    const RxAttrSpec *sp = &sc->specs[i];
    const Ast *kw = elab_kwarg(call, sp->name);
    IrValue *v = given[i];
    Span at = v ? given_span[i] : kw ? kw->span : call->span;
    if (kw && v) {
      diag_error(c->diag, kw->span, "R.%s got multiple values for attribute '%s'", op->script_name, sp->name);
      return false;
    }
    if (kw && !(v = written_attr(c, sp, kw))) return false;
    if (sp->default_text && sp->default_text[0] == '=' && (!v || v->kind == IRV_NONE)) {
      /* defaults to another attribute's value (out_layout = data_layout) */
      *attrs = irv_dict_set(c->h, *attrs, sp->name, (IrValue *)irv_dict_get(*attrs, sp->default_text + 1));
      continue;
    }
    StrBuf err;
    sb_init(&err);
    IrValue *nv = rx_attr_normalize(c->h, sp, v, &err);
    if (!nv) diag_error(c->diag, at, "R.%s: %s", op->script_name, err.data);
    sb_free(&err);
    if (!nv) return false;
    *attrs = irv_dict_set(c->h, *attrs, sp->name, nv);
  }
  return true;
}

/* The schema attribute written as positional argument i (its index in the
 * schema in *k), or NULL. */
static const RxAttrSpec *positional_attr(const RxOpInfo *op, int i, int *k) {
  for (*k = 0; *k < op->attrs->n; (*k)++)
    if (op->attrs->specs[*k].pos == i) return &op->attrs->specs[*k];
  return NULL;
}

/* A registry operator: arguments, attributes by its schema, then its INFER rule. */
static RxExpr *elab_op_call(ElabCtx *c, const Ast *call, const RxOpInfo *op) {
  const char *sname = op->script_name;
  int np = elab_num_posargs(call);
  if (np < op->min_args || np > op->max_args) {
    if (op->min_args == op->max_args)
      diag_error(c->diag, call->span, "R.%s takes %d argument%s but %d were given", sname,
                 op->min_args, op->min_args == 1 ? "" : "s", np);
    else
      diag_error(c->diag, call->span, "R.%s takes %d to %d arguments but %d were given", sname,
                 op->min_args, op->max_args, np);
    return NULL;
  }
  for (int i = 0; i < call->list.len; i++)
    if (call->list.items[i]->kind == AST_STARRED) {
      diag_error(c->diag, call->list.items[i]->span, "*arguments are not supported here");
      return NULL;
    }
  RxExpr **args = arena_alloc(&c->scratch, (size_t)(np + 1) * sizeof *args);
  RxSInfo **sis = arena_alloc(&c->scratch, (size_t)(np + 1) * sizeof *sis);
  Span *spans = arena_alloc(&c->scratch, (size_t)(np + 1) * sizeof *spans);
  IrValue *attrs = NULL;
  int nattr = op->attrs->n;
  IrValue **given = arena_alloc(&c->scratch, (size_t)(nattr + 1) * sizeof *given);
  Span *given_span = arena_alloc(&c->scratch, (size_t)(nattr + 1) * sizeof *given_span);
  memset(given, 0, (size_t)(nattr + 1) * sizeof *given);
  int nops = np; /* operands: the positional arguments before any attribute one */
  for (int i = 0; i < np; i++) {
    const Ast *ai = elab_posarg(call, i);
    spans[i] = ai->span;
    sis[i] = NULL;
    int k;
    const RxAttrSpec *pa = op->attrs->open ? NULL : positional_attr(op, i, &k);
    if (pa) {
      if (!(given[k] = written_attr(c, pa, ai))) return NULL;
      given_span[k] = ai->span;
      args[i] = NULL;
      if (i < nops) nops = i;
      continue;
    }
    const Ast *num = ai->kind == AST_UNARY && ai->op == OP_NEG ? ai->a : ai;
    const Ast *first = (ai->kind == AST_TUPLE || ai->kind == AST_LIST) && ai->list.len > 0 ? ai->list.items[0] : NULL;
    if (first && first->kind == AST_UNARY && first->op == OP_NEG) first = first->a; /* R.reshape(x, (-1, 4)) */
    if (first && first->kind == AST_NAME) { /* R.reshape(x, (n, 4)) with n a size var */
      Sym *fs = elab_lookup(c, first->name);
      if (!fs || fs->kind != SYM_TIR_VAR) first = NULL;
    }
    if (i > 0 && (num->kind == AST_INT || num->kind == AST_FLOAT)) {
      /* a number operand (R.clip(x, 0, 6)) is a PrimValue, as TVM's convert_to_expr */
      bool neg = num != ai;
      TirExpr *v = num->kind == AST_INT ? i64(c, neg ? -num->ival : num->ival)
                                        : tir_float(c->h, dt_float32, neg ? -num->fval : num->fval);
      args[i] = set_span(rx_prim_value(c->h, v), ai->span);
    } else if (first && (first->kind == AST_INT || first->kind == AST_NAME)) {
      /* a literal shape/axes argument (R.reshape(x, (2, 3)), R.zeros((2, 3), "float32"))
       * becomes a shape value */
      TirExpr **dims;
      int nd;
      if (!elab_dims(c, ai, &dims, &nd)) return NULL;
      args[i] = set_span(rx_shape_expr(c->h, dims, nd), ai->span);
    } else {
      args[i] = normalize(c, elab_expr(c, ai));
      if (!args[i]) return NULL;
    }
    sis[i] = args[i]->sinfo;
  }
  if (!schema_attrs(c, call, op, given, given_span, &attrs)) return NULL;
  RxInferCall q = {.h = c->h, .scratch = &c->scratch, .diag = c->diag, .op = op, .args = sis,
                   .arg_spans = spans, .n = nops, .attrs = attrs, .span = call->span};
  RxSInfo *res = op->infer(&q);
  if (!res) return NULL;
  res->span = call->span;
  /* as TVM's relax.op.reshape, a -1 in the new shape is stored resolved */
  if (op->id == RX_OP_RESHAPE && nops == 2 && args[1]->kind == RX_SHAPE_EXPR && res->shape)
    args[1] = set_span(rx_shape_expr(c->h, res->shape, res->ndim), args[1]->span);
  return set_span(rx_call(c->h, op, args, nops, attrs, NULL, 0, res), call->span);
}

/* --- call_tir / call_dps_packed */

/* Number of parameters of prim_func `name` (from the module if elaborated
 * already, else from its definition); -1 when unknown or not a prim_func. */
static int prim_func_arity(ElabCtx *c, const char *name, bool *is_relax) {
  *is_relax = false;
  const IrGlobal *g = ir_module_lookup(c->mod, name);
  if (g) {
    if (g->kind == IR_FUNC_RELAX) { *is_relax = true; return -1; }
    return g->tir->nparams;
  }
  const Ast *def = find_global(c, name);
  if (!def) return -1;
  for (int i = 0; i < def->decorators.len; i++) {
    const Ast *d = def->decorators.items[i];
    const char *cn = elab_canonical_name(c, d->kind == AST_CALL ? d->a : d);
    if (!cn) continue;
    if (!strcmp(cn, "R.function")) { *is_relax = true; return -1; }
    if (!strcmp(cn, "T.prim_func")) return def->list.len;
    if (!strcmp(cn, "te.prim_func")) {
      int outs = 1;
      for (int k = 0; k < def->body.len; k++) {
        const Ast *st = def->body.items[k];
        if (st->kind == AST_RETURN && st->a && st->a->kind == AST_TUPLE) outs = st->a->list.len;
      }
      return def->list.len + outs;
    }
  }
  return -1;
}

/* The callee of call_tir: cls.f, Module.f, a bare name (MLC 2022) or a string. */
static RxExpr *elab_callee(ElabCtx *c, const Ast *a, bool packed) {
  if (a->kind == AST_STR) return set_span(rx_extern_func(c->h, a->str), a->span);
  if (a->kind == AST_ATTR && names_module(c, a->a)) return elab_gvar_attr(c, a);
  if (a->kind == AST_NAME) {
    Sym *s = elab_lookup(c, a->name);
    if (s && s->kind == SYM_GLOBAL_FUNC) return set_span(rx_global_var(c->h, a->name), a->span);
    if (!s) {
      if (packed) return set_span(rx_extern_func(c->h, a->name), a->span);
      elab_undefined(c, a);
      return NULL;
    }
  }
  diag_error(c->diag, a->span, "expected a module function such as cls.f%s",
             packed ? " or a packed function name string" : "");
  return NULL;
}

/* out_sinfo: one R.Tensor, a list of them, or (legacy) a shape tuple + dtype=. */
static bool elab_out_sinfo(ElabCtx *c, const Ast *call, const Ast *o, RxSInfo ***outs, int *nouts,
                           bool *as_tuple) {
  *as_tuple = false;
  const Ast *legacy_dtype = elab_kwarg(call, "dtype");
  if (o->kind == AST_LIST || o->kind == AST_TUPLE) {
    bool all_sinfo = o->list.len > 0;
    for (int i = 0; i < o->list.len; i++)
      if (o->list.items[i]->kind != AST_CALL && o->list.items[i]->kind != AST_ATTR) all_sinfo = false;
    if (!all_sinfo) { /* MLC 2022: R.call_tir(f, args, (1, 128), dtype="float32") */
      TirExpr **dims;
      int n;
      if (!elab_dims(c, o, &dims, &n)) return false;
      DType t = dt_float32;
      if (legacy_dtype && !elab_dtype_arg(c, legacy_dtype, &t)) return false;
      *outs = arena_alloc(&c->scratch, sizeof **outs);
      (*outs)[0] = rx_sinfo_tensor(c->h, dims, n, t);
      (*outs)[0]->span = o->span;
      *nouts = 1;
      return true;
    }
    *as_tuple = true;
    *nouts = o->list.len;
    *outs = arena_alloc(&c->scratch, (size_t)(*nouts + 1) * sizeof **outs);
    for (int i = 0; i < *nouts; i++) {
      (*outs)[i] = elab_sinfo(c, o->list.items[i]);
      if (!(*outs)[i]) return false;
    }
  } else {
    RxSInfo *s = elab_sinfo(c, o);
    if (!s) return false;
    if (s->kind == RX_SI_TUPLE) {
      *as_tuple = true;
      *nouts = s->nfields;
      *outs = s->fields;
    } else {
      *nouts = 1;
      *outs = arena_alloc(&c->scratch, sizeof **outs);
      (*outs)[0] = s;
    }
  }
  for (int i = 0; i < *nouts; i++)
    if ((*outs)[i]->kind != RX_SI_TENSOR) {
      diag_error(c->diag, (*outs)[i]->span, "out_sinfo must describe tensors, got %s",
                 sinfo_text(c, (*outs)[i]));
      return false;
    }
  if (legacy_dtype && !(o->kind == AST_LIST || o->kind == AST_TUPLE)) {
    diag_error(c->diag, legacy_dtype->span, "dtype= goes with the legacy shape-tuple form only");
    return false;
  }
  return true;
}

static RxExpr *elab_call_tir(ElabCtx *c, const Ast *call, bool packed) {
  const char *opname = packed ? "call_dps_packed" : "call_tir";
  static const char *const kws_tir[] = {"out_sinfo", "tir_vars", "dtype", NULL};
  static const char *const kws_packed[] = {"out_sinfo", "dtype", NULL};
  if (!elab_check_kwargs(c, call, packed ? kws_packed : kws_tir)) return NULL;
  int np = elab_num_posargs(call);
  const Ast *fa = elab_posarg(call, 0), *aa = elab_posarg(call, 1), *oa = elab_posarg(call, 2),
            *ta = elab_posarg(call, 3);
  const Ast *okw = elab_kwarg(call, "out_sinfo"), *tkw = elab_kwarg(call, "tir_vars");
  if (np > (packed ? 3 : 4) || (oa && okw) || (ta && tkw)) {
    diag_error(c->diag, call->span, "R.%s(func, args, out_sinfo%s) called with extra arguments",
               opname, packed ? "" : ", tir_vars");
    return NULL;
  }
  if (!oa) oa = okw;
  if (!ta) ta = tkw;
  if (!fa || !aa || !oa) {
    diag_error(c->diag, call->span, "R.%s needs a function, the arguments and out_sinfo", opname);
    return NULL;
  }
  RxExpr *callee = elab_callee(c, fa, packed);
  if (!callee) return NULL;
  /* arguments: a tuple/list, or one expression */
  RxExpr *args;
  int nin;
  if (aa->kind == AST_TUPLE || aa->kind == AST_LIST) {
    nin = aa->list.len;
    RxExpr **fs = arena_alloc(&c->scratch, (size_t)(nin + 1) * sizeof *fs);
    for (int i = 0; i < nin; i++) {
      fs[i] = normalize(c, elab_expr(c, aa->list.items[i]));
      if (!fs[i]) return NULL;
    }
    args = set_span(rx_tuple(c->h, fs, nin), aa->span);
  } else {
    RxExpr *e = normalize(c, elab_expr(c, aa));
    if (!e) return NULL;
    if (e->sinfo->kind == RX_SI_TUPLE) {
      args = e;
      nin = e->sinfo->nfields;
    } else {
      args = set_span(rx_tuple(c->h, &e, 1), aa->span);
      nin = 1;
    }
  }
  RxSInfo **outs;
  int nouts;
  bool as_tuple;
  if (!elab_out_sinfo(c, call, oa, &outs, &nouts, &as_tuple)) return NULL;
  RxExpr *tv = NULL;
  if (ta) {
    tv = normalize(c, elab_expr(c, ta));
    if (!tv) return NULL;
    if (tv->kind != RX_SHAPE_EXPR) {
      diag_error(c->diag, ta->span, "tir_vars expects R.shape([...])");
      return NULL;
    }
  }
  if (!packed && callee->kind == RX_GLOBAL_VAR) {
    bool is_relax;
    int arity = prim_func_arity(c, callee->gvar.name, &is_relax);
    if (is_relax) {
      diag_error(c->diag, fa->span, "R.call_tir expects a prim_func, but '%s' is an R.function",
                 callee->gvar.name);
      return NULL;
    }
    int ntv = tv ? tv->shape.n : 0;
    int passed = nin + nouts + ntv;
    if (arity >= 0 && arity != passed) {
      diag_error(c->diag, call->span,
                 "call_tir to '%s' passes %d tensors but the prim_func takes %d parameters "
                 "(%d input%s + %d output%s%s)",
                 callee->gvar.name, passed, arity, nin, nin == 1 ? "" : "s", nouts,
                 nouts == 1 ? "" : "s", ntv ? " + tir_vars" : "");
      return NULL;
    }
  }
  RxExpr *cargs[3] = {callee, args, tv};
  const RxOpInfo *op = rx_op_info(packed ? RX_OP_CALL_DPS_PACKED : RX_OP_CALL_TIR);
  RxInferCall q = {.h = c->h, .scratch = &c->scratch, .diag = c->diag, .op = op, .sinfo_args = outs,
                   .nsinfo_args = nouts, .out_tuple = as_tuple, .span = call->span};
  RxSInfo *res = op->infer(&q);
  return set_span(rx_call(c->h, op, cargs, tv ? 3 : 2, NULL, outs, nouts, res), call->span);
}

/* `cls.f(x, w)`: a call of the module's R.function f (how FuseOps' Primitive
 * functions are called).  Its struct info is the binding's annotation, which
 * the printer always writes, else f's declared return struct info. */
static RxExpr *elab_func_call(ElabCtx *c, const Ast *a) {
  const char *name = a->a->name;
  const Ast *def = find_global(c, name);
  bool is_relax;
  prim_func_arity(c, name, &is_relax);
  if (!def || !is_relax) {
    diag_error(c->diag, a->span, def ? "'%s' is a prim_func: call it through R.call_tir" : "module has no function '%s'",
               name);
    return NULL;
  }
  static const char *const no_kws[] = {NULL};
  if (!elab_check_kwargs(c, a, no_kws)) return NULL;
  RxSInfo *si = ST(c)->binding_value == a ? ST(c)->binding_ann : NULL;
  if (!si && def->b && !(si = elab_sinfo(c, def->b))) return NULL;
  if (!si) {
    diag_error(c->diag, a->span, "annotate the binding of a call of '%s' (it declares no return struct info)", name);
    return NULL;
  }
  int n = elab_num_posargs(a);
  RxExpr **args = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *args);
  for (int i = 0; i < n; i++)
    if (!(args[i] = normalize(c, elab_expr(c, elab_posarg(a, i))))) return NULL;
  RxExpr *callee = set_span(rx_global_var(c->h, name), a->a->span);
  return set_span(rx_call_func(c->h, callee, args, n, si), a->span);
}

static RxExpr *elab_call(ElabCtx *c, const Ast *a) {
  const char *cn = elab_canonical_name(c, a->a);
  if (!cn) {
    if (a->a->kind == AST_ATTR && names_module(c, a->a->a)) return elab_func_call(c, a);
    diag_error(c->diag, a->a->span, "expected an R.* operator call");
    return NULL;
  }
  if (!strcmp(cn, "R.call_tir")) return elab_call_tir(c, a, false);
  if (!strcmp(cn, "R.call_dps_packed")) return elab_call_tir(c, a, true);
  if (!strcmp(cn, "R.const")) return elab_const(c, a);
  if (!strcmp(cn, "R.shape")) return elab_shape_literal(c, a);
  if (!strcmp(cn, "R.prim_value")) return elab_prim_value(c, a);
  if (!strcmp(cn, "R.str")) {
    const Ast *s = elab_posarg(a, 0);
    if (!s || s->kind != AST_STR) {
      diag_error(c->diag, a->span, "R.str expects a string literal");
      return NULL;
    }
    return mk_string(c, s->str, a->span);
  }
  if (!strcmp(cn, "R.match_cast")) {
    diag_error(c->diag, a->span, "R.match_cast must be the whole value of a binding: v = R.match_cast(x, S)");
    return NULL;
  }
  const RxOpInfo *op = !strncmp(cn, "R.", 2) ? rx_op_lookup(cn + 2) : NULL;
  if (op) {
    if (op->id == RX_OP_CALL_TIR_INPLACE || op->id == RX_OP_CALL_PACKED || op->id == RX_OP_CALL_PURE_PACKED) {
      diag_error(c->diag, a->span, "%s is not supported yet", cn);
      return NULL;
    }
    return elab_op_call(c, a, op);
  }
  const char *sug = builtin_suggest(cn);
  if (sug) diag_error(c->diag, a->a->span, "unknown operator '%s'; did you mean '%s'?", cn, sug);
  else diag_error(c->diag, a->a->span, "unknown operator '%s'", cn);
  return NULL;
}

static RxExpr *elab_expr(ElabCtx *c, const Ast *a) {
  if (!a) return NULL;
  switch (a->kind) {
  case AST_NAME: return elab_name(c, a);
  case AST_ATTR:
    if (names_module(c, a->a)) return elab_gvar_attr(c, a);
    diag_error(c->diag, a->span, "expected a Relax value");
    return NULL;
  case AST_CALL: return elab_call(c, a);
  case AST_TUPLE: {
    RxExpr **fs = arena_alloc(&c->scratch, (size_t)(a->list.len + 1) * sizeof *fs);
    for (int i = 0; i < a->list.len; i++) {
      fs[i] = normalize(c, elab_expr(c, a->list.items[i]));
      if (!fs[i]) return NULL;
    }
    return set_span(rx_tuple(c->h, fs, a->list.len), a->span);
  }
  case AST_SUBSCRIPT: {
    RxExpr *t = normalize(c, elab_expr(c, a->a));
    if (!t) return NULL;
    const Ast *ix = a->b;
    if (!ix || ix->kind != AST_INT) {
      diag_error(c->diag, ix ? ix->span : a->span, "a tuple index must be an integer literal");
      return NULL;
    }
    if (t->sinfo->kind != RX_SI_TUPLE && t->sinfo->kind != RX_SI_OBJECT) {
      diag_error(c->diag, a->a->span, "only tuples can be indexed; this value is %s",
                 sinfo_text(c, t->sinfo));
      return NULL;
    }
    if (t->sinfo->kind == RX_SI_TUPLE && (ix->ival < 0 || ix->ival >= t->sinfo->nfields)) {
      diag_error(c->diag, ix->span, "tuple index %lld is out of range for a tuple of %d field%s",
                 (long long)ix->ival, t->sinfo->nfields, t->sinfo->nfields == 1 ? "" : "s");
      return NULL;
    }
    return set_span(rx_tuple_get(c->h, t, (int)ix->ival), a->span);
  }
  case AST_STR: return mk_string(c, a->str, a->span);
  case AST_ERROR: return NULL;
  default:
    diag_error(c->diag, a->span, "expected a Relax expression (a variable, a call or a tuple)");
    return NULL;
  }
}

/* ------------------------------------------------------------- statements */

static bool elab_body(ElabCtx *c, const AstList *body, int from, int to, RxExpr **ret, const Ast **ret_st);

/* `n = T.int64()` / `m, n = T.int64(), T.int64()`: size var declarations. */
static bool is_size_decl_call(ElabCtx *c, const Ast *v, DType *t) {
  if (!v || v->kind != AST_CALL || v->list.len != 0) return false;
  const char *cn = elab_canonical_name(c, v->a);
  if (!cn) return false;
  if (!strcmp(cn, "T.int64")) { *t = dt_int64; return true; }
  if (!strcmp(cn, "T.int32")) { *t = dt_int32; return true; }
  return false;
}

static bool try_size_decl(ElabCtx *c, const Ast *st) {
  const Ast *tgt = st->list.len == 1 ? st->list.items[0] : NULL;
  const Ast *v = st->a;
  DType t;
  if (!tgt || !v) return false;
  if (tgt->kind == AST_NAME && is_size_decl_call(c, v, &t)) {
    declare_sym(c, tgt->name, t, tgt->span, true);
    return true;
  }
  if (tgt->kind == AST_TUPLE && v->kind == AST_TUPLE && tgt->list.len == v->list.len) {
    for (int i = 0; i < v->list.len; i++)
      if (tgt->list.items[i]->kind != AST_NAME || !is_size_decl_call(c, v->list.items[i], &t)) return false;
    for (int i = 0; i < v->list.len; i++) {
      is_size_decl_call(c, v->list.items[i], &t);
      declare_sym(c, tgt->list.items[i]->name, t, tgt->list.items[i]->span, true);
    }
    return true;
  }
  return false;
}

/* Is `name` listed in the dataflow block's R.output(...)? */
static bool is_output(const Ast *outputs, const char *name) {
  if (!outputs) return false;
  for (int i = 0; i < outputs->list.len; i++) {
    const Ast *o = outputs->list.items[i];
    if (o->kind == AST_NAME && !strcmp(o->name, name)) return true;
  }
  return false;
}

/* `name [: annotation] = value` */
static bool elab_binding(ElabCtx *c, const Ast *st, const Ast *outputs) {
  if (try_size_decl(c, st)) return true;
  if (st->list.len != 1 || st->list.items[0]->kind != AST_NAME) {
    diag_error(c->diag, st->span, "a Relax binding assigns one variable: name = value");
    return false;
  }
  const Ast *tgt = st->list.items[0];
  if (!st->a) {
    diag_error(c->diag, st->span, "a binding needs a value");
    return false;
  }
  RxSInfo *ann = NULL;
  if (st->b && !(ann = elab_sinfo(c, st->b))) return false;
  const Ast *v = st->a;
  RxSInfo *cast_to = NULL;
  RxExpr *value;
  const char *cn = v->kind == AST_CALL ? elab_canonical_name(c, v->a) : NULL;
  if (cn && !strcmp(cn, "R.match_cast")) {
    if (elab_num_posargs(v) != 2 || v->list.len != 2) {
      diag_error(c->diag, v->span, "R.match_cast(value, struct_info) takes two arguments");
      return false;
    }
    value = normalize(c, elab_expr(c, elab_posarg(v, 0)));
    if (!value) return false;
    cast_to = elab_sinfo(c, elab_posarg(v, 1));
    if (!cast_to) return false;
    if (!sinfo_compatible(cast_to, value->sinfo)) {
      diag_error(c->diag, v->span, "R.match_cast: %s can never match a value of %s",
                 sinfo_text(c, cast_to), sinfo_text(c, value->sinfo));
      return false;
    }
  } else {
    ST(c)->binding_value = v, ST(c)->binding_ann = ann;
    value = elab_expr(c, v);
    ST(c)->binding_value = NULL, ST(c)->binding_ann = NULL;
    if (!value) return false;
  }
  RxSInfo *si = cast_to ? cast_to : value->sinfo;
  if (ann) {
    if (!sinfo_compatible(ann, si)) {
      diag_error(c->diag, st->b->span, "annotation %s does not match the value's struct info %s",
                 sinfo_text(c, ann), sinfo_text(c, si));
      return false;
    }
    si = ann;
  }
  RxState *rs = ST(c);
  bool df = rs->in_dataflow && !is_output(outputs, tgt->name);
  RxExpr *var = rx_var(c->h, tgt->name, si, df);
  var->span = tgt->span;
  emit(c, var, value, cast_to, st->span);
  elab_define(c, tgt->name, SYM_RX_VAR, var, tgt->span);
  return true;
}

/* with R.dataflow(): bindings; R.output(a, b) */
static bool elab_dataflow(ElabCtx *c, const Ast *st) {
  RxState *rs = ST(c);
  if (rs->in_dataflow) {
    diag_error(c->diag, st->span, "dataflow blocks cannot be nested");
    return false;
  }
  const Ast *outputs = NULL;
  int nbody = st->body.len;
  for (int i = 0; i < st->body.len; i++) {
    const Ast *s = st->body.items[i];
    if (s->kind == AST_EXPR_STMT && s->a->kind == AST_CALL) {
      const char *cn = elab_canonical_name(c, s->a->a);
      if (cn && !strcmp(cn, "R.output")) {
        if (outputs) {
          diag_error(c->diag, s->span, "a dataflow block has one R.output(...)");
          return false;
        }
        if (i != st->body.len - 1) {
          diag_error(c->diag, s->span, "R.output(...) must be the last statement of the dataflow block");
          return false;
        }
        outputs = s->a;
        nbody = i;
        for (int k = 0; k < outputs->list.len; k++)
          if (outputs->list.items[k]->kind != AST_NAME) {
            diag_error(c->diag, outputs->list.items[k]->span, "R.output lists variable names");
            return false;
          }
      }
    }
  }
  Frame *f = rs->frame;
  frame_flush(c, f);
  f->cur_df = true;
  rs->in_dataflow = true;
  elab_push_scope(c);
  Scope *df_scope = c->scope;
  bool ok = true;
  for (int i = 0; i < nbody && ok; i++) {
    const Ast *s = st->body.items[i];
    if (s->kind == AST_ASSIGN) ok = elab_binding(c, s, outputs);
    else if (s->kind == AST_PASS || s->kind == AST_ERROR) continue;
    else if (s->kind == AST_EXPR_STMT && s->a->kind == AST_STR) continue;
    else {
      diag_error(c->diag, s->span, "only bindings (name = value) and R.output(...) may appear in a "
                                   "dataflow block");
      ok = false;
    }
  }
  /* outputs must be bound in the block */
  RxExpr **outs = arena_alloc(&c->scratch, (size_t)((outputs ? outputs->list.len : 0) + 1) * sizeof *outs);
  int nouts = 0;
  if (ok && outputs)
    for (int k = 0; k < outputs->list.len; k++) {
      const Ast *o = outputs->list.items[k];
      RxExpr *found = NULL;
      for (int i = df_scope->n - 1; i >= 0; i--)
        if (df_scope->syms[i].kind == SYM_RX_VAR && !strcmp(df_scope->syms[i].name, o->name)) {
          found = df_scope->syms[i].ptr;
          break;
        }
      if (!found) {
        diag_error(c->diag, o->span, "R.output: '%s' is not bound in this dataflow block", o->name);
        ok = false;
        break;
      }
      outs[nouts++] = found;
    }
  /* names local to the block become "expired" */
  for (int i = 0; i < df_scope->n; i++) {
    const Sym *s = &df_scope->syms[i];
    if (s->kind != SYM_RX_VAR || is_output(outputs, s->name)) continue;
    rs->expired = elab_grow(c, rs->expired, rs->nexpired, &rs->capexpired, sizeof *rs->expired);
    rs->expired[rs->nexpired++] = s->name;
  }
  elab_pop_scope(c);
  for (int k = 0; k < nouts; k++) elab_define(c, outputs->list.items[k]->name, SYM_RX_VAR, outs[k], outputs->list.items[k]->span);
  rs->in_dataflow = false;
  frame_flush(c, f);
  f->cur_df = false;
  return ok;
}

/* Struct info of an if whose branches give a and b. */
static RxSInfo *sinfo_join(ElabCtx *c, RxSInfo *a, RxSInfo *b) {
  if (a->kind != b->kind) return rx_sinfo_object(c->h);
  if (a->kind == RX_SI_TENSOR) {
    DType t = dt_eq(a->dtype, b->dtype) ? a->dtype : dt_void;
    if (a->ndim != b->ndim) return rx_sinfo_tensor(c->h, NULL, -1, t);
    bool same = a->shape && b->shape;
    for (int i = 0; same && i < a->ndim; i++)
      if (!rx_dim_eq(a->shape[i], b->shape[i])) same = false;
    return rx_sinfo_tensor(c->h, same ? a->shape : NULL, a->ndim, t);
  }
  if (a->kind == RX_SI_TUPLE && a->nfields == b->nfields) {
    RxSInfo **fs = arena_alloc(&c->scratch, (size_t)(a->nfields + 1) * sizeof *fs);
    for (int i = 0; i < a->nfields; i++) fs[i] = sinfo_join(c, a->fields[i], b->fields[i]);
    return rx_sinfo_tuple(c->h, fs, a->nfields);
  }
  return a->kind == RX_SI_TUPLE ? rx_sinfo_object(c->h) : a;
}

/* One branch: its statements become a SeqExpr whose result is the var bound
 * last (its name is returned in *name). */
static RxExpr *elab_branch(ElabCtx *c, const AstList *body, const Ast *where, const char **name) {
  RxState *rs = ST(c);
  Frame fr = {0};
  Frame *saved = rs->frame;
  rs->frame = &fr;
  elab_push_scope(c);
  const Ast *last = body->len ? body->items[body->len - 1] : NULL;
  bool ok = elab_body(c, body, 0, body->len, NULL, NULL);
  RxExpr *result = NULL;
  if (ok) {
    if (!last || last->kind != AST_ASSIGN || last->list.len != 1 || last->list.items[0]->kind != AST_NAME) {
      diag_error(c->diag, last ? last->span : where->span,
                 "each branch of an if must end with a binding of the result variable");
      ok = false;
    } else {
      *name = last->list.items[0]->name;
      Sym *s = elab_lookup(c, *name);
      result = s ? s->ptr : NULL;
    }
  }
  elab_pop_scope(c);
  frame_flush(c, &fr);
  rs->frame = saved;
  if (!ok || !result) return NULL;
  return rx_seq(c->h, fr.blocks, fr.nblocks, result);
}

static bool elab_if(ElabCtx *c, const Ast *st) {
  RxState *rs = ST(c);
  if (rs->in_dataflow) {
    diag_error(c->diag, st->span, "if/else is not allowed inside a dataflow block");
    return false;
  }
  RxExpr *cond = normalize(c, elab_expr(c, st->a));
  if (!cond) return false;
  const RxSInfo *cs = cond->sinfo;
  if (!((cs->kind == RX_SI_TENSOR && (cs->ndim == 0 || cs->ndim < 0)) || cs->kind == RX_SI_PRIM ||
        cs->kind == RX_SI_OBJECT)) {
    diag_error(c->diag, st->a->span, "the condition of an if must be a scalar tensor, got %s",
               sinfo_text(c, cs));
    return false;
  }
  if (st->orelse.len == 0) {
    diag_error(c->diag, st->span, "an if in an R.function needs an else branch binding the same variable");
    return false;
  }
  const char *n1 = NULL, *n2 = NULL;
  RxExpr *t = elab_branch(c, &st->body, st, &n1);
  if (!t) return false;
  RxExpr *e = elab_branch(c, &st->orelse, st, &n2);
  if (!e) return false;
  if (strcmp(n1, n2) != 0) {
    diag_error(c->diag, st->span, "both branches of the if must bind the same variable ('%s' vs '%s')", n1, n2);
    return false;
  }
  RxExpr *ife = ir_alloc(c->h, sizeof *ife);
  ife->kind = RX_IF;
  ife->ifs.cond = cond;
  ife->ifs.then_e = t;
  ife->ifs.else_e = e;
  ife->sinfo = sinfo_join(c, t->sinfo, e->sinfo);
  ife->span = st->span;
  RxExpr *var = rx_var(c->h, n1, ife->sinfo, false);
  var->span = st->span;
  emit(c, var, ife, NULL, st->span);
  elab_define(c, n1, SYM_RX_VAR, var, st->span);
  return true;
}

/* Statements [from, to) of a body; a `return` sets *ret (only allowed when
 * ret is non-NULL, and only as the last statement). */
static bool elab_body(ElabCtx *c, const AstList *body, int from, int to, RxExpr **ret, const Ast **ret_st) {
  bool ok = true;
  for (int i = from; i < to; i++) {
    const Ast *st = body->items[i];
    switch (st->kind) {
    case AST_ASSIGN:
      if (st->list.len == 1 && st->list.items[0]->kind == AST_NAME && !st->b && names_module(c, st->a)) {
        elab_define(c, st->list.items[0]->name, SYM_MODULE, NULL, st->span); /* cls = Module */
        break;
      }
      if (!elab_binding(c, st, NULL)) ok = false;
      break;
    case AST_WITH: {
      const Ast *item = st->list.len == 1 ? st->list.items[0] : NULL;
      const Ast *ce = item ? item->a : NULL;
      const char *cn = ce && ce->kind == AST_CALL ? elab_canonical_name(c, ce->a) : NULL;
      if (!cn || strcmp(cn, "R.dataflow") != 0 || item->b) {
        diag_error(c->diag, st->span, "only `with R.dataflow():` is supported in an R.function");
        ok = false;
        break;
      }
      if (!elab_dataflow(c, st)) ok = false;
      break;
    }
    case AST_IF:
      if (!elab_if(c, st)) ok = false;
      break;
    case AST_RETURN:
      if (!ret) {
        diag_error(c->diag, st->span, "return is only allowed at the end of the function body");
        return false;
      }
      if (i != to - 1) {
        diag_error(c->diag, st->span, "return must be the last statement of the function");
        return false;
      }
      if (!st->a) {
        diag_error(c->diag, st->span, "an R.function must return a value");
        return false;
      }
      *ret = normalize(c, elab_expr(c, st->a));
      *ret_st = st;
      if (!*ret) return false;
      break;
    case AST_EXPR_STMT: {
      const Ast *e = st->a;
      if (e->kind == AST_STR) break; /* docstring */
      const char *cn = e->kind == AST_CALL ? elab_canonical_name(c, e->a) : NULL;
      if (cn && !strcmp(cn, "R.func_attr")) {
        diag_error(c->diag, st->span, "R.func_attr must be the first statement of the function");
        ok = false;
        break;
      }
      if (cn && !strcmp(cn, "R.output")) {
        diag_error(c->diag, st->span, "R.output(...) belongs at the end of a `with R.dataflow():` block");
        ok = false;
        break;
      }
      RxExpr *v = elab_expr(c, e);
      if (!v) { ok = false; break; }
      RxExpr *var = rx_var(c->h, "_", v->sinfo, ST(c)->in_dataflow);
      emit(c, var, v, NULL, st->span);
      break;
    }
    case AST_PASS:
    case AST_ERROR:
      break;
    default:
      diag_error(c->diag, st->span, "unsupported statement in an R.function");
      ok = false;
      break;
    }
    if (!ok) return false;
  }
  return ok;
}

/* ------------------------------------------------------------- functions */

RxFunc *elab_relax_func(ElabCtx *c, const Ast *def, bool is_private, bool is_pure) {
  RxState st;
  memset(&st, 0, sizeof st);
  void *saved_rx = c->rx;
  c->rx = &st;
  st.fname = def->name;
  elab_push_scope(c);
  st.fn_scope = c->scope;
  Frame fr = {0};
  st.frame = &fr;
  int nerr0 = c->diag->nerr;
  RxFunc *f = NULL;

  /* parameters */
  int np = def->list.len;
  RxExpr **params = arena_alloc(&c->scratch, (size_t)(np + 1) * sizeof *params);
  bool ok = true;
  for (int i = 0; i < np; i++) {
    const Ast *p = def->list.items[i];
    if (!p->a) {
      diag_error(c->diag, p->span, "parameter '%s' needs a struct info annotation such as "
                                   "R.Tensor((16,), \"float32\")", p->name);
      ok = false;
      continue;
    }
    if (p->b) {
      diag_error(c->diag, p->b->span, "R.function parameters cannot have default values");
      ok = false;
      continue;
    }
    RxSInfo *si = elab_sinfo(c, p->a);
    if (!si) { ok = false; continue; }
    params[i] = rx_var(c->h, p->name, si, false);
    params[i]->span = p->span;
    elab_define(c, p->name, SYM_RX_VAR, params[i], p->span);
  }
  RxSInfo *ret_si = NULL;
  if (ok && def->b && !(ret_si = elab_sinfo(c, def->b))) ok = false;

  /* body: optional R.func_attr first */
  IrValue *attrs = NULL;
  int from = 0;
  const AstList *body = &def->body;
  while (from < body->len && body->items[from]->kind == AST_EXPR_STMT && body->items[from]->a->kind == AST_STR)
    from++;
  if (ok && from < body->len && body->items[from]->kind == AST_EXPR_STMT &&
      body->items[from]->a->kind == AST_CALL) {
    const Ast *call = body->items[from]->a;
    const char *cn = elab_canonical_name(c, call->a);
    if (cn && !strcmp(cn, "R.func_attr")) {
      const Ast *d = elab_posarg(call, 0);
      if (!d || d->kind != AST_DICT || call->list.len != 1) {
        diag_error(c->diag, call->span, "R.func_attr expects one dict: R.func_attr({\"num_input\": 1})");
        ok = false;
      } else {
        attrs = elab_tir_attr_value(c, d);
        if (!attrs) ok = false;
      }
      from++;
    }
  }
  RxExpr *ret = NULL;
  const Ast *ret_st = NULL;
  if (ok) ok = elab_body(c, body, from, body->len, &ret, &ret_st);
  if (ok && !ret) {
    diag_error(c->diag, body->len ? body->items[body->len - 1]->span : def->span,
               "R.function '%s' must end with a return statement", def->name);
    ok = false;
  }
  if (ok && ret_si && !sinfo_compatible(ret_si, ret->sinfo)) {
    diag_error(c->diag, ret_st->span, "function '%s' returns %s but its return annotation is %s",
               def->name, sinfo_text(c, ret->sinfo), sinfo_text(c, ret_si));
    ok = false;
  }
  if (ok && c->diag->nerr == nerr0) {
    frame_flush(c, &fr);
    RxExpr *seq = rx_seq(c->h, fr.blocks, fr.nblocks, ret);
    seq->span = def->span;
    f = ir_alloc(c->h, sizeof *f);
    f->params = np ? ir_memdup(c->h, params, (size_t)np * sizeof *params) : NULL;
    f->nparams = np;
    f->ret_sinfo = ret_si;
    f->body = seq;
    if (!is_private) attrs = irv_dict_set(c->h, attrs, "global_symbol", irv_str(c->h, def->name));
    f->attrs = attrs;
    f->is_pure = is_pure;
    f->sym_vars = st.nsyms ? ir_memdup(c->h, st.syms, (size_t)st.nsyms * sizeof *st.syms) : NULL;
    f->nsym_vars = st.nsyms;
    f->span = def->span;
  }
  elab_pop_scope(c);
  c->rx = saved_rx;
  return f;
}
