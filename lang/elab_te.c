/* elab_te.c - the tensor-expression sugar: `@te.prim_func` -> a T.prim_func.
 *
 * A computation is written by its output shape and an element formula (TE's
 * compute + reduce_axis) and elaborated into the prim_func TVM's
 * te.create_prim_func would produce:
 *
 *   @te.prim_func
 *   def mm_relu(A: te.placeholder((128, 128), "float32"), B: te.placeholder((128, 128))):
 *       n = T.int32()                                   # optional size vars (first)
 *       k = te.reduce_axis((0, 128), name="k")          # a reduction axis [0, 128)
 *       Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
 *       C = te.compute((128, 128), lambda i, j: T.max(Y[i, j], T.float32(0)), name="C")
 *       return C                                        # or a tuple: return C, D
 *
 * Rules:
 *  - placeholders (dtype default float32) are the first params, in order; the
 *    returned tensors follow as output params; computed tensors that are not
 *    returned become T.alloc_buffer of the implicit root block.  Every buffer
 *    param is written `X: T.Buffer(...)`; attrs {"global_symbol": name,
 *    "tir.noalias": True}.
 *  - each te.compute becomes, in order, a loop nest over its shape (loops named
 *    after the lambda params) then one loop per reduce axis (named after the
 *    axis' name=), around one block named after name= (default "compute")
 *    whose iters are "v_" + loop name (spatial, then reduce), bound 1:1 to the
 *    loops; reads/writes come from tir_infer_access_regions.
 *  - te.sum/te.max/te.min(value, axis=k | axis=[k1, k2]) must be the whole
 *    formula; the block gets an init (0 / the dtype's lowest / highest value)
 *    and the update Y[v] = Y[v] + value (T.max(Y[v], value), T.min(...)).
 *  - the formula is a TIR expression (elab_tir_expr) in which the lambda
 *    params are the block iters and tensors are buffers: A[i, k] loads A.
 *  - buffer dtype = the formula's dtype unless dtype= overrides it.
 *  - attrs={"schedule_rule": "meta_schedule.pool_max"} becomes the block's
 *    annotations (T.block_attr), as TE's compute(..., attrs=) does. */
#include "lang/elab_internal.h"
#include "ir/access_region.h"
#include "base/util.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A reduce axis declared with te.reduce_axis. */
typedef struct TeAxis {
  const char *var_name;  /* the Python variable bound to it */
  const char *name;      /* name= (loop var name), defaults to var_name */
  TirExpr *min, *extent; /* its domain */
  Span span;
} TeAxis;

/* A tensor: a placeholder or the result of a te.compute. */
typedef struct TeTensor {
  const char *var_name;  /* the Python variable bound to it */
  TirBuffer *buf;        /* its buffer */
  bool is_placeholder;   /* a parameter */
  bool returned;         /* listed in the return statement */
  Span span;
} TeTensor;

typedef struct TeCtx {
  TeTensor **tensors;
  int ntensors, captensors;
  TirStmt **stmts;       /* one loop nest per compute, in order */
  int nstmts, capstmts;
} TeCtx;

static const char *canon_call(ElabCtx *c, const Ast *e) {
  return e && e->kind == AST_CALL ? elab_canonical_name(c, e->a) : NULL;
}

static TeTensor *find_tensor(TeCtx *t, const TirBuffer *b) {
  for (int i = 0; i < t->ntensors; i++)
    if (t->tensors[i]->buf == b) return t->tensors[i];
  return NULL;
}

/* ------------------------------------------------------------ checks */

/* Reports te.* misuse in a formula: reduce axes outside a reduction (unless
 * listed in `allowed`), nested reductions, unknown te builtins, and tensors
 * indexed with the wrong number of indices.  Returns false after errors. */
