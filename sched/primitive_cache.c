/* primitive_cache.c - cache_read and cache_write, and the stage-pipeline check.
 *
 * A cache stage is a copy block `<buf>_<scope>` (loops ax0..., iters v0...)
 * between a buffer and a new buffer `<buf>_<scope>` allocated in the scope
 * block.  cache_read redirects the readers to the copy; cache_write makes the
 * block write the copy and adds a write-back stage before its consumers.
 * Between top-level loop nests the stage copies the whole buffer; when the
 * writer shares a loop nest with a reader it goes inside that nest and
 * copies the tile the writer produces there (the cache keeps the full
 * shape, as TVM's does for a stage under a loop). */
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "sched/sched_internal.h"

bool sch_check_stage_pipeline(Schedule *s, const char *prim, int argi, const PtrVec *sibs,
                              const TirBlock *b) {
  /* Stricter than TVM (which breaks the pipeline only at a write after a
   * read): the region analysis of compute_at, reindex and the caches assumes
   * one writer per buffer.  The inlines use sch_check_no_war, TVM's rule. */
  for (int i = 0; i < sibs->len; i++) {
    const TirBlock *x = tir_realize_block(sibs->items[i]);
    for (int w = 0; w < x->nwrites; w++)
      for (int j = i + 1; j < sibs->len; j++) {
        const TirBlock *y = tir_realize_block(sibs->items[j]);
        if (!sch_block_writes(y, x->writes[w].buffer)) continue;
        sch_fail(s, SCH_ERR_DATAFLOW, argi,
                 "%s: the scope root of block '%s' is not a stage pipeline (buffer '%s' is "
                 "written by blocks '%s' and '%s')",
                 prim, b->name, x->writes[w].buffer->name, x->name, y->name);
        return false;
      }
  }
  return true;
}

bool sch_check_no_war(Schedule *s, const char *prim, int argi, const PtrVec *sibs, const TirBlock *b) {
  for (int i = 0; i < sibs->len; i++) {
    const TirBlock *x = tir_realize_block(sibs->items[i]);
    for (int r = 0; r < x->nreads; r++)
      for (int j = i + 1; j < sibs->len; j++) {
        const TirBlock *y = tir_realize_block(sibs->items[j]);
        if (!sch_block_writes(y, x->reads[r].buffer)) continue;
        sch_fail(s, SCH_ERR_DATAFLOW, argi,
                 "%s: the scope root of block '%s' is not a stage pipeline (block '%s' writes buffer "
                 "'%s' after block '%s' reads it)",
                 prim, b->name, y->name, x->reads[r].buffer->name, x->name);
        return false;
      }
  }
  return true;
}

bool sch_valid_storage_scope(const char *scope) {
  static const char *const prefixes[] = {
      "global", "shared", "warp", "local", "wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator",
      "texture", "amx.tmm", "m16n8k8.matrixA", "m16n8k8.matrixB", "m16n8k8.matrixC",
      "metal.simdgroup", "npu"};  /* npu.inp/npu.wgt/npu.acc: the simulated NPU's scratchpads */
  if (!*scope) return true;
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t n = strlen(prefixes[i]);
    if (!strncmp(scope, prefixes[i], n) && (scope[n] == '\0' || scope[n] == '.')) return true;
  }
  return false;
}

