/* gpu_conv2d_rule.c - the GPU default schedule of a direct conv2d (NCHW,
 * float32: blocks "pad_temp" and "conv2d_nchw" as the conv2d legalization
 * writes them, with whatever FuseTIR put after them), in the structure of
 * TOPI's CUDA schedule_conv2d_nchw direct template:
 * stdlib/schedules/conv2d_nchw_gpu.sched.tvs with tiles chosen here from the
 * shape (divisors of each extent, so that every layer gets a legal
 * schedule), then the fused epilogue folded into the write-back of the
 * register tile.  A shape or function it cannot serve leaves the module as it
 * was (the caller's fallback binds it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/source.h"
#include "base/util.h"
#include "ir/arith.h"
#include "sched/default_schedule.h"
#include "sched/default_schedule_internal.h"

/* Most threads per block the tiles make (tf * ty * tx), the most spatial
 * (ty * tx) and column (tx) threads among them, the register tile along
 * the output channels, and the most floats of shared memory per block
 * (24 KiB: under the 48 KiB a block may have, two blocks per SM at least). */
#define CONV_MAX_THREADS 128
#define CONV_MAX_TZ 64 /* CUDA's limit on blockDim.z */
#define CONV_MAX_GRID_YZ 65535 /* and on gridDim.y, gridDim.z */
#define CONV_MAX_SPATIAL 64
#define CONV_MAX_TX 16
#define CONV_MAX_FI 4
#define CONV_MAX_RCI 16
#define CONV_MAX_SHARED_FLOATS 6144

typedef struct ConvShape {
  int64_t N, F, H, W, C, KH, KW; /* batch, output channels, rows, columns; reduce extents */
  int64_t sh, sw, dh, dw;     /* strides and dilations (from pad_temp's index) */
} ConvShape;

typedef struct ConvTiles {
  int64_t f[4], y[4], x[4], rc[2], ry[2], rx[2];
} ConvTiles;

/* The largest divisor of n that is at most cap (at least 1). */
static int64_t divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = cap < n ? cap : n; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* The coefficients of the block vars a and b in e: e == ca * a + cb * b + rest. */
static bool coeffs_of(const TirExpr *e, const TirVar *a, const TirVar *b, int64_t *ca, int64_t *cb) {
  IrHeap *h = ir_heap_new();
  ArithCtx *ctx = arith_new(h);
  const TirVar *vars[2] = {a, b};
  int64_t c[2] = {0, 0};
  TirExpr *rest = NULL;
  bool ok = arith_affine(ctx, e, vars, 2, c, &rest);
  arith_free(ctx);
  ir_heap_release(h);
  *ca = c[0];
  *cb = c[1];
  return ok && c[0] > 0 && c[1] > 0;
}

/* Whether b is the direct conv2d the rule serves (its first read the
 * output of pad, float32, constant extents), filling *s. */
static bool match_conv(const TirBlock *b, const TirBlock *pad, ConvShape *s) {
  static const char kinds[] = "SSSSRRR";
  int64_t e[7];
  if (!b || !pad || b->niters != 7 || b->nreads != 2 || b->nwrites != 1 || pad->nwrites != 1 ||
      pad->writes[0].buffer != b->reads[0].buffer || b->reads[0].n != 4 || b->reads[1].buffer->ndim != 4)
    return false;
  DType t = b->writes[0].buffer->dtype;
  if (t.code != DT_FLOAT || t.bits != 32 || t.lanes != 1) return false;
  for (int i = 0; i < 7; i++)
    if ((b->iters[i].type == TIR_ITER_SPATIAL) != (kinds[i] == 'S') ||
        !tir_is_const_int(b->iters[i].dom.extent, &e[i]) || e[i] <= 0)
      return false;
  *s = (ConvShape){.N = e[0], .F = e[1], .H = e[2], .W = e[3], .C = e[4], .KH = e[5], .KW = e[6]};
  const TirRange *r = b->reads[0].ranges;
  return coeffs_of(r[2].min, b->iters[2].var, b->iters[5].var, &s->sh, &s->dh) &&
         coeffs_of(r[3].min, b->iters[3].var, b->iters[6].var, &s->sw, &s->dw);
}

