/* plan_buffer_allocation.c - PlanAndUpdateBufferAllocationLocation.
 *
 * Each alloc_buffer moves from the block that declares it down to the lowest
 * common ancestor (loop or block) of all its accesses: into that block's
 * alloc_buffers, or, for a loop, into a new opaque block wrapping the loop
 * body (its reads/writes inferred from the body).  A shared-scope buffer
 * stops above the first threadIdx-bound loop: the threads of a block share
 * it (TVM's rule). */
#include "ir/access_region.h"
#include "ir/transform/xform_internal.h"

#include <stdlib.h>
#include <string.h>

/* What is known about one allocated buffer. */
typedef struct AllocInfo {
  TirBuffer *buf;          /* the buffer */
  const TirStmt *owner;    /* the BLOCK that allocates it */
  const TirStmt **path;    /* scope nodes (FOR / BLOCK) from the root to the LCA */
  int len;                 /* LCA depth; -1 = not accessed yet */
  int order;               /* declaration order */
} AllocInfo;

typedef struct Plan {
  const TirStmt **stack;   /* current scope path */
  int depth, cap;
  IrPtrMap info;           /* TirBuffer* -> AllocInfo* */
  IrPtrMap data_info;      /* data TirVar* -> AllocInfo* */
  PtrVec all;              /* AllocInfo* in declaration order */
  IrPtrMap owner_moves;    /* owner BLOCK -> PtrVec* of AllocInfo* leaving it */
  IrPtrMap target_moves;   /* target FOR/BLOCK -> PtrVec* of AllocInfo* arriving */
} Plan;

static void touch(Plan *p, AllocInfo *ai) {
  if (ai->len < 0) {
    ai->path = xmalloc((size_t)(p->depth ? p->depth : 1) * sizeof *ai->path);
    memcpy(ai->path, p->stack, (size_t)p->depth * sizeof *ai->path);
    ai->len = p->depth;
    return;
  }
  int k = 0;
  while (k < ai->len && k < p->depth && ai->path[k] == p->stack[k]) k++;
  ai->len = k;
}

/* Joins the LCA of ai with the scope at depth `depth` of the current path. */
static void touch_at(Plan *p, AllocInfo *ai, int depth) {
  int saved = p->depth;
  p->depth = depth;
  touch(p, ai);
  p->depth = saved;
}

/* An opaque iter carries a dependency across the loops its binding uses
 * (e.g. a rolling buffer): the buffers the block accesses are allocated
 * above the outermost of those loops (TVM's dominate scope of opaque iters). */
static void plan_opaque_iters(Plan *p, const TirStmt *realize) {
  const TirBlock *b = tir_realize_block(realize);
  int top = p->depth, top_reduce = p->depth;
  for (int k = 0; k < b->niters && k < realize->realize.n; k++) {
    if (b->iters[k].type != TIR_ITER_OPAQUE && b->iters[k].type != TIR_ITER_REDUCE) continue;
    int *t = b->iters[k].type == TIR_ITER_OPAQUE ? &top : &top_reduce;
    for (int d = 0; d < *t; d++)
      if (p->stack[d]->kind == TIR_S_FOR && tir_expr_uses_var(realize->realize.values[k], p->stack[d]->loop.var))
        *t = d;
  }
  for (int pass = 0; pass < 2 && top < p->depth; pass++) {
    const TirBufferRegion *r = pass ? b->writes : b->reads;
    int n = pass ? b->nwrites : b->nreads;
    for (int i = 0; i < n; i++) {
      AllocInfo *ai = ir_ptrmap_get(&p->info, r[i].buffer);
      if (ai) touch_at(p, ai, top);
    }
  }
  /* A reduction accumulates into what it writes across the loops its
   * reduce iters are bound to: allocated inside one of them, the partial
   * result would not survive to the next iteration (e.g. a consumer moved
   * under the reduction loop by reverse_compute_at). */
  for (int i = 0; i < b->nwrites && top_reduce < p->depth; i++) {
    AllocInfo *ai = ir_ptrmap_get(&p->info, b->writes[i].buffer);
    if (ai) touch_at(p, ai, top_reduce);
  }
}

