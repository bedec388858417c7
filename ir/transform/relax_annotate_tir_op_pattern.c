/* relax_annotate_tir_op_pattern.c - AnnotateTIROpPattern: every prim_func of a
 * module with graph functions gets the attribute "op_pattern" (TVM's
 * OpPatternKind as an int, RxOpPattern) that FuseOps reads.
 *
 * The kind comes from the function's blocks, as TVM's AnalyzeOpPatternKind
 * decides it: in each non-root block the one BufferStore is compared with every
 * BufferLoad (same indices: element-wise; the store's indices in order, unit
 * dims read at 0 skipped: broadcast; only the store's vars: injective); an
 * element-wise pair among broadcast ones keeps the block element-wise.  A block
 * that fits none of these and has a reduce iter is a comm-reduce, or
 * out-ewise-fusable when its body is a multiply-accumulate (matmul, conv2d) or
 * its loads index the reduce vars through expressions (pooling); anything else
 * (no store, two stores at different indices, no reduction) is opaque.  The
 * function's kind is the largest block kind, except that an output block after
 * a reduction (softmax) makes it out-ewise-fusable.  Indices compare by
 * identity, as TVM's same_as: a var reference matches the same var.
 *
 * A prim_func that already carries a nonzero "op_pattern" keeps it.  A module
 * without graph functions is returned unchanged: the graph pipeline has
 * nothing to fuse there.
 *
 * requires: nothing; preserves: everything but the prim_funcs' attrs. */
#include "ir/transform/xform_internal.h"

#include <string.h>

/* The analysis state, shared by all blocks as in TVM (a nested block resets it). */
typedef struct PatAnalyzer {
  const TirFunc *f;      /* the function (its buffer_map are the param buffers) */
  const TirStmt *store;  /* the current block's BufferStore, or NULL */
  PtrVec loads;          /* the current block's BufferLoads (TirExpr*) */
  RxOpPattern kind;      /* the result so far */
} PatAnalyzer;

static bool same_expr(const TirExpr *a, const TirExpr *b) {
  return a == b || (a->kind == TIR_VAR && b->kind == TIR_VAR && a->var == b->var);
}

static bool same_array(TirExpr *const *a, int n, TirExpr *const *b, int m) {
  if (n != m) return false;
  for (int i = 0; i < n; i++)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}

static bool is_output_block(const PatAnalyzer *pa, const TirBlock *b) {
  for (int w = 0; w < b->nwrites; w++)
    for (int i = 0; i < pa->f->nparams; i++)
      if (pa->f->buffer_map[i] == b->writes[w].buffer) return true;
  return false;
}

/* B[idx] = ... A[i, j] ...: the load's indices are the store's, in order. */
static bool is_broadcast(const TirStmt *st, const TirExpr *ld) {
  const TirBuffer *lb = ld->load.buf;
  for (int i = 0, j = 0; i < ld->load.n; i++) {
    int64_t z;
    if (i < lb->ndim && tir_is_one(lb->shape[i]) && tir_is_const_int(ld->load.idx[i], &z) && z == 0)
      continue; /* a unit dim read at 0 */
    while (j < st->store.n && !same_expr(st->store.idx[j], ld->load.idx[i])) j++;
    if (j == st->store.n) return false;
  }
  return true;
}

/* The store's indices as vars into out; false when one is not a plain var. */
static bool store_vars(const TirStmt *st, PtrVec *out) {
  for (int i = 0; i < st->store.n; i++) {
    if (st->store.idx[i]->kind != TIR_VAR) return false;
    pv_push(out, st->store.idx[i]->var);
  }
  return true;
}

static bool in_vec(const PtrVec *v, const void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == p) return true;
  return false;
}

/* Every var of the load's indices is one of the store's index vars. */
static bool is_injective(const TirStmt *st, const TirExpr *ld) {
  PtrVec vars = {0}, used = {0};
  bool ok = store_vars(st, &vars);
  for (int i = 0; ok && i < ld->load.n; i++) tir_expr_free_vars(ld->load.idx[i], &used);
  for (int i = 0; ok && i < used.len; i++) ok = in_vec(&vars, used.items[i]);
  pv_free(&vars);
  pv_free(&used);
  return ok;
}