/* The copy stage `dst[v...] = src[v...]` over the whole buffer, named name. */
static TirStmt *make_copy(IrHeap *h, const char *name, TirBuffer *src, TirBuffer *dst,
                          TirStmt **realize_out) {
  int nd = src->ndim;
  TirBlock cb = {0};
  cb.name = name;
  cb.iters = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *cb.iters);
  TirVar **loops = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *loops);
  TirExpr **vals = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *vals);
  TirExpr **idx = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *idx);
  for (int d = 0; d < nd; d++) {
    DType dt = src->shape[d]->dtype;
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "ax%d", d);
    loops[d] = tir_var(h, nbuf, dt);
    snprintf(nbuf, sizeof nbuf, "v%d", d);
    TirIterVar iv = {tir_var(h, nbuf, dt), {tir_int(h, dt, 0), src->shape[d]}, TIR_ITER_SPATIAL};
    cb.iters[d] = iv;
    vals[d] = tir_var_ref(h, loops[d]);
    idx[d] = tir_var_ref(h, iv.var);
  }
  cb.niters = nd;
  cb.body = tir_store(h, dst, tir_load(h, src, idx, nd), idx, nd);
  tir_infer_access_regions(h, &cb, &cb.reads, &cb.nreads, &cb.writes, &cb.nwrites);
  TirStmt *st = tir_block_realize(h, vals, nd, tir_bool(h, true), tir_block(h, &cb));
  *realize_out = st;
  for (int d = nd - 1; d >= 0; d--)
    st = tir_for(h, loops[d], tir_int(h, loops[d]->dtype, 0), src->shape[d], TIR_FOR_SERIAL, NULL,
                 NULL, st);
  return st;
}

/* Buffer replacement inside chosen realizes. */
typedef struct Redirect {
  const TirBuffer *old;  /* the buffer replaced */
  TirBuffer *nw;         /* by this one */
  PtrVec *targets;       /* the realizes rewritten */
  bool active;           /* inside a target */
} Redirect;

static TirBuffer *redirect_buffer(TirMutator *m, TirBuffer *b) {
  Redirect *r = m->ctx;
  return r->active && b == r->old ? r->nw : NULL;
}

static TirStmt *redirect_realize(TirMutator *m, TirStmt *st) {
  Redirect *r = m->ctx;
  bool hit = false;
  for (int i = 0; i < r->targets->len; i++) hit |= r->targets->items[i] == st;
  if (!hit || r->active) return tir_mutate_stmt_children(m, st);
  r->active = true;
  ir_ptrmap_clear(&m->buf_remap);
  TirStmt *out = tir_mutate_stmt_children(m, st);
  r->active = false;
  ir_ptrmap_clear(&m->buf_remap);
  return out;
}

/* The index of the top-level child of the scope body holding realize r. */
static int top_index(TirStmt **kids, int nkids, const TirStmt *r) {
  for (int i = 0; i < nkids; i++)
    if (sch_contains(kids[i], r)) return i;
  return -1;
}

typedef enum { CACHE_READ, CACHE_WRITE } CacheKind;

/* Where a cache stage goes when the writer shares a loop nest with a
 * reader: in the deepest sequence holding both (TVM's CacheLocDetector),
 * before the reader's item; path w runs from the scope body to the writer. */
typedef struct NestLoc {
  SchPath w;  /* scope body ... writer realize */
  int q;      /* index in w of the sequence; -1 = none */
  int pos;    /* insertion index in that sequence */
} NestLoc;

static int item_index(const TirStmt *seq, const TirStmt *item) {
  for (int i = 0; i < seq->seq.n; i++)
    if (seq->seq.stmts[i] == item) return i;
  return -1;
}

static void nest_locate(TirStmt *body, const TirStmt *writer, const PtrVec *targets, NestLoc *loc) {
  loc->q = -1;
  loc->pos = -1;
  if (!sch_path_to_realize(body, writer->realize.block, &loc->w)) return;
  for (int i = 0; i < targets->len; i++) {
    SchPath t = {0};
    if (targets->items[i] == writer ||
        !sch_path_to_realize(body, ((const TirStmt *)targets->items[i])->realize.block, &t)) {
      sch_path_free(&t);
      continue;
    }
    int c = 0;
    while (c < loc->w.n && c < t.n && loc->w.s[c] == t.s[c]) c++;
    int q = -1;
    for (int d = 0; d < c && d + 1 < loc->w.n && d + 1 < t.n; d++)
      if (loc->w.s[d]->kind == TIR_S_SEQ) q = d;
    if (q >= 0) {
      int iw = item_index(loc->w.s[q], loc->w.s[q + 1]), it = item_index(loc->w.s[q], t.s[q + 1]);
      if (it > iw && (q > loc->q || (q == loc->q && it < loc->pos))) loc->q = q, loc->pos = it;
    }
    sch_path_free(&t);
  }
}