static bool plan_pre_stmt(TirVisitor *v, const TirStmt *s) {
  Plan *p = v->ctx;
  if (s->kind == TIR_S_BLOCK_REALIZE) plan_opaque_iters(p, s);
  if (s->kind != TIR_S_FOR && s->kind != TIR_S_BLOCK) return true;
  VEC_PUSH(p->stack, p->depth, p->cap, s);
  if (s->kind == TIR_S_BLOCK) {
    for (int i = 0; i < s->block.nallocs; i++) {
      AllocInfo *ai = xcalloc(1, sizeof *ai);
      ai->buf = s->block.allocs[i];
      ai->owner = s;
      ai->len = -1;
      ai->order = p->all.len;
      pv_push(&p->all, ai);
      ir_ptrmap_put(&p->info, ai->buf, ai);
      ir_ptrmap_put(&p->data_info, ai->buf->data, ai);
    }
  }
  return true;
}

static void plan_post_stmt(TirVisitor *v, const TirStmt *s) {
  Plan *p = v->ctx;
  if (s->kind == TIR_S_FOR || s->kind == TIR_S_BLOCK) p->depth--;
}

static void plan_use_buffer(TirVisitor *v, const TirBuffer *b) {
  Plan *p = v->ctx;
  AllocInfo *ai = ir_ptrmap_get(&p->info, b);
  if (ai) touch(p, ai);
}

static bool plan_pre_expr(TirVisitor *v, const TirExpr *e) {
  Plan *p = v->ctx;
  if (e->kind == TIR_VAR) {
    AllocInfo *ai = ir_ptrmap_get(&p->data_info, e->var);
    if (ai) touch(p, ai); /* opaque use of the data pointer */
  }
  return true;
}

static void add_move(IrPtrMap *m, const void *key, AllocInfo *ai) {
  PtrVec *v = ir_ptrmap_get(m, key);
  if (!v) {
    v = xcalloc(1, sizeof *v);
    ir_ptrmap_put(m, key, v);
  }
  pv_push(v, ai);
}

static void free_moves(IrPtrMap *m) {
  for (int i = 0; i < m->cap; i++)
    if (m->keys[i]) {
      pv_free(m->vals[i]);
      free(m->vals[i]);
    }
  ir_ptrmap_free(m);
}

static bool in_moves(const PtrVec *v, const TirBuffer *b) {
  for (int i = 0; v && i < v->len; i++)
    if (((AllocInfo *)v->items[i])->buf == b) return true;
  return false;
}

/* Regions without the entries of buffers in v. */
static TirBufferRegion *drop_regions(IrHeap *h, TirBufferRegion *r, int n, const PtrVec *v, int *nout) {
  TirBufferRegion *out = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out);
  int k = 0;
  for (int i = 0; i < n; i++)
    if (!in_moves(v, r[i].buffer)) out[k++] = r[i];
  *nout = k;
  return out;
}

static TirStmt *plan_block(TirMutator *m, TirStmt *s) {
  Plan *p = m->ctx;
  PtrVec *leave = ir_ptrmap_get(&p->owner_moves, s);
  PtrVec *arrive = ir_ptrmap_get(&p->target_moves, s);
  TirStmt *r = tir_mutate_stmt_children(m, s);
  if (!leave && !arrive) return r;
  TirBlock nb = r->block;
  int cap = nb.nallocs + (arrive ? arrive->len : 0);
  TirBuffer **allocs = ir_alloc(m->heap, (size_t)(cap ? cap : 1) * sizeof *allocs);
  int k = 0;
  for (int i = 0; i < nb.nallocs; i++)
    if (!in_moves(leave, s->block.allocs[i])) allocs[k++] = nb.allocs[i];
  for (int i = 0; arrive && i < arrive->len; i++)
    allocs[k++] = tir_mutate_buffer(m, ((AllocInfo *)arrive->items[i])->buf);
  nb.allocs = allocs;
  nb.nallocs = k;
  if (arrive) {
    nb.reads = drop_regions(m->heap, nb.reads, nb.nreads, arrive, &nb.nreads);
    nb.writes = drop_regions(m->heap, nb.writes, nb.nwrites, arrive, &nb.nwrites);
  }
  TirStmt *out = tir_block(m->heap, &nb);
  out->span = r->span;
  return out;
}

