/* canonicalize_loop.c - CanonicalizeLoop: every loop starts at 0 with step 1.
 *
 * `for i in range(a, a + e, s)` becomes `for i in range(ceildiv(e, s))` with
 * i * s + a substituted for i in the body (the loop var keeps its identity),
 * as TVM's first lowering pass does.  A step that cannot be proven >= 1 is an
 * error (TVM: "may not be positive"): the loop would not terminate. */
#include "ir/transform/xform_internal.h"

typedef struct Canon {
  TirPassCtx *ctx;
  ArithCtx *arith;
  bool failed;
} Canon;

/* ceildiv(extent, step), simplified (constants fold). */
static TirExpr *trip_count(Canon *c, TirExpr *extent, TirExpr *step) {
  IrHeap *h = c->ctx->heap;
  TirExpr *num = xf_add(h, extent, xf_sub(h, step, xf_int(h, step->dtype, 1)));
  return xf_simplify(c->arith, tir_binary(h, TIR_FLOORDIV, num, xf_cast_to(h, extent->dtype, step)));
}

static TirStmt *canon_for(TirMutator *m, TirStmt *s) {
  Canon *c = m->ctx;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  bool step = !tir_for_trivial_step(r);
  if (tir_is_zero(r->loop.min) && !step) return r;
  TirVar *v = r->loop.var;
  TirExpr *extent = r->loop.extent;
  TirExpr *idx = tir_var_ref(m->heap, v);
  if (step) {
    TirExpr *st = xf_cast_to(m->heap, v->dtype, r->loop.step);
    if (!arith_prove(c->arith, tir_binary(m->heap, TIR_GE, st, xf_int(m->heap, st->dtype, 1)))) {
      if (c->ctx->diag)
        diag_error(c->ctx->diag, r->loop.step->span.file ? r->loop.step->span : r->span,
                   "canonicalize-loop: the step of loop '%s' in '%s' may not be positive", v->name,
                   c->ctx->func_name ? c->ctx->func_name : "?");
      c->failed = true;
      return r;
    }
    idx = xf_mul(m->heap, idx, st);
    extent = trip_count(c, extent, st);
  }
  if (!tir_is_zero(r->loop.min)) idx = xf_add(m->heap, idx, xf_cast_to(m->heap, v->dtype, r->loop.min));
  TirStmt *body = tir_substitute_stmt1(m->heap, r->loop.body, v, idx);
  return tir_for(m->heap, v, xf_int(m->heap, v->dtype, 0), extent, r->loop.kind, r->loop.thread_tag,
                 r->loop.annotations, body);
}

/* requires: nothing; ensures: every For has min 0 (var dtype) and no step;
 * preserves: blocks, loop kinds and annotations, var identity.  A step not
 * provably positive is reported on ctx->diag (f is returned unchanged). */
TirFunc *tir_canonicalize_loop(TirPassCtx *ctx, TirFunc *f) {
  Canon c = {ctx, arith_new(ctx->heap), false};
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.ctx = &c;
  m.stmt[TIR_S_FOR] = canon_for;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  arith_free(c.arith);
  return c.failed ? f : xf_with_body(ctx->heap, f, body);
}
