/* flops.c - FLOP counting over loop nests (see flops.h). */
#include "ir/flops.h"
#include "ir/arith.h"

typedef struct FlopCtx {
  const FlopBinding *bind;
  int nbind;
  const TirVar *lets[64]; /* let-bound ints whose values are known */
  int64_t letv[64];
  int nlets;
  bool unknown;           /* an extent could not be evaluated */
} FlopCtx;

/* ArithVarLookup over the bindings, then the known lets (innermost first). */
static bool lookup(void *ctx, const TirVar *v, int64_t *out) {
  const FlopCtx *c = ctx;
  for (int i = 0; i < c->nbind; i++)
    if (c->bind[i].var == v) return *out = c->bind[i].value, true;
  for (int i = c->nlets - 1; i >= 0; i--)
    if (c->lets[i] == v) return *out = c->letv[i], true;
  return false;
}

static bool eval_int(FlopCtx *c, const TirExpr *e, int64_t *out) {
  return arith_eval_int(e, lookup, c, out);
}

/* Float operations in one evaluation of e. */
static double expr_flops(const TirExpr *e) {
  if (!e) return 0;
  double n = 0;
  switch (e->kind) {
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_DIV: case TIR_MOD: case TIR_MIN:
    case TIR_MAX: case TIR_FLOORDIV: case TIR_FLOORMOD:
      n = dt_is_float(e->dtype) ? e->dtype.lanes : 0;
      return n + expr_flops(e->bin.a) + expr_flops(e->bin.b);
    case TIR_EQ: case TIR_NE: case TIR_LT: case TIR_LE: case TIR_GT: case TIR_GE:
    case TIR_AND: case TIR_OR:
      return expr_flops(e->bin.a) + expr_flops(e->bin.b);
    case TIR_NOT: case TIR_CAST: return expr_flops(e->un.a);
    case TIR_SELECT:
      return expr_flops(e->sel.cond) + expr_flops(e->sel.t) + expr_flops(e->sel.f);
    case TIR_LOAD:
      for (int i = 0; i < e->load.n; i++) n += expr_flops(e->load.idx[i]);
      return n;
    case TIR_RAMP: return expr_flops(e->ramp.base) + expr_flops(e->ramp.stride);
    case TIR_BROADCAST: return expr_flops(e->bcast.value);
    case TIR_LET: return expr_flops(e->let.value) + expr_flops(e->let.body);
    case TIR_CALL:
      if (e->call.op->kind == TIR_OPK_PURE && dt_is_float(e->dtype)) n = e->dtype.lanes;
      for (int i = 0; i < e->call.n; i++) n += expr_flops(e->call.args[i]);
      return n;
    default: return 0;
  }
}

static double stmt_flops(FlopCtx *c, const TirStmt *s) {
  if (!s) return 0;
  double n = 0;
  int64_t ext;
  switch (s->kind) {
    case TIR_S_STORE: return expr_flops(s->store.value);
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) n += stmt_flops(c, s->seq.stmts[i]);
      return n;
    case TIR_S_FOR:
      if (!eval_int(c, s->loop.extent, &ext)) {
        c->unknown = true;
        return 0;
      }
      if (s->loop.step) { /* trips: ceildiv(extent, step) */
        int64_t st;
        if (!eval_int(c, s->loop.step, &st) || st <= 0) {
          c->unknown = true;
          return 0;
        }
        ext = ext > 0 ? (ext + st - 1) / st : 0;
      }
      return ext > 0 ? (double)ext * stmt_flops(c, s->loop.body) : 0;
    case TIR_S_IF: {
      double a = stmt_flops(c, s->ifs.then_s), b = stmt_flops(c, s->ifs.else_s);
      return a > b ? a : b;
    }
    case TIR_S_LET: {
      int64_t v;
      bool known = c->nlets < 64 && eval_int(c, s->let.value, &v);
      if (known) {
        c->lets[c->nlets] = s->let.var;
        c->letv[c->nlets++] = v;
      }
      n = expr_flops(s->let.value) + stmt_flops(c, s->let.body);
      if (known) c->nlets--;
      return n;
    }
    case TIR_S_ASSERT: return stmt_flops(c, s->assrt.body);
    case TIR_S_WHILE: return stmt_flops(c, s->loop_while.body);
    case TIR_S_BLOCK_REALIZE: return stmt_flops(c, s->realize.block);
    case TIR_S_BLOCK: return stmt_flops(c, s->block.init) + stmt_flops(c, s->block.body);
    case TIR_S_ALLOCATE: return stmt_flops(c, s->alloc.body);
    case TIR_S_DECL_BUFFER: return stmt_flops(c, s->decl.body);
    case TIR_S_ATTR: return stmt_flops(c, s->attr.body);
    default: return 0;
  }
}

double tir_count_flops(const TirFunc *f, const FlopBinding *bind, int nbind) {
  FlopCtx c = {bind, nbind, {0}, {0}, 0, false};
  double n = stmt_flops(&c, f->body);
  return c.unknown ? -1 : n;
}
