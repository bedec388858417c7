/* reducer.c - the commutative reducers rfactor recognizes (TVM's
 * ReducerRegistry) and the matching of a reduction block against them.
 *
 * A reduction block's T.init() stores identities into n buffers (one store,
 * or a sequence of them); its body is one store, or n LetStmts whose values
 * are the combined values followed by n stores of the let vars.  The combined
 * values must be the registered combiner applied to (the loads of the
 * buffers, the new values), with the buffers' loads on the left, and the
 * init values its identities. */
#include <math.h>
#include <string.h>

#include "ir/structural_equal.h"
#include "sched/sched_internal.h"

/* The registered reducers: n buffers, combiner, identities. */
typedef enum RedKind {
  RED_SUM, RED_MUL, RED_MIN, RED_MAX, RED_SUM2, RED_ARGMAX, RED_ARGMAX_TIE, RED_ARGMIN,
  RED_ARGMIN_TIE, RED_COUNT
} RedKind;

static int red_nbuffers(int kind) { return kind >= RED_SUM2 ? 2 : 1; }

/* The finite extreme of a dtype, as TVM's min_value / max_value. */
static double dtype_extreme(DType t, bool highest) {
  if (t.code == DT_FLOAT) {
    double m = t.bits == 16 ? 65504.0 : t.bits == 32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
    return highest ? m : -m;
  }
  if (t.code == DT_UINT || t.code == DT_BOOL) return highest ? ldexp(1.0, t.bits) - 1 : 0.0;
  return highest ? ldexp(1.0, t.bits - 1) - 1 : -ldexp(1.0, t.bits - 1);
}

/* Identity i of the reducer, for values of dtype t. */
static double red_identity(int kind, int i, DType t) {
  switch (kind) {
    case RED_SUM: case RED_SUM2: return 0.0;
    case RED_MUL: return 1.0;
    case RED_MIN: return dtype_extreme(t, true);
    case RED_MAX: return dtype_extreme(t, false);
    case RED_ARGMAX: case RED_ARGMAX_TIE: return i == 0 ? -1.0 : dtype_extreme(t, false);
    default: return i == 0 ? -1.0 : dtype_extreme(t, true);
  }
}

TirExpr *sch_reducer_combine(IrHeap *h, int kind, int i, TirExpr *const *x, TirExpr *const *y) {
  switch (kind) {
    case RED_SUM: case RED_SUM2: return tir_binary(h, TIR_ADD, x[i], y[i]);
    case RED_MUL: return tir_binary(h, TIR_MUL, x[i], y[i]);
    case RED_MIN: return tir_binary(h, TIR_MIN, x[i], y[i]);
    case RED_MAX: return tir_binary(h, TIR_MAX, x[i], y[i]);
    case RED_ARGMAX: case RED_ARGMIN: {
      TirExpr *c = tir_binary(h, kind == RED_ARGMAX ? TIR_GE : TIR_LE, x[1], y[1]);
      return tir_select(h, c, x[i], y[i]);
    }
    default: {
      TirExprKind strict = kind == RED_ARGMAX_TIE ? TIR_GT : TIR_LT;
      TirExpr *better = tir_binary(h, strict, x[1], y[1]);
      if (i == 1) return tir_select(h, better, x[1], y[1]);
      TirExpr *tie = tir_binary(h, TIR_AND, tir_binary(h, TIR_EQ, x[1], y[1]),
                                tir_binary(h, TIR_LT, x[0], y[0]));
      return tir_select(h, tir_binary(h, TIR_OR, better, tie), x[0], y[0]);
    }
  }
}

/* ------------------------------------------------------------- matching */

/* Pattern holes x0, x1, y0, y1 and what they matched. */
typedef struct Holes {
  TirVar *v[4];
  const TirExpr *got[4];
  bool ok;
} Holes;

static void match(Holes *hs, const TirExpr *p, const TirExpr *e) {
  if (!hs->ok) return;
  if (p->kind == TIR_VAR) {
    for (int k = 0; k < 4; k++) {
      if (p->var != hs->v[k]) continue;
      if (!hs->got[k]) hs->got[k] = e;
      else if (!seq_tir_expr(hs->got[k], e)) hs->ok = false;
      return;
    }
  }
  if (p->kind != e->kind) { hs->ok = false; return; }
  switch (p->kind) {
    case TIR_SELECT:
      match(hs, p->sel.cond, e->sel.cond);
      match(hs, p->sel.t, e->sel.t);
      match(hs, p->sel.f, e->sel.f);
      return;
    case TIR_NOT: match(hs, p->un.a, e->un.a); return;
    default:
      if (p->kind >= TIR_ADD && p->kind <= TIR_OR) {
        match(hs, p->bin.a, e->bin.a);
        match(hs, p->bin.b, e->bin.b);
        return;
      }
      hs->ok = seq_tir_expr(p, e);
  }
}

static bool const_value(const TirExpr *e, double *v) {
  if (e->kind == TIR_INT) return *v = (double)e->ival, true;
  if (e->kind == TIR_FLOAT) return *v = e->fval, true;
  return false;
}