static bool check_formula(ElabCtx *c, TeCtx *t, const Ast *e, TeAxis **allowed, int nallowed) {
  if (!e) return true;
  bool ok = true;
  switch (e->kind) {
  case AST_NAME: {
    Sym *s = elab_lookup(c, e->name);
    if (s && s->kind == SYM_TE_AXIS) {
      for (int i = 0; i < nallowed; i++)
        if (allowed[i] == s->ptr) return true;
      diag_error(c->diag, e->span, "reduce axis '%s' is used outside te.sum/te.max/te.min", e->name);
      return false;
    }
    return true;
  }
  case AST_CALL: {
    const char *cn = canon_call(c, e);
    if (cn && !strncmp(cn, "te.", 3)) {
      if (!strcmp(cn, "te.sum") || !strcmp(cn, "te.max") || !strcmp(cn, "te.min"))
        diag_error(c->diag, e->span, "%s must be the whole formula of a te.compute", cn);
      else
        diag_error(c->diag, e->a->span, "unknown te builtin '%s' (use the T.* intrinsics in formulas)", cn);
      return false;
    }
    for (int i = 0; i < e->list.len; i++) {
      const Ast *a = e->list.items[i];
      if (!check_formula(c, t, a->kind == AST_KEYWORD ? a->a : a, allowed, nallowed)) ok = false;
    }
    return ok;
  }
  case AST_SUBSCRIPT: {
    if (e->a->kind == AST_NAME) {
      Sym *s = elab_lookup(c, e->a->name);
      if (s && s->kind == SYM_BUFFER && find_tensor(t, s->ptr)) {
        const TirBuffer *b = s->ptr;
        int n = e->b->kind == AST_TUPLE ? e->b->list.len : 1;
        if (n != b->ndim) {
          diag_error(c->diag, e->span, "tensor '%s' has %d dimension%s but is indexed with %d index%s",
                     e->a->name, b->ndim, b->ndim == 1 ? "" : "s", n, n == 1 ? "" : "es");
          return false;
        }
      }
    }
    return check_formula(c, t, e->a, allowed, nallowed) && check_formula(c, t, e->b, allowed, nallowed);
  }
  case AST_ATTR: return check_formula(c, t, e->a, allowed, nallowed);
  case AST_LAMBDA:
    diag_error(c->diag, e->span, "a lambda cannot appear inside a te.compute formula");
    return false;
  default:
    break;
  }
  ok = check_formula(c, t, e->a, allowed, nallowed) && ok;
  ok = check_formula(c, t, e->b, allowed, nallowed) && ok;
  ok = check_formula(c, t, e->c, allowed, nallowed) && ok;
  for (int i = 0; i < e->list.len; i++) ok = check_formula(c, t, e->list.items[i], allowed, nallowed) && ok;
  for (int i = 0; i < e->list2.len; i++) ok = check_formula(c, t, e->list2.items[i], allowed, nallowed) && ok;
  return ok;
}

/* ------------------------------------------------------------ constants */

/* The identity of a reduction: 0 for sum, the lowest value for max, the highest for min. */
static TirExpr *reduce_identity(IrHeap *h, const char *kind, DType t) {
  bool is_max = !strcmp(kind, "te.max"), is_min = !strcmp(kind, "te.min");
  if (dt_is_float(t)) {
    double big = t.bits == 16 ? (t.code == DT_BFLOAT ? 3.38953139e38 : 65504.0) : t.bits == 32 ? (double)FLT_MAX : DBL_MAX;
    return tir_float(h, t, is_max ? -big : is_min ? big : 0.0);
  }
  if (dt_is_bool(t)) return tir_bool(h, is_min);
  if (dt_is_uint(t)) {
    uint64_t mx = t.bits == 64 ? UINT64_MAX : ((uint64_t)1 << t.bits) - 1;
    return tir_int(h, t, is_min ? (int64_t)mx : 0);
  }
  int64_t mx = t.bits == 64 ? INT64_MAX : ((int64_t)1 << (t.bits - 1)) - 1;
  return tir_int(h, t, is_max ? -mx - 1 : is_min ? mx : 0);
}

/* ------------------------------------------------------------ statements */

static const char *str_kwarg(ElabCtx *c, const Ast *call, const char *key, bool *ok) {
  const Ast *v = elab_kwarg(call, key);
  if (!v) return NULL;
  if (v->kind != AST_STR) {
    diag_error(c->diag, v->span, "%s= expects a string", key);
    *ok = false;
    return NULL;
  }
  return v->str;
}

