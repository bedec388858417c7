/* mutate.c - default copy-on-write recursion of TirMutator, and tir_substitute.
 *
 * Every rebuild goes through one pattern: mutate the children, compare them
 * by pointer with the old ones, and copy the node only when one differs, so
 * an unchanged subtree comes back as the very same pointer. */
#include "ir/mutate.h"

#include <string.h>

void tir_mutator_init(TirMutator *m, IrHeap *h) {
  memset(m, 0, sizeof *m);
  m->heap = h;
}

void tir_mutator_free(TirMutator *m) {
  ir_ptrmap_free(&m->var_remap);
  ir_ptrmap_free(&m->buf_remap);
}

/* ------------------------------------------------------------- helpers */

/* Mutates an array of expressions; returns `a` itself when no element changed,
 * else a fresh heap array. */
static TirExpr **mut_exprs(TirMutator *m, TirExpr **a, int n) {
  TirExpr **out = a;
  for (int i = 0; i < n; i++) {
    TirExpr *ne = tir_mutate_expr(m, a[i]);
    if (ne != a[i] && out == a) {
      out = ir_alloc(m->heap, (size_t)n * sizeof *out);
      memcpy(out, a, (size_t)n * sizeof *out);
    }
    if (out != a) out[i] = ne;
  }
  return out;
}

static TirExpr *copy_expr(TirMutator *m, const TirExpr *e) {
  return ir_memdup(m->heap, e, sizeof *e);
}

static TirStmt *copy_stmt(TirMutator *m, const TirStmt *s) {
  return ir_memdup(m->heap, s, sizeof *s);
}

/* A statement slot that may not be empty (loop bodies etc.): a deleted body
 * becomes the no-op T.evaluate(0). */
static TirStmt *mut_body(TirMutator *m, TirStmt *s) {
  if (!s) return NULL;
  TirStmt *ns = tir_mutate_stmt(m, s);
  return ns ? ns : tir_evaluate(m->heap, tir_i32(m->heap, 0));
}

TirVar *tir_mutate_def_var(TirMutator *m, TirVar *var) {
  if (!var) return NULL;
  if (ir_ptrmap_has(&m->var_remap, var)) return ir_ptrmap_get(&m->var_remap, var);
  TirVar *nv = m->def_var ? m->def_var(m, var) : var;
  if (!nv) nv = var;
  ir_ptrmap_put(&m->var_remap, var, nv);
  return nv;
}

IrValue *tir_mutate_value(TirMutator *m, IrValue *val) {
  if (!val) return NULL;
  if (val->kind == IRV_EXPR) {
    TirExpr *ne = tir_mutate_expr(m, val->expr);
    return ne == val->expr ? val : irv_expr(m->heap, ne);
  }
  if (val->kind == IRV_BUFFER) { /* follows the buffer when a pass replaces it */
    TirBuffer *nb = tir_mutate_buffer(m, val->buf);
    return nb == val->buf ? val : irv_buffer(m->heap, nb);
  }
  if (val->kind != IRV_ARRAY && val->kind != IRV_DICT) return val;
  IrValue **items = val->items;
  for (int i = 0; i < val->n; i++) {
    IrValue *ni = tir_mutate_value(m, val->items[i]);
    if (ni != val->items[i] && items == val->items) {
      items = ir_alloc(m->heap, (size_t)val->n * sizeof *items);
      memcpy(items, val->items, (size_t)val->n * sizeof *items);
    }
    if (items != val->items) items[i] = ni;
  }
  if (items == val->items) return val;
  return val->kind == IRV_ARRAY ? irv_array(m->heap, items, val->n)
                                : irv_dict(m->heap, val->keys, items, val->n);
}

TirBuffer *tir_mutate_buffer(TirMutator *m, TirBuffer *b) {
  if (!b) return NULL;
  if (m->buffer) {
    TirBuffer *nb = m->buffer(m, b);
    if (nb) return nb;
  }
  if (ir_ptrmap_has(&m->buf_remap, b)) return ir_ptrmap_get(&m->buf_remap, b);
  TirVar *data = tir_mutate_def_var(m, b->data);
  TirExpr **shape = mut_exprs(m, b->shape, b->ndim);
  TirExpr **strides = mut_exprs(m, b->strides, b->nstrides);
  TirExpr *off = tir_mutate_expr(m, b->elem_offset);
  TirBuffer *nb = b;
  if (data != b->data || shape != b->shape || strides != b->strides || off != b->elem_offset) {
    nb = tir_buffer_copy(m->heap, b);
    nb->data = data;
    nb->shape = shape;
    nb->strides = strides;
    nb->elem_offset = off;
  }
  ir_ptrmap_put(&m->buf_remap, b, nb);
  return nb;
}