/* Some store var is absent from the load's indices (the load is reused). */
static bool allows_reuse(const TirStmt *st, const TirExpr *ld) {
  PtrVec vars = {0}, used = {0};
  bool ok = store_vars(st, &vars);
  for (int i = 0; ok && i < ld->load.n; i++) tir_expr_free_vars(ld->load.idx[i], &used);
  bool missing = false;
  for (int i = 0; ok && i < vars.len; i++) missing |= !in_vec(&used, vars.items[i]);
  pv_free(&vars);
  pv_free(&used);
  return ok && missing;
}

static const TirExpr *strip_cast(const TirExpr *e) {
  while (e->kind == TIR_CAST) e = e->un.a;
  return e;
}

/* C[i, j] = C[i, j] + A[..] * B[..] with both operands reused: matmul, conv. */
static bool is_fma(const TirStmt *body) {
  if (body->kind != TIR_S_STORE) return false;
  const TirExpr *add = strip_cast(body->store.value);
  if (add->kind != TIR_ADD) return false;
  const TirExpr *mul = strip_cast(add->bin.b), *acc = strip_cast(add->bin.a);
  if (mul->kind != TIR_MUL || acc->kind != TIR_LOAD || acc->load.buf != body->store.buf ||
      !same_array(acc->load.idx, acc->load.n, body->store.idx, body->store.n))
    return false;
  const TirExpr *l = strip_cast(mul->bin.a), *r = strip_cast(mul->bin.b);
  return l->kind == TIR_LOAD && r->kind == TIR_LOAD && allows_reuse(body, l) && allows_reuse(body, r);
}

/* Every index that uses a reduce var is that var itself. */
static bool is_pure_reduce(const PtrVec *rvars, const TirExpr *ld) {
  for (int i = 0; i < ld->load.n; i++) {
    const TirExpr *e = ld->load.idx[i];
    bool uses = false;
    for (int k = 0; k < rvars->len && !uses; k++) uses = tir_expr_uses_var(e, rvars->items[k]);
    if (uses && !(e->kind == TIR_VAR && in_vec(rvars, e->var))) return false;
  }
  return true;
}

static RxOpPattern pmax(RxOpPattern a, RxOpPattern b) { return a > b ? a : b; }

/* The pattern of the store against all loads (element-wise wins over broadcast). */
static RxOpPattern index_pattern(const PatAnalyzer *pa) {
  RxOpPattern p = RX_PAT_ELEMWISE;
  bool has_ew = false;
  for (int i = 0; i < pa->loads.len; i++) {
    const TirExpr *ld = pa->loads.items[i];
    const TirStmt *st = pa->store;
    if (same_array(st->store.idx, st->store.n, ld->load.idx, ld->load.n)) has_ew = true;
    else if (is_broadcast(st, ld)) p = pmax(p, RX_PAT_BROADCAST);
    else if (is_injective(st, ld)) p = pmax(p, RX_PAT_INJECTIVE);
    else return RX_PAT_OPAQUE;
  }
  return p == RX_PAT_BROADCAST && has_ew ? RX_PAT_ELEMWISE : p;
}

/* A block whose indices are not injective: a reduction or opaque. */
static void reduce_pattern(PatAnalyzer *pa, const TirBlock *b) {
  PtrVec rvars = {0};
  for (int i = 0; i < b->niters; i++)
    if (b->iters[i].type == TIR_ITER_REDUCE) pv_push(&rvars, b->iters[i].var);
  if (!rvars.len) {
    pa->kind = RX_PAT_OPAQUE;
  } else if (is_fma(b->body)) {
    pa->kind = pmax(pa->kind, RX_PAT_OUT_EWISE_FUSABLE);
  } else {
    RxOpPattern k = RX_PAT_COMM_REDUCE;
    for (int i = 0; i < pa->loads.len; i++)
      if (!is_pure_reduce(&rvars, pa->loads.items[i])) k = RX_PAT_OUT_EWISE_FUSABLE; /* pooling */
    pa->kind = pmax(pa->kind, k);
  }
  pv_free(&rvars);
}

