/* canonicalize_loop.c - CanonicalizeLoop: every loop starts at 0.
 *
 * `for i in range(a, a + e)` becomes `for i in range(e)` with i + a
 * substituted for i in the body (the loop var keeps its identity). */
#include "ir/transform/xform_internal.h"

static TirStmt *canon_for(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s);
  if (tir_is_zero(r->loop.min)) return r;
  TirVar *v = r->loop.var;
  TirExpr *shifted = xf_add(m->heap, tir_var_ref(m->heap, v), xf_cast_to(m->heap, v->dtype, r->loop.min));
  TirStmt *body = tir_substitute_stmt1(m->heap, r->loop.body, v, shifted);
  return tir_for(m->heap, v, xf_int(m->heap, v->dtype, 0), r->loop.extent, r->loop.kind,
                 r->loop.thread_tag, r->loop.annotations, body);
}

/* requires: nothing; ensures: every For has min 0 (var dtype); preserves:
 * blocks, loop kinds and annotations, var identity. */
TirFunc *tir_canonicalize_loop(TirPassCtx *ctx, TirFunc *f) {
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_FOR] = canon_for;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
