/* primitive_cache.c - cache_read and cache_write, and the stage-pipeline check.
 *
 * A cache stage is a copy block `<buf>_<scope>` (loops ax0..., iters v0...)
 * between a buffer and a new buffer `<buf>_<scope>` allocated in the scope
 * block.  cache_read redirects the readers to the copy; cache_write makes the
 * block write the copy and adds a write-back stage before its consumers. */
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "sched/sched_internal.h"

bool sch_check_stage_pipeline(Schedule *s, const char *prim, int argi, const PtrVec *sibs,
                              const TirBlock *b) {
  for (int i = 0; i < sibs->len; i++) {
    const TirBlock *x = tir_realize_block(sibs->items[i]);
    for (int w = 0; w < x->nwrites; w++)
      for (int j = i + 1; j < sibs->len; j++) {
        const TirBlock *y = tir_realize_block(sibs->items[j]);
        if (!sch_block_writes(y, x->writes[w].buffer)) continue;
        sch_error(s, argi,
                  "%s: the scope root of block '%s' is not a stage pipeline (buffer '%s' is "
                  "written by blocks '%s' and '%s')",
                  prim, b->name, x->writes[w].buffer->name, x->name, y->name);
        return false;
      }
  }
  return true;
}

bool sch_valid_storage_scope(const char *scope) {
  static const char *const prefixes[] = {
      "global", "shared", "warp", "local", "wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator",
      "texture", "amx.tmm", "m16n8k8.matrixA", "m16n8k8.matrixB", "m16n8k8.matrixC",
      "metal.simdgroup"};
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

static SchRV cache_impl(Schedule *s, SchRV block_rv, int index, const char *scope, CacheKind kind) {
  const char *prim = kind == CACHE_READ ? "cache_read" : "cache_write";
  SchPath bp = {0};
  PtrVec sibs = {0}, targets = {0};
  SchRV res = -1;
  TirStmt *realize = sch_find_block(s, block_rv, prim, 0, &bp);
  if (!realize) goto done;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block_rv].func;
  if (!sch_valid_storage_scope(scope)) {
    sch_error(s, 2, "%s: the storage scope \"%s\" is invalid", prim, scope);
    goto done;
  }
  int nregs = kind == CACHE_READ ? b->nreads : b->nwrites;
  if (index < 0 || index >= nregs) {
    sch_error(s, 1, "%s: buffer index %d is out of range [0, %d) of the %s of block '%s'", prim,
              index, nregs, kind == CACHE_READ ? "reads" : "writes", b->name);
    goto done;
  }
  TirBuffer *buf = kind == CACHE_READ ? b->reads[index].buffer : b->writes[index].buffer;
  int scope_i = sch_scope_index(&bp, bp.n - 1);
  if (scope_i < 0) {
    sch_error(s, 0, "%s: block '%s' is the root block", prim, b->name);
    goto done;
  }
  TirStmt *scope_blk = bp.s[scope_i];
  sch_scope_blocks(scope_blk, &sibs);
  TirStmt *writer = NULL;
  for (int i = 0; i < sibs.len; i++) {
    const TirBlock *o = tir_realize_block(sibs.items[i]);
    if (!sch_block_writes(o, buf)) continue;
    if (writer) {
      sch_error(s, 1, "%s: buffer '%s' is written by more than one block ('%s' and '%s'); it may "
                      "be written by a single block only",
                prim, buf->name, tir_realize_block(writer)->name, o->name);
      goto done;
    }
    writer = sibs.items[i];
  }
  if (kind == CACHE_WRITE) writer = realize;
  /* The blocks redirected (cache_read) or served by the write-back (cache_write). */
  for (int i = 0; i < sibs.len; i++)
    if (sibs.items[i] != writer && sch_block_reads(tir_realize_block(sibs.items[i]), buf))
      pv_push(&targets, sibs.items[i]);
  if (kind == CACHE_READ && writer == realize) {
    sch_error(s, 1, "%s: block '%s' both reads and writes buffer '%s'", prim, b->name, buf->name);
    goto done;
  }
  TirStmt *body = scope_blk->block.body;
  TirStmt **kids = body->kind == TIR_S_SEQ ? body->seq.stmts : &body;
  int nkids = body->kind == TIR_S_SEQ ? body->seq.n : 1;
  int pos = 0;
  if (writer) {
    int wi = top_index(kids, nkids, writer);
    for (int i = 0; i < targets.len; i++) {
      int ci = top_index(kids, nkids, targets.items[i]);
      if (ci == wi) {
        sch_error(s, 0, "%s: block '%s' and a consumer of buffer '%s' share a loop nest; caching "
                        "a partial region under a loop is not supported",
                  prim, tir_realize_block(writer)->name, buf->name);
        goto done;
      }
    }
    /* pos: before the first consumer after the writer (or right after it). */
    int first = nkids + 1;
    for (int i = 0; i < targets.len; i++) {
      int ci = top_index(kids, nkids, targets.items[i]);
      if (ci > wi && ci < first) first = ci;
    }
    pos = first <= nkids ? first : wi + 1;
  }
  {
    IrModule *nm = sch_begin(s);
    IrHeap *h = nm->heap;
    char *name = xasprintf("%s_%s", buf->name, scope);
    TirBuffer *cbuf = tir_buffer(h, name, buf->dtype, buf->shape, buf->ndim, scope);
    cbuf->span = buf->span;
    TirStmt *copy_realize = NULL;
    TirStmt *copy = kind == CACHE_READ ? make_copy(h, name, buf, cbuf, &copy_realize)
                                       : make_copy(h, name, cbuf, buf, &copy_realize);
    free(name);
    if (kind == CACHE_WRITE) {
      pv_free(&targets);
      pv_push(&targets, realize);
    }
    Redirect rd = {buf, cbuf, &targets, false};
    TirMutator m;
    tir_mutator_init(&m, h);
    m.ctx = &rd;
    m.buffer = redirect_buffer;
    m.stmt[TIR_S_BLOCK_REALIZE] = redirect_realize;
    TirStmt **items = ir_alloc(h, (size_t)(nkids + 1) * sizeof *items);
    for (int i = 0, j = 0; i <= nkids; i++) items[i] = i == pos ? copy : tir_mutate_stmt(&m, kids[j++]);
    tir_mutator_free(&m);
    TirBlock nb = scope_blk->block;
    nb.body = tir_seq(h, items, nkids + 1);
    nb.allocs = ir_alloc(h, (size_t)(nb.nallocs + 1) * sizeof *nb.allocs);
    if (scope_blk->block.nallocs)
      memcpy(nb.allocs, scope_blk->block.allocs, (size_t)nb.nallocs * sizeof *nb.allocs);
    nb.allocs[nb.nallocs++] = cbuf;
    TirStmt *nblk = tir_block(h, &nb);
    nblk->span = scope_blk->span;
    TirStmt *root = sch_replace_at(h, &bp, scope_i, nblk);
    sch_commit(s, nm, func, root);
    res = sch_block_rv(s, func, copy_realize);
    SchVal args[3] = {sch_val_rv(block_rv), sch_val_int(index), sch_val_str(scope)};
    sch_record(s, prim, args, 3, &res, 1);
  }
done:
  pv_free(&sibs);
  pv_free(&targets);
  sch_path_free(&bp);
  return res;
}

SchRV sch_cache_read(Schedule *s, SchRV block, int read_buffer_index, const char *storage_scope) {
  return cache_impl(s, block, read_buffer_index, storage_scope, CACHE_READ);
}

SchRV sch_cache_write(Schedule *s, SchRV block, int write_buffer_index, const char *storage_scope) {
  return cache_impl(s, block, write_buffer_index, storage_scope, CACHE_WRITE);
}
