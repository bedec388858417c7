/* remove_no_op.c - RemoveNoOp: statements without effect disappear.
 *
 * Evaluate of an expression without side effects, loops whose body is empty
 * or whose extent is 0, ifs whose branches are both empty (`if c: pass
 * else: s` becomes `if not c: s`), and lets, allocations and attributes
 * around nothing. */
#include "ir/transform/xform_internal.h"

static TirStmt *rn_stmt(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s);
  IrHeap *h = m->heap;
  switch (r->kind) {
    case TIR_S_EVAL:
      return xf_has_side_effect(r->eval.value) ? r : NULL;
    case TIR_S_FOR: {
      int64_t n;
      if (xf_is_nop(r->loop.body)) return NULL;
      if (tir_is_const_int(r->loop.extent, &n) && n <= 0) return NULL;
      return r;
    }
    case TIR_S_IF: {
      bool t = xf_is_nop(r->ifs.then_s), e = xf_is_nop(r->ifs.else_s);
      if (t && e) return xf_has_side_effect(r->ifs.cond) ? r : NULL;
      if (e && r->ifs.else_s) {
        TirStmt *c = tir_if(h, r->ifs.cond, r->ifs.then_s, NULL);
        c->span = r->span;
        return c;
      }
      if (t) {
        TirStmt *c = tir_if(h, tir_not(h, r->ifs.cond), r->ifs.else_s, NULL);
        c->span = r->span;
        return c;
      }
      return r;
    }
    case TIR_S_LET:
      return xf_is_nop(r->let.body) && !xf_has_side_effect(r->let.value) ? NULL : r;
    case TIR_S_ALLOCATE:
      return xf_is_nop(r->alloc.body) ? NULL : r;
    case TIR_S_DECL_BUFFER:
      return xf_is_nop(r->decl.body) ? NULL : r;
    case TIR_S_ATTR:
      return xf_is_nop(r->attr.body) ? NULL : r;
    default:
      return r;
  }
}

/* requires: nothing; ensures: no Evaluate(const), no empty loop/if/let/
 * allocation; an empty function body is Evaluate(0). */
TirFunc *tir_remove_no_op(TirPassCtx *ctx, TirFunc *f) {
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  TirStmtKind kinds[] = {TIR_S_EVAL, TIR_S_FOR, TIR_S_IF, TIR_S_LET, TIR_S_ALLOCATE, TIR_S_DECL_BUFFER, TIR_S_ATTR};
  for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++) m.stmt[kinds[i]] = rn_stmt;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  if (!body) body = xf_is_nop(f->body) ? f->body : xf_nop(ctx->heap);
  return xf_with_body(ctx->heap, f, body);
}
