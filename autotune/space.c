/* space.c - the generated design space of one prim_func (MetaSchedule's CPU
 * rules, simplified): auto-inline, padding of a power-of-two row extent
 * (not in TVM's CPU rules: tiles of 6 rows for AVX2), multi-level tiling
 * SSRSRS of the main block with a sampled write-cache level, packing of the
 * reused operand (a copy, or panels), decompose_reduction, and
 * parallel / vectorize / unroll with a sampled unroll depth; then the other
 * blocks at sampled compute locations, parallel and vectorized.
 *
 * The generator is C code over sched/'s primitives; every choice is a
 * sampling instruction (sample_perfect_tile, sample_categorical), so that a
 * vector of decisions names a candidate and the recorded trace replays it.
 * Optional steps that a primitive refuses (an inline that is not legal, a
 * vectorize over a non-spatial loop) are skipped; the trace only holds what
 * applied. */
#include <stdlib.h>
#include <string.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "ir/visit.h"
#include "sched/schedule.h"

#define MAX_LOOPS 12
#define MAX_INNER 64

/* Unroll depths to sample (MetaSchedule's max_unroll_step for CPU). */
const int64_t tune_unroll_steps[TUNE_NUNROLL] = {0, 16, 64, 512};
/* Write-cache levels: none, after the second spatial tile level, the third. */
static const int64_t cache_levels[] = {0, 1, 2};
/* Packing of the reused operand: no, a copy, a copy laid out in panels. */
static const int64_t pack_choices[] = {0, 1, 2};
/* Padding of a power-of-two row extent: no, to a multiple of ROW_PAD. */
static const int64_t pad_choices[] = {0, 1};
#define ROW_PAD 48
#define ROW_PAD_MIN 256

/* The block the space tiles, found by walking the function. */
typedef struct BlockInfo {
  const char *names[32];      /* every block but the root, pre-order */
  int nblocks;
  const char *main;           /* the first block with a reduction iter, else the last */
  const TirStmt *main_realize;
  bool has_reduce;            /* main has a reduction iter */
} BlockInfo;

static bool find_blocks(TirVisitor *v, const TirStmt *s) {
  BlockInfo *bi = v->ctx;
  if (s->kind != TIR_S_BLOCK_REALIZE) return true;
  const TirBlock *b = &s->realize.block->block;
  if (!strcmp(b->name, "root") || bi->nblocks >= 32) return true;
  bi->names[bi->nblocks++] = b->name;
  bool red = false;
  for (int i = 0; i < b->niters; i++) red |= b->iters[i].type == TIR_ITER_REDUCE;
  if (red && !bi->has_reduce) bi->main = b->name, bi->main_realize = s, bi->has_reduce = true;
  if (!bi->has_reduce) bi->main = b->name, bi->main_realize = s;
  return true;
}

/* The realize of the block called name. */
typedef struct NameFinder {
  const char *name;
  const TirStmt *realize;
} NameFinder;

static bool find_named(TirVisitor *v, const TirStmt *s) {
  NameFinder *nf = v->ctx;
  if (nf->realize) return false;
  if (s->kind == TIR_S_BLOCK_REALIZE && !strcmp(s->realize.block->block.name, nf->name)) nf->realize = s;
  return true;
}

static const TirFunc *sched_func(Schedule *s, const char *func) {
  const IrGlobal *g = ir_module_lookup(sch_mod(s), func);
  return g && g->kind == IR_FUNC_TIR ? g->tir : NULL;
}

/* The realize of the block called name in the function now, or NULL. */
static const TirStmt *realize_of(Schedule *s, const char *func, const char *name) {
  TirVisitor v = {0};
  NameFinder nf = {name, NULL};
  v.pre_stmt = find_named;
  v.ctx = &nf;
  tir_visit_func(&v, sched_func(s, func));
  return nf.realize;
}

/* The loops directly around the main block: their extents, whether each
 * binds a reduction iter (-1: not a plain loop/iter pair) and which iter. */
typedef struct LoopNest {
  int n;
  int64_t extent[MAX_LOOPS];
  int reduce[MAX_LOOPS];
  int iter[MAX_LOOPS];
} LoopNest;

typedef struct NestFinder {
  const TirStmt *target;
  const TirStmt *path[MAX_LOOPS + 1];
  int depth;
  bool found;
  LoopNest *nest;
} NestFinder;