/* The region of buf that realize r writes, relaxed over the loops in path
 * p after index q (a dimension that cannot be bounded: the whole of it). */
static TirRange *relaxed_write(IrHeap *h, const SchPath *p, int q, const TirStmt *r, const TirBuffer *buf) {
  const TirBlock *b = tir_realize_block(r);
  TirRange *out = ir_alloc(h, (size_t)(buf->ndim ? buf->ndim : 1) * sizeof *out);
  for (int d = 0; d < buf->ndim; d++) out[d].min = tir_int(h, buf->shape[d]->dtype, 0), out[d].extent = buf->shape[d];
  for (int i = 0; i < b->nwrites; i++) {
    if (b->writes[i].buffer != buf) continue;
    IrPtrMap vmap;
    ir_ptrmap_init(&vmap);
    for (int k = 0; k < b->niters && k < r->realize.n; k++) ir_ptrmap_put(&vmap, b->iters[k].var, r->realize.values[k]);
    ArithCtx *rctx = arith_new(h), *simp = arith_new(h), *pctx = arith_new(h);
    for (int d = q + 1; d < p->n; d++)
      if (p->s[d]->kind == TIR_S_FOR) arith_bind_range(rctx, p->s[d]->loop.var, p->s[d]->loop.min, p->s[d]->loop.extent);
    for (int d = 0; d < p->n; d++) { /* every loop and block iter around: for the clipping proofs */
      if (p->s[d]->kind == TIR_S_FOR) arith_bind_range(pctx, p->s[d]->loop.var, p->s[d]->loop.min, p->s[d]->loop.extent);
      if (p->s[d]->kind == TIR_S_BLOCK)
        for (int k = 0; k < p->s[d]->block.niters; k++)
          arith_bind_range(pctx, p->s[d]->block.iters[k].var, p->s[d]->block.iters[k].dom.min,
                           p->s[d]->block.iters[k].dom.extent);
    }
    for (int d = 0; d < buf->ndim; d++) {
      TirExpr *mn = tir_substitute_expr(h, b->writes[i].ranges[d].min, &vmap);
      TirExpr *ext = tir_substitute_expr(h, b->writes[i].ranges[d].extent, &vmap);
      TirExpr *last = tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, mn, ext), tir_int(h, mn->dtype, 1));
      TirExpr *lo = NULL, *hi = NULL, *dummy = NULL;
      if (!arith_symbolic_bounds(rctx, mn, &lo, &dummy) || !arith_symbolic_bounds(rctx, last, &dummy, &hi)) continue;
      /* Within the buffer (a binding under a predicate, e.g. of a split
       * whose factors do not divide, ranges past it). */
      TirExpr *zero = tir_int(h, lo->dtype, 0);
      TirExpr *end = tir_binary(h, TIR_SUB, buf->shape[d], tir_int(h, buf->shape[d]->dtype, 1));
      if (!arith_prove(pctx, tir_binary(h, TIR_GE, lo, zero))) lo = tir_binary(h, TIR_MAX, lo, zero);
      if (!arith_prove(pctx, tir_binary(h, TIR_LE, hi, end))) hi = tir_binary(h, TIR_MIN, hi, end);
      out[d].min = arith_simplify(simp, lo);
      out[d].extent = arith_simplify(simp, tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, hi, tir_int(h, hi->dtype, 1)), out[d].min));
    }
    arith_free(rctx);
    arith_free(simp);
    arith_free(pctx);
    ir_ptrmap_free(&vmap);
    break;
  }
  return out;
}

