/* npu_conv2d.c - the instruction stream of an int8 conv2d, VTA-style: the
 * channels blocked by 16 (an input tile is one pixel's 16 channels, a weight
 * tile 16 output x 16 input channels of one kernel tap, an accumulator tile
 * one output pixel's 16 channels).
 *
 * A block is tob output-channel blocks x toy output rows (full width) of one
 * image; a task reduces it over tcb input-channel blocks.  The load module
 * brings the input rows the block reads (zero-padded at the image border by
 * the DMA) and the weights into slot (task % V); the compute module runs one
 * GEMM per output-channel block: micro-ops over (input block, ky, kx), the
 * two loops over output rows and columns.  A fused epilogue runs on the
 * ALU over the block's accumulators before the stores.  Tokens as in
 * npu_matmul.c. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "codegen/npu.h"
#include "codegen/npu_lower.h"
#include "runtime/npy.h"

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

typedef struct Geo {
  int64_t cb, ob;             /* channel blocks of input, output */
  int64_t wp;                 /* padded input width */
  int64_t taps;               /* kh * kw */
} Geo;

static void geometry(const NpuConfig *c, const NpuConv2d *cv, Geo *g) {
  g->cb = cdiv(cv->c, c->block_in);
  g->ob = cdiv(cv->o, c->block_out);
  g->wp = cv->pad_left + cv->w + cv->pad_right;
  g->taps = cv->kh * cv->kw;
}

static int64_t rows_in(const NpuConv2d *cv, int64_t toy) { return (toy - 1) * cv->stride + cv->kh; }

static bool conv_fits(const NpuConfig *c, const NpuConv2d *cv, const NpuConvTiling *t) {
  Geo g;
  geometry(c, cv, &g);
  int64_t v = t->vthreads;
  int64_t ci = c->inp_buff_bytes / npu_tile_bytes(c, NPU_MEM_INP), cw = c->wgt_buff_bytes / npu_tile_bytes(c, NPU_MEM_WGT);
  int64_t ca = c->acc_buff_bytes / npu_tile_bytes(c, NPU_MEM_ACC), cu = c->uop_buff_bytes / npu_tile_bytes(c, NPU_MEM_UOP);
  return v * t->tcb * rows_in(cv, t->toy) * g.wp <= ci && v * t->tob * t->tcb * g.taps <= cw &&
         v * t->tob * t->toy * cv->ow <= ca && v + 2 * v * v * t->tob * t->tcb * g.taps <= cu;
}

static double conv_estimate(const NpuConfig *c, const NpuConv2d *cv, const NpuConvTiling *t) {
  Geo g;
  geometry(c, cv, &g);
  int64_t bw = c->dma_bytes_per_cycle, lat = c->dma_latency;
  double load = (double)(t->tcb * (lat + cdiv(rows_in(cv, t->toy) * g.wp * npu_tile_bytes(c, NPU_MEM_INP), bw)) + lat +
                         cdiv(t->tob * t->tcb * g.taps * npu_tile_bytes(c, NPU_MEM_WGT), bw));
  double gemm = (double)(t->tob * t->toy * cv->ow * t->tcb * g.taps), reset = (double)(t->tob * t->toy * cv->ow);
  double store = (double)(t->tob * (lat + cdiv(t->toy * cv->ow * npu_tile_bytes(c, NPU_MEM_ACC), bw)));
  double blocks = (double)(cv->n * cdiv(g.ob, t->tob) * cdiv(cv->oh, t->toy)), tasks = (double)cdiv(g.cb, t->tcb);
  if (t->vthreads == 1) return blocks * (reset + tasks * (load + gemm) + store);
  return blocks * (reset + tasks * (gemm > load ? gemm : load)) + load + store;
}

void cg_npu_choose_conv_tiling(const NpuConfig *c, const NpuConv2d *cv, NpuConvTiling *t) {
  Geo g;
  geometry(c, cv, &g);
  NpuConvTiling best = {1, 1, 1, t->vthreads}, cand = best;
  double best_cost = conv_estimate(c, cv, &best) * 1e9; /* even 1 x 1 x 1 may not fit */
  for (int64_t tob = 1; tob <= 2 * g.ob; tob *= 2)
    for (int64_t toy = 1; toy <= 2 * cv->oh; toy *= 2)
      for (int64_t tcb = 1; tcb <= 2 * g.cb; tcb *= 2) {
        cand.tob = min64(tob, g.ob), cand.toy = min64(toy, cv->oh), cand.tcb = min64(tcb, g.cb);
        if (!conv_fits(c, cv, &cand)) continue;
        double cost = conv_estimate(c, cv, &cand);
        if (cost < best_cost * 0.999) best = cand, best_cost = cost;
      }
  *t = best;
}

/* ---- emission (the npu-inject-dma form, npu_lower.h) --------------------------- */

/* A micro-op kernel: one output-channel block's (input block, tap) products. */
typedef struct UopSet { int64_t obi, tcb, base; } UopSet;