static bool nest_pre(TirVisitor *v, const TirStmt *s) {
  NestFinder *nf = v->ctx;
  if (nf->found) return false;
  if (s == nf->target) {
    nf->found = true;
    const TirBlock *b = &s->realize.block->block;
    LoopNest *ln = nf->nest;
    ln->n = 0;
    for (int i = 0; i < nf->depth && ln->n < MAX_LOOPS; i++) {
      const TirStmt *f = nf->path[i];
      int r = -1, it = -1;
      for (int k = 0; k < s->realize.n; k++)
        if (s->realize.values[k]->kind == TIR_VAR && s->realize.values[k]->var == f->loop.var)
          r = b->iters[k].type == TIR_ITER_REDUCE, it = k;
      ln->extent[ln->n] = f->loop.extent->kind == TIR_INT ? f->loop.extent->ival : -1;
      ln->iter[ln->n] = it;
      ln->reduce[ln->n++] = r;
    }
    return false;
  }
  if (s->kind == TIR_S_FOR) {
    if (nf->depth < MAX_LOOPS) nf->path[nf->depth] = s;
    nf->depth++;
  }
  return true;
}

static void nest_post(TirVisitor *v, const TirStmt *s) {
  NestFinder *nf = v->ctx;
  if (!nf->found && s->kind == TIR_S_FOR) nf->depth--;
}

static void find_nest(const TirFunc *f, const TirStmt *realize, LoopNest *ln) {
  NestFinder nf = {realize, {0}, 0, false, ln};
  TirVisitor v = {0};
  v.pre_stmt = nest_pre;
  v.post_stmt = nest_post;
  v.ctx = &nf;
  ln->n = 0;
  tir_visit_stmt(&v, f->body);
}

/* ------------------------------------------------------------ the generator */

typedef struct Gen {
  Schedule *s;
  const char *func;         /* the prim_func scheduled */
  const char *main;         /* its main block's name */
  const TuneDecisions *in;  /* decisions to reuse, or NULL */
  int ncand[TUNE_MAX_DECISIONS]; /* candidates of each categorical decision */
  bool loc[TUNE_MAX_DECISIONS];  /* decision i is a compute location */
  TuneRole role[TUNE_MAX_DECISIONS];   /* what decision i chooses */
  int64_t extent[TUNE_MAX_DECISIONS];  /* a tile decision: its loop's extent */
  int next;                 /* the next decision's index */
} Gen;

static const int64_t *next_decision(Gen *g, int len) {
  int i = g->next++;
  if (!g->in || i >= g->in->n || g->in->len[i] != len) return NULL;
  return g->in->v[i];
}

static int64_t sample_cat(Gen *g, const int64_t *cands, int n, TuneRole role) {
  if (g->next < TUNE_MAX_DECISIONS) g->ncand[g->next] = n, g->role[g->next] = role;
  double probs[8];
  for (int i = 0; i < n; i++) probs[i] = 1.0;
  SchRV rv = sch_sample_categorical(g->s, cands, probs, n, next_decision(g, 1));
  return rv < 0 ? cands[0] : sch_expr_value(g->s, rv);
}

/* Splits loop (extent e) into n perfect tiles (out: n loops, ext: their
 * extents). */
static int tile_loop(Gen *g, SchRV loop, int64_t e, TuneRole role, int n, SchRV *out, int64_t *ext) {
  SchRV f[TUNE_MAX_TILE];
  if (g->next < TUNE_MAX_DECISIONS) g->role[g->next] = role, g->extent[g->next] = e;
  if (sch_sample_perfect_tile(g->s, loop, n, MAX_INNER, next_decision(g, n), f)) return -1;
  for (int i = 0; i < n; i++) ext[i] = sch_expr_value(g->s, f[i]);
  return sch_split(g->s, loop, ext, n, true, false, out) == 0 ? 0 : -1;
}

/* Whether a block's body calls exp: MetaSchedule's CPU AutoInline keeps such
 * blocks (disallow_op tir.exp), since inlining one into two consumers (a
 * softmax's sum and normalization) computes every exponential twice. */
static bool find_exp(TirVisitor *v, const TirExpr *e) {
  if (e->kind == TIR_CALL && e->call.op && !strcmp(e->call.op->name, "exp")) *(bool *)v->ctx = true, v->stop = true;
  return true;
}

