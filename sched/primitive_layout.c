/* primitive_layout.c - schedule primitives: transform_layout,
 * transform_block_layout, set_axis_separator.
 *
 * transform_layout gives a buffer (a function parameter or a block-allocated
 * buffer) the shape of its image under an index map and rewrites every access
 * through the map: loads, stores, the regions of the blocks touching it (re-
 * inferred as TVM does), its alloc_buffer or the function's buffer_map.  When
 * the map is not onto the new shape the padding needs a pad_value, placed as
 * TVM's plans do: a writer traversing the buffer row-major is rewritten to
 * traverse the new shape, storing T.if_then_else(padding, pad_value, value);
 * else a block after the last writer fills the padding; a buffer without
 * writers gets a block of T.assume facts about its padding before its uses.
 * An index map holding IndexMap.AXIS_SEPARATOR also sets the separators, in
 * the same instruction (TVM records a separate set_axis_separator).
 *
 * transform_block_layout remaps the iteration space of a block that sits
 * alone under its loops with trivial bindings: new iters v0.. over the image
 * of the old domain, new loops ax0.., and the old iters replaced by the
 * inverse map in the body.  The map must be a bijective quasi-affine map.
 *
 * set_axis_separator records the buffer's axis separators (groups of axes
 * flattened separately).  Our targets address flat memory: FlattenBuffer
 * flattens every buffer into one group (TVM's LLVM CPU codegen accepts only
 * flat buffers too), so separators do not change results there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "ir/structural_equal.h"
#include "sched/index_map.h"
#include "sched/sched_internal.h"

/* ---------------------------------------------------------- shared lookups */

typedef bool (*BlockPred)(const TirBlock *b, const TirBuffer *buf);

/* The first block under st (pre-order) satisfying pred. */
static const TirBlock *find_block(TirStmt *st, BlockPred pred, const TirBuffer *buf) {
  if (!st) return NULL;
  if (st->kind == TIR_S_BLOCK && pred(&st->block, buf)) return &st->block;
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++) {
    const TirBlock *b = find_block(all[i], pred, buf);
    if (b) return b;
  }
  return NULL;
}

static bool allocates(const TirBlock *b, const TirBuffer *buf) {
  for (int i = 0; i < b->nallocs; i++)
    if (b->allocs[i] == buf) return true;
  return false;
}

static bool matches_as_view(const TirBlock *b, const TirBuffer *buf) {
  for (int i = 0; i < b->nmatches; i++)
    if (b->matches[i].buffer == buf) return true;
  return false;
}

static bool matches_from(const TirBlock *b, const TirBuffer *buf) {
  for (int i = 0; i < b->nmatches; i++)
    if (b->matches[i].source.buffer == buf) return true;
  return false;
}

/* The buffer argument of a layout primitive, checked: (is_write, index) in
 * range, not a match_buffer view.  NULL after an error. */
static TirBuffer *layout_buffer(Schedule *s, const char *prim, const TirBlock *b, bool is_write,
                                int index, TirFunc *f) {
  int n = is_write ? b->nwrites : b->nreads;
  if (index < 0 || index >= n) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: buffer index %d is out of range [0, %d) of the %s of block '%s'", prim,
             index, n, is_write ? "writes" : "reads", b->name);
    return NULL;
  }
  TirBuffer *buf = is_write ? b->writes[index].buffer : b->reads[index].buffer;
  const TirBlock *m = find_block(f->body, matches_as_view, buf);
  if (m) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
             "%s: buffer '%s' is defined by a match_buffer of block '%s'; only function "
             "parameters and buffers allocated by a block can be changed",
             prim, buf->name, m->name);
    return NULL;
  }
  if (!sch_is_param_buffer(f, buf) && !find_block(f->body, allocates, buf)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: buffer '%s' is neither a function parameter nor allocated by a block",
             prim, buf->name);
    return NULL;
  }
  return buf;
}

/* After sch_commit: the new version's function gets nb in place of old in
 * its buffer_map (the function struct is the commit's fresh copy). */
static void replace_param_buffer(Schedule *s, const char *func, const TirBuffer *old, TirBuffer *nb) {
  TirFunc *f = sch_cur_func(s, func);
  IrHeap *h = ((IrModule *)sch_mod(s))->heap;
  TirBuffer **bm = ir_alloc(h, (size_t)(f->nparams ? f->nparams : 1) * sizeof *bm);
  for (int i = 0; i < f->nparams; i++) bm[i] = f->buffer_map[i] == old ? nb : f->buffer_map[i];
  f->buffer_map = bm;
}

static DType index_dtype_of(const TirBuffer *b) {
  return b->ndim > 0 && b->shape[0]->dtype.bits == 64 ? dt_int64 : dt_int32;
}

static void print_expr_to(char *out, size_t cap, const TirExpr *e) {
  StrBuf sb;
  sb_init(&sb);
  print_tir_expr(&sb, e);
  snprintf(out, cap, "%s", sb.data ? sb.data : "");
  sb_free(&sb);
}

/* -------------------------------------------------- the access rewriter */

typedef struct Relayout {
  const TirBuffer *old;
  TirBuffer *nw;
  const SchIndexMap *map;
  ArithCtx *a; /* ranges of the loops and iters around, to simplify new indices */
} Relayout;

static TirBuffer *rl_buffer(TirMutator *m, TirBuffer *b) {
  Relayout *r = m->ctx;
  return b == r->old ? r->nw : NULL;
}

static int expr_size(const TirExpr *e) {
  if (!e) return 0;
  switch (e->kind) {
  case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: return 1;
  case TIR_NOT: case TIR_CAST: return 1 + expr_size(e->un.a);
  case TIR_SELECT: return 1 + expr_size(e->sel.cond) + expr_size(e->sel.t) + expr_size(e->sel.f);
  case TIR_LOAD: case TIR_RAMP: case TIR_BROADCAST: case TIR_LET: case TIR_CALL: return 8;
  default: return 1 + expr_size(e->bin.a) + expr_size(e->bin.b);
  }
}

/* The simplified form of a mapped index when it is smaller ((vi // 4) * 4 +
 * vi % 4 -> vi), else the map's own spelling (vj * 16 + vi stays as the map
 * writes it, as TVM prints it). */
static TirExpr *simpler(ArithCtx *a, TirExpr *e) {
  TirExpr *x = arith_simplify(a, e);
  return expr_size(x) < expr_size(e) ? x : e;
}

static TirExpr **rl_indices(TirMutator *m, TirExpr **idx) {
  Relayout *r = m->ctx;
  IrHeap *h = m->heap;
  int n = r->map->nsrc;
  TirExpr **in = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *in);
  for (int d = 0; d < n; d++) in[d] = tir_mutate_expr(m, idx[d]);
  TirExpr **out = ir_alloc(h, (size_t)(r->map->ndst ? r->map->ndst : 1) * sizeof *out);
  sch_index_map_apply(h, r->map, in, out);
  for (int j = 0; j < r->map->ndst; j++) out[j] = simpler(r->a, out[j]);
  return out;
}

static TirExpr *rl_load(TirMutator *m, TirExpr *e) {
  Relayout *r = m->ctx;
  if (e->load.buf != r->old) return tir_mutate_expr_children(m, e);
  TirExpr *o = tir_load(m->heap, r->nw, rl_indices(m, e->load.idx), r->map->ndst);
  o->span = e->span;
  return o;
}