/* A copy stage over region reg of src into dst (both full-shaped): loops
 * ax_d over the extents, iters v_d over the shape bound to min_d + ax_d. */
static TirStmt *make_region_copy(IrHeap *h, const char *name, const TirRange *reg, TirBuffer *src,
                                 TirBuffer *dst, TirStmt **realize_out) {
  TirStmt *st = make_copy(h, name, src, dst, realize_out);
  TirStmt *r = *realize_out;
  int nd = src->ndim;
  TirExpr **vals = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *vals);
  TirStmt *loops[16];
  TirStmt *cur = st;
  for (int d = 0; d < nd && d < 16; d++, cur = cur->loop.body) loops[d] = cur;
  for (int d = 0; d < nd; d++) {
    TirExpr *ax = tir_var_ref(h, loops[d]->loop.var);
    bool zero = reg[d].min->kind == TIR_INT && reg[d].min->ival == 0;
    vals[d] = zero ? ax : tir_binary(h, TIR_ADD, reg[d].min, ax);
  }
  TirStmt *nr = tir_block_realize(h, vals, nd, r->realize.pred, r->realize.block);
  *realize_out = nr;
  TirStmt *body = nr;
  for (int d = nd - 1; d >= 0; d--)
    body = tir_for(h, loops[d]->loop.var, loops[d]->loop.min, reg[d].extent, TIR_FOR_SERIAL, NULL, NULL, body);
  return body;
}

static bool in_list(const PtrVec *v, const void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == p) return true;
  return false;
}

/* The buffer that read (cache_read) or write (cache_write) index `index`
 * of block b names; NULL after an error (an invalid scope or index). */
static TirBuffer *check_cache_buffer(Schedule *s, const char *prim, CacheKind kind, const TirBlock *b, int index,
                                     const char *scope) {
  if (!sch_valid_storage_scope(scope)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2, "%s: the storage scope \"%s\" is invalid", prim, scope);
    return NULL;
  }
  int nregs = kind == CACHE_READ ? b->nreads : b->nwrites;
  if (index < 0 || index >= nregs) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: buffer index %d is out of range [0, %d) of the %s of block '%s'", prim, index, nregs,
             kind == CACHE_READ ? "reads" : "writes", b->name);
    return NULL;
  }
  return kind == CACHE_READ ? b->reads[index].buffer : b->writes[index].buffer;
}

/* The only block of the scope (sibs) writing buf (cache_write: the block
 * itself) into *writer, and the blocks redirected (cache_read) or served by
 * the write-back (cache_write) into targets; false after an error. */
static bool compute_cache_users(Schedule *s, const char *prim, CacheKind kind, TirStmt *realize,
                                const TirBuffer *buf, const PtrVec *sibs, const PtrVec *listed,
                                TirStmt **writer_out, PtrVec *targets) {
  TirStmt *writer = NULL;
  for (int i = 0; i < sibs->len; i++) {
    const TirBlock *o = tir_realize_block(sibs->items[i]);
    if (!sch_block_writes(o, buf)) continue;
    if (writer) {
      sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
               "%s: buffer '%s' is written by more than one block ('%s' and '%s'); it may "
               "be written by a single block only",
               prim, buf->name, tir_realize_block(writer)->name, o->name);
      return false;
    }
    writer = sibs->items[i];
  }
  if (kind == CACHE_WRITE) writer = realize;
  /* The blocks redirected (cache_read) or served by the write-back (cache_write). */
  if (kind == CACHE_READ && listed->len) {
    for (int i = 0; i < listed->len; i++) pv_push(targets, listed->items[i]);
  } else {
    for (int i = 0; i < sibs->len; i++)
      if (sibs->items[i] != writer && sch_block_reads(tir_realize_block(sibs->items[i]), buf) &&
          !in_list(listed, sibs->items[i]))
        pv_push(targets, sibs->items[i]);
  }
  *writer_out = writer;
  return true;
}