static bool block_calls_exp(Gen *g, const char *name) {
  const TirStmt *r = realize_of(g->s, g->func, name), *body = r ? r->realize.block->block.body : NULL;
  bool found = false;
  TirVisitor ev = {0};
  ev.pre_expr = find_exp;
  ev.ctx = &found;
  if (body) tir_visit_stmt(&ev, body);
  return found;
}

/* Auto-inline: every block but the main one that compute_inline accepts. */
static void auto_inline(Gen *g, const BlockInfo *bi, const char *func) {
  for (int i = 0; i < bi->nblocks; i++) {
    if (bi->names[i] == bi->main || block_calls_exp(g, bi->names[i])) continue;
    SchRV b = sch_get_block(g->s, bi->names[i], func);
    if (b >= 0) sch_compute_inline(g->s, b);
  }
}

/* Unrolls the innermost loops of loops[0..n) (skipping the vectorized last
 * one) while the product of their extents stays within step. */
static void unroll_inner(Gen *g, const SchRV *loops, const int64_t *ext, int n, int64_t step) {
  int64_t prod = 1;
  for (int i = n - 2; i >= 0 && step > 0; i--) {
    if (ext[i] <= 1) continue;
    prod *= ext[i];
    if (prod > step) break;
    sch_unroll(g->s, loops[i]);
  }
}

/* The names of the blocks of the current function (to find the block a
 * primitive added: cache stages, the init block). */
static void current_blocks(Gen *g, BlockInfo *bi) {
  memset(bi, 0, sizeof *bi);
  TirVisitor v = {0};
  v.pre_stmt = find_blocks;
  v.ctx = bi;
  tir_visit_func(&v, sched_func(g->s, g->func));
}

/* The innermost loop extent around the one block not in before (-1). */
static int64_t new_stage_extent(Gen *g, const BlockInfo *before) {
  BlockInfo now;
  current_blocks(g, &now);
  for (int i = 0; i < now.nblocks; i++) {
    bool old = false;
    for (int k = 0; k < before->nblocks && !old; k++) old = !strcmp(now.names[i], before->names[k]);
    if (old) continue;
    const TirStmt *r = realize_of(g->s, g->func, now.names[i]);
    LoopNest ln;
    if (r) find_nest(sched_func(g->s, g->func), r, &ln);
    return r && ln.n ? ln.extent[ln.n - 1] : -1;
  }
  return -1;
}

/* Vectorizes loop (extent ext): directly up to 64 lanes, else 16 lanes of a
 * split whose outer part goes to *outer.  Whether it applied. */
static bool vectorize_loop(Gen *g, SchRV loop, int64_t ext, SchRV *outer) {
  *outer = -1;
  if (ext > 1 && ext <= 64) return sch_vectorize(g->s, loop) == 0;
  if (ext <= 64 || ext % 16) return false;
  SchRV parts[2];
  int64_t f[2] = {ext / 16, 16};
  if (sch_split(g->s, loop, f, 2, true, false, parts)) return false;
  *outer = parts[0];
  return sch_vectorize(g->s, parts[1]) == 0;
}

/* Vectorizes the innermost loop of a new stage (the write-back, the init,
 * a packing copy). */
static void vectorize_stage(Gen *g, SchRV block, const BlockInfo *before) {
  int64_t ext = new_stage_extent(g, before);
  SchRV *loops = NULL, outer;
  int n = sch_get_loops(g->s, block, &loops);
  if (n > 0) vectorize_loop(g, loops[n - 1], ext, &outer);
  free(loops);
}

/* The read of the main block to pack: a buffer it only reads whose index
 * does not use the first spatial iter (B of a matmul: reused across rows). */
static int reused_read(Gen *g) {
  const TirStmt *rm = realize_of(g->s, g->func, g->main);
  if (!rm) return -1;
  const TirBlock *b = &rm->realize.block->block;
  if (b->niters == 0 || b->nwrites == 0) return -1;
  for (int r = 0; r < b->nreads; r++) {
    if (b->reads[r].buffer == b->writes[0].buffer) continue;
    bool uses = false;
    for (int d = 0; d < b->reads[r].n; d++) uses |= tir_expr_uses_var(b->reads[r].ranges[d].min, b->iters[0].var);
    if (!uses) return r;
  }
  return -1;
}