static TirStmt *rl_store(TirMutator *m, TirStmt *st) {
  Relayout *r = m->ctx;
  if (st->store.buf != r->old) return tir_mutate_stmt_children(m, st);
  TirExpr **idx = rl_indices(m, st->store.idx);
  TirStmt *o = tir_store(m->heap, r->nw, tir_mutate_expr(m, st->store.value), idx, r->map->ndst);
  o->span = st->span;
  return o;
}

static TirStmt *rl_for(TirMutator *m, TirStmt *st) {
  Relayout *r = m->ctx;
  arith_push(r->a);
  arith_bind_range(r->a, st->loop.var, st->loop.min, st->loop.extent);
  TirStmt *o = tir_mutate_stmt_children(m, st);
  arith_pop(r->a);
  return o;
}

/* The image of a region of the old buffer: the new buffer's inferred region
 * in the same list when there is one, else the bounds of the mapped box. */
static TirBufferRegion new_region(TirMutator *m, const TirBufferRegion *old,
                                  const TirBufferRegion *inferred, int ninferred) {
  Relayout *r = m->ctx;
  IrHeap *h = m->heap;
  for (int i = 0; i < ninferred; i++) {
    if (inferred[i].buffer != r->nw) continue;
    /* simplified: an inner block's indices relaxed over its loops come
     * back as e.g. `0 // 6`, which does not print and parse back the same */
    TirBufferRegion out = inferred[i];
    out.ranges = ir_alloc(h, (size_t)(out.n ? out.n : 1) * sizeof(TirRange));
    for (int d = 0; d < out.n; d++)
      out.ranges[d] = (TirRange){arith_simplify(r->a, inferred[i].ranges[d].min),
                                 arith_simplify(r->a, inferred[i].ranges[d].extent)};
    return out;
  }
  TirBufferRegion out = {r->nw, ir_alloc(h, (size_t)(r->nw->ndim ? r->nw->ndim : 1) * sizeof(TirRange)),
                         r->nw->ndim};
  arith_push(r->a);
  TirVar **vs = ir_alloc(h, (size_t)(old->n ? old->n : 1) * sizeof *vs);
  TirExpr **pts = ir_alloc(h, (size_t)(old->n ? old->n : 1) * sizeof *pts);
  for (int d = 0; d < old->n; d++) {
    vs[d] = tir_var(h, "r", old->ranges[d].min->dtype);
    arith_bind_range(r->a, vs[d], tir_int(h, old->ranges[d].min->dtype, 0), old->ranges[d].extent);
    pts[d] = tir_binary(h, TIR_ADD, tir_mutate_expr(m, old->ranges[d].min), tir_var_ref(h, vs[d]));
  }
  TirExpr **img = ir_alloc(h, (size_t)(r->map->ndst ? r->map->ndst : 1) * sizeof *img);
  sch_index_map_apply(h, r->map, pts, img);
  for (int j = 0; j < r->map->ndst; j++) {
    TirExpr *lo = NULL, *hi = NULL;
    if (arith_symbolic_bounds(r->a, img[j], &lo, &hi)) {
      out.ranges[j].min = arith_simplify(r->a, lo);
      out.ranges[j].extent =
          arith_simplify(r->a, tir_binary(h, TIR_ADD, tir_binary(h, TIR_SUB, hi, lo), tir_int(h, hi->dtype, 1)));
    } else {
      out.ranges[j].min = tir_int(h, r->nw->shape[j]->dtype, 0);
      out.ranges[j].extent = r->nw->shape[j];
    }
  }
  arith_pop(r->a);
  return out;
}

static bool regions_use(const TirBufferRegion *rs, int n, const TirBuffer *buf) {
  for (int i = 0; i < n; i++)
    if (rs[i].buffer == buf) return true;
  return false;
}

static TirBufferRegion *fix_regions(TirMutator *m, const TirBufferRegion *orig, int n,
                                    const TirBufferRegion *inferred, int ninferred) {
  Relayout *r = m->ctx;
  TirBufferRegion *out = ir_alloc(m->heap, (size_t)(n ? n : 1) * sizeof *out);
  for (int i = 0; i < n; i++) out[i] = orig[i];
  for (int i = 0; i < n; i++) {
    if (orig[i].buffer == r->old) {
      out[i] = new_region(m, &orig[i], inferred, ninferred);
      continue;
    }
    /* Another buffer's region may index through loads of the old one
     * (`A[index_var_0[vi, vr]]` after cache_index): those are rewritten too. */
    out[i].ranges = ir_alloc(m->heap, (size_t)(orig[i].n ? orig[i].n : 1) * sizeof(TirRange));
    for (int d = 0; d < orig[i].n; d++)
      out[i].ranges[d] = (TirRange){tir_mutate_expr(m, orig[i].ranges[d].min),
                                    tir_mutate_expr(m, orig[i].ranges[d].extent)};
  }
  return out;
}

static TirStmt *rl_block(TirMutator *m, TirStmt *st) {
  Relayout *r = m->ctx;
  const TirBlock *ob = &st->block;
  arith_push(r->a);
  for (int i = 0; i < ob->niters; i++)
    arith_bind_range(r->a, ob->iters[i].var, ob->iters[i].dom.min, ob->iters[i].dom.extent);
  TirStmt *o = tir_mutate_stmt_children(m, st);
  bool touched = regions_use(ob->reads, ob->nreads, r->old) || regions_use(ob->writes, ob->nwrites, r->old);
  if (touched) {
    TirBlock nb = o->block;
    TirBufferRegion *ir = NULL, *iw = NULL;
    int nir = 0, niw = 0;
    tir_infer_access_regions(m->heap, &nb, &ir, &nir, &iw, &niw);
    nb.reads = fix_regions(m, ob->reads, ob->nreads, ir, nir);
    nb.writes = fix_regions(m, ob->writes, ob->nwrites, iw, niw);
    TirStmt *blk = tir_block(m->heap, &nb);
    blk->span = o->span;
    o = blk;
  }
  arith_pop(r->a);
  return o;
}

/* Rewrites every access to old in body through map into nw. */
static TirStmt *relayout(IrHeap *h, TirStmt *body, const TirBuffer *old, TirBuffer *nw,
                         const SchIndexMap *map) {
  Relayout r = {old, nw, map, arith_new(h)};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &r;
  m.buffer = rl_buffer;
  m.expr[TIR_LOAD] = rl_load;
  m.stmt[TIR_S_STORE] = rl_store;
  m.stmt[TIR_S_FOR] = rl_for;
  m.stmt[TIR_S_BLOCK] = rl_block;
  TirStmt *out = tir_mutate_stmt(&m, body);
  tir_mutator_free(&m);
  arith_free(r.a);
  return out;
}

/* ----------------------------------------------------------- padding */

static TirExpr *pad_at(IrHeap *h, const SchIndexMap *pad, TirExpr **iters) {
  TirExpr *v;
  sch_index_map_apply(h, pad, iters, &v);
  return v;
}

static TirStmt *assume_body(IrHeap *h, TirBuffer *nb, TirExpr **iters, const SchIndexMap *pad,
                            TirExpr *pred) {
  TirExpr *eq = tir_binary(h, TIR_EQ, tir_load(h, nb, iters, nb->ndim), pad_at(h, pad, iters));
  TirExpr *fact = tir_binary(h, TIR_OR, tir_not(h, pred), eq);
  return tir_evaluate(h, tir_call(h, dt_bool, &tir_op_table[TIR_OP_ASSUME], &fact, 1));
}

