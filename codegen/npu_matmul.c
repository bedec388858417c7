/* npu_matmul.c - the instruction stream of a tiled int8 matmul.
 *
 * Output blocks of tm x tn accumulator tiles, each reduced over chunks of tk
 * input/weight tiles.  A task is one chunk: the load module brings its input
 * and weight tiles into scratchpad slot (task % V), the compute module runs
 * one GEMM over them into accumulator slot (block % V), and the store module
 * writes a finished block back.  The tokens (docs/npu.md):
 *   load  --RAW-->  compute : each task's loads push, its GEMM pops;
 *   compute --WAR--> load   : a GEMM frees its slot for task + V;
 *   compute --RAW--> store  : the last GEMM of a block;
 *   store --WAR--> compute  : a stored block frees its accumulator slot.
 * With V = 1 every step waits for the previous one; with V = 2 (two virtual
 * threads) the loads of one task overlap the GEMMs of the other.  A
 * requantizing epilogue runs on the ALU after a block's last GEMM, and the
 * block is stored narrowed to int8 (STORE.out). */
#include <string.h>

#include "codegen/npu.h"
#include "codegen/npu_lower.h"
#include "runtime/npy.h"

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Tile counts of the padded problem. */
static void tile_counts(const NpuConfig *c, const NpuMatmul *mm, int64_t *mt, int64_t *nt, int64_t *kt) {
  *mt = cdiv(mm->m, c->batch);
  *nt = cdiv(mm->n, c->block_out);
  *kt = cdiv(mm->k, c->block_in);
}

/* Scratchpad capacities in tiles. */
static void capacities(const NpuConfig *c, int64_t *inp, int64_t *wgt, int64_t *acc, int64_t *uop) {
  *inp = c->inp_buff_bytes / npu_tile_bytes(c, NPU_MEM_INP);
  *wgt = c->wgt_buff_bytes / npu_tile_bytes(c, NPU_MEM_WGT);
  *acc = c->acc_buff_bytes / npu_tile_bytes(c, NPU_MEM_ACC);
  *uop = c->uop_buff_bytes / npu_tile_bytes(c, NPU_MEM_UOP);
}

static bool fits(const NpuConfig *c, const NpuTiling *t) {
  int64_t ci, cw, ca, cu, v = t->vthreads;
  capacities(c, &ci, &cw, &ca, &cu);
  return v * t->tm * t->tk <= ci && v * t->tn * t->tk <= cw && v * t->tm * t->tn <= ca &&
         2 * v * v * t->tk <= cu;
}

/* docs/npu.md's cycle model, summed over the tasks with full tiles. */
static double estimate(const NpuConfig *c, const NpuMatmul *mm, const NpuTiling *t) {
  int64_t mt, nt, kt, bw = c->dma_bytes_per_cycle, lat = c->dma_latency;
  tile_counts(c, mm, &mt, &nt, &kt);
  double load = (double)(2 * lat + cdiv(t->tm * t->tk * npu_tile_bytes(c, NPU_MEM_INP), bw) +
                         cdiv(t->tn * t->tk * npu_tile_bytes(c, NPU_MEM_WGT), bw));
  double gemm = (double)(t->tm * t->tn * t->tk), reset = (double)(t->tm * t->tn);
  double store = (double)(lat + cdiv(t->tm * t->tn * npu_tile_bytes(c, NPU_MEM_ACC), bw));
  double blocks = (double)(cdiv(mt, t->tm) * cdiv(nt, t->tn)), tasks = (double)cdiv(kt, t->tk);
  if (t->vthreads == 1) return blocks * (reset + tasks * (load + gemm) + store);
  double step = gemm > load ? gemm : load;
  return blocks * (reset + tasks * step) + load + store;
}

/* The schedule's tile of one dimension in blocks (0: not given). */
static int64_t fixed_blocks(int64_t elems, int64_t block, int64_t count) {
  if (!elems) return 0;
  int64_t b = cdiv(elems, block);
  return b < count ? b : count;
}

