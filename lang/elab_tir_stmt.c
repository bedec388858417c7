/* elab_tir_stmt.c - T.prim_func bodies: parameters and buffers, loops, blocks
 * (iters, regions, init, allocations), stores, lets and control flow.
 * Follows TVM v0.23's parser (reference/tir_surface.md section 2): the implicit
 * root block, auto-completed read/write regions, T.serial(start, stop)
 * meaning [start, stop), and the checks that give errors in user terms. */
#include "ir/access_region.h"
#include "lang/elab_internal.h"
#include "ir/arith.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Growable arrays in the scratch arena (freed with it, so error paths cannot leak). */
#define AVEC(T) struct { T *v; int n, cap; }
#define APUSH(c, vec, x)                                                                     \
  do {                                                                                       \
    (vec).v = elab_grow((c), (vec).v, (vec).n, &(vec).cap, sizeof *(vec).v);                 \
    (vec).v[(vec).n++] = (x);                                                                \
  } while (0)

/* A variable with a known range: a loop var or a block iter. */
typedef struct RangeInfo {
  TirVar *var;
  TirExpr *min, *extent;
  bool is_loop;  /* loop var (T.axis.remap may bind to it) rather than a block iter */
} RangeInfo;

/* A block under construction. */
typedef struct BlockBuild {
  struct BlockBuild *parent;
  const char *name;
  bool is_root;                      /* the function level (implicit root block) */
  AVEC(TirIterVar) iters;
  AVEC(TirExpr *) values;            /* bindings, one per iter */
  AVEC(Span) binding_spans;          /* where each binding was written */
  TirExpr *pred;                     /* T.where or NULL */
  bool has_reads, has_writes;
  AVEC(TirBufferRegion) reads;
  AVEC(TirBufferRegion) writes;
  AVEC(TirBuffer *) allocs;
  AVEC(TirMatchBuffer) matches;
  IrValue *annotations;
  TirStmt *init;
} BlockBuild;

/* Per-function state (ElabCtx.tir). */
typedef struct TirCtx {
  AVEC(TirVar *) params;
  AVEC(TirBuffer *) bufmap;
  BlockBuild root;              /* function level */
  BlockBuild *cur;              /* innermost block being built */
  AVEC(RangeInfo) ranges;       /* loop vars and block iters in scope */
  AVEC(const Ast *) prescanned; /* size-var declarations already handled */
  IrValue *attrs;
  bool saw_block;
  bool buffer_sugar;
  DType ret_type;
} TirCtx;

static TirCtx *tctx(ElabCtx *c) { return c->tir; }

static const char *dts(DType t, char *buf) { return dt_str(t, buf); }

static TirStmt *st_at(TirStmt *s, Span sp) {
  s->span = sp;
  return s;
}

static TirStmt *eval0(ElabCtx *c, Span sp) {
  TirExpr *z = tir_i32(c->h, 0);
  z->span = sp;
  return st_at(tir_evaluate(c->h, z), sp);
}

static const char *canon_call(ElabCtx *c, const Ast *e) {
  return e && e->kind == AST_CALL ? elab_canonical_name(c, e->a) : NULL;
}

static bool is_tir_binding(const Sym *s) {
  return s && (s->kind == SYM_TIR_VAR || s->kind == SYM_BUFFER || s->kind == SYM_HANDLE);
}

/* A boolean condition (if, while, assert, T.where). */
static TirExpr *cond_expr(ElabCtx *c, const Ast *e, const char *what) {
  TirVal v = elab_tir_val(c, e);
  if (!v.e) return NULL;
  if (dt_is_bool(v.e->dtype)) return v.e;
  char b[DT_STR_MAX];
  diag_error(c->diag, e->span, "%s must be a boolean, got '%s'", what, dts(v.e->dtype, b));
  return NULL;
}

/* ------------------------------------------------------------- buffers */

enum { BA_SHAPE, BA_DTYPE, BA_DATA, BA_STRIDES, BA_ELEM_OFFSET, BA_SCOPE, BA_ALIGN,
       BA_OFFSET_FACTOR, BA_BUFFER_TYPE, BA_AXIS_SEPARATORS, BA_N };
static const char *const buffer_kw[] = {"shape", "dtype", "data", "strides", "elem_offset",
                                        "scope", "align", "offset_factor", "buffer_type",
                                        "axis_separators", NULL};

/* Collects the buffer arguments of a call whose buffer arguments start at
 * positional index `first`. */
static bool buffer_slots(ElabCtx *c, const Ast *call, int first, const Ast *slot[BA_N]) {
  if (!elab_check_kwargs(c, call, buffer_kw)) return false;
  for (int i = 0; i < BA_N; i++) {
    const Ast *p = elab_posarg(call, first + i);
    const Ast *k = elab_kwarg(call, buffer_kw[i]);
    if (p && k) {
      diag_error(c->diag, k->span, "argument '%s' given twice", buffer_kw[i]);
      return false;
    }
    slot[i] = p ? p : k;
  }
  if (elab_num_posargs(call) > first + BA_N) {
    diag_error(c->diag, call->span, "too many arguments");
    return false;
  }
  return true;
}

static bool int_literal(ElabCtx *c, const Ast *e, const char *what, int64_t *out) {
  if (e->kind == AST_INT) {
    *out = e->ival;
    return true;
  }
  if (e->kind == AST_UNARY && e->op == OP_NEG && e->a->kind == AST_INT) {
    *out = -e->a->ival;
    return true;
  }
  diag_error(c->diag, e->span, "%s must be an integer literal", what);
  return false;
}

/* A buffer's strides: a string names a new variable of the index type, as
 * TVMScript's buffer declarations read `strides=("A_s0",)`. */
static TirExpr **strides_of(ElabCtx *c, const Ast *e, int *n, DType idx) {
  bool list = e->kind == AST_TUPLE || e->kind == AST_LIST;
  *n = list ? e->list.len : 1;
  const Ast *const *items = list ? (const Ast *const *)e->list.items : &e;
  TirExpr **out = arena_alloc(&c->scratch, (size_t)(*n + 1) * sizeof *out);
  for (int i = 0; i < *n; i++) {
    const Ast *d = items[i];
    if (d->kind == AST_STR) {
      TirVar *v = tir_var(c->h, d->str, idx);
      v->span = d->span;
      out[i] = tir_var_ref(c->h, v);
      out[i]->span = d->span;
      continue;
    }
    out[i] = elab_tir_int_expr(c, d, idx, "stride");
    if (!out[i]) return NULL;
  }
  return out;
}

static TirBuffer *make_buffer_of(ElabCtx *c, const char *name, const Ast *slot[BA_N], Span sp,
                                 const char *fname, const TirBufferRegion *src);

/* Builds a buffer named `name` from its argument slots. */
static TirBuffer *make_buffer(ElabCtx *c, const char *name, const Ast *slot[BA_N], Span sp,
                              const char *fname) {
  return make_buffer_of(c, name, slot, sp, fname, NULL);
}

/* As make_buffer; a match_buffer of region src without a shape takes the
 * region's extents and the source buffer's dtype, as TVMScript does. */
static TirBuffer *make_buffer_of(ElabCtx *c, const char *name, const Ast *slot[BA_N], Span sp,
                                 const char *fname, const TirBufferRegion *src) {
  IrHeap *h = c->h;
  if (!slot[BA_SHAPE] && !src) {
    diag_error(c->diag, sp, "%s needs a shape", fname);
    return NULL;
  }
  int ndim = src ? src->n : 0;
  TirExpr **shape = NULL;
  if (slot[BA_SHAPE]) {
    shape = elab_shape(c, slot[BA_SHAPE], &ndim, dt_int32);
    if (!shape) return NULL;
  } else {
    shape = arena_alloc(&c->scratch, (size_t)(ndim + 1) * sizeof *shape);
    for (int d = 0; d < ndim; d++) shape[d] = src->ranges[d].extent;
  }
  DType dt = src && !slot[BA_SHAPE] ? src->buffer->dtype : dt_float32;
  if (slot[BA_DTYPE] && !elab_dtype_arg(c, slot[BA_DTYPE], &dt)) return NULL;
  const char *scope = "global";
  if (slot[BA_SCOPE]) {
    if (slot[BA_SCOPE]->kind != AST_STR) {
      diag_error(c->diag, slot[BA_SCOPE]->span, "scope must be a string such as \"shared\"");
      return NULL;
    }
    scope = slot[BA_SCOPE]->str;
  }
  TirBuffer *b = tir_buffer(h, name, dt, shape, ndim, scope);
  b->span = sp;
  if (slot[BA_DATA]) {
    TirExpr *d = elab_tir_expr(c, slot[BA_DATA]);
    if (!d) return NULL;
    if (d->kind != TIR_VAR || !dt_is_handle(d->dtype)) {
      diag_error(c->diag, slot[BA_DATA]->span, "data must be a handle variable");
      return NULL;
    }
    b->data = d->var;
  }
  if (slot[BA_STRIDES]) {
    int ns;
    TirExpr **st = strides_of(c, slot[BA_STRIDES], &ns, ndim ? shape[0]->dtype : dt_int32);
    if (!st) return NULL;
    if (ns != ndim && ns != 0) {
      diag_error(c->diag, slot[BA_STRIDES]->span, "buffer '%s' has %d dimensions but %d strides",
                 name, ndim, ns);
      return NULL;
    }
    b->strides = ns ? ir_memdup(h, st, (size_t)ns * sizeof *st) : NULL;
    b->nstrides = ns;
  }
  if (slot[BA_ELEM_OFFSET]) {
    b->elem_offset = elab_tir_int_expr(c, slot[BA_ELEM_OFFSET], dt_int32, "elem_offset");
    if (!b->elem_offset) return NULL;
  }
  int64_t v;
  if (slot[BA_ALIGN]) {
    if (!int_literal(c, slot[BA_ALIGN], "align", &v)) return NULL;
    b->data_alignment = v > 0 ? (int)v : 0;
  }
  if (slot[BA_OFFSET_FACTOR]) {
    if (!int_literal(c, slot[BA_OFFSET_FACTOR], "offset_factor", &v)) return NULL;
    b->offset_factor = v > 0 ? (int)v : 0;
  }
  if (slot[BA_BUFFER_TYPE]) {
    const Ast *bt = slot[BA_BUFFER_TYPE];
    /* TVMScript spells it "auto"; tvm.tir.decl_buffer "auto_broadcast" */
    bool autob = bt->kind == AST_STR && (!strcmp(bt->str, "auto") || !strcmp(bt->str, "auto_broadcast"));
    if (bt->kind != AST_STR || (!autob && strcmp(bt->str, "default") && bt->str[0] != 0)) {
      diag_error(c->diag, bt->span, "buffer_type must be \"default\" or \"auto\"");
      return NULL;
    }
    b->auto_broadcast = autob;
  }
  if (slot[BA_AXIS_SEPARATORS]) {
    const Ast *ax = slot[BA_AXIS_SEPARATORS];
    if (ax->kind != AST_LIST && ax->kind != AST_TUPLE) {
      diag_error(c->diag, ax->span, "axis_separators must be a list of integers");
      return NULL;
    }
    int *seps = ir_alloc(h, (size_t)(ax->list.len + 1) * sizeof *seps);
    for (int i = 0; i < ax->list.len; i++) {
      if (!int_literal(c, ax->list.items[i], "axis separator", &v)) return NULL;
      seps[i] = (int)v;
    }
    b->axis_separators = ax->list.len ? seps : NULL;
    b->naxis_separators = ax->list.len;
  }
  return b;
}