/* A region with its buffer and ranges mutated; sets *changed when it differs. */
static TirBufferRegion mut_region(TirMutator *m, const TirBufferRegion *r, bool *changed) {
  TirBufferRegion out = *r;
  out.buffer = tir_mutate_buffer(m, r->buffer);
  for (int i = 0; i < r->n; i++) {
    TirExpr *mn = tir_mutate_expr(m, r->ranges[i].min);
    TirExpr *ex = tir_mutate_expr(m, r->ranges[i].extent);
    if ((mn != r->ranges[i].min || ex != r->ranges[i].extent) && out.ranges == r->ranges) {
      out.ranges = ir_alloc(m->heap, (size_t)r->n * sizeof *out.ranges);
      memcpy(out.ranges, r->ranges, (size_t)r->n * sizeof *out.ranges);
    }
    if (out.ranges != r->ranges) {
      out.ranges[i].min = mn;
      out.ranges[i].extent = ex;
    }
  }
  if (out.buffer != r->buffer || out.ranges != r->ranges) *changed = true;
  return out;
}

/* Mutates an array of regions; returns `a` when unchanged. */
static TirBufferRegion *mut_regions(TirMutator *m, TirBufferRegion *a, int n) {
  TirBufferRegion *out = a;
  for (int i = 0; i < n; i++) {
    bool ch = false;
    TirBufferRegion r = mut_region(m, &a[i], &ch);
    if (ch && out == a) {
      out = ir_alloc(m->heap, (size_t)n * sizeof *out);
      memcpy(out, a, (size_t)n * sizeof *out);
    }
    if (out != a) out[i] = r;
  }
  return out;
}

/* --------------------------------------------------------- expressions */

TirExpr *tir_mutate_expr(TirMutator *m, TirExpr *e) {
  if (!e) return NULL;
  if (m->expr[e->kind]) return m->expr[e->kind](m, e);
  return tir_mutate_expr_children(m, e);
}

/* One helper per union member of tir_expr.def; the dispatch below is
 * generated from its member column. */
static TirExpr *mut_e_leaf(TirMutator *m, TirExpr *e) { return e; }
#define mut_e_ival mut_e_leaf
#define mut_e_fval mut_e_leaf
#define mut_e_str mut_e_leaf

static TirExpr *mut_e_var(TirMutator *m, TirExpr *e) {
  TirVar *nv = ir_ptrmap_get(&m->var_remap, e->var);
  if (!nv || nv == e->var) return e;
  TirExpr *c = copy_expr(m, e);
  c->var = nv;
  c->dtype = nv->dtype;
  return c;
}

static TirExpr *mut_e_bin(TirMutator *m, TirExpr *e) {
  TirExpr *a = tir_mutate_expr(m, e->bin.a), *b = tir_mutate_expr(m, e->bin.b);
  if (a == e->bin.a && b == e->bin.b) return e;
  TirExpr *c = tir_binary(m->heap, e->kind, a, b);
  c->span = e->span;
  return c;
}

static TirExpr *mut_e_un(TirMutator *m, TirExpr *e) {
  TirExpr *a = tir_mutate_expr(m, e->un.a);
  if (a == e->un.a) return e;
  TirExpr *c = copy_expr(m, e);
  c->un.a = a;
  if (e->kind == TIR_NOT) c->dtype = a->dtype;
  return c;
}

static TirExpr *mut_e_sel(TirMutator *m, TirExpr *e) {
  TirExpr *k = tir_mutate_expr(m, e->sel.cond), *t = tir_mutate_expr(m, e->sel.t),
          *f = tir_mutate_expr(m, e->sel.f);
  if (k == e->sel.cond && t == e->sel.t && f == e->sel.f) return e;
  TirExpr *c = copy_expr(m, e);
  c->sel.cond = k;
  c->sel.t = t;
  c->sel.f = f;
  c->dtype = t->dtype;
  return c;
}