/* Lays the packed copy of read r out in panels, as GEMM libraries pack B:
 * the vector iter's dimension j split at its innermost tile t and moved,
 * (spatial dims.., j // t, reduction dims.., j % t), so that the rows of
 * one micro-tile follow one another.  Row-major, a tile's k rows lie one
 * row pitch apart (4 KiB for a 1024-wide B) and crowd a few cache sets.
 * Only for an access by plain iters (matmul, batch matmul operands). */
static void panel_layout(Gen *g, SchRV block, int r, int viter, int64_t t) {
  const TirStmt *rm = realize_of(g->s, g->func, g->main);
  if (!rm || t < 2 || viter < 0) return;
  const TirBlock *b = &rm->realize.block->block;
  if (r >= b->nreads) return;
  const TirBufferRegion *rg = &b->reads[r];
  int n = rg->n, jd = -1, it[MAX_LOOPS];
  if (n < 2 || n > MAX_LOOPS || rg->buffer->ndim != n) return;
  for (int d = 0; d < n; d++) {
    const TirExpr *e = rg->ranges[d].min;
    it[d] = -1;
    for (int k = 0; k < b->niters && e->kind == TIR_VAR; k++)
      if (b->iters[k].var == e->var) it[d] = k;
    if (it[d] < 0) return;
    if (it[d] == viter) jd = d;
  }
  if (jd < 0) return;
  const TirExpr *ext = rg->buffer->shape[jd];
  if (ext->kind != TIR_INT || ext->ival % t) return;
  StrBuf m;
  sb_init(&m);
  sb_puts(&m, "lambda ");
  for (int d = 0; d < n; d++) sb_printf(&m, "%sv%d", d ? ", " : "", d);
  sb_puts(&m, ": (");
  for (int d = 0; d < n; d++)
    if (d != jd && b->iters[it[d]].type != TIR_ITER_REDUCE) sb_printf(&m, "v%d, ", d);
  sb_printf(&m, "v%d // %lld, ", jd, (long long)t);
  for (int d = 0; d < n; d++)
    if (d != jd && b->iters[it[d]].type == TIR_ITER_REDUCE) sb_printf(&m, "v%d, ", d);
  sb_printf(&m, "v%d %% %lld)", jd, (long long)t);
  sch_transform_layout(g->s, block, false, r, m.data, NULL, false);
  sb_free(&m);
}

/* Packs the reused operand into a contiguous copy per S0 tile (cache_read
 * + compute_at under the last S0 loop), as hand-written GEMMs pack B; with
 * panels, laid out by panel_layout for a vector tile of t. */
static void pack_operand(Gen *g, SchRV block, SchRV at, bool panels, int viter, int64_t t) {
  int r = reused_read(g);
  if (r < 0) return;
  BlockInfo before;
  current_blocks(g, &before);
  SchRV cr = sch_cache_read(g->s, block, r, "global");
  if (cr < 0 || sch_compute_at(g->s, cr, at, true, -1)) return;
  if (panels) panel_layout(g, block, r, viter, t);
  vectorize_stage(g, cr, &before);
}

/* Pads the rows of the main block (pad_einsum) when sampled.  A power-of-two
 * row extent (a 1024-row matmul) has power-of-two tiles only, so a register
 * tile holds 4 or 8 rows of 16 lanes: 8 accumulators, too few to cover the
 * FMA latency on a 2-pipe AVX2 core, or 16, more than its vector registers.
 * Libraries use 6 x 16 there; a multiple of ROW_PAD (48) has tiles of 3, 6,
 * 12 and 24 (1024 rows: 1056, 3% more work).  Offered for a reduction whose
 * row loop (the spatial loop before the last, vectorized one) has a
 * power-of-two extent of at least ROW_PAD_MIN, so that one function's
 * candidates share one decision layout. */