void cg_npu_choose_tiling(const NpuConfig *c, const NpuMatmul *mm, NpuTiling *t) {
  int64_t mt, nt, kt;
  tile_counts(c, mm, &mt, &nt, &kt);
  int64_t fm = fixed_blocks(mm->tile_rows, c->batch, mt), fn = fixed_blocks(mm->tile_cols, c->block_out, nt),
          fk = fixed_blocks(mm->tile_red, c->block_in, kt);
  NpuTiling best = {fm ? fm : 1, fn ? fn : 1, fk ? fk : 1, t->vthreads}, cand = best;
  double best_cost = fits(c, &best) || !(fm || fn || fk) ? estimate(c, mm, &best) : 1e300;
  /* Powers of two and the full extent of each dimension the schedule left open. */
  for (int64_t tm = 1; tm <= 2 * mt; tm *= 2)
    for (int64_t tn = 1; tn <= 2 * nt; tn *= 2)
      for (int64_t tk = 1; tk <= 2 * kt; tk *= 2) {
        cand.tm = fm ? fm : tm < mt ? tm : mt, cand.tn = fn ? fn : tn < nt ? tn : nt, cand.tk = fk ? fk : tk < kt ? tk : kt;
        if (!fits(c, &cand)) continue;
        double cost = estimate(c, mm, &cand);
        if (cost < best_cost * 0.999) best = cand, best_cost = cost;
      }
  *t = best;
}

/* ---- emission (the npu-inject-dma form, npu_lower.h) --------------------------- */

typedef struct Emit {
  const NpuConfig *c;
  const NpuMatmul *mm;
  const NpuTiling *t;
  NpuLowered *l;
  int64_t mt, nt, kt;
  int64_t nblocks;
  int64_t uop_base[2];                   /* first micro-op of the full and the short chunk's kernel */
  int buf_a, buf_b, buf_c;
} Emit;

/* The GEMM's micro-op kernels, for thread 0's buffers (npu-inject-vthread
 * makes each thread's copy): dst = the accumulator block, src/wgt = k (the
 * GEMM's loops add the rest); a second one for the short last chunk. */
static void emit_uops(Emit *e) {
  int64_t tk_edge = e->kt % e->t->tk ? e->kt % e->t->tk : e->t->tk;
  NpuProgram *p = &e->l->p;
  for (int edge = 0; edge < 2; edge++) {
    if (edge && tk_edge == e->t->tk) { /* no short chunk: share the full one's */
      e->uop_base[1] = e->uop_base[0];
      continue;
    }
    e->uop_base[edge] = p->nuops;
    for (int64_t k = 0; k < (edge ? tk_edge : e->t->tk); k++) npu_program_add_uop(p, 0, k, k);
  }
  NpuInsn *in = cg_npu_lowered_add(e->l, NPU_LOAD, -1, -1);
  in->mem.mem = NPU_MEM_UOP;
  in->mem.x_size = p->nuops;
}

static NpuInsn *emit_dma(Emit *e, NpuOpcode op, NpuMem mem, int buf, int64_t dram, int64_t y, int64_t x,
                         int64_t stride, int task_vt, int acc_vt) {
  NpuInsn *in = cg_npu_lowered_add(e->l, op, task_vt, acc_vt);
  in->mem = (NpuMemInsn){.mem = mem, .dram = buf, .dram_base = dram, .y_size = y, .x_size = x, .x_stride = stride};
  return in;
}

/* One task: chunk ko of block (m0, n0) of tm x tn tiles, on virtual thread
 * task % V (its input and weight buffers) and block % V (its accumulators). */
static void emit_task(Emit *e, int64_t task, int64_t block, int64_t m0, int64_t n0, int64_t tm, int64_t tn,
                      int64_t ko) {
  int v = e->t->vthreads, s = (int)(task % v), a = (int)(block % v);
  int64_t k0 = ko * e->t->tk, tk = e->kt - k0 < e->t->tk ? e->kt - k0 : e->t->tk;
  emit_dma(e, NPU_LOAD, NPU_MEM_INP, e->buf_a, m0 * e->kt + k0, tm, tk, e->kt, s, -1);
  emit_dma(e, NPU_LOAD, NPU_MEM_WGT, e->buf_b, n0 * e->kt + k0, tn, tk, e->kt, s, -1);
  NpuInsn *in = cg_npu_lowered_add(e->l, NPU_GEMM, s, a);
  int64_t ub = e->uop_base[tk != e->t->tk];
  in->loop = (NpuLoopInsn){.uop_bgn = ub, .uop_end = ub + tk, .iter_out = tm, .iter_in = tn, .dst_out = tn,
                           .dst_in = 1, .src_out = tk, .wgt_in = tk};
}

