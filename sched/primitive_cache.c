/* primitive_cache.c - cache_read and cache_write, and the stage-pipeline check.
 *
 * A cache stage is a copy block `<buf>_<scope>` (loops ax0..., iters v0...)
 * between a buffer and a new buffer `<buf>_<scope>` allocated in the scope
 * block.  cache_read redirects the readers to the copy; cache_write makes the
 * block write the copy and adds a write-back stage before its consumers.
 * Where the stage goes follows TVM's CacheLocDetector; what it copies and
 * the cache's shape follow TVM's MakeCacheStage (cache_stage.c): compact
 * directly in the scope block, full-shaped inside a shared loop nest. */
#include <stdlib.h>
#include <string.h>

#include "sched/cache_stage.h"

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

/* Whether the blocks nested in the realized block (not a leaf) write buf
 * before any of them reads it: its read of buf then only sees what it wrote
 * itself, which a write cache holds (TVM redirects both). */
static bool writes_before_reads(const TirStmt *realize, const TirBuffer *buf) {
  PtrVec kids = {0};
  sch_scope_blocks(realize->realize.block, &kids);
  bool ok = false;
  for (int i = 0; i < kids.len; i++) {
    const TirBlock *k = tir_realize_block(kids.items[i]);
    if (sch_block_reads(k, buf) && !(k->init && sch_block_writes(k, buf))) break;
    if (sch_block_writes(k, buf)) {
      ok = true;
      break;
    }
  }
  pv_free(&kids);
  return ok;
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
  if (kind == CACHE_WRITE && !b->init && sch_block_reads(b, buf) && !writes_before_reads(realize, buf)) {
    /* (A reduction's init writes the cache before the update reads it.) */
    sch_fail(s, SCH_ERR_UNSUPPORTED, 1,
             "%s: block '%s' updates buffer '%s' in place (reads it without an init); the "
             "cache would not hold its old contents (use cache_inplace)",
             prim, b->name, buf->name);
    return false;
  }
  return true;
}

/* The statement of a scope body that holds its items: inside the
 * T.allocate_const / T.decl_buffer wrappers, where TVM inserts stages. */
static TirStmt *scope_items(TirStmt *body) {
  while (body->kind == TIR_S_ALLOCATE_CONST || body->kind == TIR_S_DECL_BUFFER)
    body = body->kind == TIR_S_DECL_BUFFER ? body->decl.body : body->alloc.body;
  return body;
}

/* body with its items statement (scope_items) replaced by items. */
static TirStmt *rewrap_items(IrHeap *h, TirStmt *body, TirStmt *items) {
  if (body->kind != TIR_S_ALLOCATE_CONST && body->kind != TIR_S_DECL_BUFFER) return items;
  TirStmt *n = ir_memdup(h, body, sizeof *body);
  if (body->kind == TIR_S_DECL_BUFFER)
    n->decl.body = rewrap_items(h, body->decl.body, items);
  else
    n->alloc.body = rewrap_items(h, body->alloc.body, items);
  return n;
}

/* Where the stage goes: inside the writer's loop nest (nest) when a target
 * shares it, else at index *pos among the scope body's items.  False after
 * an error. */