static void pad_rows(Gen *g) {
  const TirStmt *rm = realize_of(g->s, g->func, g->main);
  if (!rm) return;
  const TirBlock *b = &rm->realize.block->block;
  LoopNest ln;
  find_nest(sched_func(g->s, g->func), rm, &ln);
  int spatial[MAX_LOOPS], ns = 0;
  bool reduce = false;
  for (int i = 0; i < ln.n; i++) {
    if (ln.reduce[i] < 0 || ln.iter[i] < 0) return;
    if (ln.reduce[i]) reduce = true;
    else spatial[ns++] = i;
  }
  if (!reduce || ns < 2 || b->niters > MAX_LOOPS) return;
  int row = spatial[ns - 2];
  int64_t e = ln.extent[row];
  if (e < ROW_PAD_MIN || (e & (e - 1))) return;
  if (!sample_cat(g, pad_choices, 2, TUNE_ROLE_PAD)) return;
  int64_t padding[MAX_LOOPS];
  for (int k = 0; k < b->niters; k++) padding[k] = k == ln.iter[row] ? ROW_PAD : 1;
  SchRV blk = sch_get_block(g->s, g->main, g->func);
  if (blk >= 0) sch_pad_einsum(g->s, blk, padding, b->niters);
}

/* The tiles of the main block by level: S0 S1 R0 S2 R1 S3. */
typedef struct Levels {
  SchRV l[6][MAX_LOOPS];
  int64_t ext[6][MAX_LOOPS];
  int n[6];
} Levels;

/* Tiles every loop of the main block into its levels, then reorders. */
static int tile_levels(Gen *g, SchRV block, const LoopNest *ln, Levels *lv) {
  static const int s_levels[4] = {0, 1, 3, 5}, r_levels[2] = {2, 4};
  SchRV *loops = NULL;
  int n = sch_get_loops(g->s, block, &loops);
  int rc = n == ln->n ? 0 : -1;
  int vec = -1, row = -1; /* the last spatial loop and the one before it */
  for (int i = 0; i < n; i++)
    if (ln->reduce[i] == 0) row = vec, vec = i;
  memset(lv, 0, sizeof *lv);
  for (int i = 0; i < n && !rc; i++) {
    int parts = ln->reduce[i] ? 2 : 4;
    TuneRole role = ln->reduce[i] ? TUNE_ROLE_TILE_REDUCE : i == vec ? TUNE_ROLE_TILE_VECTOR
                    : i == row ? TUNE_ROLE_TILE_ROW : TUNE_ROLE_TILE_SPATIAL;
    SchRV t[TUNE_MAX_TILE];
    int64_t e[TUNE_MAX_TILE];
    if (ln->extent[i] < 0 || ln->reduce[i] < 0 || tile_loop(g, loops[i], ln->extent[i], role, parts, t, e)) rc = -1;
    for (int p = 0; p < parts && !rc; p++) {
      int L = ln->reduce[i] ? r_levels[p] : s_levels[p];
      lv->ext[L][lv->n[L]] = e[p];
      lv->l[L][lv->n[L]++] = t[p];
    }
  }
  free(loops);
  if (rc) return -1;
  SchRV order[6 * MAX_LOOPS];
  int no = 0;
  for (int L = 0; L < 6; L++)
    for (int i = 0; i < lv->n[L]; i++) order[no++] = lv->l[L][i];
  return sch_reorder(g->s, order, no) ? -1 : 0;
}

/* The tiling of the main block, its write cache at the sampled level (none
 * / under S1 / under S2), the hoisted init, and the loop annotations:
 * vectorize the innermost S3, unroll R1 S3 within the step, parallel over
 * the fused S0.  0, or -1 when a required primitive failed. */