static TirBuffer *buffer_from_call(ElabCtx *c, const Ast *call, int first, const char *name,
                                   const char *fname) {
  const Ast *slot[BA_N];
  if (!buffer_slots(c, call, first, slot)) return NULL;
  return make_buffer(c, name, slot, call->span, fname);
}

/* ------------------------------------------------------------- regions */

/* Brings two integer bounds to one dtype (literals retyped, narrower cast). */
static bool unify_ints(ElabCtx *c, TirVal *a, TirVal *b, DType dflt) {
  TirVal *vs[2] = {a, b};
  bool have_typed = false;
  DType t = dflt;
  for (int i = 0; i < 2; i++) {
    TirVal *v = vs[i];
    if (!v->e) continue;
    bool isint = v->lit ? v->e->kind == TIR_INT && !dt_is_bool(v->e->dtype)
                        : dt_is_integer(v->e->dtype) && v->e->dtype.lanes == 1;
    if (!isint) {
      char buf[DT_STR_MAX];
      diag_error(c->diag, v->e->span, "expected an integer, got '%s'", dts(v->e->dtype, buf));
      return false;
    }
    if (!v->lit && (!have_typed || v->e->dtype.bits > t.bits)) {
      t = v->e->dtype;
      have_typed = true;
    }
  }
  for (int i = 0; i < 2; i++)
    if (vs[i]->e && vs[i]->lit && vs[i]->e->dtype.bits > t.bits) t = dt_int64;
  for (int i = 0; i < 2; i++) {
    TirVal *v = vs[i];
    if (!v->e) continue;
    if (v->lit) {
      Span sp = v->e->span;
      v->e = tir_int(c->h, t, v->e->ival);
      v->e->span = sp;
    } else if (!dt_eq(v->e->dtype, t)) {
      v->e = elab_tir_int_cast(c->h, v->e, t);
    }
    v->lit = false;
  }
  return true;
}

/* `A[vi, 0:16]`, `A[()]` or a bare `A` (the whole buffer). */
static bool region(ElabCtx *c, const Ast *e, TirBufferRegion *out) {
  IrHeap *h = c->h;
  const Ast *base = e->kind == AST_SUBSCRIPT ? e->a : e;
  Sym *s = base->kind == AST_NAME ? elab_lookup(c, base->name) : NULL;
  if (base->kind == AST_NAME && !s) {
    elab_undefined(c, base);
    return false;
  }
  if (!s || s->kind != SYM_BUFFER) {
    diag_error(c->diag, e->span, "expected a buffer region such as A[vi, 0:16]");
    return false;
  }
  TirBuffer *buf = s->ptr;
  out->buffer = buf;
  out->n = buf->ndim;
  /* regions are copied shallowly into blocks: the ranges must live in the heap */
  out->ranges = ir_alloc(h, (size_t)(buf->ndim + 1) * sizeof *out->ranges);
  if (e->kind != AST_SUBSCRIPT) {
    for (int d = 0; d < buf->ndim; d++) {
      out->ranges[d].min = tir_int(h, buf->shape[d]->dtype, 0);
      out->ranges[d].extent = buf->shape[d];
    }
    return true;
  }
  const Ast *const *items;
  int n = elab_subscript_items(c, e, buf, &items);
  if (n < 0) return false;
  for (int d = 0; d < n; d++) {
    const Ast *it = items[d];
    if (it->kind == AST_SLICE) {
      if (it->c) {
        diag_error(c->diag, it->c->span, "slices with a step are not supported in regions");
        return false;
      }
      TirVal lo = it->a ? elab_tir_val(c, it->a) : (TirVal){tir_i32(h, 0), true};
      TirVal hi = it->b ? elab_tir_val(c, it->b) : (TirVal){buf->shape[d], false};
      if (!lo.e || !hi.e) return false;
      if (!unify_ints(c, &lo, &hi, dt_int32)) return false;
      out->ranges[d].min = lo.e;
      out->ranges[d].extent = elab_tir_sub_fold(h, hi.e, lo.e);
    } else {
      TirExpr *x = elab_tir_int_expr(c, it, dt_int32, "buffer index");
      if (!x) return false;
      out->ranges[d].min = x;
      out->ranges[d].extent = tir_int(h, x->dtype, 1);
    }
  }
  return true;
}

/* ------------------------------------------------------------- helpers */

static BlockBuild *need_block(ElabCtx *c, BlockBuild *hdr, const char *what, Span sp) {
  TirCtx *t = tctx(c);
  if (hdr && !hdr->is_root) return hdr;
  if (t->cur && !t->cur->is_root)
    diag_error(c->diag, sp, "%s must appear directly in the body of block '%s'", what,
               t->cur->name);
  else
    diag_error(c->diag, sp, "%s used outside a block", what);
  return NULL;
}

static void merge_dict(ElabCtx *c, IrValue **dst, const IrValue *src) {
  for (int i = 0; i < src->n; i++) *dst = irv_dict_set(c->h, *dst, src->keys[i], src->items[i]);
}

static IrValue *dict_arg(ElabCtx *c, const Ast *call, const char *fname) {
  if (elab_num_posargs(call) != 1 || elab_posarg(call, 0)->kind != AST_DICT) {
    diag_error(c->diag, call->span, "%s takes one dict argument, e.g. %s({\"key\": value})", fname,
               fname);
    return NULL;
  }
  return elab_tir_attr_value(c, elab_posarg(call, 0));
}

/* `n = T.int32()` (a size var), `a = T.bool()`, `p = T.handle("float32")`: a
 * free variable, as TVMScript declares one. */
static bool is_sizevar_decl(ElabCtx *c, const Ast *value, DType *t) {
  const char *cn = canon_call(c, value);
  if (cn && !strcmp(cn, "T.handle") && value->kind == AST_CALL && !elab_kwarg(value, "is_size_var")) {
    *t = dt_handle;
    return true;
  }
  return cn && !strncmp(cn, "T.", 2) && dt_parse(cn + 2, t) && !dt_is_void(*t) &&
         !dt_is_handle(*t) && t->lanes == 1 && elab_num_posargs(value) == 0;
}

static void declare_size_var(ElabCtx *c, const Ast *target, const Ast *value, DType t) {
  Sym *s = elab_lookup(c, target->name);
  if (is_tir_binding(s)) {
    diag_error(c->diag, target->span, "cannot reassign variable '%s' in TIR", target->name);
    return;
  }
  TirVar *v = tir_var(c->h, target->name, t);
  if (dt_is_handle(t) && !elab_ptr_type(c, value, &v->ptr_elem, &v->ptr_scope)) return;
  v->is_size_var = dt_is_integer(t);
  v->span = target->span;
  elab_define(c, target->name, SYM_TIR_VAR, v, target->span);
}

/* `n = T.int32()` / `m, n = T.int64(), T.int64()`; true if st is one. */
static bool size_var_stmt(ElabCtx *c, const Ast *st) {
  if (st->kind != AST_ASSIGN || st->list.len != 1 || !st->a) return false;
  const Ast *tg = st->list.items[0];
  DType t;
  if (tg->kind == AST_NAME) {
    if (!is_sizevar_decl(c, st->a, &t)) return false;
    declare_size_var(c, tg, st->a, t);
    return true;
  }
  if (tg->kind == AST_TUPLE && st->a->kind == AST_TUPLE && tg->list.len == st->a->list.len) {
    for (int i = 0; i < tg->list.len; i++)
      if (tg->list.items[i]->kind != AST_NAME || !is_sizevar_decl(c, st->a->list.items[i], &t))
        return false;
    for (int i = 0; i < tg->list.len; i++) {
      is_sizevar_decl(c, st->a->list.items[i], &t);
      declare_size_var(c, tg->list.items[i], st->a->list.items[i], t);
    }
    return true;
  }
  return false;
}

/* ----------------------------------------------------------- statements */

static TirStmt *stmts(ElabCtx *c, const AstList *l, int from, BlockBuild *hdr);

static TirStmt *body_of(ElabCtx *c, const AstList *l, BlockBuild *hdr, Span sp) {
  elab_push_scope(c);
  TirStmt *s = stmts(c, l, 0, hdr);
  elab_pop_scope(c);
  return s ? s : eval0(c, sp);
}

