/* lower_init_block.c - LowerInitBlock: T.init() becomes a guarded statement.
 *
 * A block with init gets the body `if (vk0 == min0 and vk1 == min1 ...): init`
 * followed by its old body, one equality per reduce iter (the interpreter's
 * and TVM's rule); with no reduce iter the init runs unconditionally. */
#include "ir/transform/xform_internal.h"

static TirStmt *lower_block(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s);
  const TirBlock *b = &r->block;
  if (!b->init) return r;
  IrHeap *h = m->heap;
  TirExpr *cond = NULL;
  for (int i = 0; i < b->niters; i++) {
    const TirIterVar *iv = &b->iters[i];
    if (iv->type != TIR_ITER_REDUCE) continue;
    TirExpr *eq = tir_binary(h, TIR_EQ, tir_var_ref(h, iv->var), xf_cast_to(h, iv->var->dtype, iv->dom.min));
    cond = cond ? tir_binary(h, TIR_AND, cond, eq) : eq;
  }
  TirStmt *init = cond ? tir_if(h, cond, b->init, NULL) : b->init;
  init->span = b->init->span;
  TirStmt *parts[2] = {init, b->body};
  TirBlock nb = *b;
  nb.init = NULL;
  nb.body = tir_seq(h, parts, 2);
  TirStmt *out = tir_block(h, &nb);
  out->span = r->span;
  return out;
}

/* requires: blocks may have init; ensures: no block has init (the init is an
 * `if` at the head of the body); preserves: iter vars, regions. */
TirFunc *tir_lower_init_block(TirPassCtx *ctx, TirFunc *f) {
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_BLOCK] = lower_block;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
