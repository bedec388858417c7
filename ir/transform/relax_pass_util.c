/* relax_pass_util.c - rebuilding graph function bodies for the general graph
 * passes: substitution, blocks, purity and the removal of unused bindings. */
#include "ir/transform/relax_pass_util.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/vec.h"

void rxu_bindings_push(RxuBindings *v, RxBinding b) { VEC_PUSH(v->items, v->len, v->cap, b); }

void rxu_bindings_free(RxuBindings *v) {
  free(v->items);
  memset(v, 0, sizeof *v);
}

void rxu_blocks_close(RxuBlocks *bs, RxuBindings *cur, bool is_dataflow) {
  if (cur->len == 0) return;
  RxBlock b = {is_dataflow, xmalloc((size_t)cur->len * sizeof *cur->items), cur->len};
  memcpy(b.bindings, cur->items, (size_t)cur->len * sizeof *cur->items);
  VEC_PUSH(bs->items, bs->len, bs->cap, b);
  cur->len = 0;
}

void rxu_blocks_free(RxuBlocks *bs) {
  for (int i = 0; i < bs->len; i++) free(bs->items[i].bindings);
  free(bs->items);
  memset(bs, 0, sizeof *bs);
}

RxExpr *rxu_seq_from(IrHeap *h, const RxExpr *old, RxuBlocks *bs, RxExpr *body) {
  RxExpr *r = rx_seq(h, bs->items, bs->len, body); /* copies the bindings into h */
  r->sinfo = old->sinfo;
  r->span = old->span;
  rxu_blocks_free(bs);
  return r;
}

/* ------------------------------------------------------------ substitution */

/* xs with each element substituted: xs itself when none changed, else a heap copy. */
static RxExpr **subst_list(IrHeap *h, RxExpr **xs, int n, const IrPtrMap *map) {
  RxExpr **out = NULL;
  for (int i = 0; i < n; i++) {
    RxExpr *x = rxu_subst(h, xs[i], map);
    if (x == xs[i] && !out) continue;
    if (!out) {
      out = ir_alloc(h, (size_t)n * sizeof *out);
      memcpy(out, xs, (size_t)n * sizeof *out);
    }
    out[i] = x;
  }
  return out ? out : xs;
}

static RxExpr *subst_seq(IrHeap *h, RxExpr *e, const IrPtrMap *map) {
  RxBlock *blocks = NULL;
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    const RxBlock *ob = &e->seq.blocks[bi];
    RxBinding *nb = NULL;
    for (int i = 0; i < ob->n; i++) {
      RxExpr *v = rxu_subst(h, ob->bindings[i].value, map);
      if (v == ob->bindings[i].value) continue;
      if (!nb) nb = ir_memdup(h, ob->bindings, (size_t)ob->n * sizeof *nb);
      nb[i].value = v;
    }
    if (!nb) continue;
    if (!blocks) blocks = ir_memdup(h, e->seq.blocks, (size_t)e->seq.nblocks * sizeof *blocks);
    blocks[bi].bindings = nb;
  }
  RxExpr *body = rxu_subst(h, e->seq.body, map);
  if (!blocks && body == e->seq.body) return e;
  RxExpr *r = ir_memdup(h, e, sizeof *e);
  if (blocks) r->seq.blocks = blocks;
  r->seq.body = body;
  return r;
}