static TirStmt *fill_body(IrHeap *h, TirBuffer *nb, TirExpr **iters, const SchIndexMap *pad) {
  return tir_store(h, nb, pad_at(h, pad, iters), iters, nb->ndim);
}

/* A loop nest over the new shape (loop vars = inv's src) around a block
 * "buffer_<name>_assumptions" (T.assume facts on the padding of an input) or
 * "buffer_<name>_padding" (stores the pad value where T.where(padding)),
 * whose iters v_<loop> bind the loops one to one (TVM's prologue and
 * epilogue plans). */
static TirStmt *pad_nest(IrHeap *h, TirBuffer *nb, const SchIndexMap *inv, TirExpr *padding,
                         const SchIndexMap *pad, bool assume) {
  int n = nb->ndim;
  TirBlock blk;
  memset(&blk, 0, sizeof blk);
  char *name = xasprintf("buffer_%s_%s", nb->name, assume ? "assumptions" : "padding");
  blk.name = ir_strdup(h, name);
  free(name);
  blk.iters = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *blk.iters);
  blk.niters = n;
  TirExpr **iters = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *iters);
  TirExpr **values = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *values);
  IrPtrMap to_iter;
  ir_ptrmap_init(&to_iter);
  for (int j = 0; j < n; j++) {
    TirVar *lv = inv->src[j];
    char *vn = xasprintf("v_%s", lv->name);
    TirVar *iv = tir_var(h, ir_strdup(h, vn), lv->dtype);
    free(vn);
    blk.iters[j] = (TirIterVar){iv, {tir_int(h, nb->shape[j]->dtype, 0), nb->shape[j]}, TIR_ITER_SPATIAL};
    iters[j] = tir_var_ref(h, iv);
    values[j] = tir_var_ref(h, lv);
    ir_ptrmap_put(&to_iter, lv, iters[j]);
  }
  TirBufferRegion reg = {nb, ir_alloc(h, (size_t)(n ? n : 1) * sizeof(TirRange)), n};
  for (int j = 0; j < n; j++) reg.ranges[j] = (TirRange){iters[j], tir_int(h, iters[j]->dtype, 1)};
  TirStmt *realize;
  if (assume) {
    /* the facts are stated over the block's iters; the realize has no predicate */
    TirExpr *pred = tir_substitute_expr(h, padding, &to_iter);
    blk.body = assume_body(h, nb, iters, pad, pred);
    blk.reads = ir_memdup(h, &reg, sizeof reg);
    blk.nreads = 1;
    realize = tir_block_realize(h, values, n, tir_bool(h, true), tir_block(h, &blk));
  } else {
    blk.body = fill_body(h, nb, iters, pad);
    blk.writes = ir_memdup(h, &reg, sizeof reg);
    blk.nwrites = 1;
    realize = tir_block_realize(h, values, n, padding, tir_block(h, &blk));
  }
  ir_ptrmap_free(&to_iter);
  TirStmt *st = realize;
  for (int j = n - 1; j >= 0; j--)
    st = tir_for(h, inv->src[j], tir_int(h, nb->shape[j]->dtype, 0), nb->shape[j], TIR_FOR_SERIAL,
                 NULL, NULL, st);
  return st;
}

/* Pre-order search for the last realize whose block writes buf (path kept). */
static void last_writer(TirStmt *st, const TirBuffer *buf, SchPath *cur, SchPath *best) {
  sch_path_push(cur, st);
  if (st->kind == TIR_S_BLOCK_REALIZE && sch_block_writes(tir_realize_block(st), buf))
    sch_path_copy(best, cur);
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++) last_writer(all[i], buf, cur, best);
  cur->n--;
}

static bool uses_var(const TirExpr *e, const TirVar *v) {
  if (!e) return false;
  switch (e->kind) {
  case TIR_VAR: return e->var == v;
  case TIR_INT: case TIR_FLOAT: case TIR_STR: return false;
  case TIR_NOT: case TIR_CAST: return uses_var(e->un.a, v);
  case TIR_SELECT: return uses_var(e->sel.cond, v) || uses_var(e->sel.t, v) || uses_var(e->sel.f, v);
  case TIR_LOAD:
    for (int i = 0; i < e->load.n; i++)
      if (uses_var(e->load.idx[i], v)) return true;
    return false;
  case TIR_RAMP: return uses_var(e->ramp.base, v) || uses_var(e->ramp.stride, v);
  case TIR_BROADCAST: return uses_var(e->bcast.value, v);
  case TIR_LET: return uses_var(e->let.value, v) || uses_var(e->let.body, v);
  case TIR_CALL:
    for (int i = 0; i < e->call.n; i++)
      if (uses_var(e->call.args[i], v)) return true;
    return false;
  default: return uses_var(e->bin.a, v) || uses_var(e->bin.b, v);
  }
}

/* Inserts stmt after the last writer of buf: after the outermost loop of its
 * nest (inside its scope) whose var its bindings use, else after the realize
 * itself.  Returns the new root, or NULL when buf has no writer. */
static TirStmt *insert_after_last_writer(IrHeap *h, TirStmt *root, const TirBuffer *buf, TirStmt *stmt) {
  SchPath cur = {0}, best = {0};
  last_writer(root, buf, &cur, &best);
  sch_path_free(&cur);
  if (best.n == 0) return NULL;
  int wi = best.n - 1;
  const TirStmt *w = best.s[wi];
  int scope = sch_scope_index(&best, wi);
  int at = wi;
  for (int d = scope + 1; d < wi; d++) {
    if (best.s[d]->kind != TIR_S_FOR) continue;
    bool used = false;
    for (int k = 0; k < w->realize.n && !used; k++) used = uses_var(w->realize.values[k], best.s[d]->loop.var);
    if (used) {
      at = d;
      break;
    }
  }
  TirStmt *pair[2] = {best.s[at], stmt};
  TirStmt *out = sch_replace_at(h, &best, at, tir_seq(h, pair, 2));
  sch_path_free(&best);
  return out;
}

/* ---- TVM's replacement plan: a writer that traverses the old buffer in
 * row-major order (one loop per axis, each iter bound to its loop, every
 * store in the loops' body the same store to the buffer) is rewritten to
 * traverse the new shape, storing T.if_then_else(padding, pad_value, value). */

typedef struct StoreScan {
  const TirBuffer *buf;
  TirExpr **idx;     /* indices of the first store to buf */
  bool ok;           /* every store so far is to buf with those indices */
  int nrealize;      /* block realizes seen */
} StoreScan;

static void scan_stores(const TirStmt *st, StoreScan *sc) {
  if (!st || !sc->ok) return;
  if (st->kind == TIR_S_BLOCK_REALIZE) sc->nrealize++;
  if (st->kind == TIR_S_STORE) {
    if (st->store.buf != sc->buf) {
      sc->ok = false;
      return;
    }
    if (!sc->idx) {
      sc->idx = st->store.idx;
    } else {
      for (int d = 0; d < st->store.n; d++)
        if (!seq_tir_expr(st->store.idx[d], sc->idx[d])) sc->ok = false;
    }
    return;
  }
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt *const *all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++) scan_stores(all[i], sc);
}

typedef struct PadStore {
  const TirBuffer *old;
  TirBuffer *nw;
  TirExpr **idx;     /* the new indices (the block's new iters) */
  TirExpr *pred;     /* padding, over the new iters */
  TirExpr *pad;      /* pad value at idx */
} PadStore;

