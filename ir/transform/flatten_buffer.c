/* flatten_buffer.c - FlattenBuffer: every buffer access becomes one-dimensional.
 *
 * A buffer B of shape (s0, ..., sk) is accessed through a 1-D buffer sharing
 * B's data var, of shape (elem_offset + extent,), with index
 * elem_offset + sum(i_d * stride_d) (row-major strides unless B has explicit
 * ones).  Params keep their N-D buffers in buffer_map (arguments are checked
 * against them) while the body uses the flat views; Allocate extents become
 * their product.  Axis separators (set_axis_separator, IndexMap.AXIS_SEPARATOR)
 * are dropped: every target here addresses one flat memory, so all axes form
 * one group and results are those of the N-D program.  (TVM keeps one physical
 * axis per group, which its LLVM CPU codegen then rejects; separated groups
 * matter only to targets with 2-D memories, which we do not have.) */
#include "ir/transform/xform_internal.h"

#include <string.h>

typedef struct FlatCtx {
  IrPtrMap flat;     /* TirBuffer* -> flat TirBuffer* (itself when already flat) */
  ArithCtx *a;       /* context-free simplifier for the new indices */
} FlatCtx;

static bool is_flat(const TirBuffer *b) {
  return b->ndim == 1 && (!b->strides || b->nstrides == 0) && (!b->elem_offset || tir_is_zero(b->elem_offset));
}

static DType index_type(const TirBuffer *b, TirExpr *const *idx, int n) {
  for (int d = 0; d < n; d++)
    if (idx[d]->dtype.bits == 64) return dt_int64;
  for (int d = 0; d < b->ndim; d++)
    if (b->shape[d]->dtype.bits == 64) return dt_int64;
  return dt_int32;
}

/* Stride of dimension d (explicit or row-major) in dtype t. */
static TirExpr *stride(IrHeap *h, const TirBuffer *b, int d, DType t) {
  if (b->strides && b->nstrides == b->ndim) return xf_cast_to(h, t, b->strides[d]);
  TirExpr *s = xf_int(h, t, 1);
  for (int k = b->ndim - 1; k > d; k--) s = xf_mul(h, s, xf_cast_to(h, t, b->shape[k]));
  return s;
}

static TirBuffer *flat_of(TirMutator *m, TirBuffer *b) {
  FlatCtx *c = m->ctx;
  TirBuffer *fb = ir_ptrmap_get(&c->flat, b);
  if (fb) return fb;
  if (is_flat(b)) {
    ir_ptrmap_put(&c->flat, b, b);
    return b;
  }
  IrHeap *h = m->heap;
  DType t = index_type(b, NULL, 0);
  TirExpr *n;
  if (b->strides && b->nstrides == b->ndim && b->ndim) {
    n = xf_int(h, t, 1);
    for (int d = 0; d < b->ndim; d++)
      n = xf_add(h, n, xf_mul(h, xf_sub(h, xf_cast_to(h, t, b->shape[d]), xf_int(h, t, 1)), stride(h, b, d, t)));
  } else {
    n = xf_int(h, t, 1);
    for (int d = 0; d < b->ndim; d++) n = xf_mul(h, n, xf_cast_to(h, t, b->shape[d]));
  }
  if (b->elem_offset && !tir_is_zero(b->elem_offset)) n = xf_add(h, xf_cast_to(h, t, b->elem_offset), n);
  n = xf_simplify(c->a, n);
  fb = tir_buffer_copy(h, b);
  fb->shape = ir_alloc(h, sizeof *fb->shape);
  fb->shape[0] = n;
  fb->ndim = 1;
  fb->strides = NULL;
  fb->nstrides = 0;
  fb->elem_offset = NULL;
  fb->axis_separators = NULL;
  fb->naxis_separators = 0;
  ir_ptrmap_put(&c->flat, b, fb);
  return fb;
}

static TirBuffer *flat_hook(TirMutator *m, TirBuffer *b) { return flat_of(m, b); }