static TirStmt *store(ElabCtx *c, const Ast *target, TirVal v, const Ast *value_ast, Span sp) {
  TirVal lv = elab_tir_val(c, target);
  if (!lv.e || !v.e) return NULL;
  TVS_ASSERT(lv.e->kind == TIR_LOAD);
  TirBuffer *buf = lv.e->load.buf;
  int nerr = c->diag->nerr;
  /* a vector index (T.Ramp) stores a vector of the buffer's element type */
  TirExpr *x = elab_tir_adopt(c, v, lv.e->dtype);
  /* TVM's BufferStore casts a value of another type with the same lanes
   * (float32 into a float16 buffer, an int into a float one) */
  if (!x && c->diag->nerr == nerr && v.e->dtype.lanes == lv.e->dtype.lanes)
    x = elab_tir_int_cast(c->h, v.e, lv.e->dtype);
  if (!x) {
    if (c->diag->nerr == nerr) {
      char b1[DT_STR_MAX], b2[DT_STR_MAX];
      if (v.e->dtype.lanes == 1 && lv.e->dtype.lanes > 1)
        diag_error(c->diag, value_ast->span,
                   "cannot store a scalar of type '%s' into %d lanes of buffer '%s'; "
                   "broadcast it, e.g. T.Broadcast(v, %d)",
                   dts(v.e->dtype, b1), lv.e->dtype.lanes, buf->name, lv.e->dtype.lanes);
      else
        diag_error(c->diag, value_ast->span,
                   "cannot store a value of type '%s' into buffer '%s' of type '%s'",
                   dts(v.e->dtype, b1), buf->name, dts(lv.e->dtype, b2));
    }
    return NULL;
  }
  return st_at(tir_store(c->h, buf, x, lv.e->load.idx, lv.e->load.n), sp);
}

static bool check_store_target(ElabCtx *c, const Ast *tg) {
  if (tg->a->kind != AST_NAME) {
    diag_error(c->diag, tg->span, "only buffers can be assigned to by index");
    return false;
  }
  /* a slice index stores a vector (T.Ramp), as TVMScript's buffer_store */
  return true;
}

/* After a failed iter declaration, poison its target names so that later
 * uses do not cascade into "undefined name" errors. */
static void poison_targets(ElabCtx *c, const Ast *target) {
  int n = target->kind == AST_TUPLE ? target->list.len : 1;
  for (int i = 0; i < n; i++) {
    const Ast *t = target->kind == AST_TUPLE ? target->list.items[i] : target;
    if (t->kind == AST_NAME && !elab_lookup(c, t->name)) elab_poison(c, t->name);
  }
}

/* vi = T.axis.spatial(dom, binding) and friends. */
static void axis_decl(ElabCtx *c, BlockBuild *b, const Ast *target, const Ast *call, const char *cn) {
  TirCtx *t = tctx(c);
  const char *k = cn + strlen("T.axis.");
  TirIterType type;
  if (!strcmp(k, "spatial") || !strcmp(k, "S")) type = TIR_ITER_SPATIAL;
  else if (!strcmp(k, "reduce") || !strcmp(k, "R")) type = TIR_ITER_REDUCE;
  else if (!strcmp(k, "scan")) type = TIR_ITER_SCAN;
  else if (!strcmp(k, "opaque")) type = TIR_ITER_OPAQUE;
  else {
    const char *hint = builtin_suggest(cn);
    if (hint)
      diag_error(c->diag, call->a->span, "unknown builtin '%s'; did you mean '%s'?", cn, hint);
    else
      diag_error(c->diag, call->a->span, "unknown builtin '%s'", cn);
    return;
  }
  static const char *const kw[] = {"dtype", NULL};
  if (!elab_check_kwargs(c, call, kw)) return;
  if (elab_num_posargs(call) != 2) {
    diag_error(c->diag, call->span, "%s takes a domain and a binding, e.g. %s(128, i)", cn, cn);
    return;
  }
  if (target->kind != AST_NAME) {
    diag_error(c->diag, target->span, "%s must be assigned to one name", cn);
    return;
  }
  const Ast *dom = elab_posarg(call, 0), *bind = elab_posarg(call, 1);
  TirVal lo = {NULL, false}, hi;
  if (dom->kind == AST_TUPLE || dom->kind == AST_LIST) {
    if (dom->list.len != 2) {
      diag_error(c->diag, dom->span, "an iter domain pair is (begin, end)");
      return;
    }
    lo = elab_tir_val(c, dom->list.items[0]);
    hi = elab_tir_val(c, dom->list.items[1]);
    if (!lo.e) return;
  } else {
    hi = elab_tir_val(c, dom);
  }
  TirVal bv = elab_tir_val(c, bind);
  if (!hi.e || !bv.e) return;
  /* dtype: explicit, else int64 if any part is int64, else int32 */
  DType it = dt_int32;
  const Ast *dk = elab_kwarg(call, "dtype");
  if (dk && !elab_dtype_arg(c, dk, &it)) return;
  TirVal *parts[3] = {&lo, &hi, &bv};
  if (!dk)
    for (int i = 0; i < 3; i++)
      if (parts[i]->e && (!parts[i]->lit || parts[i]->e->dtype.bits > 32) &&
          dt_is_integer(parts[i]->e->dtype) && parts[i]->e->dtype.bits > it.bits)
        it = parts[i]->e->dtype;
  for (int i = 0; i < 3; i++) {
    TirVal *p = parts[i];
    if (!p->e) continue;
    bool isint = p->lit ? p->e->kind == TIR_INT && !dt_is_bool(p->e->dtype) : dt_is_integer(p->e->dtype);
    if (!isint) {
      char buf[DT_STR_MAX];
      diag_error(c->diag, p->e->span, "%s of block iter '%s' must be an integer, got '%s'",
                 i == 2 ? "binding" : "domain", target->name, dts(p->e->dtype, buf));
      return;
    }
    if (p->lit) p->e = tir_int(c->h, it, p->e->ival);
    else p->e = elab_tir_int_cast(c->h, p->e, it);
  }
  for (int i = 0; i < b->iters.n; i++)
    if (!strcmp(b->iters.v[i].var->name, target->name)) {
      diag_error(c->diag, target->span, "block iter '%s' is declared twice in block '%s'",
                 target->name, b->name);
      return;
    }
  TirExpr *min = lo.e ? lo.e : tir_int(c->h, it, 0);
  TirExpr *ext = lo.e ? elab_tir_sub_fold(c->h, hi.e, lo.e) : hi.e;
  TirVar *v = tir_var(c->h, target->name, it);
  v->span = target->span;
  APUSH(c, b->iters, ((TirIterVar){v, {min, ext}, type}));
  APUSH(c, b->values, bv.e);
  APUSH(c, b->binding_spans, bind->span);
  APUSH(c, t->ranges, ((RangeInfo){v, min, ext, false}));
  elab_define(c, target->name, SYM_TIR_VAR, v, target->span);
}

static const RangeInfo *find_range(TirCtx *t, const TirVar *v) {
  for (int i = t->ranges.n - 1; i >= 0; i--)
    if (t->ranges.v[i].var == v) return &t->ranges.v[i];
  return NULL;
}

/* vi, vj, vk = T.axis.remap("SSR", [i, j, k]) */
static void axis_remap(ElabCtx *c, BlockBuild *b, const Ast *target, const Ast *call) {
  TirCtx *t = tctx(c);
  if (!elab_check_kwargs(c, call, NULL)) return;
  const Ast *kinds = elab_posarg(call, 0), *vars = elab_posarg(call, 1);
  if (elab_num_posargs(call) != 2 || kinds->kind != AST_STR ||
      (vars->kind != AST_LIST && vars->kind != AST_TUPLE)) {
    diag_error(c->diag, call->span,
               "T.axis.remap takes a kind string and a list of loop variables, e.g. "
               "T.axis.remap(\"SSR\", [i, j, k])");
    return;
  }
  int nt = target->kind == AST_TUPLE ? target->list.len : 1;
  const Ast *const *tg = target->kind == AST_TUPLE ? (const Ast *const *)target->list.items : &target;
  int nk = (int)strlen(kinds->str);
  if (nk != nt) {
    diag_error(c->diag, kinds->span,
               "T.axis.remap kind string \"%s\" has %d letter%s but %d iter variable%s %s declared",
               kinds->str, nk, nk == 1 ? "" : "s", nt, nt == 1 ? "" : "s", nt == 1 ? "is" : "are");
    return;
  }
  if (vars->list.len != nt) {
    diag_error(c->diag, vars->span, "T.axis.remap binds %d iter variable%s to %d loop variable%s",
               nt, nt == 1 ? "" : "s", vars->list.len, vars->list.len == 1 ? "" : "s");
    return;
  }
  for (int i = 0; i < nt; i++) {
    char k = kinds->str[i];
    if (k != 'S' && k != 'R') {
      diag_error(c->diag, kinds->span,
                 "unknown iter kind '%c' in T.axis.remap; use 'S' (spatial) or 'R' (reduce)", k);
      return;
    }
    if (tg[i]->kind != AST_NAME) {
      diag_error(c->diag, tg[i]->span, "T.axis.remap must be assigned to names");
      return;
    }
  }
  for (int i = 0; i < nt; i++) {
    const Ast *a = vars->list.items[i];
    const RangeInfo *r = NULL;
    if (a->kind == AST_NAME) {
      Sym *s = elab_lookup(c, a->name);
      if (!s) {
        elab_undefined(c, a);
        return;
      }
      if (s->kind == SYM_TIR_VAR) {
        r = find_range(t, s->ptr);
        if (r && !r->is_loop) r = NULL;
      }
    }
    if (!r) {
      diag_error(c->diag, a->span,
                 "T.axis.remap binds block iters to loop variables; '%s' is not a loop variable",
                 elab_span_text(c, a->span));
      return;
    }
    for (int j = 0; j < b->iters.n; j++)
      if (!strcmp(b->iters.v[j].var->name, tg[i]->name)) {
        diag_error(c->diag, tg[i]->span, "block iter '%s' is declared twice in block '%s'",
                   tg[i]->name, b->name);
        return;
      }
    TirVar *v = tir_var(c->h, tg[i]->name, r->var->dtype);
    v->span = tg[i]->span;
    TirExpr *bind = tir_var_ref(c->h, r->var);
    bind->span = a->span;
    TirIterType type = kinds->str[i] == 'S' ? TIR_ITER_SPATIAL : TIR_ITER_REDUCE;
    APUSH(c, b->iters, ((TirIterVar){v, {r->min, r->extent}, type}));
    APUSH(c, b->values, bind);
    APUSH(c, b->binding_spans, a->span);
    APUSH(c, t->ranges, ((RangeInfo){v, r->min, r->extent, false}));
  }
  /* defined after all bindings are read: `i, j = T.axis.remap("SS", [j, i])` */
  for (int i = 0; i < nt; i++)
    elab_define(c, tg[i]->name, SYM_TIR_VAR, b->iters.v[b->iters.n - nt + i].var, tg[i]->span);
}