static TirStmt *pad_store(TirMutator *m, TirStmt *st) {
  PadStore *ps = m->ctx;
  if (st->store.buf != ps->old) return tir_mutate_stmt_children(m, st);
  TirExpr *args[3] = {ps->pred, ps->pad, tir_mutate_expr(m, st->store.value)};
  TirExpr *v = tir_call(m->heap, ps->nw->dtype, &tir_op_table[TIR_OP_IF_THEN_ELSE], args, 3);
  TirStmt *o = tir_store(m->heap, ps->nw, v, ps->idx, ps->nw->ndim);
  o->span = st->span;
  return o;
}

static TirStmt *pad_stores(IrHeap *h, TirStmt *st, PadStore *ps) {
  if (!st) return NULL;
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = ps;
  m.stmt[TIR_S_STORE] = pad_store;
  TirStmt *o = tir_mutate_stmt(&m, st);
  tir_mutator_free(&m);
  return o;
}

/* Copies of n regions with sub applied to their bounds (allocated in h). */
static TirBufferRegion *subst_regions(IrHeap *h, const TirBufferRegion *regs, int n, const IrPtrMap *sub) {
  TirBufferRegion *rs = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *rs);
  for (int i = 0; i < n; i++) {
    rs[i] = regs[i];
    rs[i].ranges = ir_alloc(h, (size_t)(rs[i].n ? rs[i].n : 1) * sizeof(TirRange));
    for (int d = 0; d < rs[i].n; d++)
      rs[i].ranges[d] = (TirRange){tir_substitute_expr(h, regs[i].ranges[d].min, sub),
                                   tir_substitute_expr(h, regs[i].ranges[d].extent, sub)};
  }
  return rs;
}

/* The writer at the end of path p stores buf at consecutive spatial iters
 * of its block, each bound to one of consecutive serial loops from 0 over
 * buf's extents, the innermost of which holds no other store of buf.  Sets
 * the first such iter and the path index of the first such loop. */
static bool check_row_major_writer(const SchPath *p, const TirBuffer *buf, int *first_iter_out,
                                   int *first_loop_out) {
  int wi = p->n - 1, k = buf->ndim;
  const TirStmt *w = p->s[wi];
  const TirBlock *b = tir_realize_block(w);
  StoreScan sc = {buf, NULL, true, 0};
  if (b->init) scan_stores(b->init, &sc);
  scan_stores(b->body, &sc);
  if (!sc.ok || !sc.idx || sc.nrealize || k == 0) return false;
  /* indices: consecutive spatial iters of the block, each bound to a loop */
  int first_iter = -1, first_loop = -1;
  for (int d = 0; d < k; d++) {
    if (sc.idx[d]->kind != TIR_VAR) return false;
    int it = 0;
    while (it < b->niters && b->iters[it].var != sc.idx[d]->var) it++;
    if (it == b->niters || b->iters[it].type != TIR_ITER_SPATIAL) return false;
    if (d == 0) first_iter = it;
    else if (it != first_iter + d) return false;
    const TirExpr *v = w->realize.values[it];
    if (v->kind != TIR_VAR) return false;
    int q = 0;
    while (q < wi && !(p->s[q]->kind == TIR_S_FOR && p->s[q]->loop.var == v->var)) q++;
    if (q == wi) return false;
    if (d == 0) first_loop = q;
    else if (q != first_loop + d) return false;
    const TirStmt *L = p->s[q];
    int64_t e1, e2;
    bool same_extent = seq_tir_expr(L->loop.extent, buf->shape[d]) ||
                       (tir_is_const_int(L->loop.extent, &e1) && tir_is_const_int(buf->shape[d], &e2) && e1 == e2);
    if (!tir_is_zero(L->loop.min) || !same_extent || L->loop.kind != TIR_FOR_SERIAL) return false;
  }
  /* the innermost of those loops holds this block and nothing else that stores */
  const TirStmt *inner = p->s[first_loop + k - 1];
  StoreScan all = {buf, NULL, true, 0};
  scan_stores(inner->loop.body, &all);
  if (!all.ok || all.nrealize != 1) return false;
  *first_iter_out = first_iter;
  *first_loop_out = first_loop;
  return true;
}

/* The rewritten loop nest of the writer at the end of path p, or NULL when
 * it is not a row-major traversal; *at receives the path index of the
 * outermost loop it replaces. */
static TirStmt *replace_writer(IrHeap *h, const SchPath *p, const TirBuffer *buf, TirBuffer *nb,
                               const SchIndexMap *inv, TirExpr *padding, const SchIndexMap *pad,
                               int *at) {
  int wi = p->n - 1, k = buf->ndim;
  const TirStmt *w = p->s[wi];
  const TirBlock *b = tir_realize_block(w);
  int first_iter = -1, first_loop = -1;
  if (!check_row_major_writer(p, buf, &first_iter, &first_loop)) return NULL;
  /* new iters v_axis.. bound to new loops axis.. */
  int n = nb->ndim;
  TirIterVar *iters = ir_alloc(h, (size_t)(b->niters - k + n) * sizeof *iters);
  TirExpr **values = ir_alloc(h, (size_t)(b->niters - k + n) * sizeof *values);
  TirExpr **vref = ir_alloc(h, (size_t)n * sizeof *vref);
  IrPtrMap to_v, sub;
  ir_ptrmap_init(&to_v);
  ir_ptrmap_init(&sub);
  int ni = 0;
  /* Fresh loop vars per writer: a var is defined by one loop only (two
   * writers, e.g. a reduction's init nest and update nest, get loops of
   * their own). */
  TirVar **lv = ir_alloc(h, (size_t)n * sizeof *lv);
  for (int i = 0; i < first_iter; i++) iters[ni] = b->iters[i], values[ni++] = w->realize.values[i];
  for (int j = 0; j < n; j++) {
    char *vn = xasprintf("v_%s", inv->src[j]->name);
    TirVar *iv = tir_var(h, ir_strdup(h, vn), inv->src[j]->dtype);
    free(vn);
    lv[j] = tir_var(h, inv->src[j]->name, inv->src[j]->dtype);
    vref[j] = tir_var_ref(h, iv);
    iters[ni] = (TirIterVar){iv, {tir_int(h, nb->shape[j]->dtype, 0), nb->shape[j]}, TIR_ITER_SPATIAL};
    values[ni++] = tir_var_ref(h, lv[j]);
    ir_ptrmap_put(&to_v, inv->src[j], vref[j]);
  }
  for (int i = first_iter + k; i < b->niters; i++) iters[ni] = b->iters[i], values[ni++] = w->realize.values[i];
  for (int d = 0; d < k; d++)
    ir_ptrmap_put(&sub, b->iters[first_iter + d].var, tir_substitute_expr(h, inv->dst[d], &to_v));
  PadStore ps = {buf, nb, vref, tir_substitute_expr(h, padding, &to_v), NULL};
  sch_index_map_apply(h, pad, vref, &ps.pad);
  TirBlock nbk = *b;
  nbk.iters = iters;
  nbk.niters = ni;
  nbk.init = pad_stores(h, b->init ? tir_substitute_stmt(h, b->init, &sub) : NULL, &ps);
  nbk.body = pad_stores(h, tir_substitute_stmt(h, b->body, &sub), &ps);
  nbk.reads = subst_regions(h, b->reads, b->nreads, &sub);
  nbk.writes = subst_regions(h, b->writes, b->nwrites, &sub);
  ir_ptrmap_free(&to_v);
  ir_ptrmap_free(&sub);
  TirStmt *blk = tir_block(h, &nbk);
  blk->span = w->realize.block->span;
  TirStmt *nr = tir_block_realize(h, values, ni, w->realize.pred, blk);
  nr->span = w->span;
  /* rebuild from the innermost replaced loop's body down to the block */
  SchPath below = {p->s + first_loop + k, p->n - (first_loop + k), 0};
  TirStmt *st = sch_replace_at(h, &below, below.n - 1, nr);
  for (int j = n - 1; j >= 0; j--)
    st = tir_for(h, lv[j], tir_int(h, nb->shape[j]->dtype, 0), nb->shape[j], TIR_FOR_SERIAL,
                 NULL, NULL, st);
  *at = first_loop;
  return st;
}