/* The block (the last of bp) may have its access of buf cached: not read
 * and written by it (cache_read), nor reduced over a loop outside the scope
 * or updated in place (cache_write).  False after an error. */
static bool check_cache_block(Schedule *s, const char *prim, CacheKind kind, const SchPath *bp, int scope_i,
                              const TirStmt *writer, const TirBuffer *buf) {
  const TirStmt *realize = bp->s[bp->n - 1];
  const TirBlock *b = tir_realize_block(realize);
  if (kind == CACHE_READ && writer == realize) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1, "%s: block '%s' both reads and writes buffer '%s'", prim, b->name,
             buf->name);
    return false;
  }
  if (kind == CACHE_WRITE && !sch_check_reduce_below_scope(s, prim, bp, scope_i, "cache")) return false;
  if (kind == CACHE_WRITE && !b->init && sch_block_reads(b, buf)) {
    /* (A reduction's init writes the cache before the update reads it.) */
    sch_fail(s, SCH_ERR_UNSUPPORTED, 1,
             "%s: block '%s' updates buffer '%s' in place (reads it without an init); the "
             "cache would not hold its old contents (use cache_inplace)",
             prim, b->name, buf->name);
    return false;
  }
  return true;
}

/* Where the stage goes: inside the writer's loop nest (nest) when a target
 * shares it, else at index *pos among the scope body's items.  False after
 * an error. */
static bool compute_cache_position(Schedule *s, const char *prim, CacheKind kind, const TirStmt *scope_blk,
                                   const TirStmt *writer, const TirBuffer *buf, const PtrVec *targets,
                                   bool listed, NestLoc *nest, int *pos) {
  TirStmt *body = scope_blk->block.body;
  TirStmt **kids = body->kind == TIR_S_SEQ ? body->seq.stmts : &body;
  int nkids = body->kind == TIR_S_SEQ ? body->seq.n : 1;
  *pos = 0;
  if (!writer) return true;
  int wi = top_index(kids, nkids, writer);
  /* Consumers named explicitly may come before the (only) writer, as for
   * an in-place buffer read, then written back: TVM's CacheLocDetector stops
   * at the first of them and puts the copy first in the scope. */
  for (int i = 0; listed && kind == CACHE_READ && i < targets->len; i++)
    if (top_index(kids, nkids, targets->items[i]) < wi) return true;
  for (int i = 0; i < targets->len; i++)
    if (top_index(kids, nkids, targets->items[i]) == wi) {
      /* A reader in the writer's loop nest: the stage goes inside it. */
      nest_locate(body, writer, targets, nest);
      if (nest->q <= 0) {
        sch_fail(s, SCH_ERR_DATAFLOW, 0,
                 "%s: block '%s' and a reader of buffer '%s' share a loop nest but no "
                 "sequence of statements orders them",
                 prim, tir_realize_block(writer)->name, buf->name);
        return false;
      }
      break;
    }
  /* pos: before the first consumer after the writer (or right after it). */
  int first = nkids + 1;
  for (int i = 0; i < targets->len; i++) {
    int ci = top_index(kids, nkids, targets->items[i]);
    if (ci > wi && ci < first) first = ci;
  }
  /* No reader to serve: a write-back goes last, as TVM places it. */
  *pos = first <= nkids ? first : kind == CACHE_WRITE ? nkids : wi + 1;
  return true;
}

/* The copy stage named name between buf and cbuf (into cbuf for
 * cache_read, back into buf for cache_write): of the tile the writer
 * produces in its nest, of what a cache_write block writes in one execution
 * of its scope, or of the whole buffer. */