static void regions_stmt(ElabCtx *c, BlockBuild *b, const Ast *call, bool writes) {
  const char *fname = writes ? "T.writes" : "T.reads";
  if (!elab_check_kwargs(c, call, NULL)) return;
  if (writes ? b->has_writes : b->has_reads) {
    diag_error(c->diag, call->span, "%s is given twice in block '%s'", fname, b->name);
    return;
  }
  int n = elab_num_posargs(call);
  const Ast *const *items = NULL;
  const Ast *first = elab_posarg(call, 0);
  if (n == 1 && (first->kind == AST_LIST || first->kind == AST_TUPLE)) {
    n = first->list.len;
    items = (const Ast *const *)first->list.items;
  }
  if (writes) b->has_writes = true;
  else b->has_reads = true;
  for (int i = 0; i < n; i++) {
    const Ast *e = items ? items[i] : elab_posarg(call, i);
    TirBufferRegion r;
    if (!region(c, e, &r)) continue;
    if (writes) APUSH(c, b->writes, r);
    else APUSH(c, b->reads, r);
  }
}

/* Function-level `A = T.match_buffer(a, shape, ...)`. */
static void func_match_buffer(ElabCtx *c, const Ast *target, const Ast *call) {
  TirCtx *t = tctx(c);
  const Ast *h = elab_posarg(call, 0);
  Sym *s = h && h->kind == AST_NAME ? elab_lookup(c, h->name) : NULL;
  if (!s || s->kind != SYM_HANDLE) {
    if (h && h->kind == AST_NAME && !s) elab_undefined(c, h);
    else
      diag_error(c->diag, h ? h->span : call->span,
                 "T.match_buffer at function level binds a T.handle parameter, e.g. "
                 "A = T.match_buffer(a, (128, 128))");
    return;
  }
  int idx = -1;
  for (int i = 0; i < t->params.n; i++)
    if (t->params.v[i] == s->ptr) idx = i;
  if (idx < 0) {
    diag_error(c->diag, h->span, "'%s' is not a parameter of this function", h->name);
    return;
  }
  if (t->bufmap.v[idx]) {
    diag_error(c->diag, h->span, "parameter '%s' is already bound to buffer '%s'", h->name,
               t->bufmap.v[idx]->name);
    return;
  }
  TirBuffer *b = buffer_from_call(c, call, 1, target->name, "T.match_buffer");
  if (!b) return;
  b->span = target->span;
  t->bufmap.v[idx] = b;
  elab_define(c, target->name, SYM_BUFFER, b, target->span);
}

/* Block-level `A = T.match_buffer(B[0:16, 0:16], (16, 16))`. */
static void block_match_buffer(ElabCtx *c, BlockBuild *b, const Ast *target, const Ast *call) {
  TirMatchBuffer m;
  const Ast *src = elab_posarg(call, 0);
  if (!src) {
    diag_error(c->diag, call->span, "T.match_buffer needs a source region");
    return;
  }
  if (!region(c, src, &m.source)) return;
  const Ast *slot[BA_N];
  if (!buffer_slots(c, call, 1, slot)) return;
  m.buffer = make_buffer_of(c, target->name, slot, call->span, "T.match_buffer", &m.source);
  if (!m.buffer) return;
  m.buffer->span = target->span;
  APUSH(c, b->matches, m);
  elab_define(c, target->name, SYM_BUFFER, m.buffer, target->span);
}

static TirStmt *let_stmt(ElabCtx *c, const Ast *st, const AstList *l, int i, BlockBuild *hdr) {
  const Ast *tg = st->list.items[0];
  Sym *s = elab_lookup(c, tg->name);
  if (is_tir_binding(s)) {
    diag_error(c->diag, tg->span, "cannot reassign variable '%s' in TIR", tg->name);
    return NULL;
  }
  TirVal v = elab_tir_val(c, st->a);
  if (!v.e) return NULL;
  TirExpr *value = v.e;
  DType elem = dt_void;
  const char *scope = NULL;
  int nerr0 = c->diag->nerr;
  bool is_ptr = st->b && elab_ptr_type(c, st->b, &elem, &scope);
  if (c->diag->nerr > nerr0) return NULL;
  if (is_ptr && !dt_is_handle(value->dtype)) {
    char b1[DT_STR_MAX];
    diag_error(c->diag, st->a->span, "cannot assign a value of type '%s' to pointer variable '%s'",
               dts(value->dtype, b1), tg->name);
    return NULL;
  }
  if (st->b && !is_ptr) {
    DType t;
    if (!elab_dtype_arg(c, st->b, &t)) return NULL;
    int nerr = c->diag->nerr;
    value = elab_tir_adopt(c, v, t);
    if (!value) {
      if (c->diag->nerr == nerr) {
        char b1[DT_STR_MAX], b2[DT_STR_MAX];
        diag_error(c->diag, st->a->span,
                   "cannot assign a value of type '%s' to variable '%s' of type '%s'",
                   dts(v.e->dtype, b1), tg->name, dts(t, b2));
      }
      return NULL;
    }
  }
  TirVar *var = tir_var(c->h, tg->name, value->dtype);
  var->span = tg->span;
  var->ptr_elem = elem;
  var->ptr_scope = scope;
  /* the rest of the statement list is the binding's scope: defined in the
   * list's own scope (which ends with the list), not a new one per binding,
   * so that 100,000 bindings in a row do not make lookups walk 100,000 scopes */
  elab_define(c, tg->name, SYM_TIR_VAR, var, tg->span);
  TirStmt *body = stmts(c, l, i + 1, hdr);
  return st_at(tir_let_stmt(c->h, var, value, body ? body : eval0(c, st->span)), st->span);
}

static TirStmt *decl_buffer_over(ElabCtx *c, const Ast *st, const Ast *call, TirBuffer *b,
                                 TirStmt *body);

/* `with T.decl_buffer(...) as B:` */
static TirStmt *decl_buffer_with(ElabCtx *c, const Ast *st, const Ast *call, const Ast *tg) {
  if (!tg || tg->kind != AST_NAME) {
    diag_error(c->diag, tg ? tg->span : call->span, "T.decl_buffer binds a single name");
    return NULL;
  }
  TirBuffer *b = buffer_from_call(c, call, 0, tg->name, "T.decl_buffer");
  if (!b) return NULL;
  b->span = tg->span;
  elab_define(c, tg->name, SYM_BUFFER, b, tg->span);
  return decl_buffer_over(c, st, call, b, body_of(c, &st->body, NULL, st->span));
}

static TirStmt *decl_buffer(ElabCtx *c, const Ast *st, const Ast *call, const AstList *l, int i,
                            BlockBuild *hdr) {
  const Ast *tg = st->list.items[0];
  TirBuffer *b = buffer_from_call(c, call, 0, tg->name, "T.decl_buffer");
  if (!b) return NULL;
  b->span = tg->span;
  elab_define(c, tg->name, SYM_BUFFER, b, tg->span);
  return decl_buffer_over(c, st, call, b, stmts(c, l, i + 1, hdr));
}

static TirStmt *decl_buffer_over(ElabCtx *c, const Ast *st, const Ast *call, TirBuffer *b,
                                 TirStmt *body) {
  TirStmt *decl = st_at(tir_decl_buffer(c->h, b, body ? body : eval0(c, st->span)), st->span);
  /* without data= the buffer owns new memory: Allocate + DeclBuffer, as in
   * TVMScript (and as LowerOpaqueBlock lowers an alloc_buffer) */
  if (elab_kwarg(call, "data") || elab_posarg(call, BA_DATA)) return decl;
  TirStmt *a = tir_allocate(c->h, b->data, b->dtype, b->shape, b->ndim, b->scope, decl);
  return st_at(a, st->span);
}

/* `Y = T.allocate([16384], "float32", "global")` (or T.allocate_const): an
 * allocation binding the data pointer Y over the rest of the statements. */
static TirStmt *allocate(ElabCtx *c, const Ast *st, const Ast *call, const char *cn, const AstList *l,
                         int i, BlockBuild *hdr) {
  TirStmt *a = elab_tir_alloc_head(c, call, cn, st->list.items[0]);
  if (!a) return NULL;
  TirStmt *body = stmts(c, l, i + 1, hdr);
  a->alloc.body = body ? body : eval0(c, st->span);
  return st_at(a, st->span);
}

/* `A_1 = T.Buffer((16384,), data=A.data)` in a body: a view of existing
 * memory (FlattenBuffer's flat parameters); no statement, like TVMScript. */
static void buffer_view(ElabCtx *c, const Ast *tg, const Ast *call) {
  if (is_tir_binding(elab_lookup(c, tg->name))) {
    diag_error(c->diag, tg->span, "cannot reassign variable '%s' in TIR", tg->name);
    return;
  }
  TirBuffer *b = buffer_from_call(c, call, 0, tg->name, "T.Buffer");
  if (!b) {
    elab_poison(c, tg->name);
    return;
  }
  b->span = tg->span;
  elab_define(c, tg->name, SYM_BUFFER, b, tg->span);
}