static TirExpr *mut_e_load(TirMutator *m, TirExpr *e) {
  TirBuffer *b = tir_mutate_buffer(m, e->load.buf);
  TirExpr **idx = mut_exprs(m, e->load.idx, e->load.n);
  if (b == e->load.buf && idx == e->load.idx) return e;
  TirExpr *c = tir_load(m->heap, b, idx, e->load.n);
  c->span = e->span;
  return c;
}

static TirExpr *mut_e_ramp(TirMutator *m, TirExpr *e) {
  TirExpr *b = tir_mutate_expr(m, e->ramp.base), *s = tir_mutate_expr(m, e->ramp.stride);
  if (b == e->ramp.base && s == e->ramp.stride) return e;
  TirExpr *c = tir_ramp(m->heap, b, s, e->ramp.lanes);
  c->span = e->span;
  return c;
}

static TirExpr *mut_e_bcast(TirMutator *m, TirExpr *e) {
  TirExpr *v = tir_mutate_expr(m, e->bcast.value);
  if (v == e->bcast.value) return e;
  TirExpr *c = tir_broadcast(m->heap, v, e->bcast.lanes);
  c->span = e->span;
  return c;
}

static TirExpr *mut_e_let(TirMutator *m, TirExpr *e) {
  TirExpr *v = tir_mutate_expr(m, e->let.value);
  TirVar *nv = tir_mutate_def_var(m, e->let.var);
  TirExpr *b = tir_mutate_expr(m, e->let.body);
  if (v == e->let.value && nv == e->let.var && b == e->let.body) return e;
  TirExpr *c = copy_expr(m, e);
  c->let.var = nv;
  c->let.value = v;
  c->let.body = b;
  c->dtype = b->dtype;
  return c;
}

static TirExpr *mut_e_call(TirMutator *m, TirExpr *e) {
  TirExpr **args = mut_exprs(m, e->call.args, e->call.n);
  if (args == e->call.args) return e;
  TirExpr *c = copy_expr(m, e);
  c->call.args = args;
  return c;
}

TirExpr *tir_mutate_expr_children(TirMutator *m, TirExpr *e) {
  if (!e) return NULL;
  switch (e->kind) {
#define X(E, N, M) case TIR_##E: return mut_e_##M(m, e);
#include "ir/tir_expr.def"
#undef X
  case TIR_NUM_EXPR_KINDS: break;
  }
  tvs_unreachable();
}

/* ---------------------------------------------------------- statements
 * One helper per union member of tir_stmt.def, dispatched from its member
 * column like the expressions above. */

TirStmt *tir_mutate_stmt(TirMutator *m, TirStmt *s) {
  if (!s) return NULL;
  if (m->stmt[s->kind]) return m->stmt[s->kind](m, s);
  return tir_mutate_stmt_children(m, s);
}

static TirStmt *mut_s_block(TirMutator *m, TirStmt *s) {
  const TirBlock *b = &s->block;
  bool changed = false;
  TirIterVar *iters = b->iters;
  for (int i = 0; i < b->niters; i++) {
    TirIterVar it = b->iters[i];
    it.dom.min = tir_mutate_expr(m, it.dom.min);
    it.dom.extent = tir_mutate_expr(m, it.dom.extent);
    it.var = tir_mutate_def_var(m, it.var);
    if (it.var != b->iters[i].var || it.dom.min != b->iters[i].dom.min ||
        it.dom.extent != b->iters[i].dom.extent) {
      if (iters == b->iters) {
        iters = ir_alloc(m->heap, (size_t)b->niters * sizeof *iters);
        memcpy(iters, b->iters, (size_t)b->niters * sizeof *iters);
      }
    }
    if (iters != b->iters) iters[i] = it;
  }
  TirBuffer **allocs = b->allocs;
  for (int i = 0; i < b->nallocs; i++) {
    TirBuffer *nb = tir_mutate_buffer(m, b->allocs[i]);
    if (nb != b->allocs[i] && allocs == b->allocs) {
      allocs = ir_alloc(m->heap, (size_t)b->nallocs * sizeof *allocs);
      memcpy(allocs, b->allocs, (size_t)b->nallocs * sizeof *allocs);
    }
    if (allocs != b->allocs) allocs[i] = nb;
  }
  TirMatchBuffer *matches = b->matches;
  for (int i = 0; i < b->nmatches; i++) {
    bool ch = false;
    TirMatchBuffer mb;
    mb.source = mut_region(m, &b->matches[i].source, &ch);
    mb.buffer = tir_mutate_buffer(m, b->matches[i].buffer);
    if ((ch || mb.buffer != b->matches[i].buffer) && matches == b->matches) {
      matches = ir_alloc(m->heap, (size_t)b->nmatches * sizeof *matches);
      memcpy(matches, b->matches, (size_t)b->nmatches * sizeof *matches);
    }
    if (matches != b->matches) matches[i] = mb;
  }
  IrValue *ann = tir_mutate_value(m, b->annotations);
  TirBufferRegion *reads = mut_regions(m, b->reads, b->nreads);
  TirBufferRegion *writes = mut_regions(m, b->writes, b->nwrites);
  TirStmt *init = tir_mutate_stmt(m, b->init);
  TirStmt *body = mut_body(m, b->body);
  changed = iters != b->iters || allocs != b->allocs || matches != b->matches ||
            ann != b->annotations || reads != b->reads || writes != b->writes ||
            init != b->init || body != b->body;
  if (!changed) return s;
  TirStmt *c = copy_stmt(m, s);
  c->block.iters = iters;
  c->block.allocs = allocs;
  c->block.matches = matches;
  c->block.annotations = ann;
  c->block.reads = reads;
  c->block.writes = writes;
  c->block.init = init;
  c->block.body = body;
  return c;
}