typedef struct ConvEmit {
  const NpuConfig *c;
  const NpuConv2d *cv;
  const NpuConvTiling *t;
  NpuLowered *l;
  Geo g;
  int64_t rin;
  int64_t nblocks;
  UopSet *sets;
  int nsets, cap_sets;
  int buf_a, buf_w, buf_c;
} ConvEmit;

/* The kernels address thread 0's buffers (npu-inject-vthread makes each
 * thread's copy).  The table is built first (every kernel the stream uses),
 * so that one LOAD.uop at the start fills the cache. */
static int64_t uop_set(ConvEmit *e, int64_t obi, int64_t tcb) {
  for (int i = 0; i < e->nsets; i++)
    if (e->sets[i].obi == obi && e->sets[i].tcb == tcb) return e->sets[i].base;
  if (e->nsets == e->cap_sets) {
    e->cap_sets = e->cap_sets ? 2 * e->cap_sets : 16;
    e->sets = xrealloc(e->sets, (size_t)e->cap_sets * sizeof *e->sets);
  }
  NpuProgram *p = &e->l->p;
  int64_t base = p->nuops;
  e->sets[e->nsets++] = (UopSet){obi, tcb, base};
  for (int64_t cb = 0; cb < tcb; cb++)
    for (int64_t ky = 0; ky < e->cv->kh; ky++)
      for (int64_t kx = 0; kx < e->cv->kw; kx++)
        npu_program_add_uop(p, obi * e->t->toy * e->cv->ow, cb * e->rin * e->g.wp + ky * e->g.wp + kx,
                            obi * tcb * e->g.taps + cb * e->g.taps + ky * e->cv->kw + kx);
  return base;
}

static void make_uops(ConvEmit *e) {
  npu_program_add_uop(&e->l->p, 0, 0, 0); /* the resets' and the ALU's */
  e->l->nreset_uops = 1;
  int64_t tcb_edge = e->g.cb % e->t->tcb ? e->g.cb % e->t->tcb : e->t->tcb;
  for (int64_t obi = 0; obi < e->t->tob; obi++) {
    uop_set(e, obi, e->t->tcb);
    uop_set(e, obi, tcb_edge);
  }
  NpuInsn *in = cg_npu_lowered_add(e->l, NPU_LOAD, -1, -1);
  in->mem.mem = NPU_MEM_UOP;
  in->mem.x_size = e->l->p.nuops;
}

/* One task: input blocks [cb0, cb0 + tcb) of block (n, ob0.., oy0..), on
 * virtual thread task % V (input, weights) and block % V (accumulators). */
static void conv_task(ConvEmit *e, int64_t task, int64_t block, int64_t n, int64_t ob0, int64_t tob, int64_t oy0,
                      int64_t toy, int64_t cb0) {
  const NpuConv2d *cv = e->cv;
  int v = e->t->vthreads, s = (int)(task % v), a = (int)(block % v);
  int64_t tcb = min64(e->t->tcb, e->g.cb - cb0);
  int64_t iy0 = oy0 * cv->stride - cv->pad_top, iy1 = (oy0 + toy - 1) * cv->stride + cv->kh - 1 - cv->pad_top;
  int64_t r0 = iy0 < 0 ? 0 : iy0, r1 = iy1 > cv->h - 1 ? cv->h - 1 : iy1;
  for (int64_t cbi = 0; cbi < tcb; cbi++) {
    NpuInsn *in = cg_npu_lowered_add(e->l, NPU_LOAD, s, -1);
    in->mem = (NpuMemInsn){.mem = NPU_MEM_INP, .dram = e->buf_a, .sram_base = cbi * e->rin * e->g.wp,
                           .dram_base = ((n * e->g.cb + cb0 + cbi) * cv->h + r0) * cv->w, .y_size = r1 - r0 + 1,
                           .x_size = cv->w, .x_stride = cv->w, .y_pad0 = r0 - iy0, .y_pad1 = iy1 - r1,
                           .x_pad0 = cv->pad_left, .x_pad1 = cv->pad_right};
  }
  NpuInsn *in = cg_npu_lowered_add(e->l, NPU_LOAD, s, -1);
  in->mem = (NpuMemInsn){.mem = NPU_MEM_WGT, .dram = e->buf_w, .dram_base = (ob0 * e->g.cb + cb0) * e->g.taps,
                         .y_size = tob, .x_size = tcb * e->g.taps, .x_stride = e->g.cb * e->g.taps};
  for (int64_t obi = 0; obi < tob; obi++) {
    int64_t ub = uop_set(e, obi, tcb);
    in = cg_npu_lowered_add(e->l, NPU_GEMM, s, a);
    in->loop = (NpuLoopInsn){.uop_bgn = ub, .uop_end = ub + tcb * e->g.taps, .iter_out = toy, .iter_in = cv->ow,
                             .dst_out = cv->ow, .dst_in = 1, .src_out = cv->stride * e->g.wp, .src_in = cv->stride};
  }
}