/* Every realize writing buf, as paths (pre-order). */
static void all_writers(TirStmt *st, const TirBuffer *buf, SchPath *cur, SchPath **out, int *n,
                        int *cap) {
  sch_path_push(cur, st);
  if (st->kind == TIR_S_BLOCK_REALIZE && sch_block_writes(tir_realize_block(st), buf)) {
    VEC_RESERVE(*out, *cap, *n + 1);
    memset(&(*out)[*n], 0, sizeof **out);
    sch_path_copy(&(*out)[(*n)++], cur);
  }
  TirStmt *kids[64];
  int k = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, k = st->seq.n;
  for (int i = 0; i < k; i++) all_writers(all[i], buf, cur, out, n, cap);
  cur->n--;
}

static TirStmt *swap_loop(TirMutator *m, TirStmt *st) {
  TirStmt *r = ir_ptrmap_get(m->ctx, st);
  return r ? r : tir_mutate_stmt_children(m, st);
}

/* Applies the replacement plan to every row-major writer; NULL when none is. */
static TirStmt *replace_writers(IrHeap *h, TirStmt *root, const TirBuffer *buf, TirBuffer *nb,
                                const SchIndexMap *inv, TirExpr *padding, const SchIndexMap *pad) {
  SchPath cur = {0}, *ws = NULL;
  int nw = 0, capw = 0;
  all_writers(root, buf, &cur, &ws, &nw, &capw);
  sch_path_free(&cur);
  IrPtrMap swaps;
  ir_ptrmap_init(&swaps);
  int nswaps = 0;
  for (int i = 0; i < nw; i++) {
    int at = -1;
    TirStmt *nest = replace_writer(h, &ws[i], buf, nb, inv, padding, pad, &at);
    if (nest && !ir_ptrmap_has(&swaps, ws[i].s[at])) {
      ir_ptrmap_put(&swaps, ws[i].s[at], nest);
      nswaps++;
    }
    sch_path_free(&ws[i]);
  }
  free(ws);
  TirStmt *out = NULL;
  if (nswaps) {
    TirMutator m;
    tir_mutator_init(&m, h);
    m.ctx = &swaps;
    m.stmt[TIR_S_FOR] = swap_loop;
    out = tir_mutate_stmt(&m, root);
    tir_mutator_free(&m);
  }
  ir_ptrmap_free(&swaps);
  return out;
}

/* Prepends stmt to the body of the function's root block. */
static TirStmt *prepend_to_root(IrHeap *h, TirStmt *root, TirStmt *stmt) {
  if (root->kind != TIR_S_BLOCK_REALIZE) {
    TirStmt *pair[2] = {stmt, root};
    return tir_seq(h, pair, 2);
  }
  const TirStmt *blk = root->realize.block;
  TirBlock nb = blk->block;
  TirStmt *pair[2] = {stmt, nb.body};
  nb.body = tir_seq(h, pair, 2);
  return sch_realize_with(h, root, &nb, NULL, NULL);
}

/* ----------------------------------------------------------- transform_layout */

/* Parses the index map and builds the new buffer: the map's image of the
 * old shape, no strides, the map's axis separators.  NULL after an error. */
static TirBuffer *compute_layout_buffer(Schedule *s, IrHeap *h, const TirBuffer *buf,
                                        const char *index_map, DType it, const char *prim,
                                        SchIndexMap *map) {
  if (sch_index_map_parse(s, h, index_map, it, prim, 2, map)) return NULL;
  if (map->nsrc != buf->ndim) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2,
             "%s: the index map takes %d indices but buffer '%s' has %d dimensions", prim,
             map->nsrc, buf->name, buf->ndim);
    return NULL;
  }
  TirBuffer *nb = tir_buffer_copy(h, buf);
  nb->shape = ir_alloc(h, (size_t)(map->ndst ? map->ndst : 1) * sizeof *nb->shape);
  nb->ndim = map->ndst;
  nb->strides = NULL;
  nb->nstrides = 0;
  if (map->nseps) {
    nb->axis_separators = ir_memdup(h, map->seps, (size_t)map->nseps * sizeof *map->seps);
    nb->naxis_separators = map->nseps;
  }
  const char *why = NULL;
  if (!sch_index_map_image(h, map, buf->shape, nb->shape, &why)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2,
             "%s: cannot infer the shape of buffer '%s' under the index map: %s", prim,
             buf->name, why);
    return NULL;
  }
  return nb;
}

/* The pad value as a map from the new buffer's indices to one value of the
 * buffer's dtype: a lambda parsed, a constant wrapped. */
static bool compute_pad_value(Schedule *s, IrHeap *h, const SchVal *pad_value, const SchIndexMap *map,
                              TirBuffer *nb, const TirBuffer *buf, DType it, const char *prim,
                              SchIndexMap *pad) {
  if (pad_value->kind == SV_CODE) {
    if (sch_index_map_parse_value(s, h, pad_value->s, it, nb, buf->dtype, prim, 3, pad)) return false;
    if (pad->nsrc != map->ndst || pad->ndst != 1) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3,
               "%s: pad_value must map the %d indices of the new buffer to one value, got "
               "%d indices and %d values",
               prim, map->ndst, pad->nsrc, pad->ndst);
      return false;
    }
  } else {
    /* As TVM's Python layer: an int fills int buffers, a float float buffers, in their dtype. */
    TirExpr *v;
    if (pad_value->kind == SV_INT)
      v = dt_is_integer(buf->dtype) ? tir_int(h, buf->dtype, pad_value->i) : tir_i32(h, pad_value->i);
    else
      v = dt_is_float(buf->dtype) ? tir_float(h, buf->dtype, pad_value->f)
                                  : tir_float(h, dt_float32, pad_value->f);
    pad->nsrc = map->ndst;
    pad->src = ir_alloc(h, (size_t)(map->ndst ? map->ndst : 1) * sizeof *pad->src);
    for (int j = 0; j < map->ndst; j++) pad->src[j] = tir_var(h, "i", it);
    pad->dst = ir_alloc(h, sizeof *pad->dst);
    pad->dst[0] = v;
    pad->ndst = 1;
  }
  if (!dt_eq(pad->dst[0]->dtype, buf->dtype)) {
    char a[DT_STR_MAX], c[DT_STR_MAX];
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3,
             "%s: type mismatch: buffer '%s' has dtype %s but pad_value has dtype %s", prim,
             buf->name, dt_str(buf->dtype, a), dt_str(pad->dst[0]->dtype, c));
    return false;
  }
  return true;
}