/* k = te.reduce_axis((lo, hi), name="k") */
static void reduce_axis_stmt(ElabCtx *c, const Ast *target, const Ast *call) {
  static const char *const kws[] = {"dom", "name", NULL};
  if (!elab_check_kwargs(c, call, kws)) return;
  bool ok = true;
  const char *name = str_kwarg(c, call, "name", &ok);
  if (!ok) return;
  const Ast *dom = elab_posarg(call, 0);
  if (!dom) dom = elab_kwarg(call, "dom");
  if (!dom || (dom->kind != AST_TUPLE && dom->kind != AST_LIST) || dom->list.len != 2 ||
      elab_num_posargs(call) > 1) {
    diag_error(c->diag, call->span, "te.reduce_axis expects a domain (begin, end): te.reduce_axis((0, 128), name=\"k\")");
    return;
  }
  TirExpr *lo = elab_tir_int_expr(c, dom->list.items[0], dt_int32, "reduce axis bound");
  TirExpr *hi = elab_tir_int_expr(c, dom->list.items[1], dt_int32, "reduce axis bound");
  if (!lo || !hi) return;
  if (!dt_eq(lo->dtype, hi->dtype)) {
    if (lo->kind == TIR_INT) lo = elab_tir_int_cast(c->h, lo, hi->dtype);
    else hi = elab_tir_int_cast(c->h, hi, lo->dtype);
  }
  TeAxis *ax = arena_alloc(&c->scratch, sizeof *ax);
  ax->var_name = target->name;
  ax->name = name ? name : target->name;
  ax->min = lo;
  ax->extent = elab_tir_sub_fold(c->h, hi, lo);
  ax->span = call->span;
  int64_t e;
  if (tir_is_const_int(ax->extent, &e) && e <= 0) {
    diag_error(c->diag, dom->span, "te.reduce_axis: the domain is empty");
    return;
  }
  elab_define(c, target->name, SYM_TE_AXIS, ax, target->span);
}

/* The reduce axes named by axis=k / axis=[k1, k2] (or a second positional arg). */
static int reduce_axes(ElabCtx *c, const Ast *red, TeAxis ***out) {
  const Ast *ax = elab_kwarg(red, "axis");
  if (!ax) ax = elab_posarg(red, 1);
  if (!ax) {
    diag_error(c->diag, red->span, "%s needs the reduce axis: axis=k", canon_call(c, red));
    return -1;
  }
  const Ast *one = ax;
  int n = ax->kind == AST_LIST || ax->kind == AST_TUPLE ? ax->list.len : 1;
  *out = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof **out);
  for (int i = 0; i < n; i++) {
    const Ast *a = ax->kind == AST_LIST || ax->kind == AST_TUPLE ? ax->list.items[i] : one;
    Sym *s = a->kind == AST_NAME ? elab_lookup(c, a->name) : NULL;
    if (!s || s->kind != SYM_TE_AXIS) {
      diag_error(c->diag, a->span, "axis= expects reduce axes created with te.reduce_axis");
      return -1;
    }
    for (int j = 0; j < i; j++)
      if ((*out)[j] == s->ptr) {
        diag_error(c->diag, a->span, "reduce axis '%s' is listed twice", a->name);
        return -1;
      }
    (*out)[i] = s->ptr;
  }
  if (n == 0) {
    diag_error(c->diag, ax->span, "axis= lists no reduce axis");
    return -1;
  }
  return n;
}

static TirExpr *var_ref(ElabCtx *c, TirVar *v) { return tir_var_ref(c->h, v); }

/* te.compute's arguments, checked, and the loops / block iters built for it. */
typedef struct ComputeSpec {
  const char *name;      /* name= (NULL: the target's name) */
  const Ast *fn;         /* the lambda */
  DType force;           /* dtype= (void when absent) */
  TirExpr **ext;         /* the shape */
  int ndim;
  const char *red;       /* "te.sum", "te.max", "te.min", or NULL */
  TeAxis **axes;         /* the reduction's axes */
  int nred;
  const Ast *value_ast;  /* the formula (inside the reduction) */
  IrValue *attrs;        /* attrs= dict: the block's annotations (T.block_attr), or NULL */
  int n;                 /* ndim + nred loops and iters */
  TirVar **loops;
  TirIterVar *iters;
  TirExpr **mins, **exts;
} ComputeSpec;