static int tile_main(Gen *g, SchRV block, const LoopNest *ln, int64_t unroll) {
  Levels lv;
  if (tile_levels(g, block, ln, &lv)) return -1;
  int64_t level = sample_cat(g, cache_levels, 3, TUNE_ROLE_CACHE_LEVEL);
  int at = level == 1 ? 1 : 3;
  BlockInfo before;
  current_blocks(g, &before);
  if (level && lv.n[at]) {
    SchRV cw = sch_cache_write(g->s, block, 0, "local");
    if (cw >= 0 && !sch_reverse_compute_at(g->s, cw, lv.l[at][lv.n[at] - 1], true, -1))
      vectorize_stage(g, cw, &before);
  }
  int64_t pack = sample_cat(g, pack_choices, 3, TUNE_ROLE_PACK);
  if (pack && lv.n[0]) {
    int viter = -1; /* the iter of the last spatial loop: the vectorized one */
    for (int i = 0; i < ln->n; i++)
      if (!ln->reduce[i]) viter = ln->iter[i];
    pack_operand(g, block, lv.l[0][lv.n[0] - 1], pack == 2, viter, lv.n[5] ? lv.ext[5][lv.n[5] - 1] : 1);
  }
  current_blocks(g, &before);
  if (lv.n[2]) {
    SchRV init = sch_decompose_reduction(g->s, block, lv.l[2][0]);
    if (init >= 0) vectorize_stage(g, init, &before);
  }
  SchRV inner[2 * MAX_LOOPS];
  int64_t iext[2 * MAX_LOOPS];
  int ni = 0;
  for (int L = 4; L < 6; L++)
    for (int i = 0; i < lv.n[L]; i++) inner[ni] = lv.l[L][i], iext[ni++] = lv.ext[L][i];
  if (ni && iext[ni - 1] > 1) sch_vectorize(g->s, inner[ni - 1]);
  unroll_inner(g, inner, iext, ni, unroll);
  if (lv.n[0]) {
    SchRV fused = lv.n[0] > 1 ? sch_fuse(g->s, lv.l[0], lv.n[0], true) : lv.l[0][0];
    if (fused >= 0) sch_parallel(g->s, fused);
  }
  return 0;
}

/* The loops around the block called name now; false when it is gone. */
static bool block_nest(Gen *g, const char *name, LoopNest *ln) {
  const TirStmt *r = realize_of(g->s, g->func, name);
  if (r) find_nest(sched_func(g->s, g->func), r, ln);
  return r != NULL;
}

/* Whether the block called name writes a buffer the main block reads. */
static bool feeds_main(Gen *g, const char *name) {
  const TirStmt *rb = realize_of(g->s, g->func, name), *rm = realize_of(g->s, g->func, g->main);
  if (!rb || !rm) return false;
  const TirBlock *b = &rb->realize.block->block, *m = &rm->realize.block->block;
  for (int w = 0; w < b->nwrites; w++)
    for (int r = 0; r < m->nreads; r++)
      if (b->writes[w].buffer == m->reads[r].buffer) return true;
  return false;
}

/* MetaSchedule's RandomComputeLocation: each block that auto-inline kept,
 * other than the main one, that has a consumer goes under a sampled loop of
 * its first consumer, stays at the root, or is inlined.  A softmax's row sum
 * can so move into its normalization's row loop.
 * Runs before the main block is tiled: decompose_reduction leaves a scope
 * that compute_at refuses (two blocks write the reduction's buffer), and a
 * producer of the main block (kept out) would share the loops tiling splits. */
static void random_compute_locations(Gen *g, char **names, int n) {
  /* Consumers first (MetaSchedule's post-order application visits the last
   * block first), so a producer can join its consumer's new place. */
  for (int i = n - 1; i >= 0; i--) {
    if (feeds_main(g, names[i])) continue;
    SchRV b = sch_get_block(g->s, names[i], g->func);
    if (b < 0) continue;
    SchRV *cons = NULL, *loops = NULL;
    int nc = sch_get_consumers(g->s, b, &cons), nloops = nc > 0 ? sch_get_loops(g->s, cons[0], &loops) : 0;
    free(cons);
    free(loops);
    if (nc <= 0) continue;
    int k = g->next;
    SchRV at = sch_sample_compute_location(g->s, b, next_decision(g, 1));
    if (k < TUNE_MAX_DECISIONS)
      g->ncand[k] = (nloops > 0 ? nloops : 0) + 2, g->loc[k] = true, g->role[k] = TUNE_ROLE_LOCATION;
    if (at >= 0) sch_compute_at(g->s, b, at, true, -1);
  }
}

/* The parallel and vectorize parts of MetaSchedule's ParallelizeVectorizeUnroll
 * for the blocks outside the main nest: the outermost loop around each is
 * made parallel where that is legal, and its innermost loop, when it is
 * spatial, vectorized (directly up to 64 lanes, else 16 lanes of a split). */
static void parallel_vectorize_rest(Gen *g, char **names, int n) {
  for (int i = 0; i < n; i++) {
    LoopNest ln;
    if (!block_nest(g, names[i], &ln) || ln.n == 0) continue;
    SchRV b = sch_get_block(g->s, names[i], g->func);
    SchRV *loops = NULL;
    int nl = b >= 0 ? sch_get_loops(g->s, b, &loops) : 0;
    if (nl == ln.n) {
      if (nl > 1 && ln.reduce[0] == 0) sch_parallel(g->s, loops[0]);
      SchRV outer = -1;
      bool vec = ln.reduce[nl - 1] == 0 && vectorize_loop(g, loops[nl - 1], ln.extent[nl - 1], &outer);
      if (nl == 1 && vec && outer >= 0) sch_parallel(g->s, outer);
    }
    free(loops);
  }
}