/* Unless assume_injective, inverts the map over the old shape (inv, and the
 * predicate of the padding it introduces, *padding); padding needs a pad value. */
static bool check_layout_inverse(Schedule *s, IrHeap *h, const SchIndexMap *map, const TirBuffer *buf,
                                 bool assume_injective, bool has_pad, const char *prim,
                                 SchIndexMap *inv, TirExpr **padding) {
  const char *why = NULL;
  char pred_text[256] = "";
  if (!assume_injective) {
    if (!sch_index_map_inverse(h, map, buf->shape, "axis", inv, padding, &why)) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2,
               "%s: the index map is not a bijection from the shape of buffer '%s' (%s); pass "
               "assume_injective_transform=True if it is injective",
               prim, buf->name, why);
      return false;
    }
  }
  if (*padding && !has_pad) {
    print_expr_to(pred_text, sizeof pred_text, *padding);
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2,
             "%s: the transformation would introduce padding at %s in buffer '%s'; give a "
             "pad_value",
             prim, pred_text, buf->name);
    return false;
  }
  return true;
}

/* The new function body: padding written (when there is any), then every
 * access of buf moved to nb through the map. */
static TirStmt *replace_layout(IrHeap *h, TirStmt *body, const TirBuffer *buf, TirBuffer *nb,
                               const SchIndexMap *map, const SchIndexMap *inv, TirExpr *padding,
                               const SchIndexMap *pad) {
  if (padding) {
    /* TVM's plans in its order of preference: rewrite row-major writers,
     * else fill after the last writer, else (no writer) assume. */
    TirStmt *nbody = replace_writers(h, body, buf, nb, inv, padding, pad);
    if (!nbody)
      nbody = insert_after_last_writer(h, body, buf, pad_nest(h, nb, inv, padding, pad, false));
    if (nbody) {
      body = nbody;
    } else {
      body = prepend_to_root(h, body, pad_nest(h, nb, inv, padding, pad, true));
    }
  }
  return relayout(h, body, buf, nb, map);
}

/* pad_value: NULL / SV_NONE = None, SV_INT / SV_FLOAT a constant, SV_CODE a lambda. */
static int transform_layout_impl(Schedule *s, SchRV block, bool is_write, int buffer_index,
                                 const char *index_map, const SchVal *pad_value,
                                 bool assume_injective) {
  const char *prim = "transform_layout";
  SchPath bp = {0};
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  sch_path_free(&bp);
  if (!realize) return -1;
  const char *func = s->rvs[block].func;
  TirFunc *f = sch_cur_func(s, func);
  if (!f) return -1;
  const TirBlock *b = tir_realize_block(realize);
  TirBuffer *buf = layout_buffer(s, prim, b, is_write, buffer_index, f);
  if (!buf) return -1;
  const TirBlock *viewer = find_block(f->body, matches_from, buf);
  if (viewer) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
             "%s: buffer '%s' is viewed by a match_buffer of block '%s'; its layout cannot be "
             "changed under the view",
             prim, buf->name, viewer->name);
    return -1;
  }
  /* Built in the new version's heap, which is dropped unless every check passes. */
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  DType it = index_dtype_of(buf);
  SchIndexMap map, pad = {0}, inv = {0};
  bool has_pad = pad_value && pad_value->kind != SV_NONE;
  TirExpr *padding = NULL;
  TirBuffer *nb = compute_layout_buffer(s, h, buf, index_map, it, prim, &map);
  if (!nb || (has_pad && !compute_pad_value(s, h, pad_value, &map, nb, buf, it, prim, &pad)) ||
      !check_layout_inverse(s, h, &map, buf, assume_injective, has_pad, prim, &inv, &padding)) {
    ir_module_free(nm);
    return -1;
  }
  TirStmt *body = replace_layout(h, f->body, buf, nb, &map, &inv, padding, &pad);
  bool is_param = sch_is_param_buffer(f, buf);
  sch_commit(s, nm, func, body);
  if (is_param) replace_param_buffer(s, func, buf, nb);
  SchVal args[5];
  args[0] = sch_val_rv(block);
  args[1] = sch_val_buffer_pair(is_write, buffer_index);
  args[2] = sch_val_code(index_map);
  args[3] = pad_value ? sch_val_copy(pad_value) : sch_val_none();
  args[4] = sch_val_bool(assume_injective);
  sch_record(s, prim, args, 5, NULL, 0);
  return 0;
}

/* The text of a number or a lambda as a trace value. */
static SchVal pad_val_of(const char *text) {
  SchVal v = sch_val_none();
  if (!text || !strcmp(text, "None")) return v;
  while (*text == ' ') text++;
  if (!strncmp(text, "lambda", 6)) return sch_val_code(text);
  char *end = NULL;
  long long i = strtoll(text, &end, 10);
  if (end && *end == '\0' && end != text) return sch_val_int(i);
  v.kind = SV_FLOAT;
  v.f = strtod(text, NULL);
  return v;
}

int sch_transform_layout(Schedule *s, SchRV block, bool is_write, int buffer_index,
                         const char *index_map, const char *pad_value, bool assume_injective_transform) {
  SchVal pv = pad_val_of(pad_value);
  int rc = transform_layout_impl(s, block, is_write, buffer_index, index_map, &pv,
                                 assume_injective_transform);
  sch_val_free(&pv);
  return rc;
}

/* ----------------------------------------------------- transform_block_layout */

static bool expr_is_var(const TirExpr *e, const TirVar *v) { return e && e->kind == TIR_VAR && e->var == v; }

/* The iter type shared by the old iters e uses; -1 when they differ, -2 when none. */
static int iter_type_of(const TirExpr *e, const TirBlock *b) {
  int t = -2;
  for (int i = 0; i < b->niters; i++) {
    if (!uses_var(e, b->iters[i].var)) continue;
    if (t == -2) t = (int)b->iters[i].type;
    else if (t != (int)b->iters[i].type) return -1;
  }
  return t;
}

typedef struct AccessSimp {
  ArithCtx *a;
} AccessSimp;

static TirExpr **simp_all(TirMutator *m, TirExpr **idx, int n) {
  AccessSimp *c = m->ctx;
  TirExpr **out = ir_alloc(m->heap, (size_t)(n ? n : 1) * sizeof *out);
  for (int i = 0; i < n; i++) out[i] = arith_simplify(c->a, tir_mutate_expr(m, idx[i]));
  return out;
}

static TirExpr *simp_load(TirMutator *m, TirExpr *e) {
  TirExpr *o = tir_load(m->heap, e->load.buf, simp_all(m, e->load.idx, e->load.n), e->load.n);
  o->span = e->span;
  return o;
}

static TirStmt *simp_store(TirMutator *m, TirStmt *st) {
  TirStmt *o = tir_store(m->heap, st->store.buf, tir_mutate_expr(m, st->store.value),
                         simp_all(m, st->store.idx, st->store.n), st->store.n);
  o->span = st->span;
  return o;
}

static void simp_regions(ArithCtx *a, IrHeap *h, TirBufferRegion **rs, int n) {
  TirBufferRegion *out = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out);
  for (int i = 0; i < n; i++) {
    out[i] = (*rs)[i];
    out[i].ranges = ir_alloc(h, (size_t)(out[i].n ? out[i].n : 1) * sizeof(TirRange));
    for (int d = 0; d < out[i].n; d++)
      out[i].ranges[d] = (TirRange){arith_simplify(a, (*rs)[i].ranges[d].min),
                                    arith_simplify(a, (*rs)[i].ranges[d].extent)};
  }
  *rs = out;
}

