/* convert_blocks_to_opaque.c - ConvertBlocksToOpaque: blocks lose their iter vars.
 *
 * Each block iter var is replaced by the expression it is bound to in the
 * enclosing BlockRealize (in the body, regions, alloc shapes and match
 * buffers); the iter vars and bindings are dropped.  Predicates stay. */
#include "ir/transform/xform_internal.h"

static TirStmt *opaque_realize(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s); /* inner blocks first */
  const TirBlock *b = tir_realize_block(r);
  if (b->niters == 0 && r->realize.n == 0) return r;
  IrHeap *h = m->heap;
  IrPtrMap vm = {0};
  for (int i = 0; i < b->niters && i < r->realize.n; i++) {
    TirExpr *val = r->realize.values[i];
    /* The iter vars are no longer defined anywhere, so a Var value only
     * replaces uses (no definition gets renamed). */
    ir_ptrmap_put(&vm, b->iters[i].var, xf_cast_to(h, b->iters[i].var->dtype, val));
  }
  TirBlock nb = *b;
  nb.iters = NULL;
  nb.niters = 0;
  TirStmt *blk = tir_block(h, &nb);
  blk->span = r->realize.block->span;
  TirStmt *nblk = tir_substitute_stmt(h, blk, &vm);
  ir_ptrmap_free(&vm);
  TirStmt *out = tir_block_realize(h, NULL, 0, r->realize.pred, nblk);
  out->span = r->span;
  return out;
}

/* requires: lower-init-block ran (no init); ensures: no block has iter vars
 * (every BlockRealize has 0 bindings); preserves: predicates, regions
 * (rewritten), allocations, annotations. */
TirFunc *tir_convert_blocks_to_opaque(TirPassCtx *ctx, TirFunc *f) {
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_BLOCK_REALIZE] = opaque_realize;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