/* `T.LetStmt(value, var=x)` (x declared before: `x = T.int32()`, `A.data`) or
 * `with T.LetStmt(value) as x:` - a LetStmt over the rest or the with-body. */
static TirVar *letstmt_head(ElabCtx *c, const Ast *call, const Ast *as, TirExpr **value) {
  static const char *const kw[] = {"value", "type_annotation", "var", NULL};
  if (!elab_check_kwargs(c, call, kw)) return NULL;
  const Ast *va = elab_posarg(call, 0) ? elab_posarg(call, 0) : elab_kwarg(call, "value");
  const Ast *vr = elab_kwarg(call, "var");
  if (!va || elab_num_posargs(call) > 2 || (!vr && !as)) {
    diag_error(c->diag, call->span, "T.LetStmt takes (value, var=x), or `with T.LetStmt(value) as x:`");
    return NULL;
  }
  TirVal v = elab_tir_val(c, va);
  if (!v.e) return NULL;
  if (!vr) {
    *value = v.e;
    TirVar *x = tir_var(c->h, as->name, v.e->dtype);
    x->span = as->span;
    elab_define(c, as->name, SYM_TIR_VAR, x, as->span);
    return x;
  }
  TirExpr *xe = elab_tir_expr(c, vr);
  if (!xe) return NULL;
  if (xe->kind != TIR_VAR) {
    diag_error(c->diag, vr->span, "T.LetStmt: var= must name a variable");
    return NULL;
  }
  *value = elab_tir_adopt(c, v, xe->dtype);
  if (!*value) {
    char b1[DT_STR_MAX], b2[DT_STR_MAX];
    diag_error(c->diag, va->span, "cannot assign a value of type '%s' to variable '%s' of type '%s'",
               dts(v.e->dtype, b1), xe->var->name, dts(xe->dtype, b2));
    return NULL;
  }
  if (as) elab_define(c, as->name, SYM_TIR_VAR, xe->var, as->span);
  return xe->var;
}

static TirStmt *letstmt_rest(ElabCtx *c, const Ast *st, const AstList *l, int i, BlockBuild *hdr) {
  TirExpr *value;
  TirVar *x = letstmt_head(c, st->a, NULL, &value);
  if (!x) return NULL;
  TirStmt *body = stmts(c, l, i + 1, hdr);
  return st_at(tir_let_stmt(c->h, x, value, body ? body : eval0(c, st->span)), st->span);
}

/* `T.launch_thread(tx, 32)` / `T.attr(...)` as a statement: an AttrStmt over
 * the statements that follow (TVMScript's concise scoping). */
static TirStmt *attr_rest(ElabCtx *c, const Ast *st, const Ast *call, const char *cn,
                          const Ast *name, const AstList *l, int i, BlockBuild *hdr) {
  ElabAttrHead h;
  if (!elab_tir_attr_head(c, call, cn, name, &h)) return NULL;
  TirStmt *body = stmts(c, l, i + 1, hdr);
  return st_at(tir_attr_stmt(c->h, h.key, h.node, h.value, body ? body : eval0(c, st->span)), st->span);
}

static TirStmt *assign(ElabCtx *c, const Ast *st, const AstList *l, int i, BlockBuild *hdr,
                       bool *rest) {
  TirCtx *t = tctx(c);
  for (int k = 0; k < t->prescanned.n; k++)
    if (t->prescanned.v[k] == st) return NULL;
  if (st->list.len != 1) {
    diag_error(c->diag, st->span, "chained assignment is not supported in TIR");
    return NULL;
  }
  const Ast *tg = st->list.items[0];
  if (!st->a) {
    diag_error(c->diag, st->span, "variable '%s' needs a value",
               tg->kind == AST_NAME ? tg->name : "?");
    return NULL;
  }
  const char *cn = canon_call(c, st->a);
  if (tg->kind == AST_SUBSCRIPT) {
    if (!check_store_target(c, tg)) return NULL;
    return store(c, tg, elab_tir_val(c, st->a), st->a, st->span);
  }
  if (tg->kind == AST_TUPLE) {
    if (cn && !strcmp(cn, "T.axis.remap")) {
      int nerr = c->diag->nerr;
      BlockBuild *b = need_block(c, hdr, "T.axis.remap", st->a->a->span);
      if (b) axis_remap(c, b, tg, st->a);
      if (c->diag->nerr > nerr) poison_targets(c, tg);
      return NULL;
    }
    if (size_var_stmt(c, st)) return NULL;
    diag_error(c->diag, tg->span,
               "tuple assignment is only supported for T.axis.remap and size variables");
    return NULL;
  }
  if (tg->kind != AST_NAME) {
    diag_error(c->diag, tg->span, "cannot assign to this expression in TIR");
    return NULL;
  }
  if (cn) {
    if (!strncmp(cn, "T.axis.", 7)) {
      int nerr = c->diag->nerr;
      BlockBuild *b = need_block(c, hdr, cn, st->a->a->span);
      if (b) {
        if (!strcmp(cn, "T.axis.remap")) axis_remap(c, b, tg, st->a);
        else axis_decl(c, b, tg, st->a, cn);
      }
      if (c->diag->nerr > nerr) poison_targets(c, tg);
      return NULL;
    }
    if (!strcmp(cn, "T.alloc_buffer") || !strcmp(cn, "T.sblock_alloc_buffer")) {
      if (is_tir_binding(elab_lookup(c, tg->name))) {
        diag_error(c->diag, tg->span, "cannot reassign variable '%s' in TIR", tg->name);
        return NULL;
      }
      TirBuffer *b = buffer_from_call(c, st->a, 0, tg->name, cn);
      if (!b) return NULL;
      b->span = tg->span;
      APUSH(c, t->cur->allocs, b);
      elab_define(c, tg->name, SYM_BUFFER, b, tg->span);
      return NULL;
    }
    if (!strcmp(cn, "T.match_buffer")) {
      if (is_tir_binding(elab_lookup(c, tg->name))) {
        diag_error(c->diag, tg->span, "cannot reassign variable '%s' in TIR", tg->name);
        return NULL;
      }
      if (hdr && hdr == &t->root) func_match_buffer(c, tg, st->a);
      else {
        BlockBuild *b = need_block(c, hdr, "T.match_buffer of a region", st->a->a->span);
        if (b) block_match_buffer(c, b, tg, st->a);
      }
      return NULL;
    }
    if (!strcmp(cn, "T.decl_buffer")) {
      *rest = true;
      return decl_buffer(c, st, st->a, l, i, hdr);
    }
    if (!strcmp(cn, "T.allocate") || !strcmp(cn, "T.allocate_const")) {
      *rest = true;
      return allocate(c, st, st->a, cn, l, i, hdr);
    }
    if (!strcmp(cn, "T.Buffer")) {
      buffer_view(c, tg, st->a);
      return NULL;
    }
    if (!strcmp(cn, "T.env_thread")) {
      elab_tir_env_thread(c, tg, st->a);
      return NULL;
    }
    if (!strcmp(cn, "T.launch_thread")) {
      *rest = true;
      return attr_rest(c, st, st->a, cn, tg, l, i, hdr);
    }
    if (size_var_stmt(c, st)) return NULL;
  }
  *rest = true;
  return let_stmt(c, st, l, i, hdr);
}

static TirStmt *aug_assign(ElabCtx *c, const Ast *st) {
  const Ast *tg = st->a;
  if (tg->kind == AST_NAME) {
    if (elab_lookup(c, tg->name))
      diag_error(c->diag, tg->span, "cannot reassign variable '%s' in TIR", tg->name);
    else elab_undefined(c, tg);
    return NULL;
  }
  if (tg->kind != AST_SUBSCRIPT) {
    diag_error(c->diag, tg->span, "cannot assign to this expression in TIR");
    return NULL;
  }
  if (!check_store_target(c, tg)) return NULL;
  /* A[i] += v is A[i] = A[i] + v; the binary rules come from a synthetic BINOP. */
  Ast bin;
  memset(&bin, 0, sizeof bin);
  bin.kind = AST_BINOP;
  bin.span = st->span;
  bin.op = st->op;
  bin.a = st->a;
  bin.b = st->b;
  return store(c, tg, elab_tir_val(c, &bin), st->b, st->span);
}

/* --------------------------------------------------------------- loops */

typedef struct LoopSpec {
  TirForKind kind;
  const char *thread;
  IrValue *annotations;
  int n;               /* number of nested loops (T.grid: one per extent) */
  TirExpr *min[TIR_GRID_MAX], *extent[TIR_GRID_MAX];
  const Ast *step;     /* range()'s third argument or step=; NULL when absent */
} LoopSpec;

/* The loop step as an expression of the loop var's type t: NULL for a step
 * of 1 (TVM prints it as none), *ok false after an error.  A constant step
 * must be positive (TVM's range() rule; CanonicalizeLoop refuses others). */
static TirExpr *loop_step(ElabCtx *c, const Ast *a, DType t, bool *ok) {
  *ok = true;
  if (!a) return NULL;
  TirVal v = elab_tir_val(c, a);
  *ok = false;
  if (!v.e) return NULL;
  TirExpr *e = elab_tir_adopt(c, v, t);
  if (!e) {
    char b1[DT_STR_MAX], b2[DT_STR_MAX];
    diag_error(c->diag, a->span, "a loop step must be an integer of the loop variable's type %s, got %s",
               dts(t, b1), dts(v.e->dtype, b2));
    return NULL;
  }
  int64_t k;
  if (tir_is_const_int(e, &k) && k <= 0) {
    diag_error(c->diag, a->span, "a loop step must be positive, got %lld", (long long)k);
    return NULL;
  }
  *ok = true;
  e->span = a->span;
  return tir_is_one(e) ? NULL : e;
}