/* The block must be the only child of a chain of loops from 0 (statements
 * between its scope and the outermost loop aside), bound trivially to them,
 * with iter domains from 0.  Sets the path index of the outermost loop. */
static bool check_block_layout_loops(Schedule *s, const char *prim, const SchPath *bp, int *first_out) {
  int ri = bp->n - 1;
  const TirStmt *realize = bp->s[ri];
  const TirBlock *b = tir_realize_block(realize);
  int scope = sch_scope_index(bp, ri);
  int nloops = 0;
  int first = scope + 1; /* statements above the outermost loop (a SeqStmt) do not matter */
  while (first < ri && bp->s[first]->kind != TIR_S_FOR) first++;
  for (int d = first; d < ri; d++) {
    const TirStmt *st = bp->s[d];
    if (st->kind != TIR_S_FOR) { /* first is a For, so d - 1 is one */
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "%s: loop '%s' holds more than block '%s' (a %s); the block must be the only "
               "child of its loops",
               prim, bp->s[d - 1]->loop.var->name, b->name, tir_stmt_kind_name(st->kind));
      return false;
    }
    if (!tir_is_zero(st->loop.min)) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "%s: loop '%s' above block '%s' does not start at 0", prim, st->loop.var->name,
               b->name);
      return false;
    }
    nloops++;
  }
  bool trivial = realize->realize.n == nloops && sch_is_trivial_pred(realize->realize.pred);
  for (int k = 0; trivial && k < nloops; k++)
    trivial = expr_is_var(realize->realize.values[k], bp->s[first + k]->loop.var);
  if (!trivial) {
    sch_fail(s, SCH_ERR_NOT_AFFINE, 0,
             "%s: block '%s' must have trivial bindings (each iter bound to its own loop, "
             "in loop order, without a predicate)",
             prim, b->name);
    return false;
  }
  for (int i = 0; i < b->niters; i++)
    if (!tir_is_zero(b->iters[i].dom.min)) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "%s: the domain of iter '%s' of block '%s' does not start at 0", prim,
               b->iters[i].var->name, b->name);
      return false;
    }
  *first_out = first;
  return true;
}

/* Parses the map over the block's iters and inverts it; nb (a copy of b)
 * gets the new iters, typed by the old iters each uses, over *shape. */
static bool compute_block_layout_iters(Schedule *s, IrHeap *h, const TirBlock *b, const char *index_map,
                                       const char *prim, SchIndexMap *map, SchIndexMap *inv,
                                       TirExpr ***shape_out, TirBlock *nb) {
  DType it = b->niters && b->iters[0].dom.extent->dtype.bits == 64 ? dt_int64 : dt_int32;
  if (sch_index_map_parse(s, h, index_map, it, prim, 1, map)) return false;
  if (map->nsrc != b->niters) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: the index map takes %d indices but block '%s' has %d iters", prim,
             map->nsrc, b->name, b->niters);
    return false;
  }
  TirExpr **ext = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *ext);
  for (int i = 0; i < b->niters; i++) ext[i] = b->iters[i].dom.extent;
  const char *why = NULL;
  if (!sch_index_map_inverse(h, map, ext, "v", inv, NULL, &why)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: the index map is not bijective affine on the iters of block '%s' (%s)", prim,
             b->name, why);
    return false;
  }
  TirExpr **shape = ir_alloc(h, (size_t)(map->ndst ? map->ndst : 1) * sizeof *shape);
  sch_index_map_image(h, map, ext, shape, &why);
  /* The new iters: old iter i (now the map's src var) in map.dst -> type. */
  TirExpr **old_refs = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *old_refs);
  for (int i = 0; i < b->niters; i++) old_refs[i] = tir_var_ref(h, b->iters[i].var);
  TirExpr **as_old = ir_alloc(h, (size_t)(map->ndst ? map->ndst : 1) * sizeof *as_old);
  sch_index_map_apply(h, map, old_refs, as_old);
  *nb = *b;
  nb->iters = ir_alloc(h, (size_t)(map->ndst ? map->ndst : 1) * sizeof *nb->iters);
  nb->niters = map->ndst;
  for (int j = 0; j < map->ndst; j++) {
    int t = iter_type_of(as_old[j], b);
    if (t < 0) {
      char txt[256];
      print_expr_to(txt, sizeof txt, as_old[j]);
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
               "%s: cannot detect the type of the new iter %s of block '%s': it %s", prim,
               txt, b->name, t == -1 ? "mixes iters of different types" : "uses no iter");
      return false;
    }
    nb->iters[j] = (TirIterVar){inv->src[j], {tir_int(h, shape[j]->dtype, 0), shape[j]}, (TirIterType)t};
  }
  *shape_out = shape;
  return true;
}

/* Old iters -> inverse over the new ones, in nb's init, body and regions,
 * the access indices simplified over the new iters' domains. */
static void replace_block_iters(IrHeap *h, const TirBlock *b, TirBlock *nb, const SchIndexMap *inv) {
  IrPtrMap sub;
  ir_ptrmap_init(&sub);
  for (int i = 0; i < b->niters; i++) ir_ptrmap_put(&sub, b->iters[i].var, inv->dst[i]);
  ArithCtx *a = arith_new(h);
  for (int j = 0; j < nb->niters; j++) arith_bind_range(a, nb->iters[j].var, nb->iters[j].dom.min, nb->iters[j].dom.extent);
  AccessSimp as = {a};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &as;
  m.expr[TIR_LOAD] = simp_load;
  m.stmt[TIR_S_STORE] = simp_store;
  if (nb->init) nb->init = tir_mutate_stmt(&m, tir_substitute_stmt(h, nb->init, &sub));
  nb->body = tir_mutate_stmt(&m, tir_substitute_stmt(h, nb->body, &sub));
  tir_mutator_free(&m);
  nb->reads = subst_regions(h, nb->reads, nb->nreads, &sub);
  simp_regions(a, h, &nb->reads, nb->nreads);
  nb->writes = subst_regions(h, nb->writes, nb->nwrites, &sub);
  simp_regions(a, h, &nb->writes, nb->nwrites);
  arith_free(a);
  ir_ptrmap_free(&sub);
}

/* The new block under a fresh nest of `ax<j>` loops over shape, bound trivially. */
static TirStmt *build_block_layout_nest(IrHeap *h, const TirStmt *realize, const TirBlock *nb,
                                        TirExpr **shape) {
  int n = nb->niters;
  TirStmt *nblk = tir_block(h, nb);
  nblk->span = realize->realize.block->span;
  TirExpr **values = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *values);
  TirVar **loops = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *loops);
  for (int j = 0; j < n; j++) {
    char name[16];
    snprintf(name, sizeof name, "ax%d", j);
    loops[j] = tir_var(h, ir_strdup(h, name), nb->iters[j].var->dtype);
    values[j] = tir_var_ref(h, loops[j]);
  }
  TirStmt *st = tir_block_realize(h, values, n, realize->realize.pred, nblk);
  st->span = realize->span;
  for (int j = n - 1; j >= 0; j--)
    st = tir_for(h, loops[j], tir_int(h, shape[j]->dtype, 0), shape[j], TIR_FOR_SERIAL, NULL, NULL, st);
  return st;
}