/* Floats a shared stage of `total` elements (rows of `inner`) is given:
 * the fetch's fused loop rounded up to the block's threads, in whole rows
 * (compact-buffer-allocation sizes it from that loop's range). */
static int64_t stage_floats(int64_t total, int64_t inner, int64_t threads) {
  int64_t fetched = (total + threads - 1) / threads * threads;
  return (fetched + inner - 1) / inner * inner;
}

/* Floats of shared memory one reduction step of rci channels and a
 * ryi x rxi window takes: the padded input tile and the weight tile. */
static int64_t shared_floats(const ConvShape *s, const ConvTiles *t, int64_t rci, int64_t ryi, int64_t rxi) {
  int64_t TF = t->f[1] * t->f[2] * t->f[3], TY = t->y[1] * t->y[2] * t->y[3], TX = t->x[1] * t->x[2] * t->x[3];
  int64_t threads = t->f[2] * t->y[2] * t->x[2];
  int64_t rows = (TY - 1) * s->sh + (ryi - 1) * s->dh + 1, cols = (TX - 1) * s->sw + (rxi - 1) * s->dw + 1;
  return stage_floats(rci * rows * cols, rows * cols, threads) + stage_floats(TF * rci * ryi * rxi, rci * ryi * rxi, threads);
}

/* The spatial threads (ty rows x tx columns, divisors of H and W): the
 * most of them up to CONV_MAX_SPATIAL, at most CONV_MAX_TX columns, the
 * squarer tile on a tie (less halo to fetch per output), then the wider. */
static void spatial_threads(const ConvShape *s, int64_t *ty, int64_t *tx) {
  *ty = *tx = 1;
  for (int64_t x = 1; x <= s->W && x <= CONV_MAX_TX; x++) {
    for (int64_t y = 1; s->W % x == 0 && y <= s->H && x * y <= CONV_MAX_SPATIAL; y++) {
      if (s->H % y) continue;
      int64_t p = x * y, bp = *tx * *ty, d = x > y ? x - y : y - x, bd = *tx > *ty ? *tx - *ty : *ty - *tx;
      if (p > bp || (p == bp && (d < bd || (d == bd && x > *tx)))) *ty = y, *tx = x;
    }
  }
}

/* Tiles for shape s: the spatial threads above, output channels per thread
 * in registers by the layer's parallelism (4 from 128K outputs, 2 from 64K,
 * else 1: at batch 1 a deep layer needs its outputs spread over the SMs
 * more than register reuse), threads over the channels up to
 * CONV_MAX_THREADS in all; the reduction step the largest channel count (up
 * to 16) whose tiles fit the shared budget, over the whole window (one
 * window row at a time when even one channel does not fit).  False when
 * nothing fits. */
static bool choose_tiles(const ConvShape *s, ConvTiles *t) {
  int64_t ty, tx, outputs = s->F * s->H * s->W;
  spatial_threads(s, &ty, &tx);
  int64_t fi = divisor_at_most(s->F, outputs >= (128 << 10) ? CONV_MAX_FI : outputs >= (64 << 10) ? 2 : 1);
  int64_t tf = divisor_at_most(s->F / fi, CONV_MAX_THREADS / (tx * ty) < CONV_MAX_TZ ? CONV_MAX_THREADS / (tx * ty)
                                                                                     : CONV_MAX_TZ);
  *t = (ConvTiles){.f = {s->F / (tf * fi), 1, tf, fi}, .y = {s->H / ty, 1, ty, 1}, .x = {s->W / tx, 1, tx, 1}};
  if (s->N * t->f[0] > CONV_MAX_GRID_YZ || t->y[0] > CONV_MAX_GRID_YZ) return false;
  int64_t ryi = s->KH, rxi = s->KW;
  if (shared_floats(s, t, 1, ryi, rxi) > CONV_MAX_SHARED_FLOATS) ryi = 1;
  if (shared_floats(s, t, 1, ryi, rxi) > CONV_MAX_SHARED_FLOATS) return false;
  int64_t rci = divisor_at_most(s->C, CONV_MAX_RCI);
  while (rci > 1 && shared_floats(s, t, rci, ryi, rxi) > CONV_MAX_SHARED_FLOATS) rci = divisor_at_most(s->C, rci - 1);
  t->rc[0] = s->C / rci, t->rc[1] = rci;
  t->ry[0] = s->KH / ryi, t->ry[1] = ryi;
  t->rx[0] = s->KW / rxi, t->rx[1] = rxi;
  return true;
}