static TirStmt *build_cache_copy(IrHeap *h, CacheKind kind, const char *name, const NestLoc *nest,
                                 const SchPath *bp, int scope_i, const TirStmt *writer, TirBuffer *buf,
                                 TirBuffer *cbuf, TirStmt **copy_realize) {
  const TirStmt *realize = bp->s[bp->n - 1];
  if (nest->q > 0) {
    TirRange *reg = relaxed_write(h, &nest->w, nest->q, writer, buf);
    return kind == CACHE_READ ? make_region_copy(h, name, reg, buf, cbuf, copy_realize)
                              : make_region_copy(h, name, reg, cbuf, buf, copy_realize);
  }
  if (kind == CACHE_WRITE) {
    /* The write-back copies what the block writes in one execution of
     * its scope: inside a scope block run many times (e.g. blockize's
     * outer block) the rest of the cache holds nothing yet. */
    TirRange *reg = relaxed_write(h, bp, scope_i, realize, buf);
    return make_region_copy(h, name, reg, cbuf, buf, copy_realize);
  }
  return make_copy(h, name, buf, cbuf, copy_realize);
}

/* The scope block (bp.s[scope_i]) with the copy inserted (in the nest, or
 * at pos among its body's items), the targets reading or writing cbuf for
 * buf, and cbuf allocated; the new root. */
static TirStmt *replace_cache_scope(IrHeap *h, const SchPath *bp, int scope_i, const NestLoc *nest, int pos,
                                    TirStmt *copy, const TirBuffer *buf, TirBuffer *cbuf, PtrVec *targets) {
  TirStmt *scope_blk = bp->s[scope_i];
  TirStmt *body = scope_blk->block.body;
  TirStmt **kids = body->kind == TIR_S_SEQ ? body->seq.stmts : &body;
  int nkids = body->kind == TIR_S_SEQ ? body->seq.n : 1;
  Redirect rd = {buf, cbuf, targets, false};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &rd;
  m.buffer = redirect_buffer;
  m.stmt[TIR_S_BLOCK_REALIZE] = redirect_realize;
  TirStmt *nbody;
  if (nest->q > 0) {
    /* Insert into the inner sequence, rebuild up to the scope body, then redirect. */
    TirStmt *seq = nest->w.s[nest->q];
    TirStmt **items = ir_alloc(h, (size_t)(seq->seq.n + 1) * sizeof *items);
    for (int i = 0, j = 0; i <= seq->seq.n; i++) items[i] = i == nest->pos ? copy : seq->seq.stmts[j++];
    TirStmt *cur = tir_seq(h, items, seq->seq.n + 1);
    for (int d = nest->q - 1; d >= 0; d--) cur = sch_replace_child(h, nest->w.s[d], nest->w.s[d + 1], cur);
    nbody = tir_mutate_stmt(&m, cur);
  } else {
    TirStmt **items = ir_alloc(h, (size_t)(nkids + 1) * sizeof *items);
    for (int i = 0, j = 0; i <= nkids; i++) items[i] = i == pos ? copy : tir_mutate_stmt(&m, kids[j++]);
    nbody = tir_seq(h, items, nkids + 1);
  }
  tir_mutator_free(&m);
  TirBlock nb = scope_blk->block;
  nb.body = nbody;
  nb.allocs = ir_alloc(h, (size_t)(nb.nallocs + 1) * sizeof *nb.allocs);
  if (scope_blk->block.nallocs)
    memcpy(nb.allocs, scope_blk->block.allocs, (size_t)nb.nallocs * sizeof *nb.allocs);
  nb.allocs[nb.nallocs++] = cbuf;
  TirStmt *nblk = tir_block(h, &nb);
  nblk->span = scope_blk->span;
  return sch_replace_at(h, bp, scope_i, nblk);
}

/* consumer_blocks (may be empty): cache_read redirects only these readers,
 * placed before the first of them; cache_write makes them read the cache and
 * places the write-back before the first other reader (else at the end). */