RxExpr *rxu_subst(IrHeap *h, RxExpr *e, const IrPtrMap *map) {
  if (!e || !map->len) return e;
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR:
      return ir_ptrmap_has(map, e) ? ir_ptrmap_get(map, e) : e;
    case RX_CALL: {
      RxExpr **args = subst_list(h, e->call.args, e->call.n, map);
      if (args == e->call.args) return e;
      RxExpr *r = ir_memdup(h, e, sizeof *e);
      r->call.args = args;
      return r;
    }
    case RX_TUPLE: {
      RxExpr **fs = subst_list(h, e->tuple.fields, e->tuple.n, map);
      if (fs == e->tuple.fields) return e;
      RxExpr *r = ir_memdup(h, e, sizeof *e);
      r->tuple.fields = fs;
      return r;
    }
    case RX_TUPLE_GET_ITEM: {
      RxExpr *t = rxu_subst(h, e->get.tuple, map);
      if (t == e->get.tuple) return e;
      RxExpr *r = ir_memdup(h, e, sizeof *e);
      r->get.tuple = t;
      return r;
    }
    case RX_IF: {
      RxExpr *c = rxu_subst(h, e->ifs.cond, map), *t = rxu_subst(h, e->ifs.then_e, map);
      RxExpr *f = rxu_subst(h, e->ifs.else_e, map);
      if (c == e->ifs.cond && t == e->ifs.then_e && f == e->ifs.else_e) return e;
      RxExpr *r = ir_memdup(h, e, sizeof *e);
      r->ifs.cond = c, r->ifs.then_e = t, r->ifs.else_e = f;
      return r;
    }
    case RX_SEQ: return subst_seq(h, e, map);
    default: return e;
  }
}

void rxu_for_each_use(const RxExpr *e, RxuVarFn fn, void *ctx) {
  if (!e) return;
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: fn(ctx, e); return;
    case RX_CALL:
      for (int i = 0; i < e->call.n; i++) rxu_for_each_use(e->call.args[i], fn, ctx);
      return;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++) rxu_for_each_use(e->tuple.fields[i], fn, ctx);
      return;
    case RX_TUPLE_GET_ITEM: rxu_for_each_use(e->get.tuple, fn, ctx); return;
    case RX_IF:
      rxu_for_each_use(e->ifs.cond, fn, ctx);
      rxu_for_each_use(e->ifs.then_e, fn, ctx);
      rxu_for_each_use(e->ifs.else_e, fn, ctx);
      return;
    case RX_SEQ:
      for (int bi = 0; bi < e->seq.nblocks; bi++)
        for (int i = 0; i < e->seq.blocks[bi].n; i++)
          rxu_for_each_use(e->seq.blocks[bi].bindings[i].value, fn, ctx);
      rxu_for_each_use(e->seq.body, fn, ctx);
      return;
    default: return;
  }
}

bool rxu_is_impure(const RxExpr *e) {
  if (!e) return false;
  switch (e->kind) {
    case RX_CALL:
      if (e->call.op && (e->call.op->id == RX_OP_CALL_PACKED || e->call.op->id == RX_OP_PRINT))
        return true;
      for (int i = 0; i < e->call.n; i++)
        if (rxu_is_impure(e->call.args[i])) return true;
      return false;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++)
        if (rxu_is_impure(e->tuple.fields[i])) return true;
      return false;
    case RX_TUPLE_GET_ITEM: return rxu_is_impure(e->get.tuple);
    case RX_IF:
      return rxu_is_impure(e->ifs.cond) || rxu_is_impure(e->ifs.then_e) ||
             rxu_is_impure(e->ifs.else_e);
    case RX_SEQ:
      for (int bi = 0; bi < e->seq.nblocks; bi++)
        for (int i = 0; i < e->seq.blocks[bi].n; i++)
          if (rxu_is_impure(e->seq.blocks[bi].bindings[i].value)) return true;
      return rxu_is_impure(e->seq.body);
    default: return false;
  }
}

/* ------------------------------------------------------------ unused bindings */

typedef struct Liveness {
  IrPtrMap bind;  /* var -> its RxBinding (const) */
  IrPtrMap live;  /* vars whose bindings stay */
  PtrVec work;    /* live vars whose values are not scanned yet */
} Liveness;

static void mark_live(void *ctx, const RxExpr *var) {
  Liveness *lv = ctx;
  if (ir_ptrmap_has(&lv->live, var)) return;
  ir_ptrmap_put(&lv->live, var, (void *)var);
  pv_push(&lv->work, (void *)var);
}