static void visit_block(TirVisitor *v, const TirBlock *b) {
  PatAnalyzer *pa = v->ctx;
  if (!strcmp(b->name, "root")) {
    tir_visit_stmt(v, b->body);
    return;
  }
  pa->loads.len = 0;
  pa->store = NULL;
  tir_visit_stmt(v, b->body); /* the body only: T.init() is not looked at */
  if (!pa->store) {
    pa->kind = RX_PAT_OPAQUE;
    return;
  }
  RxOpPattern ip = index_pattern(pa);
  if (ip != RX_PAT_OPAQUE) {
    /* softmax: a reduction followed by an output block */
    if (is_output_block(pa, b) && pa->kind == RX_PAT_COMM_REDUCE) pa->kind = RX_PAT_OUT_EWISE_FUSABLE;
    else pa->kind = pmax(pa->kind, ip);
    return;
  }
  reduce_pattern(pa, b);
}

static bool pre_stmt(TirVisitor *v, const TirStmt *s) {
  PatAnalyzer *pa = v->ctx;
  if (s->kind == TIR_S_BLOCK) {
    visit_block(v, &s->block);
    return false;
  }
  if (s->kind == TIR_S_STORE) {
    if (pa->store && !same_array(s->store.idx, s->store.n, pa->store->store.idx, pa->store->store.n)) {
      pa->kind = RX_PAT_OPAQUE; /* two stores: not a TE-style compute */
      return false;
    }
    pa->store = s;
  }
  return true;
}

static bool pre_expr(TirVisitor *v, const TirExpr *e) {
  if (e->kind == TIR_LOAD) pv_push(&((PatAnalyzer *)v->ctx)->loads, (void *)e);
  return true;
}

RxOpPattern rx_analyze_op_pattern(const TirFunc *f) {
  PatAnalyzer pa = {.f = f, .kind = RX_PAT_ELEMWISE};
  TirVisitor v = {.pre_stmt = pre_stmt, .pre_expr = pre_expr, .ctx = &pa};
  if (f->body) tir_visit_stmt(&v, f->body);
  pv_free(&pa.loads);
  return pa.kind;
}

/* attrs with key set to v, keys kept sorted as TVM prints them. */
static IrValue *dict_set_sorted(IrHeap *h, const IrValue *d, const char *key, IrValue *v) {
  if (irv_dict_get(d, key) || !d || d->kind != IRV_DICT) return irv_dict_set(h, d, key, v);
  int n = d->n;
  const char **keys = ir_alloc(h, (size_t)(n + 1) * sizeof *keys);
  IrValue **vals = ir_alloc(h, (size_t)(n + 1) * sizeof *vals);
  int j = 0;
  bool placed = false;
  for (int i = 0; i < n; i++) {
    if (!placed && strcmp(key, d->keys[i]) < 0) {
      keys[j] = key, vals[j++] = v;
      placed = true;
    }
    keys[j] = d->keys[i], vals[j++] = d->items[i];
  }
  if (!placed) keys[j] = key, vals[j++] = v;
  return irv_dict(h, keys, vals, j);
}

IrModule *rx_annotate_tir_op_pattern(const IrModule *m, DiagCtx *diag, bool *changed) {
  (void)diag;
  IrModule *out = ir_module_derive(m);
  out->name = m->name;
  bool has_graph = false, ch = false;
  for (int i = 0; i < m->nfuncs; i++) has_graph |= m->funcs[i].kind == IR_FUNC_RELAX;
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_RELAX) {
      ir_module_add_relax(out, g->name, g->rx);
      continue;
    }
    const IrValue *old = irv_dict_get(g->tir->attrs, "op_pattern");
    if (!has_graph || (old && !(old->kind == IRV_INT && old->i == 0))) {
      ir_module_add_tir(out, g->name, g->tir);
      continue;
    }
    RxOpPattern k = rx_analyze_op_pattern(g->tir);
    TirFunc *nf = ir_memdup(out->heap, g->tir, sizeof *g->tir);
    nf->attrs = dict_set_sorted(out->heap, g->tir->attrs, "op_pattern", irv_int(out->heap, (int64_t)k));
    ir_module_add_tir(out, g->name, nf);
    ch = true;
  }
  if (changed) *changed = ch;
  return out;
}
