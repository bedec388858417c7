/* interp_relax.c - the reference interpreter for graph (Relax) functions.
 *
 * Runs a function's bindings in order: call_tir allocates the outputs from
 * out_sinfo (symbolic dims evaluated with the size vars bound from the params)
 * and runs the prim_func in destination-passing style; R.add/subtract/
 * multiply/divide (numpy broadcasting) and R.nn.relu have built-in reference
 * implementations here (the families' in interp_relax_<family>.c) so graphs run before legalization.  A
 * call runs its operator's EVAL column (ir/relax_ops.def); NULL there means the
 * interpreter does not support it. */
#include "ir/interp_internal.h"
#include "ir/relax_op.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

typedef enum RValKind { RV_TENSOR, RV_TUPLE, RV_SHAPE, RV_PRIM } RValKind;

/* A reference-counted Relax value. */
typedef struct RxInterpVal {
  int refs;              /* reference count */
  RValKind kind;         /* which fields are used */
  TvsNDArray *arr;       /* TENSOR owned by this value, or NULL when borrowed */
  DLTensor *t;           /* TENSOR: &arr->t or a caller's tensor */
  struct RxInterpVal **fields;  /* TUPLE fields (each one reference) */
  int n;                 /* TUPLE field count / SHAPE rank */
  int64_t *shape;        /* SHAPE values */
  DType pt;              /* PRIM dtype */
  IScalar pv;            /* PRIM value */
} RVal;

typedef struct RxEnv {
  const RxExpr *var;  /* bound variable */
  RVal *val;          /* one reference */
} RxEnv;

typedef struct RxInterpCtx {
  Interp tin;          /* size-var bindings, TIR evaluation and error reporting */
  RxEnv *env;          /* bindings in order */
  int nenv, capenv;
  InterpTirRunner runner; /* runs call_tir's prim_func; NULL = the interpreter */
  void *runner_ctx;
} RxCtx;

static RVal *rv_new(RValKind k) {
  RVal *v = xcalloc(1, sizeof *v);
  v->refs = 1;
  v->kind = k;
  return v;
}

static RVal *rv_retain(RVal *v) {
  v->refs++;
  return v;
}

static void rv_release(RVal *v) {
  if (!v || --v->refs > 0) return;
  tvs_ndarray_free(v->arr);
  for (int i = 0; i < v->n && v->kind == RV_TUPLE; i++) rv_release(v->fields[i]);
  free(v->fields);
  free(v->shape);
  free(v);
}

static RVal *rv_tensor(TvsNDArray *a) {
  RVal *v = rv_new(RV_TENSOR);
  v->arr = a;
  v->t = &a->t;
  return v;
}