static TirStmt *mut_s_store(TirMutator *m, TirStmt *s) {
  TirBuffer *b = tir_mutate_buffer(m, s->store.buf);
  TirExpr *v = tir_mutate_expr(m, s->store.value);
  TirExpr **idx = mut_exprs(m, s->store.idx, s->store.n);
  if (b == s->store.buf && v == s->store.value && idx == s->store.idx) return s;
  TirStmt *c = copy_stmt(m, s);
  c->store.buf = b;
  c->store.value = v;
  c->store.idx = idx;
  return c;
}

static TirStmt *mut_s_seq(TirMutator *m, TirStmt *s) {
  TirStmt **out = s->seq.stmts;
  bool flat = true; /* no element became NULL or a SEQ */
  for (int i = 0; i < s->seq.n; i++) {
    TirStmt *ns = tir_mutate_stmt(m, s->seq.stmts[i]);
    if (ns != s->seq.stmts[i] && out == s->seq.stmts) {
      out = ir_alloc(m->heap, (size_t)s->seq.n * sizeof *out);
      memcpy(out, s->seq.stmts, (size_t)s->seq.n * sizeof *out);
    }
    if (out != s->seq.stmts) out[i] = ns;
    if (!ns || ns->kind == TIR_S_SEQ) flat = false;
  }
  if (out == s->seq.stmts) return s;
  if (!flat) return tir_seq(m->heap, out, s->seq.n);
  TirStmt *c = copy_stmt(m, s);
  c->seq.stmts = out;
  return c;
}

static TirStmt *mut_s_loop(TirMutator *m, TirStmt *s) {
  TirExpr *mn = tir_mutate_expr(m, s->loop.min), *ex = tir_mutate_expr(m, s->loop.extent);
  TirExpr *st = s->loop.step ? tir_mutate_expr(m, s->loop.step) : NULL;
  TirVar *v = tir_mutate_def_var(m, s->loop.var);
  IrValue *ann = tir_mutate_value(m, s->loop.annotations);
  TirStmt *body = mut_body(m, s->loop.body);
  if (mn == s->loop.min && ex == s->loop.extent && st == s->loop.step && v == s->loop.var &&
      ann == s->loop.annotations && body == s->loop.body)
    return s;
  TirStmt *c = copy_stmt(m, s);
  c->loop.min = mn;
  c->loop.extent = ex;
  c->loop.step = st;
  c->loop.var = v;
  c->loop.annotations = ann;
  c->loop.body = body;
  return c;
}

static TirStmt *mut_s_ifs(TirMutator *m, TirStmt *s) {
  TirExpr *k = tir_mutate_expr(m, s->ifs.cond);
  TirStmt *t = mut_body(m, s->ifs.then_s), *f = tir_mutate_stmt(m, s->ifs.else_s);
  if (k == s->ifs.cond && t == s->ifs.then_s && f == s->ifs.else_s) return s;
  TirStmt *c = copy_stmt(m, s);
  c->ifs.cond = k;
  c->ifs.then_s = t;
  c->ifs.else_s = f;
  return c;
}