/* The reduction around the formula, if any: te.sum / te.max / te.min(value, axis=). */
static bool check_compute_reduction(ElabCtx *c, ComputeSpec *cs) {
  const Ast *body = cs->fn->a;
  const char *red = canon_call(c, body);
  if (red && strcmp(red, "te.sum") && strcmp(red, "te.max") && strcmp(red, "te.min")) red = NULL;
  cs->red = red;
  cs->value_ast = body;
  if (!red) return true;
  static const char *const rkws[] = {"axis", "where", "init", NULL};
  if (!elab_check_kwargs(c, body, rkws)) return false;
  if (elab_kwarg(body, "where") || elab_kwarg(body, "init")) {
    diag_error(c->diag, body->span, "%s: where= and init= are not supported", red);
    return false;
  }
  cs->nred = reduce_axes(c, body, &cs->axes);
  if (cs->nred < 0) return false;
  cs->value_ast = elab_posarg(body, 0);
  if (!cs->value_ast || elab_num_posargs(body) > 2) {
    diag_error(c->diag, body->span, "%s expects a value and axis=", red);
    return false;
  }
  return true;
}

/* Shape, lambda (one parameter per dimension), name=, dtype=, then the formula. */
static bool check_compute_args(ElabCtx *c, TeCtx *t, const Ast *call, ComputeSpec *cs) {
  static const char *const kws[] = {"shape", "fcompute", "name", "dtype", "tag", "attrs", NULL};
  if (!elab_check_kwargs(c, call, kws)) return false;
  bool ok = true;
  cs->name = str_kwarg(c, call, "name", &ok);
  if (!ok) return false;
  const Ast *shape = elab_posarg(call, 0), *fn = elab_posarg(call, 1);
  if (!shape) shape = elab_kwarg(call, "shape");
  if (!fn) fn = elab_kwarg(call, "fcompute");
  if (!shape || !fn || elab_num_posargs(call) > 2) {
    diag_error(c->diag, call->span, "te.compute expects a shape and a lambda: te.compute((m, n), lambda i, j: ...)");
    return false;
  }
  if (fn->kind != AST_LAMBDA) {
    diag_error(c->diag, fn->span, "te.compute expects a lambda as its second argument");
    return false;
  }
  cs->fn = fn;
  cs->force = dt_void;
  const Ast *at = elab_kwarg(call, "attrs");
  if (at && (at->kind != AST_DICT || !(cs->attrs = elab_tir_attr_value(c, at)))) {
    if (at->kind != AST_DICT) diag_error(c->diag, at->span, "attrs= expects a dict: attrs={\"schedule_rule\": \"...\"}");
    return false;
  }
  const Ast *dta = elab_kwarg(call, "dtype");
  if (dta && !elab_dtype_arg(c, dta, &cs->force)) return false;
  cs->ext = elab_shape(c, shape, &cs->ndim, dt_int32);
  if (!cs->ext) return false;
  int ndim = cs->ndim;
  if (fn->list.len != ndim) {
    diag_error(c->diag, fn->span, "the lambda takes %d argument%s but the shape has %d dimension%s",
               fn->list.len, fn->list.len == 1 ? "" : "s", ndim, ndim == 1 ? "" : "s");
    return false;
  }
  if (!check_compute_reduction(c, cs)) return false;
  return check_formula(c, t, cs->value_ast, cs->axes, cs->nred);
}

/* Loops and block iters: spatial (lambda params), then reduce axes; each iter
 * is defined in the current scope under its parameter / axis name.  False on
 * a duplicate lambda parameter. */