/* The requantizing epilogue on a finished block's accumulators. */
static void emit_alu(Emit *e, int64_t ub, int64_t tm, int64_t tn, int a) {
  for (int i = 0; i < e->mm->nalu; i++) {
    NpuInsn *in = cg_npu_lowered_add(e->l, NPU_ALU, -1, a);
    in->loop = (NpuLoopInsn){.uop_bgn = ub, .uop_end = ub + 1, .iter_out = tm, .iter_in = tn, .dst_out = tn,
                             .dst_in = 1, .src_out = tn, .src_in = 1, .alu = e->mm->alu[i].op, .use_imm = true,
                             .imm = e->mm->alu[i].imm};
  }
}

static void emit_block(Emit *e, int64_t block, int64_t *task) {
  int64_t nbn = cdiv(e->nt, e->t->tn), mo = block / nbn, no = block % nbn;
  int64_t m0 = mo * e->t->tm, n0 = no * e->t->tn;
  int64_t tm = e->mt - m0 < e->t->tm ? e->mt - m0 : e->t->tm, tn = e->nt - n0 < e->t->tn ? e->nt - n0 : e->t->tn;
  int a = (int)(block % e->t->vthreads);
  NpuInsn *in = cg_npu_lowered_add(e->l, NPU_GEMM, -1, a);
  int64_t ub = e->uop_base[0];
  in->loop = (NpuLoopInsn){.reset = true, .uop_bgn = ub, .uop_end = ub + 1, .iter_out = tm, .iter_in = tn,
                           .dst_out = tn, .dst_in = 1};
  int64_t nk = cdiv(e->kt, e->t->tk);
  for (int64_t ko = 0; ko < nk; ko++, (*task)++) emit_task(e, *task, block, m0, n0, tm, tn, ko);
  emit_alu(e, ub, tm, tn, a);
  emit_dma(e, NPU_STORE, e->mm->out_int8 ? NPU_MEM_OUT : NPU_MEM_ACC, e->buf_c, m0 * e->nt + n0, tm, tn, e->nt,
           -1, a);
}

int cg_npu_matmul_lower(const NpuConfig *c, const NpuMatmul *mm, const NpuTiling *t, NpuLowered *l, char *err,
                        size_t errlen) {
  cg_npu_lowered_init(l, t->vthreads);
  if (t->vthreads < 1 || t->vthreads > 4 || t->tm < 1 || t->tn < 1 || t->tk < 1 || !fits(c, t)) {
    tvs_set_err(err, errlen,
                "npu: a %lld x %lld x %lld tiling (rows x output blocks x reduction blocks) with %d virtual thread%s "
                "overflows a scratchpad", (long long)t->tm, (long long)t->tn, (long long)t->tk, t->vthreads,
                t->vthreads == 1 ? "" : "s");
    return -1;
  }
  Emit e = {.c = c, .mm = mm, .t = t, .l = l};
  tile_counts(c, mm, &e.mt, &e.nt, &e.kt);
  l->slot[NPU_MEM_INP] = t->tm * t->tk, l->slot[NPU_MEM_WGT] = t->tn * t->tk, l->slot[NPU_MEM_ACC] = t->tm * t->tn;
  e.nblocks = cdiv(e.mt, t->tm) * cdiv(e.nt, t->tn);
  e.buf_a = npu_program_add_buf(&l->p, "A", NPU_MEM_INP, e.mt * e.kt);
  e.buf_b = npu_program_add_buf(&l->p, "B", NPU_MEM_WGT, e.nt * e.kt);
  e.buf_c = npu_program_add_buf(&l->p, "C", mm->out_int8 ? NPU_MEM_OUT : NPU_MEM_ACC, e.mt * e.nt);
  emit_uops(&e);
  int64_t task = 0;
  for (int64_t b = 0; b < e.nblocks; b++) emit_block(&e, b, &task);
  cg_npu_lowered_add(l, NPU_FINISH, -1, -1);
  return 0;
}

int cg_npu_matmul_program(const NpuConfig *c, const NpuMatmul *mm, const NpuTiling *t, NpuProgram *p, char *err,
                          size_t errlen) {
  NpuLowered l;
  return cg_npu_lowered_finish(&l, cg_npu_matmul_lower(c, mm, t, &l, err, errlen), p, err, errlen);
}
