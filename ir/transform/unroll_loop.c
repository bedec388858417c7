/* unroll_loop.c - UnrollLoop (explicit unrolling only, as TVM's default).
 *
 * A loop of kind unrolled with a constant extent n becomes n copies of its
 * body with the loop var replaced by min + k.  A non-constant extent, or one
 * above UNROLL_MAX copies, keeps a serial loop (with a warning).  Copies
 * share the definitions of vars bound inside the body (in sequence, never
 * nested). */
#include "ir/transform/xform_internal.h"

#define UNROLL_MAX 1024

static TirStmt *unroll_for(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s);
  if (r->loop.kind != TIR_FOR_UNROLLED) return r;
  IrHeap *h = m->heap;
  TirPassCtx *pc = m->ctx;
  int64_t n;
  if (!tir_is_const_int(r->loop.extent, &n) || n > UNROLL_MAX) {
    if (pc->diag)
      diag_warning(pc->diag, r->span, "unroll: loop '%s' %s; emitting a serial loop", r->loop.var->name,
                   tir_is_const_int(r->loop.extent, &n) ? "has too many iterations to unroll"
                                                        : "has a non-constant extent");
    TirStmt *c = tir_stmt_with_span(h, r, r->span);
    c->loop.kind = TIR_FOR_SERIAL;
    return c;
  }
  if (n <= 0) return NULL;
  return xf_repeat(h, r->loop.body, r->loop.var, r->loop.min, n);
}

/* requires: nothing (runs after vectorize-loop); ensures: no loop of kind
 * unrolled remains; preserves: evaluation order. */
TirFunc *tir_unroll_loop(TirPassCtx *ctx, TirFunc *f) {
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_FOR] = unroll_for;
  m.ctx = ctx;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