static bool build_compute_iters(ElabCtx *c, ComputeSpec *cs) {
  IrHeap *h = c->h;
  const Ast *fn = cs->fn;
  int ndim = cs->ndim, n = cs->n = cs->ndim + cs->nred;
  TeAxis **axes = cs->axes;
  TirVar **loops = cs->loops = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *loops);
  TirIterVar *iters = cs->iters = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *iters);
  TirExpr **mins = cs->mins = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *mins);
  TirExpr **exts = cs->exts = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *exts);
  for (int i = 0; i < n; i++) {
    const char *ln = i < ndim ? fn->list.items[i]->name : axes[i - ndim]->name;
    DType it = i < ndim ? cs->ext[i]->dtype : axes[i - ndim]->extent->dtype;
    mins[i] = i < ndim ? tir_int(h, it, 0) : axes[i - ndim]->min;
    exts[i] = i < ndim ? cs->ext[i] : axes[i - ndim]->extent;
    loops[i] = tir_var(h, ln, it);
    char *vn = xasprintf("v_%s", ln);
    TirVar *iv = tir_var(h, vn, it);
    free(vn);
    iters[i] = (TirIterVar){iv, {mins[i], exts[i]}, i < ndim ? TIR_ITER_SPATIAL : TIR_ITER_REDUCE};
    if (i < ndim) {
      for (int j = 0; j < i; j++)
        if (!strcmp(fn->list.items[j]->name, ln)) {
          diag_error(c->diag, fn->list.items[i]->span, "duplicate lambda parameter '%s'", ln);
          return false;
        }
      elab_define(c, ln, SYM_TIR_VAR, iv, fn->list.items[i]->span);
    } else {
      elab_define(c, axes[i - ndim]->var_name, SYM_TIR_VAR, iv, axes[i - ndim]->span);
    }
  }
  return true;
}

/* The formula over the block iters (in a scope of their own), cast to dtype=
 * when given; NULL on error. */
static TirExpr *compute_value(ElabCtx *c, ComputeSpec *cs) {
  elab_push_scope(c);
  if (!build_compute_iters(c, cs)) {
    elab_pop_scope(c);
    return NULL;
  }
  TirExpr *value;
  if (!dt_is_void(cs->force)) {
    TirVal tv = elab_tir_val(c, cs->value_ast);
    value = tv.e ? elab_tir_adopt(c, tv, cs->force) : NULL;
    if (tv.e && !value && !tv.lit) value = tir_cast(c->h, cs->force, tv.e);
  } else {
    value = elab_tir_expr(c, cs->value_ast);
  }
  elab_pop_scope(c);
  return value;
}

/* The block storing value into buf (with an init for reductions) inside its
 * loop nest, appended to the function's statements. */
static void build_compute_nest(ElabCtx *c, TeCtx *t, const ComputeSpec *cs, TirBuffer *buf,
                               TirExpr *value, const char *block_name, const Ast *call) {
  IrHeap *h = c->h;
  int ndim = cs->ndim, n = cs->n;
  DType dt = value->dtype;
  const char *red = cs->red;
  TirExpr **idx = arena_alloc(&c->scratch, (size_t)(ndim + 1) * sizeof *idx);
  for (int i = 0; i < ndim; i++) idx[i] = var_ref(c, cs->iters[i].var);
  TirBlock blk;
  memset(&blk, 0, sizeof blk);
  blk.name = block_name;
  blk.iters = cs->iters;
  blk.niters = n;
  blk.annotations = cs->attrs;
  if (red) {
    blk.init = tir_store(h, buf, reduce_identity(h, red, dt), idx, ndim);
    TirExpr *cur = tir_load(h, buf, idx, ndim);
    TirExpr *upd = !strcmp(red, "te.sum") ? tir_binary(h, TIR_ADD, cur, value)
                   : !strcmp(red, "te.max") ? tir_binary(h, TIR_MAX, cur, value)
                                            : tir_binary(h, TIR_MIN, cur, value);
    blk.body = tir_store(h, buf, upd, idx, ndim);
  } else {
    blk.body = tir_store(h, buf, value, idx, ndim);
  }
  blk.init = blk.init ? tir_stmt_with_span(h, blk.init, call->span) : NULL;
  blk.body = tir_stmt_with_span(h, blk.body, call->span);
  tir_infer_access_regions(h, &blk, &blk.reads, &blk.nreads, &blk.writes, &blk.nwrites);
  TirStmt *bs = tir_stmt_with_span(h, tir_block(h, &blk), call->span);
  TirExpr **vals = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *vals);
  for (int i = 0; i < n; i++) vals[i] = var_ref(c, cs->loops[i]);
  TirStmt *s = tir_block_realize(h, vals, n, NULL, bs);
  for (int i = n - 1; i >= 0; i--)
    s = tir_stmt_with_span(
        h, tir_for(h, cs->loops[i], cs->mins[i], cs->exts[i], TIR_FOR_SERIAL, NULL, NULL, s),
        call->span);
  t->stmts = elab_grow(c, t->stmts, t->nstmts, &t->capstmts, sizeof *t->stmts);
  t->stmts[t->nstmts++] = s;
}