static void conv_block(ConvEmit *e, int64_t block, int64_t *task) {
  const NpuConv2d *cv = e->cv;
  int64_t nob = cdiv(e->g.ob, e->t->tob), noy = cdiv(cv->oh, e->t->toy);
  int64_t n = block / (nob * noy), og = block / noy % nob, oyt = block % noy;
  int64_t ob0 = og * e->t->tob, tob = min64(e->t->tob, e->g.ob - ob0);
  int64_t oy0 = oyt * e->t->toy, toy = min64(e->t->toy, cv->oh - oy0);
  int a = (int)(block % e->t->vthreads);
  NpuInsn *in = cg_npu_lowered_add(e->l, NPU_GEMM, -1, a);
  in->loop = (NpuLoopInsn){.reset = true, .uop_bgn = 0, .uop_end = 1, .iter_out = tob * e->t->toy,
                           .iter_in = cv->ow, .dst_out = cv->ow, .dst_in = 1};
  int64_t ntk = cdiv(e->g.cb, e->t->tcb);
  for (int64_t k = 0; k < ntk; k++, (*task)++) conv_task(e, *task, block, n, ob0, tob, oy0, toy, k * e->t->tcb);
  for (int i = 0; i < cv->nalu; i++) { /* the fused epilogue, over the whole accumulator buffer */
    in = cg_npu_lowered_add(e->l, NPU_ALU, -1, a);
    in->loop = (NpuLoopInsn){.uop_bgn = 0, .uop_end = 1, .iter_out = tob * e->t->toy, .iter_in = cv->ow,
                             .dst_out = cv->ow, .dst_in = 1, .src_out = cv->ow, .src_in = 1, .alu = cv->alu[i].op,
                             .use_imm = true, .imm = cv->alu[i].imm};
  }
  for (int64_t obi = 0; obi < tob; obi++) {
    in = cg_npu_lowered_add(e->l, NPU_STORE, -1, a);
    int64_t x = toy * cv->ow;
    in->mem = (NpuMemInsn){.mem = cv->out_int8 ? NPU_MEM_OUT : NPU_MEM_ACC, .dram = e->buf_c,
                           .sram_base = obi * e->t->toy * cv->ow,
                           .dram_base = ((n * e->g.ob + ob0 + obi) * cv->oh + oy0) * cv->ow, .y_size = 1, .x_size = x,
                           .x_stride = x};
  }
}

int cg_npu_conv2d_lower(const NpuConfig *c, const NpuConv2d *cv, const NpuConvTiling *t, NpuLowered *l, char *err,
                        size_t errlen) {
  cg_npu_lowered_init(l, t->vthreads);
  if (c->batch != 1 || t->vthreads < 1 || t->vthreads > 4 || !conv_fits(c, cv, t)) {
    tvs_set_err(err, errlen,
                "npu: conv2d %lld x %lld x %lld x %lld: no tiling fits the scratchpads (batch %d, %d virtual threads)",
                (long long)cv->n, (long long)cv->c, (long long)cv->h, (long long)cv->w, c->batch, t->vthreads);
    return -1;
  }
  ConvEmit e = {.c = c, .cv = cv, .t = t, .l = l};
  geometry(c, cv, &e.g);
  e.rin = rows_in(cv, t->toy);
  l->slot[NPU_MEM_INP] = t->tcb * e.rin * e.g.wp, l->slot[NPU_MEM_WGT] = t->tob * t->tcb * e.g.taps;
  l->slot[NPU_MEM_ACC] = t->tob * t->toy * cv->ow;
  e.nblocks = cv->n * cdiv(e.g.ob, t->tob) * cdiv(cv->oh, t->toy);
  e.buf_a = npu_program_add_buf(&l->p, "A", NPU_MEM_INP, cv->n * e.g.cb * cv->h * cv->w);
  e.buf_w = npu_program_add_buf(&l->p, "W", NPU_MEM_WGT, e.g.ob * e.g.cb * e.g.taps);
  e.buf_c = npu_program_add_buf(&l->p, "C", cv->out_int8 ? NPU_MEM_OUT : NPU_MEM_ACC, cv->n * e.g.ob * cv->oh * cv->ow);
  make_uops(&e);
  int64_t task = 0;
  for (int64_t b = 0; b < e.nblocks; b++) conv_block(&e, b, &task);
  cg_npu_lowered_add(l, NPU_FINISH, -1, -1);
  free(e.sets);
  return 0;
}

int cg_npu_conv2d_program(const NpuConfig *c, const NpuConv2d *cv, const NpuConvTiling *t, NpuProgram *p, char *err,
                          size_t errlen) {
  NpuLowered l;
  return cg_npu_lowered_finish(&l, cg_npu_conv2d_lower(c, cv, t, &l, err, errlen), p, err, errlen);
}