/* The relaxed regions simplified, as TVM's analyzer leaves them (no
 * `by * 16 + 0 // 16`, which would not survive a print/parse round trip). */
static void simplify_regions(IrHeap *h, TirBufferRegion *r, int n) {
  ArithCtx *a = arith_new(h);
  for (int i = 0; i < n; i++) {
    if (r[i].n == 0) continue;
    /* the ranges may be shared with a nested block's region: copy first */
    r[i].ranges = ir_memdup(h, r[i].ranges, (size_t)r[i].n * sizeof *r[i].ranges);
    for (int d = 0; d < r[i].n; d++) {
      r[i].ranges[d].min = xf_simplify(a, r[i].ranges[d].min);
      r[i].ranges[d].extent = xf_simplify(a, r[i].ranges[d].extent);
    }
  }
  arith_free(a);
}

static TirStmt *plan_for(TirMutator *m, TirStmt *s) {
  Plan *p = m->ctx;
  PtrVec *arrive = ir_ptrmap_get(&p->target_moves, s);
  TirStmt *r = tir_mutate_stmt_children(m, s);
  if (!arrive) return r;
  IrHeap *h = m->heap;
  TirBlock nb;
  memset(&nb, 0, sizeof nb);
  nb.name = "";
  nb.allocs = ir_alloc(h, (size_t)arrive->len * sizeof *nb.allocs);
  for (int i = 0; i < arrive->len; i++)
    nb.allocs[i] = tir_mutate_buffer(m, ((AllocInfo *)arrive->items[i])->buf);
  nb.nallocs = arrive->len;
  nb.body = r->loop.body;
  tir_infer_access_regions(h, &nb, &nb.reads, &nb.nreads, &nb.writes, &nb.nwrites);
  simplify_regions(h, nb.reads, nb.nreads);
  simplify_regions(h, nb.writes, nb.nwrites);
  TirStmt *blk = tir_block(h, &nb);
  TirStmt *realize = tir_block_realize(h, NULL, 0, tir_bool(h, true), blk);
  TirStmt *out = tir_stmt_with_span(h, r, r->span);
  out->loop.body = realize;
  return out;
}

/* requires: blocks (any); ensures: each alloc_buffer sits at the lowest
 * common ancestor (For or Block) of its accesses; unaccessed buffers stay;
 * preserves: everything else (new opaque blocks are named ""). */
TirFunc *tir_plan_buffer_allocation(TirPassCtx *ctx, TirFunc *f) {
  Plan p;
  memset(&p, 0, sizeof p);
  TirVisitor v;
  memset(&v, 0, sizeof v);
  v.pre_stmt = plan_pre_stmt;
  v.post_stmt = plan_post_stmt;
  v.pre_expr = plan_pre_expr;
  v.use_buffer = plan_use_buffer;
  v.ctx = &p;
  tir_visit_stmt(&v, f->body);
  bool any = false;
  for (int i = 0; i < p.all.len; i++) {
    AllocInfo *ai = p.all.items[i];
    if (ai->len <= 0) continue;
    const TirStmt *target = ai->path[ai->len - 1];
    if (target == ai->owner) continue;
    add_move(&p.owner_moves, ai->owner, ai);
    add_move(&p.target_moves, target, ai);
    any = true;
  }
  TirStmt *body = f->body;
  if (any) {
    TirMutator m;
    tir_mutator_init(&m, ctx->heap);
    m.stmt[TIR_S_BLOCK] = plan_block;
    m.stmt[TIR_S_FOR] = plan_for;
    m.ctx = &p;
    body = tir_mutate_stmt(&m, f->body);
    tir_mutator_free(&m);
  }
  for (int i = 0; i < p.all.len; i++) {
    AllocInfo *ai = p.all.items[i];
    free(ai->path);
    free(ai);
  }
  pv_free(&p.all);
  free(p.stack);
  ir_ptrmap_free(&p.info);
  ir_ptrmap_free(&p.data_info);
  free_moves(&p.owner_moves);
  free_moves(&p.target_moves);
  return xf_with_body(ctx->heap, f, body);
}