/* Y = te.compute(shape, lambda i, j: formula, name="Y", dtype=?) */
static void compute_stmt(ElabCtx *c, TeCtx *t, const Ast *target, const Ast *call) {
  ComputeSpec cs;
  memset(&cs, 0, sizeof cs);
  if (!check_compute_args(c, t, call, &cs)) return;
  TirExpr *value = compute_value(c, &cs);
  if (!value) return;
  if (dt_is_void(value->dtype) || dt_is_handle(value->dtype)) {
    diag_error(c->diag, cs.value_ast->span, "the formula of a te.compute must be a number");
    return;
  }
  const char *tensor_name = cs.name ? cs.name : target->name;
  const char *block_name = cs.name ? cs.name : "compute";
  TirBuffer *buf = tir_buffer(c->h, tensor_name, value->dtype, cs.ext, cs.ndim, NULL);
  buf->span = target->span;
  build_compute_nest(c, t, &cs, buf, value, block_name, call);

  TeTensor *tt = arena_alloc(&c->scratch, sizeof *tt);
  tt->var_name = target->name;
  tt->buf = buf;
  tt->span = target->span;
  t->tensors = elab_grow(c, t->tensors, t->ntensors, &t->captensors, sizeof *t->tensors);
  t->tensors[t->ntensors++] = tt;
  elab_define(c, target->name, SYM_BUFFER, buf, target->span);
}

/* A: te.placeholder((m, n), "float32", name=?) */
static TeTensor *placeholder(ElabCtx *c, const Ast *p) {
  const Ast *ann = p->a;
  if (p->b) {
    diag_error(c->diag, p->b->span, "te.prim_func parameters cannot have default values");
    return NULL;
  }
  const char *cn = ann ? canon_call(c, ann) : NULL;
  if (!cn || strcmp(cn, "te.placeholder")) {
    diag_error(c->diag, ann ? ann->span : p->span,
               "parameter '%s' of a te.prim_func must be annotated te.placeholder(shape, dtype)", p->name);
    return NULL;
  }
  static const char *const kws[] = {"shape", "dtype", "name", NULL};
  if (!elab_check_kwargs(c, ann, kws)) return NULL;
  const Ast *shape = elab_posarg(ann, 0), *dta = elab_posarg(ann, 1);
  if (!shape) shape = elab_kwarg(ann, "shape");
  if (!dta) dta = elab_kwarg(ann, "dtype");
  if (!shape || elab_num_posargs(ann) > 2) {
    diag_error(c->diag, ann->span, "te.placeholder expects a shape and an optional dtype");
    return NULL;
  }
  DType dt = dt_float32;
  if (dta && !elab_dtype_arg(c, dta, &dt)) return NULL;
  int ndim = 0;
  TirExpr **ext = elab_shape(c, shape, &ndim, dt_int32);
  if (!ext) return NULL;
  TirBuffer *buf = tir_buffer(c->h, p->name, dt, ext, ndim, NULL);
  buf->span = p->span;
  TeTensor *tt = arena_alloc(&c->scratch, sizeof *tt);
  tt->var_name = p->name;
  tt->buf = buf;
  tt->is_placeholder = true;
  tt->span = p->span;
  elab_define(c, p->name, SYM_BUFFER, buf, p->span);
  return tt;
}