static bool compute_cache_position(Schedule *s, const char *prim, CacheKind kind, const TirStmt *scope_blk,
                                   const TirStmt *writer, const TirBuffer *buf, const PtrVec *targets,
                                   bool listed, NestLoc *nest, int *pos) {
  TirStmt *body = scope_items(scope_blk->block.body);
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

/* The region of buf the stage copies (TVM's cache_region): the tile the
 * writer produces in its nest; what the writer (for cache_write: the block)
 * writes in one execution of the scope; for an input, what the scope block
 * reads of it (the root reads nothing: all of it). */
static TirRange *cache_region(IrHeap *h, CacheKind kind, const NestLoc *nest, const SchPath *bp, int scope_i,
                              const TirStmt *writer, const TirBuffer *buf) {
  if (nest->q > 0) return sch_cache_relaxed_write(h, &nest->w, nest->q, writer, buf);
  if (kind == CACHE_WRITE) return sch_cache_relaxed_write(h, bp, scope_i, bp->s[bp->n - 1], buf);
  if (writer) {
    SchPath wp = {0};
    TirRange *reg = NULL;
    if (sch_path_to_realize(bp->s[0], writer->realize.block, &wp))
      reg = sch_cache_relaxed_write(h, &wp, scope_i, writer, buf);
    sch_path_free(&wp);
    if (reg) return reg;
  }
  const TirBlock *sb = &bp->s[scope_i]->block;
  if (sch_scope_index(bp, scope_i) >= 0)
    for (int i = 0; i < sb->nreads; i++)
      if (sb->reads[i].buffer == buf) return sb->reads[i].ranges;
  return sch_cache_full_region(h, buf);
}

/* The cache buffer `<buf>_<scope>`: buf's shape under a loop (reg NULL),
 * else the extents of the region it holds. */
static TirBuffer *make_cache_buffer(IrHeap *h, const TirBuffer *buf, const char *scope, const TirRange *reg) {
  char *name = xasprintf("%s_%s", buf->name, scope);
  TirExpr **shape = buf->shape;
  if (reg) {
    shape = ir_alloc(h, (size_t)(buf->ndim ? buf->ndim : 1) * sizeof *shape);
    for (int d = 0; d < buf->ndim; d++) shape[d] = reg[d].extent;
  }
  TirBuffer *cbuf = tir_buffer(h, ir_strdup(h, name), buf->dtype, shape, buf->ndim, scope);
  free(name);
  cbuf->span = buf->span;
  return cbuf;
}

/* The scope block (bp.s[scope_i]) with the copy inserted (in the nest, or
 * at pos among its body's items), the targets reading or writing cbuf for
 * buf (moved by the mins of off when the cache is compact), and cbuf
 * allocated; the new root. */
static TirStmt *replace_cache_scope(IrHeap *h, const SchPath *bp, int scope_i, const NestLoc *nest, int pos,
                                    TirStmt *copy, const TirBuffer *buf, TirBuffer *cbuf, const TirRange *off,
                                    PtrVec *targets) {
  TirStmt *scope_blk = bp->s[scope_i];
  TirStmt *body = scope_items(scope_blk->block.body);
  TirStmt *cur;
  if (nest->q > 0) {
    /* Insert into the inner sequence and rebuild up to the scope body. */
    TirStmt *seq = nest->w.s[nest->q];
    TirStmt **items = ir_alloc(h, (size_t)(seq->seq.n + 1) * sizeof *items);
    for (int i = 0, j = 0; i <= seq->seq.n; i++) items[i] = i == nest->pos ? copy : seq->seq.stmts[j++];
    cur = tir_seq(h, items, seq->seq.n + 1);
    for (int d = nest->q - 1; d >= 0; d--) cur = sch_replace_child(h, nest->w.s[d], nest->w.s[d + 1], cur);
  } else {
    TirStmt **kids = body->kind == TIR_S_SEQ ? body->seq.stmts : &body;
    int nkids = body->kind == TIR_S_SEQ ? body->seq.n : 1;
    TirStmt **items = ir_alloc(h, (size_t)(nkids + 1) * sizeof *items);
    for (int i = 0, j = 0; i <= nkids; i++) items[i] = i == pos ? copy : kids[j++];
    cur = tir_seq(h, items, nkids + 1);
  }
  cur = sch_cache_redirect(h, cur, buf, cbuf, off, targets);
  TirBlock nb = scope_blk->block;
  nb.body = rewrap_items(h, scope_blk->block.body, cur);
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
  /* Directly in the scope block the cache is compact (TVM: the stage's
   * location is a block); under a loop it keeps buf's shape. */
  TirRange *reg = cache_region(h, kind, &nest, &bp, scope_i, writer, buf);
  bool compact = nest.q <= 0;
  TirBuffer *cbuf = make_cache_buffer(h, buf, scope, compact ? reg : NULL);
  TirStmt *copy_realize = NULL, *copy;
  if (compact)
    copy = sch_cache_compact_copy(h, cbuf->name, kind == CACHE_READ, reg, buf, cbuf, &copy_realize);
  else
    copy = kind == CACHE_READ ? sch_cache_region_copy(h, cbuf->name, reg, buf, cbuf, &copy_realize)
                              : sch_cache_region_copy(h, cbuf->name, reg, cbuf, buf, &copy_realize);
  if (kind == CACHE_WRITE) {
    pv_free(&targets);
    pv_push(&targets, realize);
    for (int i = 0; i < listed.len; i++) pv_push(&targets, listed.items[i]);
  }
  TirStmt *root = replace_cache_scope(h, &bp, scope_i, &nest, pos, copy, buf, cbuf, compact ? reg : NULL,
                                      &targets);
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