/* (start, stop) or (extent) -> min, extent with one integer dtype. */
static bool loop_range(ElabCtx *c, const Ast *start, const Ast *stop, TirExpr **min, TirExpr **ext) {
  TirVal lo = start ? elab_tir_val(c, start) : (TirVal){NULL, false};
  TirVal hi = elab_tir_val(c, stop);
  if ((start && !lo.e) || !hi.e) return false;
  if (!unify_ints(c, &lo, &hi, dt_int32)) return false;
  if (!start) {
    *min = tir_int(c->h, hi.e->dtype, 0);
    *ext = hi.e;
  } else {
    *min = lo.e;
    *ext = elab_tir_sub_fold(c->h, hi.e, lo.e);
  }
  return true;
}

static bool loop_spec(ElabCtx *c, const Ast *iter, LoopSpec *ls) {
  memset(ls, 0, sizeof *ls);
  ls->kind = TIR_FOR_SERIAL;
  if (iter->kind != AST_CALL) {
    diag_error(c->diag, iter->span,
               "a TIR loop iterates over range(...), T.grid(...), T.serial(...), T.parallel(...), "
               "T.vectorized(...), T.unroll(...) or T.thread_binding(...)");
    return false;
  }
  const char *cn = elab_canonical_name(c, iter->a);
  if (!cn && iter->a->kind == AST_NAME && !strcmp(iter->a->name, "range") &&
      !elab_lookup(c, "range"))
    cn = "range";
  if (!cn) {
    diag_error(c->diag, iter->a->span, "'%s' is not a TIR loop kind",
               elab_span_text(c, iter->a->span));
    return false;
  }
  int np = elab_num_posargs(iter);
  if (!strcmp(cn, "T.grid")) {
    if (!elab_check_kwargs(c, iter, NULL)) return false;
    if (np < 1 || np > TIR_GRID_MAX) {
      diag_error(c->diag, iter->span, "T.grid takes 1 to %d extents", TIR_GRID_MAX);
      return false;
    }
    ls->n = np;
    for (int i = 0; i < np; i++)
      if (!loop_range(c, NULL, elab_posarg(iter, i), &ls->min[i], &ls->extent[i])) return false;
    return true;
  }
  static const char *const plain_kw[] = {"annotations", "step", NULL};
  static const char *const thread_kw[] = {"thread", "annotations", NULL}; /* no step, as TVM */
  bool is_thread = !strcmp(cn, "T.thread_binding");
  if (!strcmp(cn, "range") || !strcmp(cn, "T.serial")) ls->kind = TIR_FOR_SERIAL;
  else if (!strcmp(cn, "T.parallel")) ls->kind = TIR_FOR_PARALLEL;
  else if (!strcmp(cn, "T.vectorized")) ls->kind = TIR_FOR_VECTORIZED;
  else if (!strcmp(cn, "T.unroll")) ls->kind = TIR_FOR_UNROLLED;
  else if (is_thread) ls->kind = TIR_FOR_THREAD_BINDING;
  else {
    if (!builtin_known(cn) && builtin_suggest(cn))
      diag_error(c->diag, iter->a->span, "unknown builtin '%s'; did you mean '%s'?", cn,
                 builtin_suggest(cn));
    else
      diag_error(c->diag, iter->a->span, "%s is not a TIR loop kind", cn);
    return false;
  }
  if (!strcmp(cn, "range") && elab_num_posargs(iter) != iter->list.len) {
    diag_error(c->diag, iter->span, "range() takes no keyword arguments");
    return false;
  }
  if (!elab_check_kwargs(c, iter, is_thread ? thread_kw : plain_kw)) return false;
  ls->step = elab_kwarg(iter, "step");
  if (is_thread) {
    const Ast *th = elab_kwarg(iter, "thread");
    if (!th && np >= 2 && elab_posarg(iter, np - 1)->kind == AST_STR) th = elab_posarg(iter, --np);
    if (!th || th->kind != AST_STR) {
      diag_error(c->diag, iter->span, "T.thread_binding needs thread=\"threadIdx.x\" (or another axis)");
      return false;
    }
    ls->thread = th->str;
  }
  if (np == 3 && !strcmp(cn, "range")) {
    /* TVM's range() takes a literal step only, yet prints T.serial(a, b, step=n)
     * as range(a, b, n): any step is accepted so that printed text parses back */
    ls->step = elab_posarg(iter, 2);
    np = 2;
  }
  if (np < 1 || np > 2) {
    diag_error(c->diag, iter->span, "%s takes (extent) or (start, stop)", cn);
    return false;
  }
  const Ast *ann = elab_kwarg(iter, "annotations");
  if (ann) {
    if (ann->kind != AST_DICT) {
      diag_error(c->diag, ann->span, "annotations must be a dict");
      return false;
    }
    ls->annotations = elab_tir_attr_value(c, ann);
    if (!ls->annotations) return false;
  }
  ls->n = 1;
  return loop_range(c, np == 2 ? elab_posarg(iter, 0) : NULL, elab_posarg(iter, np - 1),
                    &ls->min[0], &ls->extent[0]);
}

static TirStmt *for_stmt(ElabCtx *c, const Ast *st) {
  TirCtx *t = tctx(c);
  LoopSpec ls;
  if (!loop_spec(c, st->b, &ls)) return NULL;
  const Ast *tg = st->a;
  int nt = tg->kind == AST_TUPLE ? tg->list.len : 1;
  const Ast *const *names = tg->kind == AST_TUPLE ? (const Ast *const *)tg->list.items : &tg;
  if (nt != ls.n) {
    diag_error(c->diag, tg->span, "the loop has %d extent%s but %d loop variable%s", ls.n,
               ls.n == 1 ? "" : "s", nt, nt == 1 ? "" : "s");
    return NULL;
  }
  bool step_ok;
  TirExpr *step = loop_step(c, ls.step, ls.extent[0]->dtype, &step_ok);
  if (!step_ok) return NULL;
  TirVar *vars[TIR_GRID_MAX];
  for (int i = 0; i < nt; i++) {
    if (names[i]->kind != AST_NAME) {
      diag_error(c->diag, names[i]->span, "a loop variable must be a name");
      return NULL;
    }
    /* a loop variable may shadow an outer name for its body, as Python's
     * scoping lets TVMScript's loops do */
    for (int j = 0; j < i; j++)
      if (!strcmp(names[j]->name, names[i]->name)) {
        diag_error(c->diag, names[i]->span, "loop variable '%s' is repeated", names[i]->name);
        return NULL;
      }
    vars[i] = tir_var(c->h, names[i]->name, ls.extent[i]->dtype);
    vars[i]->span = names[i]->span;
  }
  int nr0 = t->ranges.n;
  elab_push_scope(c);
  for (int i = 0; i < nt; i++) {
    elab_define(c, names[i]->name, SYM_TIR_VAR, vars[i], names[i]->span);
    APUSH(c, t->ranges, ((RangeInfo){vars[i], ls.min[i], ls.extent[i], true}));
  }
  TirStmt *body = stmts(c, &st->body, 0, NULL);
  elab_pop_scope(c);
  t->ranges.n = nr0;
  if (!body) body = eval0(c, st->span);
  for (int i = nt - 1; i >= 0; i--)
    body = st_at(tir_for(c->h, vars[i], ls.min[i], ls.extent[i], ls.kind, ls.thread,
                         ls.annotations, body),
                 st->span);
  if (step) body = tir_for_with_step(c->h, body, step); /* one loop: grids take no step */
  return body;
}

/* -------------------------------------------------------------- blocks */

/* Whether e is an index expression the binding check understands (constants,
 * integer casts, + - *, // and % by a positive constant, over vars with
 * constant non-empty ranges); binds those ranges in a for arith_const_bounds. */
static bool bind_checkable(TirCtx *t, ArithCtx *a, const TirExpr *e) {
  int64_t m, x;
  switch (e->kind) {
  case TIR_INT: return true;
  case TIR_VAR: {
    const RangeInfo *r = find_range(t, e->var);
    if (!r || !tir_is_const_int(r->min, &m) || !tir_is_const_int(r->extent, &x) || x <= 0)
      return false;
    arith_bind_range(a, e->var, r->min, r->extent);
    return true;
  }
  case TIR_CAST: return dt_is_integer(e->dtype) && bind_checkable(t, a, e->un.a);
  case TIR_ADD:
  case TIR_SUB:
  case TIR_MUL: return bind_checkable(t, a, e->bin.a) && bind_checkable(t, a, e->bin.b);
  case TIR_FLOORDIV:
  case TIR_FLOORMOD:
    return tir_is_const_int(e->bin.b, &x) && x > 0 && bind_checkable(t, a, e->bin.a);
  default: return false;
  }
}

static void check_bindings(ElabCtx *c, BlockBuild *b) {
  TirCtx *t = tctx(c);
  if (b->pred && !(b->pred->kind == TIR_INT && b->pred->ival == 1)) return;
  IrHeap *scratch = ir_heap_new(); /* the analyzer's simplified forms stay out of the module */
  ArithCtx *a = arith_new(scratch);
  for (int i = 0; i < b->iters.n; i++) {
    const TirIterVar *iv = &b->iters.v[i];
    int64_t dmin, dext, lo, hi;
    if (!tir_is_const_int(iv->dom.min, &dmin) || !tir_is_const_int(iv->dom.extent, &dext)) continue;
    arith_push(a);
    bool known = bind_checkable(t, a, b->values.v[i]) &&
                 arith_const_bounds(a, b->values.v[i], &lo, &hi);
    arith_pop(a);
    /* TVM's parser accepts such a binding (schedules refuse it later): a warning */
    if (known && (lo < dmin || hi >= dmin + dext))
      diag_warning(c->diag, b->binding_spans.v[i],
                 "binding of block iter '%s' ranges over [%lld, %lld) but its domain is [%lld, "
                 "%lld)",
                 iv->var->name, (long long)lo, (long long)hi + 1, (long long)dmin,
                 (long long)(dmin + dext));
  }
  arith_free(a);
  ir_heap_release(scratch);
}