bool sch_gpu_try_script(IrModule **m, const char *name, const char *prologue) {
  const char *text = sch_default_script(name);
  if (!text) return false;
  char *full = xasprintf("%s%s", prologue, text);
  SourceFile *src = src_from_string(name, full, strlen(full));
  free(full);
  IrModule *trial = ir_module_copy(*m);
  DiagCtx quiet;
  diag_init(&quiet, NULL);
  int rc = sch_eval_text(src, &trial, &quiet, NULL);
  bool ok = rc == 0 && !quiet.nerr;
  diag_free(&quiet);
  src_free(src);
  if (ok) {
    ir_module_free(*m);
    *m = trial;
  } else {
    ir_module_free(trial);
  }
  return ok;
}

/* The names (copied) of the blocks of f other than pad_temp and the conv. */
static int other_blocks(const TirFunc *f, char **out) {
  const char *names[SCH_DS_MAX_BLOCKS];
  int n = 0, k = 0;
  sch_ds_collect_blocks(f->body, names, &n, SCH_DS_MAX_BLOCKS);
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], "pad_temp") && strcmp(names[i], "conv2d_nchw")) out[k++] = xstrdup(names[i]);
  return k;
}

/* Folds the epilogue blocks (names[0..n), those still there) into the
 * write-back of the register tile, one at a time in data-flow order;
 * those that do not fold stay for the fallback (kernels of their own). */
static void fold_epilogue(IrModule **m, char *const *names, int n) {
  SchDsQuiet q;
  sch_ds_quiet_open(&q, *m);
  for (int i = 0; i < n; i++) {
    SchRV b = sch_get_block(q.s, names[i], NULL);
    if (sch_ds_try_ok(&q, b)) (void)sch_ds_try_ok(&q, sch_reverse_compute_inline(q.s, b));
  }
  sch_ds_quiet_close(&q, m);
}

static void free_names(char **names, int n) {
  for (int i = 0; i < n; i++) free(names[i]);
}

bool sch_gpu_conv2d_rule(IrModule **m) {
  char *names[SCH_DS_MAX_BLOCKS];
  int n = other_blocks((*m)->funcs[0].tir, names);
  const TirFunc *f = (*m)->funcs[0].tir;
  ConvShape s;
  ConvTiles t;
  if (!match_conv(sch_ds_find_block(f, "conv2d_nchw"), sch_ds_find_block(f, "pad_temp"), &s) ||
      !choose_tiles(&s, &t)) {
    free_names(names, n);
    return false;
  }
  IrModule *work = ir_module_copy(*m);
  /* the injective producers (a reshaped bias) and the epilogue's chain
   * first inlined into their consumers, pad_temp kept for the fetch */
  sch_ds_inline_producers(&work, (const char *const *)names, n);
  char prologue[1024];
  snprintf(prologue, sizeof prologue,
           "block = sch.get_block(\"conv2d_nchw\")\npad = sch.get_block(\"pad_temp\")\n"
           "ff = [%lld, %lld, %lld, %lld]\nfy = [%lld, %lld, %lld, %lld]\nfx = [%lld, %lld, %lld, %lld]\n"
           "frc = [%lld, %lld]\nfry = [%lld, %lld]\nfrx = [%lld, %lld]\n",
           (long long)t.f[0], (long long)t.f[1], (long long)t.f[2], (long long)t.f[3], (long long)t.y[0],
           (long long)t.y[1], (long long)t.y[2], (long long)t.y[3], (long long)t.x[0], (long long)t.x[1],
           (long long)t.x[2], (long long)t.x[3], (long long)t.rc[0], (long long)t.rc[1], (long long)t.ry[0],
           (long long)t.ry[1], (long long)t.rx[0], (long long)t.rx[1]);
  bool ok = sch_gpu_try_script(&work, "conv2d_nchw_gpu.sched.tvs", prologue);
  if (ok) {
    fold_epilogue(&work, names, n);
    ir_module_free(*m);
    *m = work;
  } else {
    ir_module_free(work);
  }
  free_names(names, n);
  return ok;
}
