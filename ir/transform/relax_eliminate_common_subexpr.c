/* relax_eliminate_common_subexpr.c - EliminateCommonSubexpr (TVM's relax.
 * transform.EliminateCommonSubexpr):
 *
 *   lv0 = R.matmul(x, w)             lv0 = R.matmul(x, w)
 *   lv1 = R.matmul(x, w)     ==>     lv1 = lv0
 *   gv = R.add(lv0, lv1)             gv = R.add(lv0, lv0)
 *
 * A binding whose value is structurally equal (same operator, same operand
 * variables, equal constants, attributes and out_sinfo; ir/structural_equal.h)
 * to an earlier binding's value becomes a binding of the earlier variable, and
 * later uses read the earlier variable directly; the trivial binding left
 * behind is removed by canonicalize-bindings / dead-code-elimination, or kept
 * when it is an output of its dataflow block.  Values with an impure call
 * (R.print, R.call_packed) and match_casts are never merged.  As in TVM the
 * scope is the function: a dataflow variable is forgotten when its block
 * ends, and the branches of an if see the values bound before it but not
 * each other's.
 *
 * requires: nothing; preserves: everything (values are only shared). */
#include "ir/transform/relax_pass_util.h"
#include "ir/transform/xform_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/structural_equal.h"
#include "base/util.h"
#include "base/vec.h"

/* One value bound earlier in scope. */
typedef struct Avail {
  uint64_t hash;        /* cheap key: kind, operator, operand identities */
  const RxExpr *value;  /* the value (after substitution) */
  RxExpr *var;          /* the variable it is bound to */
} Avail;

typedef struct Cse {
  IrHeap *h;
  Avail *avail;
  int navail, capavail;
  IrPtrMap remap;  /* merged var -> the earlier var */
} Cse;

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL; }

/* Equal values hash equally: only what seq_relax_expr compares exactly. */
static uint64_t value_hash(const RxExpr *e) {
  uint64_t h = mix(0xcbf29ce484222325ULL, (uint64_t)e->kind);
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: return mix(h, (uint64_t)(uintptr_t)e);
    case RX_CALL:
      h = mix(h, (uint64_t)(uintptr_t)(e->call.op ? e->call.op->name : NULL));
      h = mix(h, (uint64_t)e->call.n);
      for (int i = 0; i < e->call.n; i++) h = mix(h, value_hash(e->call.args[i]));
      return h;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++) h = mix(h, value_hash(e->tuple.fields[i]));
      return h;
    case RX_TUPLE_GET_ITEM: return mix(mix(h, (uint64_t)e->get.index), value_hash(e->get.tuple));
    case RX_CONST:
      for (int64_t i = 0; i < e->cnst.nbytes && i < 64; i++)
        h = mix(h, ((const unsigned char *)e->cnst.data)[i]);
      return mix(h, (uint64_t)e->cnst.nbytes);
    case RX_GLOBAL_VAR: case RX_EXTERN_FUNC:
      for (const char *s = e->gvar.name; s && *s; s++) h = mix(h, (unsigned char)*s);
      return h;
    default: return h;
  }
}

static RxExpr *cse_expr(Cse *c, RxExpr *e);

/* Visits an if branch with the bindings before it visible, then forgets
 * what the branch added. */
static RxExpr *cse_inner(Cse *c, RxExpr *e) {
  int saved = c->navail;
  IrPtrMap saved_remap = {0};
  for (int i = 0; i < c->remap.cap; i++)
    if (c->remap.keys[i]) ir_ptrmap_put(&saved_remap, c->remap.keys[i], c->remap.vals[i]);
  RxExpr *r = cse_expr(c, e);
  c->navail = saved;
  ir_ptrmap_free(&c->remap);
  c->remap = saved_remap;
  return r;
}

/* The earlier variable bound to a value equal to v, or NULL. */
static RxExpr *lookup(Cse *c, const RxExpr *v, uint64_t hash) {
  for (int i = 0; i < c->navail; i++)
    if (c->avail[i].hash == hash && seq_relax_expr(c->avail[i].value, v)) return c->avail[i].var;
  return NULL;
}

static RxBinding cse_binding(Cse *c, RxBinding bd) {
  bd.value = cse_expr(c, bd.value);
  if (bd.cast_to || rxu_is_impure(bd.value) || bd.value->kind == RX_IF) return bd;
  uint64_t hash = value_hash(bd.value);
  RxExpr *prev = lookup(c, bd.value, hash);
  if (prev) {
    bd.value = prev;
    ir_ptrmap_put(&c->remap, bd.var, prev);
  } else {
    VEC_PUSH(c->avail, c->navail, c->capavail, ((Avail){hash, bd.value, bd.var}));
  }
  return bd;
}

/* Forgets the dataflow variables (they do not outlive their block). */
static void drop_dataflow_vars(Cse *c) {
  int k = 0;
  for (int i = 0; i < c->navail; i++)
    if (c->avail[i].var->kind != RX_DATAFLOW_VAR) c->avail[k++] = c->avail[i];
  c->navail = k;
}

static RxExpr *cse_seq(Cse *c, RxExpr *e) {
  bool changed = false;
  RxuBlocks bs = {0};
  RxuBindings cur = {0};
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    const RxBlock *b = &e->seq.blocks[bi];
    for (int i = 0; i < b->n; i++) {
      RxBinding nb = cse_binding(c, b->bindings[i]);
      changed |= nb.value != b->bindings[i].value;
      rxu_bindings_push(&cur, nb);
    }
    rxu_blocks_close(&bs, &cur, b->is_dataflow);
    if (b->is_dataflow) drop_dataflow_vars(c);
  }
  rxu_bindings_free(&cur);
  RxExpr *body = cse_expr(c, e->seq.body);
  if (!changed && body == e->seq.body && bs.len == e->seq.nblocks) {
    rxu_blocks_free(&bs);
    return e;
  }
  return rxu_seq_from(c->h, e, &bs, body);
}

static RxExpr *cse_expr(Cse *c, RxExpr *e) {
  if (!e) return e;
  if (e->kind == RX_SEQ) return cse_seq(c, e);
  if (e->kind == RX_IF) {
    RxExpr *cond = rxu_subst(c->h, e->ifs.cond, &c->remap);
    RxExpr *t = cse_inner(c, e->ifs.then_e), *f = cse_inner(c, e->ifs.else_e);
    if (cond == e->ifs.cond && t == e->ifs.then_e && f == e->ifs.else_e) return e;
    RxExpr *r = ir_memdup(c->h, e, sizeof *e);
    r->ifs.cond = cond, r->ifs.then_e = t, r->ifs.else_e = f;
    return r;
  }
  return rxu_subst(c->h, e, &c->remap);
}

static RxFunc *cse_func(void *ctx, IrHeap *h, const IrModule *m, RxFunc *f) {
  (void)ctx, (void)m;
  Cse c;
  memset(&c, 0, sizeof c);
  c.h = h;
  RxExpr *body = cse_expr(&c, f->body);
  free(c.avail);
  ir_ptrmap_free(&c.remap);
  return rxu_with_body(h, f, body);
}

IrModule *rx_eliminate_common_subexpr(const IrModule *m, DiagCtx *diag, bool *changed) {
  (void)diag;
  return rxu_map_funcs(m, cse_func, NULL, changed);
}