static TirStmt *block_stmt(ElabCtx *c, const Ast *st, const Ast *call, BlockBuild *hdr) {
  TirCtx *t = tctx(c);
  static const char *const kw[] = {"no_realize", NULL};
  if (!elab_check_kwargs(c, call, kw)) return NULL;
  const Ast *nm = elab_posarg(call, 0);
  if (elab_num_posargs(call) > 1 || (nm && nm->kind != AST_STR)) {
    diag_error(c->diag, call->span, "T.block takes one name string, e.g. T.block(\"C\")");
    return NULL;
  }
  if (st->list.items[0]->b) {
    diag_error(c->diag, st->list.items[0]->b->span, "T.block does not bind a name with 'as'");
    return NULL;
  }
  BlockBuild b;
  memset(&b, 0, sizeof b);
  b.parent = t->cur;
  b.name = nm ? nm->str : "";
  bool root_candidate = hdr == &t->root && !strcmp(b.name, "root");
  t->cur = &b;
  t->saw_block = true;
  int nr0 = t->ranges.n;
  int nerr0 = c->diag->nerr;
  elab_push_scope(c);
  TirStmt *body = stmts(c, &st->body, 0, &b);
  elab_pop_scope(c);
  t->cur = b.parent;
  if (c->diag->nerr > nerr0) {
    t->ranges.n = nr0;
    return NULL;
  }
  TirBlock blk;
  memset(&blk, 0, sizeof blk);
  blk.name = b.name;
  blk.iters = b.iters.v;
  blk.niters = b.iters.n;
  blk.allocs = b.allocs.v;
  blk.nallocs = b.allocs.n;
  blk.matches = b.matches.v;
  blk.nmatches = b.matches.n;
  blk.annotations = b.annotations;
  blk.init = b.init;
  blk.body = body ? body : eval0(c, st->span);
  blk.reads = b.reads.v;
  blk.nreads = b.reads.n;
  blk.writes = b.writes.v;
  blk.nwrites = b.writes.n;
  if ((!b.has_reads || !b.has_writes) && !(root_candidate && b.iters.n == 0)) {
    TirBufferRegion *r, *w;
    int nr, nw;
    tir_infer_access_regions(c->h, &blk, &r, &nr, &w, &nw);
    if (!b.has_reads) {
      blk.reads = r;
      blk.nreads = nr;
    }
    if (!b.has_writes) {
      blk.writes = w;
      blk.nwrites = nw;
    }
  }
  /* (A reduce iter indexing the written buffer is accepted, as TVM's parser
   * does; such a block is no reduction block to the schedule primitives.) */
  check_bindings(c, &b);
  t->ranges.n = nr0;
  TirStmt *bs = st_at(tir_block(c->h, &blk), st->span);
  return st_at(tir_block_realize(c->h, b.values.v, b.values.n, b.pred, bs), st->span);
}

static TirStmt *with_stmt(ElabCtx *c, const Ast *st, BlockBuild *hdr) {
  if (st->list.len != 1) {
    diag_error(c->diag, st->span, "a TIR with-statement has exactly one item");
    return NULL;
  }
  const Ast *ctx = st->list.items[0]->a;
  const char *cn = canon_call(c, ctx);
  if (cn && (!strcmp(cn, "T.block") || !strcmp(cn, "T.sblock"))) return block_stmt(c, st, ctx, hdr);
  if (cn && !strcmp(cn, "T.init")) {
    BlockBuild *b = need_block(c, hdr, "T.init", ctx->span);
    if (!b) return NULL;
    if (elab_num_posargs(ctx) || ctx->list.len) {
      diag_error(c->diag, ctx->span, "T.init takes no arguments");
      return NULL;
    }
    if (b->init) {
      diag_error(c->diag, ctx->span, "block '%s' has more than one T.init", b->name);
      return NULL;
    }
    b->init = body_of(c, &st->body, NULL, st->span);
    return NULL;
  }
  if (cn && (!strcmp(cn, "T.launch_thread") || !strcmp(cn, "T.attr"))) {
    const Ast *as = st->list.items[0]->b;
    if (as && as->kind != AST_NAME) {
      diag_error(c->diag, as->span, "%s binds a single name", cn);
      return NULL;
    }
    ElabAttrHead h;
    if (!elab_tir_attr_head(c, ctx, cn, as, &h)) return NULL;
    TirStmt *body = body_of(c, &st->body, NULL, st->span);
    return st_at(tir_attr_stmt(c->h, h.key, h.node, h.value, body ? body : eval0(c, st->span)), st->span);
  }
  if (cn && !strcmp(cn, "T.LetStmt")) {
    const Ast *as = st->list.items[0]->b;
    if (as && as->kind != AST_NAME) {
      diag_error(c->diag, as->span, "T.LetStmt binds a single name");
      return NULL;
    }
    TirExpr *value;
    TirVar *x = letstmt_head(c, ctx, as, &value);
    if (!x) return NULL;
    TirStmt *body = body_of(c, &st->body, NULL, st->span);
    return st_at(tir_let_stmt(c->h, x, value, body ? body : eval0(c, st->span)), st->span);
  }
  if (cn && !strcmp(cn, "T.decl_buffer")) return decl_buffer_with(c, st, ctx, st->list.items[0]->b);
  if (cn && (!strcmp(cn, "T.allocate") || !strcmp(cn, "T.allocate_const"))) {
    TirStmt *a = elab_tir_alloc_head(c, ctx, cn, st->list.items[0]->b);
    if (!a) return NULL;
    TirStmt *body = body_of(c, &st->body, NULL, st->span);
    a->alloc.body = body ? body : eval0(c, st->span);
    return st_at(a, st->span);
  }
  diag_error(c->diag, ctx->span, "unsupported with-statement; expected T.block(...) or T.init()");
  return NULL;
}

/* ------------------------------------------------------ statement dispatch */

static TirStmt *expr_stmt(ElabCtx *c, const Ast *st, BlockBuild *hdr) {
  TirCtx *t = tctx(c);
  const Ast *e = st->a;
  if (e->kind == AST_STR) return NULL; /* docstring */
  const char *cn = canon_call(c, e);
  if (cn) {
    if (!strcmp(cn, "T.evaluate")) {
      if (elab_num_posargs(e) != 1 || e->list.len != 1) {
        diag_error(c->diag, e->span, "T.evaluate takes one expression");
        return NULL;
      }
      TirExpr *x = elab_tir_expr(c, elab_posarg(e, 0));
      return x ? st_at(tir_evaluate(c->h, x), st->span) : NULL;
    }
    if (!strcmp(cn, "T.func_attr")) {
      if (hdr != &t->root) {
        diag_error(c->diag, e->a->span, "T.func_attr must be at the top level of the function body");
        return NULL;
      }
      IrValue *d = dict_arg(c, e, cn);
      if (d) merge_dict(c, &t->attrs, d);
      return NULL;
    }
    if (!strcmp(cn, "T.reads") || !strcmp(cn, "T.writes")) {
      BlockBuild *b = need_block(c, hdr, cn, e->a->span);
      if (b) regions_stmt(c, b, e, cn[2] == 'w');
      return NULL;
    }
    if (!strcmp(cn, "T.where")) {
      BlockBuild *b = need_block(c, hdr, cn, e->a->span);
      if (!b) return NULL;
      if (elab_num_posargs(e) != 1 || e->list.len != 1) {
        diag_error(c->diag, e->span, "T.where takes one condition");
        return NULL;
      }
      TirExpr *p = cond_expr(c, elab_posarg(e, 0), "T.where predicate");
      if (p) b->pred = p;
      return NULL;
    }
    if (!strcmp(cn, "T.block_attr") || !strcmp(cn, "T.sblock_attr")) {
      BlockBuild *b = need_block(c, hdr, cn, e->a->span);
      if (!b) return NULL;
      IrValue *d = dict_arg(c, e, cn);
      if (d) merge_dict(c, &b->annotations, d);
      return NULL;
    }
    if (!strncmp(cn, "T.axis.", 7)) {
      diag_error(c->diag, e->a->span, "%s must be assigned to a block iter, e.g. vi = %s(...)", cn, cn);
      return NULL;
    }
    if (!strcmp(cn, "T.init")) {
      diag_error(c->diag, e->a->span, "T.init opens a block: write `with T.init():`");
      return NULL;
    }
    if (!strcmp(cn, "T.alloc_buffer") || !strcmp(cn, "T.match_buffer") ||
        !strcmp(cn, "T.decl_buffer") || !strcmp(cn, "T.sblock_alloc_buffer")) {
      diag_error(c->diag, e->a->span, "the result of %s must be assigned to a name", cn);
      return NULL;
    }
  }
  TirExpr *x = elab_tir_expr(c, e);
  return x ? st_at(tir_evaluate(c->h, x), st->span) : NULL;
}