/* Registers every binding under e; the ones that must stay are live roots. */
static void collect_bindings(Liveness *lv, const RxExpr *e) {
  if (!e) return;
  if (e->kind == RX_IF) {
    collect_bindings(lv, e->ifs.then_e);
    collect_bindings(lv, e->ifs.else_e);
    return;
  }
  if (e->kind != RX_SEQ) return;
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    const RxBlock *b = &e->seq.blocks[bi];
    for (int i = 0; i < b->n; i++) {
      const RxBinding *bd = &b->bindings[i];
      ir_ptrmap_put(&lv->bind, bd->var, (void *)bd);
      if (bd->cast_to || (!b->is_dataflow && rxu_is_impure(bd->value))) mark_live(lv, bd->var);
      collect_bindings(lv, bd->value);
    }
  }
}

static RxExpr *prune(Liveness *lv, IrHeap *h, RxExpr *e);

static RxExpr *prune_seq(Liveness *lv, IrHeap *h, RxExpr *e) {
  bool changed = false;
  RxuBlocks bs = {0};
  RxuBindings cur = {0};
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    const RxBlock *b = &e->seq.blocks[bi];
    for (int i = 0; i < b->n; i++) {
      RxBinding bd = b->bindings[i];
      if (!ir_ptrmap_has(&lv->live, bd.var)) {
        changed = true;
        continue;
      }
      RxExpr *v = prune(lv, h, bd.value);
      changed |= v != bd.value;
      bd.value = v;
      rxu_bindings_push(&cur, bd);
    }
    if (cur.len == 0) changed = true; /* an empty block goes */
    rxu_blocks_close(&bs, &cur, b->is_dataflow);
  }
  rxu_bindings_free(&cur);
  if (!changed) {
    rxu_blocks_free(&bs);
    return e;
  }
  return rxu_seq_from(h, e, &bs, e->seq.body);
}

static RxExpr *prune(Liveness *lv, IrHeap *h, RxExpr *e) {
  if (e && e->kind == RX_SEQ) return prune_seq(lv, h, e);
  if (!e || e->kind != RX_IF) return e;
  RxExpr *t = prune(lv, h, e->ifs.then_e), *f = prune(lv, h, e->ifs.else_e);
  if (t == e->ifs.then_e && f == e->ifs.else_e) return e;
  RxExpr *r = ir_memdup(h, e, sizeof *e);
  r->ifs.then_e = t, r->ifs.else_e = f;
  return r;
}

RxExpr *rxu_remove_unused(IrHeap *h, RxExpr *body) {
  if (!body || body->kind != RX_SEQ) return body;
  Liveness lv;
  memset(&lv, 0, sizeof lv);
  collect_bindings(&lv, body);
  rxu_for_each_use(body->seq.body, mark_live, &lv);
  while (lv.work.len) {
    const RxExpr *v = lv.work.items[--lv.work.len];
    const RxBinding *bd = ir_ptrmap_get(&lv.bind, v);
    if (bd) rxu_for_each_use(bd->value, mark_live, &lv);
  }
  RxExpr *r = prune(&lv, h, body);
  ir_ptrmap_free(&lv.bind);
  ir_ptrmap_free(&lv.live);
  pv_free(&lv.work);
  return r;
}

/* ------------------------------------------------------------ modules */

RxFunc *rxu_with_body(IrHeap *h, RxFunc *f, RxExpr *body) {
  if (body == f->body) return f;
  RxFunc *nf = ir_memdup(h, f, sizeof *f);
  nf->body = body;
  return nf;
}

IrModule *rxu_map_funcs(const IrModule *m, RxuFuncFn fn, void *ctx, bool *changed) {
  IrModule *out = ir_module_derive(m);
  out->name = m->name;
  bool ch = false;
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_TIR) {
      ir_module_add_tir(out, g->name, g->tir);
      continue;
    }
    RxFunc *nf = fn(ctx, out->heap, m, g->rx);
    ch |= nf != g->rx;
    ir_module_add_relax(out, g->name, nf);
  }
  if (changed) *changed = ch;
  return out;
}
