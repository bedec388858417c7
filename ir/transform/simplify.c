/* simplify.c - Simplify: the analyzer's canonical form for every expression.
 *
 * Walks statements with an analyzer that knows the enclosing loop ranges and
 * the conditions of enclosing `if`s; each maximal scalar expression goes
 * through arith_simplify (floats only get exact identities, so results stay
 * bitwise equal).  `if True`/`if False` keep only the branch taken, and a
 * block predicate that is provably true becomes `True`. */
#include "ir/transform/xform_internal.h"

#include <string.h>

static ArithCtx *actx(TirMutator *m) { return m->ctx; }

static TirExpr *simp_expr(TirMutator *m, TirExpr *e) {
  if (e->dtype.lanes != 1) return tir_mutate_expr_children(m, e);
  TirExpr *r = xf_simplify(actx(m), e);
  return r ? r : e;
}

/* Buffers keep their declared shapes (a rebuilt param buffer would no longer
 * be the one in buffer_map). */
static TirBuffer *keep_buffer(TirMutator *m, TirBuffer *b) { return b; }

static TirStmt *simp_for(TirMutator *m, TirStmt *s) {
  TirExpr *mn = tir_mutate_expr(m, s->loop.min), *ex = tir_mutate_expr(m, s->loop.extent);
  arith_push(actx(m));
  arith_bind_range(actx(m), s->loop.var, mn, ex);
  TirStmt *body = tir_mutate_stmt(m, s->loop.body);
  arith_pop(actx(m));
  if (!body) body = xf_nop(m->heap);
  if (mn == s->loop.min && ex == s->loop.extent && body == s->loop.body) return s;
  TirStmt *c = tir_stmt_with_span(m->heap, s, s->span);
  c->loop.min = mn;
  c->loop.extent = ex;
  c->loop.body = body;
  return c;
}

static TirStmt *simp_if(TirMutator *m, TirStmt *s) {
  TirExpr *cond = tir_mutate_expr(m, s->ifs.cond);
  if (xf_is_const_true(cond)) return tir_mutate_stmt(m, s->ifs.then_s);
  if (xf_is_const_false(cond)) return tir_mutate_stmt(m, s->ifs.else_s);
  arith_push(actx(m));
  if (cond->dtype.lanes == 1) arith_assume(actx(m), cond);
  TirStmt *t = tir_mutate_stmt(m, s->ifs.then_s);
  arith_pop(actx(m));
  TirStmt *e = tir_mutate_stmt(m, s->ifs.else_s);
  if (!t) t = xf_nop(m->heap);
  if (cond == s->ifs.cond && t == s->ifs.then_s && e == s->ifs.else_s) return s;
  TirStmt *c = tir_if(m->heap, cond, t, e);
  c->span = s->span;
  return c;
}

/* requires: nothing; ensures: every scalar expression is in the analyzer's
 * canonical form, constant ifs are resolved; preserves: float semantics
 * bit for bit, statement structure otherwise. */
/* Integer division or remainder by a constant zero: undefined behaviour in
 * native code (SIGFPE, or LLVM folds it to anything), an error in the
 * interpreter; a compile-time error here, where the divisor is known. */
typedef struct {
  TirPassCtx *pc;
  int nfound;
} DivZero;

static bool div_zero_pre(TirVisitor *v, const TirExpr *e) {
  DivZero *z = v->ctx;
  bool div = e->kind == TIR_DIV || e->kind == TIR_MOD || e->kind == TIR_FLOORDIV || e->kind == TIR_FLOORMOD;
  if (!div || !dt_is_integer(e->dtype) || e->bin.b->kind != TIR_INT || e->bin.b->ival != 0) return true;
  if (z->nfound++ < 8 && z->pc->diag) {
    if (e->span.file) diag_error(z->pc->diag, e->span, "division by zero");
    else diag_error(z->pc->diag, span_none, "division by zero in '%s'", z->pc->func_name ? z->pc->func_name : "?");
  }
  return true;
}

static int check_div_zero(TirPassCtx *ctx, const TirStmt *body) {
  DivZero z = {ctx, 0};
  TirVisitor v;
  memset(&v, 0, sizeof v);
  v.pre_expr = div_zero_pre;
  v.ctx = &z;
  if (body) tir_visit_stmt(&v, body);
  return z.nfound;
}

TirFunc *tir_simplify(TirPassCtx *ctx, TirFunc *f) {
  /* a literal zero divisor still has its source span before simplification */
  if (check_div_zero(ctx, f->body)) return f;
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  ArithCtx *a = arith_new(ctx->heap);
  for (int k = 0; k < TIR_NUM_EXPR_KINDS; k++) m.expr[k] = simp_expr;
  m.stmt[TIR_S_FOR] = simp_for;
  m.stmt[TIR_S_IF] = simp_if;
  m.buffer = keep_buffer;
  m.ctx = a;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  arith_free(a);
  if (check_div_zero(ctx, body)) return f;
  return xf_with_body(ctx->heap, f, body);
}