/* `n = T.int32()` / `m, n = T.int64(), T.int64()`: size vars usable in shapes. */
static bool size_decl(ElabCtx *c, const Ast *st) {
  if (st->kind != AST_ASSIGN || st->list.len != 1 || !st->a) return false;
  const Ast *tg = st->list.items[0], *v = st->a;
  int n = tg->kind == AST_TUPLE ? tg->list.len : 1;
  if (tg->kind == AST_TUPLE && (v->kind != AST_TUPLE || v->list.len != n)) return false;
  for (int i = 0; i < n; i++) {
    const Ast *ti = tg->kind == AST_TUPLE ? tg->list.items[i] : tg;
    const Ast *vi = tg->kind == AST_TUPLE ? v->list.items[i] : v;
    const char *cn = canon_call(c, vi);
    DType t;
    if (ti->kind != AST_NAME || !cn || strncmp(cn, "T.", 2) || !dt_parse(cn + 2, &t) ||
        !dt_is_integer(t) || vi->list.len != 0)
      return false;
  }
  for (int i = 0; i < n; i++) {
    const Ast *ti = tg->kind == AST_TUPLE ? tg->list.items[i] : tg;
    const Ast *vi = tg->kind == AST_TUPLE ? v->list.items[i] : v;
    DType t;
    dt_parse(canon_call(c, vi) + 2, &t);
    TirVar *var = tir_var(c->h, ti->name, t);
    var->is_size_var = true;
    var->span = ti->span;
    elab_define(c, ti->name, SYM_TIR_VAR, var, ti->span);
  }
  return true;
}

/* return C / return C, D / return (C, D) */
static bool return_stmt(ElabCtx *c, TeCtx *t, const Ast *st, PtrVec *outs) {
  const Ast *v = st->a;
  if (!v) {
    diag_error(c->diag, st->span, "a te.prim_func must return the tensor(s) it computes");
    return false;
  }
  int n = v->kind == AST_TUPLE ? v->list.len : 1;
  for (int i = 0; i < n; i++) {
    const Ast *e = v->kind == AST_TUPLE ? v->list.items[i] : v;
    Sym *s = e->kind == AST_NAME ? elab_lookup(c, e->name) : NULL;
    TeTensor *tt = s && s->kind == SYM_BUFFER ? find_tensor(t, s->ptr) : NULL;
    if (!tt) {
      if (e->kind == AST_NAME && !s) elab_undefined(c, e);
      else diag_error(c->diag, e->span, "a te.prim_func returns tensors computed with te.compute");
      return false;
    }
    if (tt->is_placeholder) {
      diag_error(c->diag, e->span, "'%s' is a placeholder (an input); return computed tensors", e->name);
      return false;
    }
    if (tt->returned) {
      diag_error(c->diag, e->span, "tensor '%s' is returned twice", e->name);
      return false;
    }
    tt->returned = true;
    pv_push(outs, tt);
  }
  return true;
}

