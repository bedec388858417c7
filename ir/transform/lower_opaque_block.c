/* lower_opaque_block.c - LowerOpaqueBlock: the IR stops being schedulable.
 *
 * Every BlockRealize is replaced by its block's body: each alloc_buffer
 * becomes `Allocate(data, dtype, extents)` around `DeclBuffer(buffer)`, a
 * predicate that is not constant true becomes an `if`, and regions, names and
 * block annotations are dropped.  Loops (kinds, thread tags, annotations)
 * are kept as they are. */
#include "ir/transform/xform_internal.h"

/* Allocation extents of b: its shape, or for an explicitly strided buffer
 * the number of elements it reaches. */
static TirExpr **alloc_extents(IrHeap *h, const TirBuffer *b, int *n) {
  if (!b->strides || b->nstrides != b->ndim || b->ndim == 0) {
    *n = b->ndim;
    return b->shape;
  }
  TirExpr *e = xf_int(h, b->shape[0]->dtype, 1);
  for (int d = 0; d < b->ndim; d++)
    e = xf_add(h, e, xf_mul(h, xf_sub(h, xf_cast_to(h, e->dtype, b->shape[d]), xf_int(h, e->dtype, 1)),
                            xf_cast_to(h, e->dtype, b->strides[d])));
  TirExpr **out = ir_alloc(h, sizeof *out);
  out[0] = e;
  *n = 1;
  return out;
}

static TirStmt *lower_realize(TirMutator *m, TirStmt *s) {
  IrHeap *h = m->heap;
  const TirBlock *b = tir_realize_block(s);
  TirStmt *parts[2] = {tir_mutate_stmt(m, b->init), tir_mutate_stmt(m, b->body)};
  TirStmt *body = tir_seq(h, parts, 2);
  if (!body) body = xf_nop(h);
  for (int i = b->nallocs - 1; i >= 0; i--) {
    TirBuffer *buf = tir_mutate_buffer(m, b->allocs[i]);
    int n;
    TirExpr **ext = alloc_extents(h, buf, &n);
    body = tir_decl_buffer(h, buf, body);
    body->span = buf->span;
    body = tir_allocate(h, buf->data, buf->dtype, ext, n, buf->scope ? buf->scope : "global", body);
    body->span = buf->span;
  }
  TirExpr *pred = tir_mutate_expr(m, s->realize.pred);
  if (pred && !xf_is_const_true(pred)) {
    body = tir_if(h, pred, body, NULL);
    body->span = s->span;
  }
  return body;
}

/* requires: convert-blocks-to-opaque and lower-match-buffer ran (blocks have
 * no iter vars or match_buffers); ensures: no Block/BlockRealize remains;
 * allocations are Allocate+DeclBuffer at the block's place. */
TirFunc *tir_lower_opaque_block(TirPassCtx *ctx, TirFunc *f) {
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_BLOCK_REALIZE] = lower_realize;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