/* Reads the decisions the schedule took back into out. */
static void read_decisions(Schedule *s, const Gen *g, TuneDecisions *out) {
  memset(out, 0, sizeof *out);
  int n = sch_trace_decision_count(s);
  for (int i = 0; i < n && out->n < TUNE_MAX_DECISIONS; i++) {
    int k = out->n++;
    out->len[k] = sch_trace_get_decision(s, i, out->v[k], TUNE_MAX_TILE);
    const char *m = sch_trace_decision_method(s, i);
    out->tile[k] = m && !strcmp(m, "sample_perfect_tile");
    out->ncand[k] = out->tile[k] ? 0 : g->ncand[k];
    out->loc[k] = g->loc[k];
    out->role[k] = g->role[k];
    out->extent[k] = g->extent[k];
  }
}

static void copy_errors(DiagCtx *from, DiagCtx *to, const char *func) {
  for (int i = 0; i < from->len; i++)
    if (from->items[i].sev == DIAG_ERROR) {
      diag_error(to, span_none, "tune: design space of '%s': %s", func, from->items[i].msg);
      return;
    }
  diag_error(to, span_none, "tune: design space of '%s' does not apply", func);
}

int tune_space_generate(const IrModule *m, const char *func, const TuneDecisions *dec, int64_t seed,
                        TuneCandidate *out, DiagCtx *diag) {
  memset(out, 0, sizeof *out);
  DiagCtx scratch;
  diag_init(&scratch, NULL);
  Schedule *s = sch_new(m, &scratch);
  int rc = -1;
  if (!s || sch_work_on(s, func)) goto done;
  sch_seed(s, seed);
  Gen g;
  memset(&g, 0, sizeof g);
  g.s = s, g.func = func, g.in = dec;
  BlockInfo bi = {0};
  TirVisitor v = {0};
  v.pre_stmt = find_blocks;
  v.ctx = &bi;
  tir_visit_func(&v, sched_func(s, func));
  if (!bi.main) goto done;
  g.main = bi.main;
  /* Sampled first, so that every candidate has the same decision layout. */
  int64_t unroll = sample_cat(&g, tune_unroll_steps, TUNE_NUNROLL, TUNE_ROLE_UNROLL);
  auto_inline(&g, &bi, func);
  pad_rows(&g);
  BlockInfo cur = {0};
  v.ctx = &cur;
  tir_visit_func(&v, sched_func(s, func));
  /* The blocks the later rules place: every one left but the main one. */
  char *rest[32];
  int nrest = 0;
  for (int i = 0; i < cur.nblocks; i++)
    if (strcmp(cur.names[i], bi.main)) rest[nrest++] = xstrdup(cur.names[i]);
  random_compute_locations(&g, rest, nrest);
  if (nrest) { /* placements rebuilt the function: the main block's realize anew */
    memset(&cur, 0, sizeof cur);
    tir_visit_func(&v, sched_func(s, func));
  }
  SchRV block = sch_get_block(s, bi.main, func);
  LoopNest ln;
  find_nest(sched_func(s, func), cur.main_realize, &ln);
  int trc = block < 0 ? -1 : tile_main(&g, block, &ln, unroll);
  if (!trc) parallel_vectorize_rest(&g, rest, nrest);
  for (int i = 0; i < nrest; i++) free(rest[i]);
  if (trc) goto done;
  read_decisions(s, &g, &out->dec);
  StrBuf sb;
  sb_init(&sb);
  sch_trace_print(s, &sb, false);
  out->trace = sb_take(&sb);
  out->mod = sch_take_mod(s);
  rc = 0;
done:
  if (rc) copy_errors(&scratch, diag, func);
  sch_free(s);
  diag_free(&scratch);
  return rc;
}

void tune_candidate_free(TuneCandidate *c) {
  if (!c) return;
  if (c->mod) ir_module_free(c->mod);
  free(c->trace);
  c->mod = NULL;
  c->trace = NULL;
}