static TirStmt *mut_s_let(TirMutator *m, TirStmt *s) {
  TirExpr *v = tir_mutate_expr(m, s->let.value);
  TirVar *nv = tir_mutate_def_var(m, s->let.var);
  TirStmt *body = mut_body(m, s->let.body);
  if (v == s->let.value && nv == s->let.var && body == s->let.body) return s;
  TirStmt *c = copy_stmt(m, s);
  c->let.value = v;
  c->let.var = nv;
  c->let.body = body;
  return c;
}

static TirStmt *mut_s_eval(TirMutator *m, TirStmt *s) {
  TirExpr *v = tir_mutate_expr(m, s->eval.value);
  if (v == s->eval.value) return s;
  TirStmt *c = copy_stmt(m, s);
  c->eval.value = v;
  return c;
}

static TirStmt *mut_s_assrt(TirMutator *m, TirStmt *s) {
  TirExpr *k = tir_mutate_expr(m, s->assrt.cond), *msg = tir_mutate_expr(m, s->assrt.msg);
  TirStmt *body = mut_body(m, s->assrt.body);
  if (k == s->assrt.cond && msg == s->assrt.msg && body == s->assrt.body) return s;
  TirStmt *c = copy_stmt(m, s);
  c->assrt.cond = k;
  c->assrt.msg = msg;
  c->assrt.body = body;
  return c;
}

static TirStmt *mut_s_loop_while(TirMutator *m, TirStmt *s) {
  TirExpr *k = tir_mutate_expr(m, s->loop_while.cond);
  TirStmt *body = mut_body(m, s->loop_while.body);
  if (k == s->loop_while.cond && body == s->loop_while.body) return s;
  TirStmt *c = copy_stmt(m, s);
  c->loop_while.cond = k;
  c->loop_while.body = body;
  return c;
}

static TirStmt *mut_s_realize(TirMutator *m, TirStmt *s) {
  TirExpr **vals = mut_exprs(m, s->realize.values, s->realize.n);
  TirExpr *pred = tir_mutate_expr(m, s->realize.pred);
  TirStmt *blk = tir_mutate_stmt(m, s->realize.block);
  TVS_ASSERT(blk && blk->kind == TIR_S_BLOCK);
  if (vals == s->realize.values && pred == s->realize.pred && blk == s->realize.block) return s;
  TirStmt *c = copy_stmt(m, s);
  c->realize.values = vals;
  c->realize.pred = pred;
  c->realize.block = blk;
  return c;
}

static TirStmt *mut_s_alloc(TirMutator *m, TirStmt *s) {
  TirVar *v = tir_mutate_def_var(m, s->alloc.var);
  TirExpr **ext = mut_exprs(m, s->alloc.extents, s->alloc.n);
  TirStmt *body = mut_body(m, s->alloc.body);
  if (v == s->alloc.var && ext == s->alloc.extents && body == s->alloc.body) return s;
  TirStmt *c = copy_stmt(m, s);
  c->alloc.var = v;
  c->alloc.extents = ext;
  c->alloc.body = body;
  return c;
}

static TirStmt *mut_s_decl(TirMutator *m, TirStmt *s) {
  TirBuffer *b = tir_mutate_buffer(m, s->decl.buf);
  TirStmt *body = mut_body(m, s->decl.body);
  if (b == s->decl.buf && body == s->decl.body) return s;
  TirStmt *c = copy_stmt(m, s);
  c->decl.buf = b;
  c->decl.body = body;
  return c;
}

static TirStmt *mut_s_attr(TirMutator *m, TirStmt *s) {
  TirVar *node = tir_mutate_def_var(m, s->attr.node);
  TirExpr *v = tir_mutate_expr(m, s->attr.value);
  TirStmt *body = mut_body(m, s->attr.body);
  if (node == s->attr.node && v == s->attr.value && body == s->attr.body) return s;
  TirStmt *c = copy_stmt(m, s);
  c->attr.node = node;
  c->attr.value = v;
  c->attr.body = body;
  return c;
}