static int rx_err(RxCtx *c, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rx_err(RxCtx *c, Span sp, const char *fmt, ...) {
  if (!sp.file) sp = c->tin.span.file ? c->tin.span : c->tin.fspan;
  va_list ap;
  va_start(ap, fmt);
  diag_report(c->tin.diag, DIAG_ERROR, sp, fmt, ap);
  va_end(ap);
  return -1;
}

static DType dtype_of_dl(DLDataType d) {
  DType t = {DT_VOID, d.bits, d.lanes};
  switch (d.code) {
    case kDLInt: t.code = DT_INT; break;
    case kDLUInt: t.code = DT_UINT; break;
    case kDLFloat: t.code = DT_FLOAT; break;
    case kDLBfloat: t.code = DT_BFLOAT; break;
    case kDLBool: t.code = DT_BOOL; t.bits = 1; break;
    default: break;
  }
  return t;
}

/* Element offset of a multi-index in a (possibly strided) tensor. */
static int64_t tensor_offset(const DLTensor *t, const int64_t *idx) {
  int64_t off = 0, s = 1;
  for (int d = t->ndim - 1; d >= 0; d--) {
    off += idx[d] * (t->strides ? t->strides[d] : s);
    s *= t->shape[d];
  }
  return off;
}

static unsigned char *tensor_elem(const DLTensor *t, int64_t off) {
  return (unsigned char *)t->data + t->byte_offset + (size_t)off * tvs_dtype_bytes(t->dtype);
}

/* A compact copy of t. */
static TvsNDArray *copy_tensor(const DLTensor *t) {
  TvsNDArray *a = tvs_ndarray_empty(t->ndim, t->shape, t->dtype);
  if (!a) return NULL;
  size_t esz = tvs_dtype_bytes(t->dtype);
  int64_t n = tvs_ndarray_numel(t);
  if (!t->strides) {
    if (n) memcpy(a->t.data, (const unsigned char *)t->data + t->byte_offset, (size_t)n * esz);
    return a;
  }
  int64_t idx[TVS_MAX_NDIM] = {0};
  for (int64_t i = 0; i < n; i++) {
    memcpy((unsigned char *)a->t.data + (size_t)i * esz, tensor_elem(t, tensor_offset(t, idx)), esz);
    for (int d = t->ndim - 1; d >= 0; d--) {
      if (++idx[d] < t->shape[d]) break;
      idx[d] = 0;
    }
  }
  return a;
}

/* ----------------------------------------------------------- struct info */

/* Checks value v against sinfo si.  bind_only: only bind bare unbound size
 * vars (first pass); otherwise compare every dim. */
static int check_sinfo(RxCtx *c, const RxSInfo *si, RVal *v, const char *what, bool bind_only,
                       Span sp) {
  if (!si) return 0;
  switch (si->kind) {
    case RX_SI_TENSOR: {
      if (v->kind != RV_TENSOR) return rx_err(c, sp, "%s: expected a tensor", what);
      const DLTensor *t = v->t;
      if (!bind_only && !dt_is_void(si->dtype) && !interp_dl_matches(si->dtype, t->dtype)) {
        char a[32], b[DT_STR_MAX];
        return rx_err(c, sp, "%s: dtype is %s but the function expects %s", what,
                      tvs_dtype_str(t->dtype, a), dt_str(si->dtype, b));
      }
      if (si->ndim >= 0 && si->ndim != t->ndim)
        return rx_err(c, sp, "%s: expected a %d-D tensor but got a %d-D tensor", what, si->ndim,
                      t->ndim);
      if (!si->shape) return 0;
      for (int d = 0; d < t->ndim; d++) {
        const TirExpr *e = si->shape[d];
        int64_t got = t->shape[d];
        if (e->kind == TIR_VAR) {
          IBinding *b = interp_lookup(&c->tin, e->var);
          if (!b) {
            if (!bind_only) continue;
            interp_bind_int(&c->tin, e->var, got);
            c->tin.vars[c->tin.nvars - 1].bound_by = what;
            continue;
          }
          if (b->s.i != got) {
            if (b->bound_by)
              return rx_err(c, sp,
                            "%s: shape[%d] is %lld but the function expects %s = %lld (bound by "
                            "%s)",
                            what, d, (long long)got, e->var->name, (long long)b->s.i, b->bound_by);
            return rx_err(c, sp, "%s: shape[%d] is %lld but the function expects %s = %lld", what,
                          d, (long long)got, e->var->name, (long long)b->s.i);
          }
          continue;
        }
        if (bind_only) continue;
        int64_t want;
        if (interp_eval_int(&c->tin, e, &want)) return -1;
        if (want != got)
          return rx_err(c, sp, "%s: shape[%d] is %lld but the function expects %lld", what, d,
                        (long long)got, (long long)want);
      }
      return 0;
    }
    case RX_SI_TUPLE:
      if (v->kind != RV_TUPLE || v->n != si->nfields)
        return rx_err(c, sp, "%s: expected a tuple of %d fields", what, si->nfields);
      for (int i = 0; i < si->nfields; i++)
        if (check_sinfo(c, si->fields[i], v->fields[i], what, bind_only, sp)) return -1;
      return 0;
    case RX_SI_SHAPE:
      if (v->kind != RV_SHAPE) return rx_err(c, sp, "%s: expected a shape value", what);
      if (si->ndim >= 0 && si->ndim != v->n)
        return rx_err(c, sp, "%s: expected a shape of %d values", what, si->ndim);
      return 0;
    case RX_SI_PRIM:
      if (v->kind != RV_PRIM) return rx_err(c, sp, "%s: expected a scalar value", what);
      return 0;
    default:
      return 0;
  }
}

/* ----------------------------------------------------------- expressions */

static int rx_eval(RxCtx *c, const RxExpr *e, RVal **out);

static RVal *env_lookup(RxCtx *c, const RxExpr *var) {
  for (int i = c->nenv - 1; i >= 0; i--)
    if (c->env[i].var == var) return c->env[i].val;
  return NULL;
}

static void env_bind(RxCtx *c, const RxExpr *var, RVal *v) {
  VEC_PUSH(c->env, c->nenv, c->capenv, ((RxEnv){var, v}));
}

/* Allocates a tensor described by sinfo si (shape evaluated now). */
static int alloc_from_sinfo(RxCtx *c, const RxSInfo *si, Span sp, TvsNDArray **out) {
  if (!si || si->kind != RX_SI_TENSOR || !si->shape || si->ndim < 0 || dt_is_void(si->dtype))
    return rx_err(c, sp, "call_tir outputs need a tensor out_sinfo with known shape and dtype");
  if (si->ndim > TVS_MAX_NDIM) return rx_err(c, sp, "output has too many dimensions");
  int64_t shape[TVS_MAX_NDIM];
  for (int d = 0; d < si->ndim; d++) {
    if (interp_eval_int(&c->tin, si->shape[d], &shape[d])) return -1;
    if (shape[d] < 0) return rx_err(c, sp, "output shape[%d] is negative (%lld)", d, (long long)shape[d]);
  }
  *out = tvs_ndarray_empty(si->ndim, shape, interp_dl_dtype(si->dtype));
  if (!*out) return rx_err(c, sp, "cannot allocate a call_tir output");
  return 0;
}

int rx_eval_call_tir(RxCtx *c, const RxExpr *e, RVal **out) {
  if (e->call.n < 2) return rx_err(c, e->span, "R.call_tir needs a function and its arguments");
  const RxExpr *fn = e->call.args[0];
  if (fn->kind != RX_GLOBAL_VAR)
    return rx_err(c, fn->span, "call_tir to '%s' cannot run in the interpreter (not a prim_func "
                               "of this module)",
                  fn->kind == RX_EXTERN_FUNC ? fn->gvar.name : "?");
  const IrGlobal *g = ir_module_lookup(c->tin.mod, fn->gvar.name);
  if (!g) return rx_err(c, fn->span, "no function named '%s' in the module", fn->gvar.name);
  if (g->kind != IR_FUNC_TIR) return rx_err(c, fn->span, "'%s' is not a prim_func", fn->gvar.name);
  if (c->tin.depth >= INTERP_MAX_DEPTH) return rx_err(c, e->span, "calls nest too deeply");

  RVal *argv = NULL, *tvars = NULL;
  TvsNDArray **outs = NULL;
  InterpArg *iargs = NULL;
  int nouts = 0, rc = 0;
  if (rx_eval(c, e->call.args[1], &argv)) return -1;
  if (e->call.n >= 3 && rx_eval(c, e->call.args[2], &tvars)) goto done_err;
  RVal **ins = argv->kind == RV_TUPLE ? argv->fields : &argv;
  int nins = argv->kind == RV_TUPLE ? argv->n : 1;
  bool tuple_out = false;
  const RxSInfo *const *osi = rx_call_outputs(e, &nouts, &tuple_out);
  if (nouts < 1) {
    rc = rx_err(c, e->span, "R.call_tir needs out_sinfo");
    goto done;
  }
  outs = xcalloc((size_t)nouts, sizeof *outs);
  for (int i = 0; i < nouts; i++)
    if (alloc_from_sinfo(c, osi[i], e->span, &outs[i])) goto done_err;
  int ntv = tvars ? (tvars->kind == RV_SHAPE ? tvars->n : 1) : 0;
  int total = nins + nouts + ntv;
  iargs = xcalloc((size_t)(total ? total : 1), sizeof *iargs);
  for (int i = 0; i < nins; i++) {
    RVal *a = ins[i];
    if (a->kind == RV_TENSOR) iargs[i].tensor = a->t;
    else if (a->kind == RV_PRIM) {
      iargs[i].i = a->pv.i;
      iargs[i].f = dt_is_float(a->pt) ? a->pv.f : (double)a->pv.i;
    } else {
      rc = rx_err(c, e->span, "argument %d of call_tir is not a tensor", i);
      goto done;
    }
  }
  for (int i = 0; i < nouts; i++) iargs[nins + i].tensor = &outs[i]->t;
  for (int i = 0; i < ntv; i++) {
    if (tvars->kind == RV_SHAPE) iargs[nins + nouts + i].i = tvars->shape[i];
    else if (tvars->kind == RV_PRIM) iargs[nins + nouts + i].i = tvars->pv.i;
    else {
      rc = rx_err(c, e->span, "tir_vars of call_tir must be a shape");
      goto done;
    }
  }
  int call_rc = c->runner ? c->runner(c->runner_ctx, g->name, iargs, total, c->tin.diag)
                          : interp_call_tir(c->tin.mod, g->tir, g->name, iargs, total, c->tin.diag,
                                            c->tin.depth + 1);
  if (call_rc) {
    diag_note(c->tin.diag, e->span.file ? e->span : c->tin.span, "in this call_tir of '%s'",
              g->name);
    goto done_err;
  }
  if (!tuple_out) {
    *out = rv_tensor(outs[0]);
    outs[0] = NULL;
  } else {
    RVal *t = rv_new(RV_TUPLE);
    t->fields = xcalloc((size_t)nouts, sizeof *t->fields);
    t->n = nouts;
    for (int i = 0; i < nouts; i++) {
      t->fields[i] = rv_tensor(outs[i]);
      outs[i] = NULL;
    }
    *out = t;
  }
  goto done;
done_err:
  rc = -1;
done:
  for (int i = 0; outs && i < nouts; i++) tvs_ndarray_free(outs[i]);
  free(outs);
  free(iargs);
  rv_release(argv);
  rv_release(tvars);
  return rc;
}

/* Element-wise binary op with numpy broadcasting. */
static int eval_elementwise2(RxCtx *c, const RxExpr *e, TirExprKind op, RVal *a, RVal *b,
                             RVal **out) {
  const char *opname = e->call.op->script_name;
  if (a->kind != RV_TENSOR || b->kind != RV_TENSOR)
    return rx_err(c, e->span, "R.%s expects tensor operands", opname);
  const DLTensor *x = a->t, *y = b->t;
  char s1[32], s2[32];
  if (x->dtype.code != y->dtype.code || x->dtype.bits != y->dtype.bits || x->dtype.lanes != 1 ||
      y->dtype.lanes != 1)
    return rx_err(c, e->span, "R.%s: operand dtypes differ (%s vs %s)", opname,
                  tvs_dtype_str(x->dtype, s1), tvs_dtype_str(y->dtype, s2));
  int nd = x->ndim > y->ndim ? x->ndim : y->ndim;
  int64_t shape[TVS_MAX_NDIM];
  for (int d = 0; d < nd; d++) {
    int dx = d - (nd - x->ndim), dy = d - (nd - y->ndim);
    int64_t ex = dx >= 0 ? x->shape[dx] : 1, ey = dy >= 0 ? y->shape[dy] : 1;
    if (ex != ey && ex != 1 && ey != 1)
      return rx_err(c, e->span, "R.%s: shapes cannot be broadcast (dimension %d: %lld vs %lld)",
                    opname, d, (long long)ex, (long long)ey);
    shape[d] = ex == 1 ? ey : ex;
  }
  TvsNDArray *r = tvs_ndarray_empty(nd, shape, x->dtype);
  if (!r) return rx_err(c, e->span, "R.%s: cannot allocate the result", opname);
  DType t = dtype_of_dl(x->dtype);
  int64_t n = tvs_ndarray_numel(&r->t), idx[TVS_MAX_NDIM] = {0}, ix[TVS_MAX_NDIM], iy[TVS_MAX_NDIM];
  size_t esz = tvs_dtype_bytes(x->dtype);
  for (int64_t i = 0; i < n; i++) {
    for (int d = 0; d < x->ndim; d++) {
      int od = d + (nd - x->ndim);
      ix[d] = x->shape[d] == 1 ? 0 : idx[od];
    }
    for (int d = 0; d < y->ndim; d++) {
      int od = d + (nd - y->ndim);
      iy[d] = y->shape[d] == 1 ? 0 : idx[od];
    }
    IScalar va = interp_read_elem(t, tensor_elem(x, tensor_offset(x, ix)));
    IScalar vb = interp_read_elem(t, tensor_elem(y, tensor_offset(y, iy)));
    IScalar vr;
    if (interp_binop(&c->tin, op, t, va, vb, &vr, e->span)) {
      tvs_ndarray_free(r);
      return -1;
    }
    interp_write_elem(t, (unsigned char *)r->t.data + (size_t)i * esz, vr);
    for (int d = nd - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  *out = rv_tensor(r);
  return 0;
}

static int eval_relu(RxCtx *c, const RxExpr *e, RVal *a, RVal **out) {
  if (a->kind != RV_TENSOR) return rx_err(c, e->span, "R.nn.relu expects a tensor");
  const DLTensor *x = a->t;
  TvsNDArray *r = copy_tensor(x);
  if (!r) return rx_err(c, e->span, "R.nn.relu: cannot allocate the result");
  DType t = dtype_of_dl(x->dtype);
  IScalar zero = interp_cast_scalar(dt_int32, (IScalar){.i = 0}, t);
  size_t esz = tvs_dtype_bytes(x->dtype);
  int64_t n = tvs_ndarray_numel(x);
  for (int64_t i = 0; i < n; i++) {
    unsigned char *p = (unsigned char *)r->t.data + (size_t)i * esz;
    IScalar v = interp_read_elem(t, p), m;
    if (interp_binop(&c->tin, TIR_MAX, t, v, zero, &m, e->span)) {
      tvs_ndarray_free(r);
      return -1;
    }
    interp_write_elem(t, p, m);
  }
  *out = rv_tensor(r);
  return 0;
}

/* Evaluates the call's operands into v[0..op->min_args) after checking their
 * count; releases what it made on failure. */
static int eval_operands(RxCtx *c, const RxExpr *e, RVal **v) {
  const RxOpInfo *op = e->call.op;
  int need = op->min_args;
  if (e->call.n != need)
    return rx_err(c, e->span, "R.%s takes %d arguments but %d were given", op->script_name, need,
                  e->call.n);
  for (int i = 0; i < need; i++) {
    v[i] = NULL;
    if (rx_eval(c, e->call.args[i], &v[i])) {
      for (int k = 0; k < i; k++) rv_release(v[k]);
      return -1;
    }
  }
  return 0;
}

int rx_eval_binary(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *v[2];
  if (eval_operands(c, e, v)) return -1;
  int rc = eval_elementwise2(c, e, (TirExprKind)e->call.op->tir_binop, v[0], v[1], out);
  rv_release(v[0]);
  rv_release(v[1]);
  return rc;
}

int rx_eval_relu(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *v[1];
  if (eval_operands(c, e, v)) return -1;
  int rc = eval_relu(c, e, v[0], out);
  rv_release(v[0]);
  return rc;
}

/* ---- for the operator families' eval files (interp_internal.h): operands,
 *      results and errors of an operator's EVAL */

int rx_interp_operands_exact(RxCtx *c, const RxExpr *e, RVal **v) { return eval_operands(c, e, v); }
int64_t rx_interp_offset(const DLTensor *t, const int64_t *idx) { return tensor_offset(t, idx); }
int rx_interp_eval(RxCtx *c, const RxExpr *e, RVal **out) { return rx_eval(c, e, out); }
int rx_interp_tuple_size(const RVal *v) { return v && v->kind == RV_TUPLE ? v->n : -1; }
RVal *rx_interp_tuple_field(const RVal *v, int i) { return v->fields[i]; }

RVal *rx_interp_tensor_tuple(TvsNDArray **a, int n) {
  RVal *t = rv_new(RV_TUPLE);
  t->fields = xcalloc((size_t)(n ? n : 1), sizeof *t->fields);
  t->n = n;
  for (int i = 0; i < n; i++) t->fields[i] = rv_tensor(a[i]);
  return t;
}

int rx_interp_error(RxCtx *c, Span sp, const char *fmt, ...) {
  if (!sp.file) sp = c->tin.span.file ? c->tin.span : c->tin.fspan;
  va_list ap;
  va_start(ap, fmt);
  diag_report(c->tin.diag, DIAG_ERROR, sp, fmt, ap);
  va_end(ap);
  return -1;
}

Interp *rx_interp_tin(RxCtx *c) { return &c->tin; }

int rx_interp_operands(RxCtx *c, const RxExpr *e, RVal **v) {
  for (int i = 0; i < e->call.n; i++) {
    v[i] = NULL;
    if (rx_eval(c, e->call.args[i], &v[i])) {
      for (int k = 0; k < i; k++) rv_release(v[k]);
      return -1;
    }
  }
  return 0;
}

void rx_interp_release(RVal *v) { rv_release(v); }

const DLTensor *rx_interp_as_tensor(const RVal *v) { return v && v->kind == RV_TENSOR ? v->t : NULL; }

bool rx_interp_as_shape(const RVal *v, const int64_t **shape, int *n) {
  if (!v || v->kind != RV_SHAPE) return false;
  *shape = v->shape;
  *n = v->n;
  return true;
}

bool rx_interp_as_prim(const RVal *v, DType *t, IScalar *s) {
  if (!v || v->kind != RV_PRIM) return false;
  *t = v->pt;
  *s = v->pv;
  return true;
}

RVal *rx_interp_tensor(TvsNDArray *a) { return rv_tensor(a); }

RVal *rx_interp_tuple(RVal **fields, int n) {
  RVal *t = rv_new(RV_TUPLE);
  t->fields = xcalloc((size_t)(n ? n : 1), sizeof *t->fields);
  for (int i = 0; i < n; i++) t->fields[i] = fields[i];
  t->n = n;
  return t;
}

DType rx_interp_dtype(DLDataType d) { return dtype_of_dl(d); }

IScalar rx_interp_read(const DLTensor *t, const int64_t *idx) {
  return interp_read_elem(dtype_of_dl(t->dtype), tensor_elem(t, tensor_offset(t, idx)));
}

/* A call: the operator's EVAL column of the registry. */
/* `cls.f(args)`: f's body with its params bound to the arguments (the size
 * vars of its signature are the caller's, as FuseOps makes them). */
static int eval_call_func(RxCtx *c, const RxExpr *e, RVal **out) {
  const char *name = e->call.callee->gvar.name;
  const IrGlobal *g = ir_module_lookup(c->tin.mod, name);
  if (!g || g->kind != IR_FUNC_RELAX)
    return rx_err(c, e->span, "'%s' is not a Relax function of the module", name);
  const RxFunc *f = g->rx;
  if (f->nparams != e->call.n)
    return rx_err(c, e->span, "'%s' takes %d arguments but %d were given", name, f->nparams, e->call.n);
  int mark = c->nenv, vmark = c->tin.nvars, rc = 0;
  RVal **vals = xcalloc((size_t)(f->nparams ? f->nparams : 1), sizeof *vals);
  for (int i = 0; rc == 0 && i < f->nparams; i++) rc = rx_eval(c, e->call.args[i], &vals[i]);
  for (int i = 0; i < f->nparams; i++)
    if (vals[i]) env_bind(c, f->params[i], vals[i]);
  /* f's own size vars take the arguments' dims (bound first, then checked) */
  for (int pass = 0; pass < 2 && rc == 0; pass++)
    for (int i = 0; rc == 0 && i < f->nparams; i++)
      rc = check_sinfo(c, f->params[i]->sinfo, vals[i], "an argument of the call", pass == 0, e->span);
  free(vals);
  if (rc == 0) rc = rx_eval(c, f->body, out);
  while (c->nenv > mark) rv_release(c->env[--c->nenv].val);
  c->tin.nvars = vmark; /* the callee's size vars go out of scope */
  return rc;
}

static int eval_call(RxCtx *c, const RxExpr *e, RVal **out) {
  const RxOpInfo *op = e->call.op;
  if (!op && e->call.callee) return eval_call_func(c, e, out);
  if (!op) return rx_err(c, e->span, "call without an operator");
  if (!op->eval)
    return rx_err(c, e->span, "operator R.%s is not supported by the interpreter", op->script_name);
  return op->eval(c, e, out);
}

static int eval_seq(RxCtx *c, const RxExpr *e, RVal **out) {
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    const RxBlock *blk = &e->seq.blocks[bi];
    for (int i = 0; i < blk->n; i++) {
      const RxBinding *bd = &blk->bindings[i];
      Span saved = c->tin.span;
      if (bd->span.file) c->tin.span = bd->span;
      RVal *v;
      int rc = rx_eval(c, bd->value, &v);
      if (rc == 0 && bd->cast_to) {
        const char *nm = bd->var->var.name;
        rc = check_sinfo(c, bd->cast_to, v, nm, true, bd->span);
        if (rc == 0) rc = check_sinfo(c, bd->cast_to, v, nm, false, bd->span);
        if (rc) rv_release(v);
      }
      c->tin.span = saved;
      if (rc) return -1;
      env_bind(c, bd->var, v);
    }
  }
  return rx_eval(c, e->seq.body, out);
}

/* A constant tensor: a fresh NDArray holding its data. */
static int eval_const(RxCtx *c, const RxExpr *e, RVal **out) {
  DLDataType dl = interp_dl_dtype(e->cnst.dtype);
  if (e->cnst.ndim > TVS_MAX_NDIM) return rx_err(c, e->span, "constant has too many dimensions");
  TvsNDArray *a = tvs_ndarray_empty(e->cnst.ndim, e->cnst.shape, dl);
  if (!a) return rx_err(c, e->span, "cannot allocate a constant");
  size_t nb = tvs_ndarray_nbytes(&a->t);
  if (e->cnst.data && (int64_t)nb == e->cnst.nbytes) memcpy(a->t.data, e->cnst.data, nb);
  else if (e->cnst.data || nb) {
    tvs_ndarray_free(a);
    return rx_err(c, e->span, "constant data has %lld bytes but its shape needs %zu",
                  (long long)e->cnst.nbytes, nb);
  }
  *out = rv_tensor(a);
  return 0;
}

/* A tuple of its evaluated fields. */
static int eval_tuple(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *t = rv_new(RV_TUPLE);
  t->fields = xcalloc((size_t)(e->tuple.n ? e->tuple.n : 1), sizeof *t->fields);
  for (int i = 0; i < e->tuple.n; i++) {
    if (rx_eval(c, e->tuple.fields[i], &t->fields[i])) {
      rv_release(t);
      return -1;
    }
    t->n = i + 1;
  }
  t->n = e->tuple.n;
  *out = t;
  return 0;
}

/* The branch chosen by a scalar condition (a PrimValue or a one-element tensor). */
static int eval_if(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *cv;
  if (rx_eval(c, e->ifs.cond, &cv)) return -1;
  bool cond;
  if (cv->kind == RV_PRIM) {
    cond = dt_is_float(cv->pt) ? cv->pv.f != 0 : cv->pv.u != 0;
  } else if (cv->kind == RV_TENSOR && tvs_ndarray_numel(cv->t) == 1) {
    DType t = dtype_of_dl(cv->t->dtype);
    IScalar s = interp_read_elem(t, tensor_elem(cv->t, 0));
    cond = dt_is_float(t) ? s.f != 0 : s.u != 0;
  } else {
    rv_release(cv);
    return rx_err(c, e->span, "the condition of an if must be a scalar");
  }
  rv_release(cv);
  return rx_eval(c, cond ? e->ifs.then_e : e->ifs.else_e, out);
}

static int rx_eval(RxCtx *c, const RxExpr *e, RVal **out) {
  *out = NULL;
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: {
      RVal *v = env_lookup(c, e);
      if (!v) return rx_err(c, e->span, "variable '%s' is used before it is bound", e->var.name);
      *out = rv_retain(v);
      return 0;
    }
    case RX_CONST: return eval_const(c, e, out);
    case RX_CALL:
      return eval_call(c, e, out);
    case RX_TUPLE: return eval_tuple(c, e, out);
    case RX_TUPLE_GET_ITEM: {
      RVal *t;
      if (rx_eval(c, e->get.tuple, &t)) return -1;
      if (t->kind != RV_TUPLE || e->get.index < 0 || e->get.index >= t->n) {
        int n = t->kind == RV_TUPLE ? t->n : 0;
        rv_release(t);
        return rx_err(c, e->span, "tuple index %d out of range for a tuple of %d fields",
                      e->get.index, n);
      }
      *out = rv_retain(t->fields[e->get.index]);
      rv_release(t);
      return 0;
    }
    case RX_SHAPE_EXPR: {
      RVal *s = rv_new(RV_SHAPE);
      s->shape = xcalloc((size_t)(e->shape.n ? e->shape.n : 1), sizeof *s->shape);
      s->n = e->shape.n;
      for (int i = 0; i < e->shape.n; i++)
        if (interp_eval_int(&c->tin, e->shape.values[i], &s->shape[i])) {
          rv_release(s);
          return -1;
        }
      *out = s;
      return 0;
    }
    case RX_PRIM_VALUE: {
      IVal v;
      if (interp_eval(&c->tin, e->prim.value, &v)) return -1;
      RVal *p = rv_new(RV_PRIM);
      p->pt = dt_element(v.t);
      p->pv = v.v[0];
      *out = p;
      return 0;
    }
    case RX_IF: return eval_if(c, e, out);
    case RX_SEQ:
      return eval_seq(c, e, out);
    case RX_GLOBAL_VAR: case RX_EXTERN_FUNC:
      return rx_err(c, e->span, "function values cannot be used by the interpreter");
    case RX_STRING:
      return rx_err(c, e->span, "a string cannot be used as a value");
    default:
      return rx_err(c, e->span, "cannot evaluate this expression");
  }
}

/* ----------------------------------------------------------- results */

static int count_tensors(const RVal *v) {
  if (v->kind != RV_TUPLE) return 1;
  int n = 0;
  for (int i = 0; i < v->n; i++) n += count_tensors(v->fields[i]);
  return n;
}

/* Flattens v into fresh caller-owned tensors. */
static int flatten(RxCtx *c, const RVal *v, DLTensor **res, int *k) {
  TvsNDArray *a = NULL;
  switch (v->kind) {
    case RV_TUPLE:
      for (int i = 0; i < v->n; i++)
        if (flatten(c, v->fields[i], res, k)) return -1;
      return 0;
    case RV_TENSOR: a = copy_tensor(v->t); break;
    case RV_SHAPE: {
      int64_t n = v->n;
      a = tvs_ndarray_empty(1, &n, (DLDataType){kDLInt, 64, 1});
      if (a) memcpy(a->t.data, v->shape, (size_t)n * sizeof(int64_t));
      break;
    }
    case RV_PRIM:
      a = tvs_ndarray_empty(0, NULL, interp_dl_dtype(v->pt));
      if (a) interp_write_elem(v->pt, a->t.data, v->pv);
      break;
  }
  if (!a) return rx_err(c, span_none, "cannot allocate a result tensor");
  res[(*k)++] = &a->t;
  return 0;
}

void interp_free_result(DLTensor *t) {
  /* every result is the DLTensor at the start of a TvsNDArray */
  if (t) tvs_ndarray_free((TvsNDArray *)(void *)t);
}

int interp_run_relax(const IrModule *m, const char *name, InterpArg *args, int nargs,
                     DLTensor ***results, int *nresults, DiagCtx *diag) {
  return interp_run_relax_with(m, name, args, nargs, results, nresults, diag, NULL, NULL);
}

int interp_run_relax_with(const IrModule *m, const char *name, InterpArg *args, int nargs,
                          DLTensor ***results, int *nresults, DiagCtx *diag,
                          InterpTirRunner runner, void *runner_ctx) {
  if (results) *results = NULL;
  if (nresults) *nresults = 0;
  const IrGlobal *g = m && name ? ir_module_lookup(m, name) : NULL;
  if (!g) {
    diag_error(diag, span_none, "no function named '%s' in the module", name ? name : "(null)");
    return -1;
  }
  if (g->kind != IR_FUNC_RELAX || !g->rx) {
    diag_error(diag, span_none, "'%s' is a prim_func, not a Relax function", name);
    return -1;
  }
  const RxFunc *f = g->rx;
  RxCtx c;
  memset(&c, 0, sizeof c);
  c.runner = runner;
  c.runner_ctx = runner_ctx;
  interp_init(&c.tin, m, diag, name, f->span);
  int rc = 0;
  RVal *ret = NULL;
  if (nargs != f->nparams || (nargs > 0 && !args)) {
    rc = rx_err(&c, f->span, "function '%s' takes %d argument%s but %d %s given", name,
                f->nparams, f->nparams == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
  }
  /* bind params: values first, then size vars (bare dims), then full checks */
  char **names = xcalloc((size_t)(f->nparams ? f->nparams : 1), sizeof *names);
  for (int i = 0; rc == 0 && i < f->nparams; i++) {
    const RxExpr *p = f->params[i];
    names[i] = xasprintf("argument '%s'", p->var.name);
    RVal *v;
    if (args[i].tensor) {
      if (args[i].tensor->device.device_type != kDLCPU &&
          args[i].tensor->device.device_type != kDLCUDAHost) {
        rc = rx_err(&c, f->span, "%s is not in host memory", names[i]);
        break;
      }
      v = rv_new(RV_TENSOR);
      v->t = args[i].tensor;
    } else if (p->sinfo && p->sinfo->kind == RX_SI_PRIM) {
      v = rv_new(RV_PRIM);
      v->pt = p->sinfo->dtype;
      if (dt_is_float(v->pt)) v->pv.f = dt_round_float(v->pt, args[i].f);
      else if (dt_is_bool(v->pt)) v->pv.i = args[i].i != 0;
      else v->pv = interp_normalize_int(v->pt, (uint64_t)args[i].i);
    } else {
      rc = rx_err(&c, f->span, "%s must be a tensor", names[i]);
      break;
    }
    env_bind(&c, p, v);
  }
  for (int pass = 0; pass < 2 && rc == 0; pass++)
    for (int i = 0; rc == 0 && i < f->nparams; i++)
      rc = check_sinfo(&c, f->params[i]->sinfo, c.env[i].val, names[i], pass == 0, f->span);
  if (rc == 0) rc = rx_eval(&c, f->body, &ret);
  if (rc == 0 && results) {
    int n = count_tensors(ret), k = 0;
    DLTensor **res = xcalloc((size_t)(n ? n : 1), sizeof *res);
    rc = flatten(&c, ret, res, &k);
    if (rc) {
      for (int i = 0; i < k; i++) interp_free_result(res[i]);
      free(res);
    } else {
      *results = res;
      if (nresults) *nresults = n;
    }
  }
  rv_release(ret);
  for (int i = 0; i < c.nenv; i++) rv_release(c.env[i].val);
  free(c.env);
  for (int i = 0; i < f->nparams; i++) free(names[i]);
  free(names);
  interp_cleanup(&c.tin);
  return rc;
}