/* The flat index of b[idx] (idx already mutated). */
static TirExpr *flat_index(TirMutator *m, const TirBuffer *b, TirExpr **idx, int n) {
  FlatCtx *c = m->ctx;
  IrHeap *h = m->heap;
  DType t = index_type(b, idx, n);
  TirExpr *e = b->elem_offset ? xf_cast_to(h, t, b->elem_offset) : xf_int(h, t, 0);
  for (int d = 0; d < n; d++) e = xf_add(h, e, xf_mul(h, xf_cast_to(h, t, idx[d]), stride(h, b, d, t)));
  return xf_simplify(c->a, e);
}

static TirExpr **mut_idx(TirMutator *m, TirExpr **idx, int n, bool *changed) {
  TirExpr **out = ir_alloc(m->heap, (size_t)(n ? n : 1) * sizeof *out);
  for (int d = 0; d < n; d++) {
    out[d] = tir_mutate_expr(m, idx[d]);
    if (out[d] != idx[d]) *changed = true;
  }
  return out;
}

static TirExpr *flat_load(TirMutator *m, TirExpr *e) {
  TirBuffer *fb = flat_of(m, e->load.buf);
  bool ch = false;
  TirExpr **idx = mut_idx(m, e->load.idx, e->load.n, &ch);
  if (fb == e->load.buf && !ch) return e;
  TirExpr *fi = fb == e->load.buf ? idx[0] : flat_index(m, e->load.buf, idx, e->load.n);
  TirExpr *out = tir_load(m->heap, fb, &fi, 1);
  out->span = e->span;
  return out;
}

static TirStmt *flat_store(TirMutator *m, TirStmt *s) {
  TirBuffer *fb = flat_of(m, s->store.buf);
  bool ch = false;
  TirExpr **idx = mut_idx(m, s->store.idx, s->store.n, &ch);
  TirExpr *v = tir_mutate_expr(m, s->store.value);
  if (fb == s->store.buf && !ch && v == s->store.value) return s;
  TirExpr *fi = fb == s->store.buf ? idx[0] : flat_index(m, s->store.buf, idx, s->store.n);
  TirStmt *out = tir_store(m->heap, fb, v, &fi, 1);
  out->span = s->span;
  return out;
}

static TirStmt *flat_alloc(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s);
  if (r->alloc.n == 1) return r;
  FlatCtx *c = m->ctx;
  DType t = r->alloc.n ? r->alloc.extents[0]->dtype : dt_int32;
  TirExpr *n = xf_int(m->heap, t, 1);
  for (int d = 0; d < r->alloc.n; d++) n = xf_mul(m->heap, n, xf_cast_to(m->heap, t, r->alloc.extents[d]));
  n = xf_simplify(c->a, n);
  TirStmt *out = tir_stmt_with_span(m->heap, r, r->span);
  out->alloc.extents = ir_alloc(m->heap, sizeof *out->alloc.extents);
  out->alloc.extents[0] = n;
  out->alloc.n = 1;
  return out;
}

/* requires: lower-opaque-block ran (no blocks, no regions); ensures: every
 * BufferLoad/BufferStore has exactly one index and its buffer is 1-D with no
 * strides or elem_offset; Allocate has one extent; buffer_map unchanged. */
TirFunc *tir_flatten_buffer(TirPassCtx *ctx, TirFunc *f) {
  FlatCtx c;
  memset(&c, 0, sizeof c);
  c.a = arith_new(ctx->heap);
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.buffer = flat_hook;
  m.expr[TIR_LOAD] = flat_load;
  m.stmt[TIR_S_STORE] = flat_store;
  m.stmt[TIR_S_ALLOCATE] = flat_alloc;
  m.stmt[TIR_S_ALLOCATE_CONST] = flat_alloc; /* as TVM's FlattenBuffer flattens AllocateConst */
  m.ctx = &c;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  arith_free(c.a);
  ir_ptrmap_free(&c.flat);
  return xf_with_body(ctx->heap, f, body);
}