TirFunc *elab_te_func(ElabCtx *c, const Ast *def) {
  IrHeap *h = c->h;
  TeCtx t;
  memset(&t, 0, sizeof t);
  int nerr0 = c->diag->nerr;
  elab_push_scope(c);
  PtrVec outs = {0};
  /* size vars first: placeholders may use them */
  int first = 0;
  while (first < def->body.len && def->body.items[first]->kind == AST_EXPR_STMT &&
         def->body.items[first]->a->kind == AST_STR)
    first++;
  while (first < def->body.len && size_decl(c, def->body.items[first])) first++;
  for (int i = 0; i < def->list.len; i++) {
    TeTensor *tt = placeholder(c, def->list.items[i]);
    if (!tt) continue;
    t.tensors = elab_grow(c, t.tensors, t.ntensors, &t.captensors, sizeof *t.tensors);
    t.tensors[t.ntensors++] = tt;
  }
  bool returned = false;
  for (int i = first; i < def->body.len && c->diag->nerr == nerr0; i++) {
    const Ast *st = def->body.items[i];
    if (returned) {
      diag_error(c->diag, st->span, "return must be the last statement of a te.prim_func");
      break;
    }
    switch (st->kind) {
    case AST_ASSIGN: {
      const Ast *tg = st->list.len == 1 ? st->list.items[0] : NULL;
      const char *cn = canon_call(c, st->a);
      if (!tg || tg->kind != AST_NAME || st->b || !cn) {
        diag_error(c->diag, st->span, "expected `X = te.compute(...)` or `k = te.reduce_axis(...)`");
        break;
      }
      if (!strcmp(cn, "te.compute")) compute_stmt(c, &t, tg, st->a);
      else if (!strcmp(cn, "te.reduce_axis")) reduce_axis_stmt(c, tg, st->a);
      else if (!strcmp(cn, "te.placeholder"))
        diag_error(c->diag, st->a->span, "te.placeholder declares a parameter: write it as a parameter annotation");
      else if (!strncmp(cn, "te.", 3))
        diag_error(c->diag, st->a->a->span, "unknown te builtin '%s'", cn);
      else
        diag_error(c->diag, st->span, "expected `X = te.compute(...)` or `k = te.reduce_axis(...)`");
      break;
    }
    case AST_RETURN:
      return_stmt(c, &t, st, &outs);
      returned = true;
      break;
    case AST_PASS:
    case AST_ERROR:
      break;
    case AST_EXPR_STMT:
      if (st->a->kind == AST_STR) break;
      /* fallthrough */
    default:
      diag_error(c->diag, st->span, "only te.compute / te.reduce_axis bindings and return may appear in a te.prim_func");
      break;
    }
  }
  if (c->diag->nerr == nerr0 && !returned)
    diag_error(c->diag, def->span, "te.prim_func '%s' must return the tensor(s) it computes", def->name);
  TirFunc *f = NULL;
  if (c->diag->nerr == nerr0) {
    int nin = 0;
    for (int i = 0; i < t.ntensors; i++) nin += t.tensors[i]->is_placeholder;
    int np = nin + outs.len;
    TirVar **params = arena_alloc(&c->scratch, (size_t)(np + 1) * sizeof *params);
    TirBuffer **bmap = arena_alloc(&c->scratch, (size_t)(np + 1) * sizeof *bmap);
    TirBuffer **allocs = arena_alloc(&c->scratch, (size_t)(t.ntensors + 1) * sizeof *allocs);
    int k = 0, na = 0;
    for (int i = 0; i < t.ntensors; i++)
      if (t.tensors[i]->is_placeholder) bmap[k++] = t.tensors[i]->buf;
    for (int i = 0; i < outs.len; i++) bmap[k++] = ((TeTensor *)outs.items[i])->buf;
    for (int i = 0; i < t.ntensors; i++)
      if (!t.tensors[i]->is_placeholder && !t.tensors[i]->returned) allocs[na++] = t.tensors[i]->buf;
    for (int i = 0; i < np; i++) {
      char *hn = xasprintf("%s_handle", bmap[i]->name);
      params[i] = tir_var(h, hn, dt_handle);
      params[i]->span = bmap[i]->span;
      free(hn);
    }
    TirBlock root;
    memset(&root, 0, sizeof root);
    root.name = "root";
    root.allocs = allocs;
    root.nallocs = na;
    root.body = tir_seq(h, t.stmts, t.nstmts);
    TirStmt *rb = tir_stmt_with_span(h, tir_block(h, &root), def->span);
    TirStmt *body = tir_stmt_with_span(h, tir_block_realize(h, NULL, 0, NULL, rb), def->span);
    IrValue *attrs = irv_dict_set(h, NULL, "global_symbol", irv_str(h, def->name));
    attrs = irv_dict_set(h, attrs, "tir.noalias", irv_bool(h, true));
    f = tir_func(h, params, bmap, np, body, attrs);
    f->buffer_param_sugar = true;
    f->span = def->span;
  }
  pv_free(&outs);
  elab_pop_scope(c);
  return f;
}