/* Whether reducer `kind` matches identities r->init and combined values. */
static bool match_kind(IrHeap *tmp, int kind, SchReduction *r, TirExpr *const *values) {
  if (red_nbuffers(kind) != r->n) return false;
  for (int i = 0; i < r->n; i++) {
    double v;
    if (!const_value(r->init[i], &v) || v != red_identity(kind, i, r->init[i]->dtype)) return false;
  }
  Holes hs = {{0}, {0}, true};
  TirExpr *x[2], *y[2];
  for (int i = 0; i < r->n; i++) {
    DType t = values[i]->dtype;
    x[i] = tir_var_ref(tmp, hs.v[i] = tir_var(tmp, "x", t));
    y[i] = tir_var_ref(tmp, hs.v[2 + i] = tir_var(tmp, "y", t));
  }
  for (int i = 0; i < r->n && hs.ok; i++) match(&hs, sch_reducer_combine(tmp, kind, i, x, y), values[i]);
  if (!hs.ok) return false;
  for (int i = 0; i < r->n; i++) {
    const TirExpr *l = hs.got[i];
    if (!l || l->kind != TIR_LOAD || l->load.buf != r->buf[i] || l->load.n != r->nidx) return false;
    for (int d = 0; d < r->nidx; d++)
      if (!seq_tir_expr(l->load.idx[d], r->upd_idx[i][d])) return false;
    r->lhs[i] = (TirExpr *)hs.got[i];
    r->rhs[i] = (TirExpr *)hs.got[2 + i];
  }
  r->kind = kind;
  return true;
}

/* The updates of the body: one store, or n lets then n stores of their
 * vars (any order).  Returns 0 or TVM's violated condition number. */
static int extract_updates(const TirStmt *body, SchReduction *r, TirExpr **values) {
  if (body->kind == TIR_S_STORE && r->n == 1) {
    r->buf[0] = body->store.buf;
    r->upd_idx[0] = body->store.idx;
    values[0] = body->store.value;
    return 0;
  }
  if (body->kind == TIR_S_STORE) return 6;
  const TirVar *vars[SCH_RED_MAX];
  const TirStmt *let = body;
  for (int i = 0; i < r->n; i++) {
    if (!let || let->kind != TIR_S_LET) return 3;
    for (int j = 0; j < i; j++)
      if (vars[j] == let->let.var) return 4;
    vars[i] = let->let.var;
    values[i] = let->let.value;
    if (i < r->n - 1) let = let->let.body;
  }
  const TirStmt *in = let->let.body;
  if (in->kind == TIR_S_LET) return 3;
  if (in->kind != TIR_S_SEQ && in->kind != TIR_S_STORE) return 5;
  int m = in->kind == TIR_S_SEQ ? in->seq.n : 1;
  if (m != r->n) return 6;
  for (int i = 0; i < r->n; i++) r->buf[i] = NULL;
  for (int k = 0; k < m; k++) {
    const TirStmt *st = in->kind == TIR_S_SEQ ? in->seq.stmts[k] : in;
    if (st->kind != TIR_S_STORE) return 5;
    if (st->store.value->kind != TIR_VAR) return 7;
    int idx = -1;
    for (int i = 0; i < r->n; i++)
      if (vars[i] == st->store.value->var) idx = i;
    if (idx < 0) return 7;
    if (r->buf[idx]) return 8;
    for (int i = 0; i < r->n; i++)
      if (r->buf[i] == st->store.buf) return 9;
    r->buf[idx] = st->store.buf;
    r->upd_idx[idx] = st->store.idx;
  }
  return 0;
}

/* The init stores, matched to the update order; 0 or the violated condition. */
static int match_inits(const TirStmt *init, SchReduction *r) {
  const TirStmt *const *inits = init->kind == TIR_S_SEQ ? (const TirStmt *const *)init->seq.stmts : &init;
  int m = init->kind == TIR_S_SEQ ? init->seq.n : 1;
  for (int k = 0; k < m; k++) {
    if (inits[k]->kind != TIR_S_STORE) return 1;
    for (int j = 0; j < k; j++)
      if (inits[j]->store.buf == inits[k]->store.buf) return 2;
  }
  IrHeap *h = ir_heap_new();
  ArithCtx *ctx = arith_new(h);
  int bad = 0;
  for (int i = 0; i < r->n && !bad; i++) {
    const TirBuffer *b = r->buf[i];
    if (b->ndim != r->buf[0]->ndim) bad = 11;
    for (int d = 0; d < r->nidx && !bad; d++) {
      if (!arith_can_prove_equal(ctx, b->shape[d], r->buf[0]->shape[d])) bad = 11;
      else if (!arith_can_prove_equal(ctx, r->upd_idx[i][d], r->idx[d])) bad = 12;
    }
  }
  for (int k = 0; k < m && !bad; k++) {
    const TirStmt *st = inits[k];
    if (st->store.n != r->nidx) { bad = 12; break; }
    for (int d = 0; d < r->nidx && !bad; d++)
      if (!arith_can_prove_equal(ctx, st->store.idx[d], r->idx[d])) bad = 12;
    int idx = -1;
    for (int i = 0; i < r->n; i++)
      if (r->buf[i] == st->store.buf) idx = i;
    if (!bad && idx < 0) bad = 10;
    if (!bad) r->init[idx] = st->store.value;
  }
  arith_free(ctx);
  ir_heap_release(h);
  return bad;
}

int sch_match_reduction(const TirBlock *b, SchReduction *r) {
  memset(r, 0, sizeof *r);
  if (!b->init) return 1;
  r->n = b->init->kind == TIR_S_SEQ ? b->init->seq.n : 1;
  if (r->n > SCH_RED_MAX) return 6;
  TirExpr *values[SCH_RED_MAX];
  int bad = extract_updates(b->body, r, values);
  if (bad) return bad;
  r->idx = r->upd_idx[0];
  r->nidx = r->buf[0]->ndim;
  for (int i = 0; i < r->n; i++)
    if (r->buf[i]->ndim != r->nidx) return 11;
  bad = match_inits(b->init, r);
  if (bad) return bad;
  IrHeap *tmp = ir_heap_new();
  bool ok = false;
  for (int kind = 0; kind < RED_COUNT && !ok; kind++) ok = match_kind(tmp, kind, r, values);
  ir_heap_release(tmp);
  return ok ? 0 : -1;
}