static SchRV cache_impl(Schedule *s, SchRV block_rv, int index, const char *scope, CacheKind kind,
                        const SchRV *consumers, int ncons) {
  const char *prim = kind == CACHE_READ ? "cache_read" : "cache_write";
  SchPath bp = {0};
  PtrVec sibs = {0}, targets = {0}, listed = {0};
  NestLoc nest = {{0}, -1, -1};
  SchRV res = -1;
  TirStmt *realize = sch_find_block(s, block_rv, prim, 0, &bp);
  if (!realize) goto done;
  for (int i = 0; i < ncons; i++) {
    SchPath cp = {0};
    TirStmt *c = sch_find_block(s, consumers[i], prim, 3, &cp);
    sch_path_free(&cp);
    if (!c) goto done;
    pv_push(&listed, c);
  }
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block_rv].func;
  TirBuffer *buf = check_cache_buffer(s, prim, kind, b, index, scope);
  if (!buf) goto done;
  int scope_i = sch_block_scope_index(s, prim, &bp);
  if (scope_i < 0) goto done;
  TirStmt *scope_blk = bp.s[scope_i];
  sch_scope_blocks(scope_blk, &sibs);
  TirStmt *writer = NULL;
  int pos = 0;
  if (!compute_cache_users(s, prim, kind, realize, buf, &sibs, &listed, &writer, &targets) ||
      !check_cache_block(s, prim, kind, &bp, scope_i, writer, buf) ||
      !compute_cache_position(s, prim, kind, scope_blk, writer, buf, &targets, listed.len > 0, &nest,
                              &pos))
    goto done;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  char *name = xasprintf("%s_%s", buf->name, scope);
  TirBuffer *cbuf = tir_buffer(h, name, buf->dtype, buf->shape, buf->ndim, scope);
  cbuf->span = buf->span;
  TirStmt *copy_realize = NULL;
  TirStmt *copy = build_cache_copy(h, kind, name, &nest, &bp, scope_i, writer, buf, cbuf, &copy_realize);
  free(name);
  if (kind == CACHE_WRITE) {
    pv_free(&targets);
    pv_push(&targets, realize);
    for (int i = 0; i < listed.len; i++) pv_push(&targets, listed.items[i]);
  }
  TirStmt *root = replace_cache_scope(h, &bp, scope_i, &nest, pos, copy, buf, cbuf, &targets);
  sch_commit(s, nm, func, root);
  res = sch_block_rv(s, func, copy_realize);
  /* consumer_blocks is printed only when given, as TVM's trace does. */
  SchVal args[4] = {sch_val_rv(block_rv), sch_val_int(index), sch_val_str(scope),
                    sch_val_rv_list(consumers, ncons)};
  sch_record(s, prim, args, ncons ? 4 : 3, &res, 1);
  if (!ncons) sch_val_free(&args[3]);
done:
  sch_path_free(&nest.w);
  pv_free(&sibs);
  pv_free(&targets);
  pv_free(&listed);
  sch_path_free(&bp);
  return res;
}

SchRV sch_cache_read(Schedule *s, SchRV block, int read_buffer_index, const char *storage_scope) {
  return cache_impl(s, block, read_buffer_index, storage_scope, CACHE_READ, NULL, 0);
}

SchRV sch_cache_write(Schedule *s, SchRV block, int write_buffer_index, const char *storage_scope) {
  return cache_impl(s, block, write_buffer_index, storage_scope, CACHE_WRITE, NULL, 0);
}

SchRV sch_cache_read_for_consumers(Schedule *s, SchRV block, int read_buffer_index,
                                   const char *storage_scope, const SchRV *consumer_blocks, int n) {
  return cache_impl(s, block, read_buffer_index, storage_scope, CACHE_READ, consumer_blocks, n);
}

SchRV sch_cache_write_for_consumers(Schedule *s, SchRV block, int write_buffer_index,
                                    const char *storage_scope, const SchRV *consumer_blocks, int n) {
  return cache_impl(s, block, write_buffer_index, storage_scope, CACHE_WRITE, consumer_blocks, n);
}