static TirStmt *stmt(ElabCtx *c, const Ast *st, const AstList *l, int i, BlockBuild *hdr,
                     bool *rest) {
  TirCtx *t = tctx(c);
  switch (st->kind) {
  case AST_EXPR_STMT: {
    const char *cn = canon_call(c, st->a);
    if (cn && (!strcmp(cn, "T.launch_thread") || !strcmp(cn, "T.attr"))) {
      *rest = true;
      return attr_rest(c, st, st->a, cn, NULL, l, i, hdr);
    }
    if (cn && !strcmp(cn, "T.LetStmt")) {
      *rest = true;
      return letstmt_rest(c, st, l, i, hdr);
    }
    return expr_stmt(c, st, hdr);
  }
  case AST_ASSIGN: {
    /* A failed definition poisons its names so uses do not cascade. */
    int nerr = c->diag->nerr;
    TirStmt *r = assign(c, st, l, i, hdr, rest);
    if (c->diag->nerr > nerr)
      for (int k = 0; k < st->list.len; k++) poison_targets(c, st->list.items[k]);
    return r;
  }
  case AST_AUGASSIGN: return aug_assign(c, st);
  case AST_FOR: return for_stmt(c, st);
  case AST_WITH: return with_stmt(c, st, hdr);
  case AST_IF: {
    TirExpr *cond = cond_expr(c, st->a, "if condition");
    TirStmt *then_s = body_of(c, &st->body, NULL, st->span);
    /* an elif (an IF alone in orelse) opens its own scopes: none for the else */
    bool elif = st->orelse.len == 1 && st->orelse.items[0]->kind == AST_IF;
    TirStmt *else_s = elif ? stmts(c, &st->orelse, 0, NULL)
                      : st->orelse.len ? body_of(c, &st->orelse, NULL, st->span) : NULL;
    return cond ? st_at(tir_if(c->h, cond, then_s, else_s), st->span) : NULL;
  }
  case AST_WHILE: {
    TirExpr *cond = cond_expr(c, st->a, "while condition");
    TirStmt *body = body_of(c, &st->body, NULL, st->span);
    return cond ? st_at(tir_while(c->h, cond, body), st->span) : NULL;
  }
  case AST_ASSERT: {
    TirExpr *cond = cond_expr(c, st->a, "assert condition");
    TirExpr *msg = st->b ? elab_tir_expr(c, st->b) : tir_str(c->h, "");
    *rest = true;
    TirStmt *body = stmts(c, l, i + 1, hdr);
    if (!cond || !msg) return NULL;
    return st_at(tir_assert(c->h, cond, msg, body ? body : eval0(c, st->span)), st->span);
  }
  case AST_RETURN: {
    if (!st->a) {
      diag_error(c->diag, st->span, "a prim_func cannot return without a value");
      return NULL;
    }
    TirExpr *v = elab_tir_expr(c, st->a);
    if (!v) return NULL;
    t->ret_type = v->dtype;
    TirExpr *args[1] = {v};
    TirExpr *call = tir_call(c->h, v->dtype, &tir_op_table[TIR_OP_RET], args, 1);
    call->span = st->span;
    return st_at(tir_evaluate(c->h, call), st->span);
  }
  case AST_PASS:
  case AST_ERROR: return NULL;
  case AST_BREAK:
  case AST_CONTINUE:
  {
    const char *nm = st->kind == AST_BREAK ? "break_loop" : "continue_loop";
    return st_at(tir_evaluate(c->h, elab_tir_opaque_named(c, st->span, nm)), st->span);
  }
  case AST_FUNCDEF:
  case AST_CLASS:
    diag_error(c->diag, st->span, "nested definitions are not supported in a prim_func");
    return NULL;
  case AST_IMPORT:
  case AST_FROM_IMPORT:
    diag_error(c->diag, st->span, "imports must be at the top of the file");
    return NULL;
  default:
    diag_error(c->diag, st->span, "this statement is not supported in TIR");
    return NULL;
  }
}

static TirStmt *stmts(ElabCtx *c, const AstList *l, int from, BlockBuild *hdr) {
  AVEC(TirStmt *) out = {0};
  for (int i = from; i < l->len; i++) {
    bool rest = false;
    TirStmt *s = stmt(c, l->items[i], l, i, hdr, &rest);
    if (s) APUSH(c, out, s);
    if (rest) break;
  }
  return tir_seq(c->h, out.v, out.n);
}

/* ------------------------------------------------------------ parameters */

static void param_impl(ElabCtx *c, const Ast *p) {
  TirCtx *t = tctx(c);
  IrHeap *h = c->h;
  const Ast *ann = p->a;
  if (p->b) {
    diag_error(c->diag, p->b->span, "prim_func parameters cannot have default values");
    return;
  }
  if (!ann) {
    diag_error(c->diag, p->span,
               "parameter '%s' needs a type annotation such as T.Buffer((128,), \"float32\"), "
               "T.handle or T.int32",
               p->name);
    return;
  }
  if (is_tir_binding(elab_lookup(c, p->name))) {
    diag_error(c->diag, p->span, "parameter '%s' is declared twice", p->name);
    return;
  }
  const Ast *callee = ann->kind == AST_CALL || ann->kind == AST_SUBSCRIPT ? ann->a : ann;
  const char *cn = elab_canonical_name(c, callee);
  TirBuffer *buf = NULL;
  if (cn && !strcmp(cn, "T.Buffer")) {
    if (ann->kind == AST_CALL) {
      buf = buffer_from_call(c, ann, 0, p->name, "T.Buffer");
    } else if (ann->kind == AST_SUBSCRIPT) {
      /* legacy T.Buffer[(128, 128), "float32"] */
      const Ast *slot[BA_N] = {0};
      const Ast *ix = ann->b;
      if (ix->kind == AST_TUPLE && ix->list.len >= 1 &&
          (ix->list.items[0]->kind == AST_TUPLE || ix->list.items[0]->kind == AST_LIST ||
           ix->list.len == 2)) {
        slot[BA_SHAPE] = ix->list.items[0];
        slot[BA_DTYPE] = ix->list.len > 1 ? ix->list.items[1] : NULL;
        if (ix->list.len > 2) {
          diag_error(c->diag, ix->span, "T.Buffer[...] takes a shape and a dtype");
          return;
        }
      } else {
        slot[BA_SHAPE] = ix;
      }
      buf = make_buffer(c, p->name, slot, ann->span, "T.Buffer");
    } else {
      diag_error(c->diag, ann->span, "T.Buffer needs a shape, e.g. T.Buffer((128,), \"float32\")");
      return;
    }
    if (!buf) return;
    buf->span = p->span;
    char *hn = xasprintf("%s_handle", p->name);
    TirVar *hv = tir_var(h, hn, dt_handle);
    free(hn);
    hv->span = p->span;
    APUSH(c, t->params, hv);
    APUSH(c, t->bufmap, buf);
    t->buffer_sugar = true;
    elab_define(c, p->name, SYM_BUFFER, buf, p->span);
    return;
  }
  DType dt;
  if (cn && (!strcmp(cn, "T.handle") || (!strncmp(cn, "T.", 2) && dt_parse(cn + 2, &dt) &&
                                         !dt_is_void(dt)))) {
    bool is_handle = !strcmp(cn, "T.handle");
    TirVar *v = tir_var(h, p->name, is_handle ? dt_handle : dt);
    v->span = p->span;
    APUSH(c, t->params, v);
    APUSH(c, t->bufmap, (TirBuffer *)NULL);
    elab_define(c, p->name, is_handle ? SYM_HANDLE : SYM_TIR_VAR, v, p->span);
    return;
  }
  diag_error(c->diag, ann->span,
             "unsupported annotation for parameter '%s'; use T.Buffer(...), T.handle or a scalar "
             "type such as T.int32",
             p->name);
}

/* A parameter whose declaration failed is poisoned: its uses stay quiet. */
static void param(ElabCtx *c, const Ast *p) {
  int nerr = c->diag->nerr;
  param_impl(c, p);
  if (c->diag->nerr > nerr && p->name && !elab_lookup(c, p->name)) elab_poison(c, p->name);
}

/* ------------------------------------------------------------- entry */

TirFunc *elab_prim_func(ElabCtx *c, const Ast *def, bool is_private) {
  TirCtx t;
  memset(&t, 0, sizeof t);
  t.root.is_root = true;
  t.root.name = "root";
  t.cur = &t.root;
  t.ret_type = dt_void;
  /* `-> T.int32`: the declared return type (a `return` overrides it). */
  const Ast *ra = def->b;
  DType rt;
  if (ra && ra->kind == AST_ATTR && ra->a && ra->a->kind == AST_NAME && !strcmp(ra->a->name, "T") &&
      dt_parse(ra->name, &rt) && !dt_is_handle(rt))
    t.ret_type = rt;
  void *saved = c->tir;
  c->tir = &t;
  int nerr0 = c->diag->nerr;
  IrHeap *h = c->h;
  elab_push_scope(c);
  /* Size variables may appear in parameter annotations before the body declares them. */
  for (int i = 0; i < def->body.len; i++) {
    const Ast *st = def->body.items[i];
    if (size_var_stmt(c, st)) APUSH(c, t.prescanned, st);
  }
  for (int i = 0; i < def->list.len; i++) param(c, def->list.items[i]);
  TirStmt *body = stmts(c, &def->body, 0, &t.root);
  if (!body) body = eval0(c, def->span);
  bool explicit_root = body->kind == TIR_S_BLOCK_REALIZE &&
                       !strcmp(tir_realize_block(body)->name, "root") &&
                       tir_realize_block(body)->niters == 0;
  if (explicit_root && t.root.allocs.n) {
    TirBlock rb = *tir_realize_block(body);
    TirBuffer **all = arena_alloc(&c->scratch, (size_t)(rb.nallocs + t.root.allocs.n) * sizeof *all);
    memcpy(all, t.root.allocs.v, (size_t)t.root.allocs.n * sizeof *all);
    if (rb.nallocs) memcpy(all + t.root.allocs.n, rb.allocs, (size_t)rb.nallocs * sizeof *all);
    rb.allocs = all;
    rb.nallocs += t.root.allocs.n;
    TirStmt *bs = st_at(tir_block(h, &rb), body->realize.block->span);
    body = st_at(tir_block_realize(h, NULL, 0, NULL, bs), body->span);
  } else if (!explicit_root && (t.saw_block || t.root.allocs.n)) {
    TirBlock rb;
    memset(&rb, 0, sizeof rb);
    rb.name = "root";
    rb.allocs = t.root.allocs.v;
    rb.nallocs = t.root.allocs.n;
    rb.body = body;
    TirStmt *bs = st_at(tir_block(h, &rb), def->span);
    body = st_at(tir_block_realize(h, NULL, 0, NULL, bs), def->span);
  }
  if (!is_private && !irv_dict_get(t.attrs, "global_symbol"))
    t.attrs = irv_dict_set(h, t.attrs, "global_symbol", irv_str(h, def->name));
  elab_pop_scope(c);
  c->tir = saved;
  if (c->diag->nerr > nerr0) return NULL;
  TirFunc *f = tir_func(h, t.params.v, t.bufmap.v, t.params.n, body, t.attrs);
  f->ret_type = t.ret_type;
  f->buffer_param_sugar = t.buffer_sugar;
  f->span = def->span;
  return f;
}