TirStmt *tir_mutate_stmt_children(TirMutator *m, TirStmt *s) {
  if (!s) return NULL;
  switch (s->kind) {
#define X(E, N, M) case TIR_S_##E: return mut_s_##M(m, s);
#include "ir/tir_stmt.def"
#undef X
  case TIR_NUM_STMT_KINDS: break;
  }
  tvs_unreachable();
}

TirFunc *tir_mutate_func(TirMutator *m, TirFunc *f) {
  if (!f) return NULL;
  TirVar **params = f->params;
  TirBuffer **bmap = f->buffer_map;
  int n = f->nparams;
  for (int i = 0; i < n; i++) {
    TirVar *nv = tir_mutate_def_var(m, f->params[i]);
    if (nv != f->params[i] && params == f->params) {
      params = ir_alloc(m->heap, (size_t)n * sizeof *params);
      memcpy(params, f->params, (size_t)n * sizeof *params);
    }
    if (params != f->params) params[i] = nv;
  }
  for (int i = 0; i < n; i++) {
    if (!f->buffer_map || !f->buffer_map[i]) continue;
    TirBuffer *nb = tir_mutate_buffer(m, f->buffer_map[i]);
    if (nb != f->buffer_map[i] && bmap == f->buffer_map) {
      bmap = ir_alloc(m->heap, (size_t)n * sizeof *bmap);
      memcpy(bmap, f->buffer_map, (size_t)n * sizeof *bmap);
    }
    if (bmap != f->buffer_map) bmap[i] = nb;
  }
  IrValue *attrs = tir_mutate_value(m, f->attrs);
  TirStmt *body = tir_mutate_stmt(m, f->body);
  if (params == f->params && bmap == f->buffer_map && attrs == f->attrs && body == f->body)
    return f;
  TirFunc *c = ir_memdup(m->heap, f, sizeof *f);
  c->params = params;
  c->buffer_map = bmap;
  c->attrs = attrs;
  c->body = body;
  return c;
}

/* ------------------------------------------------------------ substitution */

static TirExpr *subst_var(TirMutator *m, TirExpr *e) {
  const IrPtrMap *vmap = m->ctx;
  if (ir_ptrmap_has(vmap, e->var)) {
    TirExpr *v = ir_ptrmap_get(vmap, e->var);
    if (v) return v;
  }
  return tir_mutate_expr_children(m, e);
}

static TirVar *subst_def_var(TirMutator *m, TirVar *var) {
  const IrPtrMap *vmap = m->ctx;
  TirExpr *v = ir_ptrmap_get(vmap, var);
  return v && v->kind == TIR_VAR ? v->var : var;
}

static void subst_init(TirMutator *m, IrHeap *h, const IrPtrMap *vmap) {
  tir_mutator_init(m, h);
  m->expr[TIR_VAR] = subst_var;
  m->def_var = subst_def_var;
  m->ctx = (void *)vmap;
}

TirExpr *tir_substitute_expr(IrHeap *h, const TirExpr *e, const IrPtrMap *vmap) {
  if (!e || !vmap || !vmap->len) return (TirExpr *)e;
  TirMutator m;
  subst_init(&m, h, vmap);
  TirExpr *r = tir_mutate_expr(&m, (TirExpr *)e);
  tir_mutator_free(&m);
  return r;
}

TirStmt *tir_substitute_stmt(IrHeap *h, const TirStmt *s, const IrPtrMap *vmap) {
  if (!s || !vmap || !vmap->len) return (TirStmt *)s;
  TirMutator m;
  subst_init(&m, h, vmap);
  TirStmt *r = tir_mutate_stmt(&m, (TirStmt *)s);
  tir_mutator_free(&m);
  return r;
}

TirExpr *tir_substitute_expr1(IrHeap *h, const TirExpr *e, const TirVar *var, TirExpr *value) {
  IrPtrMap vm = {0};
  ir_ptrmap_put(&vm, var, value);
  TirExpr *r = tir_substitute_expr(h, e, &vm);
  ir_ptrmap_free(&vm);
  return r;
}

TirStmt *tir_substitute_stmt1(IrHeap *h, const TirStmt *s, const TirVar *var, TirExpr *value) {
  IrPtrMap vm = {0};
  ir_ptrmap_put(&vm, var, value);
  TirStmt *r = tir_substitute_stmt(h, s, &vm);
  ir_ptrmap_free(&vm);
  return r;
}