/* Handles of block b now denote the rebuilt nb (TVM reuses its sref). */
static void replace_block_handles(Schedule *s, const char *func, const TirBlock *b, const TirBlock *nb) {
  const void *old_key = b->niters ? (const void *)b->iters[0].var : NULL;
  const void *new_key = nb->niters ? (const void *)nb->iters[0].var : NULL;
  for (int i = 0; i < s->nrvs; i++) {
    SchRVInfo *r = &s->rvs[i];
    if (r->kind != SCH_RV_BLOCK || strcmp(r->func, func)) continue;
    bool same = old_key ? r->key == old_key : (!r->key && r->block_name && !strcmp(r->block_name, b->name));
    if (!same) continue;
    r->key = new_key;
    if (!new_key && !r->block_name) r->block_name = xstrdup(b->name);
  }
}

int sch_transform_block_layout(Schedule *s, SchRV block, const char *index_map) {
  const char *prim = "transform_block_layout";
  SchPath bp = {0};
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  if (!realize) return sch_path_free(&bp), -1;
  const char *func = s->rvs[block].func;
  const TirBlock *b = tir_realize_block(realize);
  int first = 0;
  if (!check_block_layout_loops(s, prim, &bp, &first)) return sch_path_free(&bp), -1;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  SchIndexMap map, inv;
  TirExpr **shape = NULL;
  TirBlock nb;
  if (!compute_block_layout_iters(s, h, b, index_map, prim, &map, &inv, &shape, &nb)) {
    sch_path_free(&bp);
    ir_module_free(nm);
    return -1;
  }
  replace_block_iters(h, b, &nb, &inv);
  TirStmt *st = build_block_layout_nest(h, realize, &nb, shape);
  TirStmt *root = sch_replace_at(h, &bp, first, st);
  sch_path_free(&bp);
  replace_block_handles(s, func, b, &nb);
  sch_commit(s, nm, func, root);
  SchVal args[2] = {sch_val_rv(block), sch_val_code(index_map)};
  sch_record(s, prim, args, 2, NULL, 0);
  return 0;
}

/* ------------------------------------------------------- set_axis_separator */

/* A view of the buffer takes its separators when of the same rank, else as
 * many separators at 0 (TVM's BufferAxisSeparatorMutator). */
static TirBuffer *separated_view(IrHeap *h, const TirBuffer *view, const TirBuffer *nsrc) {
  TirBuffer *nv = tir_buffer_copy(h, view);
  nv->naxis_separators = nsrc->naxis_separators;
  nv->axis_separators = NULL;
  if (nsrc->naxis_separators) {
    nv->axis_separators = ir_alloc(h, (size_t)nsrc->naxis_separators * sizeof *nv->axis_separators);
    for (int i = 0; i < nsrc->naxis_separators; i++)
      nv->axis_separators[i] = view->ndim == nsrc->ndim ? nsrc->axis_separators[i] : 0;
  }
  return nv;
}

int sch_set_axis_separator(Schedule *s, SchRV block, bool is_write, int buffer_index,
                           const int64_t *axis_separators, int n) {
  const char *prim = "set_axis_separator";
  SchPath bp = {0};
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  sch_path_free(&bp);
  if (!realize) return -1;
  const char *func = s->rvs[block].func;
  TirFunc *f = sch_cur_func(s, func);
  if (!f) return -1;
  TirBuffer *buf = layout_buffer(s, prim, tir_realize_block(realize), is_write, buffer_index, f);
  if (!buf) return -1;
  for (int i = 0; i < n; i++) {
    if (axis_separators[i] <= 0 || axis_separators[i] >= buf->ndim) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2,
               "%s: axis separator %lld is out of range [1, %d) of buffer '%s'", prim,
               (long long)axis_separators[i], buf->ndim, buf->name);
      return -1;
    }
    if (i > 0 && axis_separators[i] <= axis_separators[i - 1]) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2,
               "%s: the axis separators of buffer '%s' must be strictly increasing", prim,
               buf->name);
      return -1;
    }
  }
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  TirBuffer *nb = tir_buffer_copy(h, buf);
  nb->naxis_separators = n;
  nb->axis_separators = NULL;
  if (n) {
    nb->axis_separators = ir_alloc(h, (size_t)n * sizeof *nb->axis_separators);
    for (int i = 0; i < n; i++) nb->axis_separators[i] = (int)axis_separators[i];
  }
  TirStmt *body = sch_replace_buffer_views(h, f->body, buf, nb, separated_view);
  bool is_param = sch_is_param_buffer(f, buf);
  sch_commit(s, nm, func, body);
  if (is_param) replace_param_buffer(s, func, buf, nb);
  SchVal args[3];
  args[0] = sch_val_rv(block);
  args[1] = sch_val_buffer_pair(is_write, buffer_index);
  args[2] = sch_val_none();
  args[2].kind = SV_LIST;
  args[2].items = xmalloc((size_t)(n ? n : 1) * sizeof *args[2].items);
  for (int i = 0; i < n; i++) args[2].items[i] = sch_val_int(axis_separators[i]);
  args[2].n = n;
  sch_record(s, prim, args, 3, NULL, 0);
  return 0;
}

/* ------------------------------------------------------------ method table */

static bool buffer_arg(const SchVal *v, bool *is_write, int *index) {
  if (v->kind != SV_LIST || v->n != 2 || v->items[0].kind != SV_STR) return false;
  *is_write = !strcmp(v->items[0].s, "write");
  *index = (int)v->items[1].i;
  return true;
}

static int ap_transform_layout(Schedule *s, SchVal *a, SchVal *r) {
  bool w;
  int idx;
  if (!buffer_arg(&a[1], &w, &idx)) return -1;
  return transform_layout_impl(s, (SchRV)a[0].i, w, idx, a[2].s, &a[3], a[4].i != 0);
}

static int ap_transform_block_layout(Schedule *s, SchVal *a, SchVal *r) {
  return sch_transform_block_layout(s, (SchRV)a[0].i, a[1].s);
}

static int ap_set_axis_separator(Schedule *s, SchVal *a, SchVal *r) {
  bool w;
  int idx;
  if (!buffer_arg(&a[1], &w, &idx)) return -1;
  int n = a[2].n;
  int64_t *seps = xmalloc((size_t)(n ? n : 1) * sizeof *seps);
  for (int i = 0; i < n; i++) seps[i] = a[2].items[i].i;
  int rc = sch_set_axis_separator(s, (SchRV)a[0].i, w, idx, seps, n);
  free(seps);
  return rc;
}

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_layout[] = {
    {"transform_layout",
     {P("block", SP_BLOCK, NULL), P("buffer", SP_BUFFER, NULL), P("index_map", SP_INDEX_MAP, NULL),
      P("pad_value", SP_OPT_CODE, "None"), P("assume_injective_transform", SP_BOOL, "False")},
     5, SO_NONE, true, ap_transform_layout},
    {"transform_block_layout", {P("block", SP_BLOCK, NULL), P("index_map", SP_INDEX_MAP, NULL)}, 2,
     SO_NONE, true, ap_transform_block_layout},
    {"set_axis_separator",
     {P("block", SP_BLOCK, NULL), P("buffer", SP_BUFFER, NULL), P("axis_separators", SP_INTS, NULL)},
     3, SO_NONE, true, ap_set_axis_separator},
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
