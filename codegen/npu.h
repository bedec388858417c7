/* npu.h - the NPU backend (docs/npu.md): from an int8 matmul prim_func to the
 * simulated accelerator's instruction stream (runtime/npu_isa.h).
 *
 * cg_npu_find_matmul recognises the computation (C[i, j] += int32(A[i, k]) *
 * int32(B[k, j]) or B[j, k], int8 operands, int32 result, optionally followed
 * by an element-wise requantization D = int8(clip(C >> s)) that the ALU runs)
 * and the schedule's
 * virtual threads (a loop bound to "vthread"); cg_npu_matmul_lower tiles it
 * to the scratchpads (padding every dimension to the GEMM block) and emits
 * the DMA loads, micro-ops, GEMMs and stores (npu-inject-dma); the stages of
 * npu_lower.h give each virtual thread its buffers and insert the
 * dependency tokens that let V threads overlap loads with compute. */
#ifndef TVS_CODEGEN_NPU_H
#define TVS_CODEGEN_NPU_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "ir/tir.h"
#include "codegen/npu_lower.h"
#include "runtime/npu_isa.h"

/* One step of a requantizing epilogue on the accumulators: op(x, imm). */
typedef struct NpuAluStep {
  NpuAluOp op;
  int32_t imm;
} NpuAluStep;

#define NPU_MAX_ALU_STEPS 8

/* What the backend found in the prim_func. */
typedef struct NpuMatmul {
  int64_t m, n, k;       /* C[m, n] = A[m, k] x B */
  bool b_transposed;     /* B is [n, k] (dense/NT), else [k, n] */
  int a_param, b_param;  /* the params holding A, B */
  int out_param;         /* the param the result goes to: C, or the epilogue's output */
  bool out_int8;         /* the epilogue narrows to int8 (STORE.out), else int32 */
  NpuAluStep alu[NPU_MAX_ALU_STEPS]; /* the epilogue on C, in order (shift, clip...) */
  int nalu;
  int vthreads;          /* extent of the loop bound to "vthread" (1 if none) */
  /* The DMA tile the schedule asks for, in elements (0: the backend chooses):
   * rows of A and C, columns of B and C, reduction elements of A and B. */
  int64_t tile_rows, tile_cols, tile_red;
} NpuMatmul;

/* The tiling: tiles of the GEMM block per scratchpad slot. */
typedef struct NpuTiling {
  int64_t tm, tn, tk;    /* rows (of BATCH), output blocks, reduction blocks */
  int vthreads;          /* scratchpad slots that alternate (1 = no overlap) */
} NpuTiling;

/* An int8 conv2d, NCHW / OIHW (TOPI's conv2d_nchw after legalization):
 * out[n, f, y, x] += int32(pad(A)[n, c, y*stride + ky, x*stride + kx]) *
 * int32(W[f, c, ky, kx]).  On the NPU the channels are blocked by 16 (VTA's
 * NCHW1n16c / OIHW16o16i): an input tile is one pixel's 16 channels. */
typedef struct NpuConv2d {
  int64_t n, c, h, w;    /* input */
  int64_t o, kh, kw;     /* output channels, kernel */
  int64_t oh, ow;        /* output */
  int64_t stride;        /* both dimensions */
  int64_t pad_top, pad_left, pad_bottom, pad_right;
  int a_param, w_param, out_param;
  bool out_int8;         /* the epilogue narrows to int8 (STORE.out) */
  NpuAluStep alu[NPU_MAX_ALU_STEPS]; /* a fused epilogue (relu, requantization), in order */
  int nalu;
  int vthreads;
} NpuConv2d;

/* Its tiling: output-channel blocks, output rows and input-channel blocks a task. */
typedef struct NpuConvTiling {
  int64_t tob, toy, tcb;
  int vthreads;
} NpuConvTiling;

/* Recognises an int8 conv2d (quietly false when f is none); d gets errors
 * only for a conv2d the NPU cannot run (dilation, other shapes). */
bool cg_npu_find_conv2d(const TirFunc *f, NpuConv2d *out);
void cg_npu_choose_conv_tiling(const NpuConfig *c, const NpuConv2d *cv, NpuConvTiling *t);
/* The npu-inject-dma form of the stream into l (initialised here; free it
 * with cg_npu_lowered_free); DRAM buffers "A" inp, "W" wgt, "C" acc tiles.
 * 0, or -1 with a message when the tiling overflows a scratchpad. */
int cg_npu_conv2d_lower(const NpuConfig *c, const NpuConv2d *cv, const NpuConvTiling *t, NpuLowered *l, char *err,
                        size_t errlen);
/* The whole stream (every stage, npu_lower.h) into p (initialised by the caller). */
int cg_npu_conv2d_program(const NpuConfig *c, const NpuConv2d *cv, const NpuConvTiling *t, NpuProgram *p,
                          char *err, size_t errlen);

#define NPU_MAX_STORES 8

/* The element-wise epilogue of an NPU kernel: stores[0..n) (none the init
 * or the update) must form a chain D1[v...] = ops(C[v...]), D2[v...] =
 * ops(D1[v...]), ... of shift_right, min, max, add, mul with constants, the
 * last one optionally T.Cast("int8", ...).  Returns the last buffer written
 * (NULL when they do not), its steps in order and whether it narrows. */
const TirBuffer *cg_npu_match_epilogue(const TirStmt *const *stores, int n, const TirBuffer *c, NpuAluStep *steps,
                                       int *nsteps, bool *out_int8);

/* A cache stage into an npu.* scope as the finder saw it: the loops around
 * its copy (outer first) and, per index, which of them its binding uses. */
#define NPU_MAX_COPIES 8
#define NPU_MAX_COPY_LOOPS 64
typedef struct NpuCopyStage {
  const char *scope;
  int ndim;
  const TirStmt *loops[NPU_MAX_COPY_LOOPS];
  int nloops;
  uint64_t loop_mask[2];
} NpuCopyStage;

/* The tile the schedule gives (npu_schedule_tile.c): a stage moved into the
 * matmul's loop nest copies one tile, its extents those of its own loops
 * (the ones not around the update); a stage at the root gives none.  Sets
 * mm->tile_*; false with a diagnostic when two stages disagree. */
bool cg_npu_schedule_tiles(const NpuCopyStage *cs, int n, const TirStmt *const *update_loops, int nupdate_loops,
                           NpuMatmul *mm, DiagCtx *d, Span span);
/* Whether the schedule's tile is whole GEMM blocks (or the whole extent); 0,
 * or -1 with a message. */
int cg_npu_check_schedule_tiles(const NpuConfig *c, const NpuMatmul *mm, char *err, size_t errlen);

/* Recognises f; false with a diagnostic (at f's span) when it is not an
 * int8 matmul the NPU runs. */
bool cg_npu_find_matmul(const TirFunc *f, NpuMatmul *out, DiagCtx *d);
/* The tiling the cost model of docs/npu.md rates best for mm on c with
 * t->vthreads slots (set t->vthreads before the call), with the dimensions
 * the schedule fixed (mm->tile_*) as it says. */
void cg_npu_choose_tiling(const NpuConfig *c, const NpuMatmul *mm, NpuTiling *t);
/* The npu-inject-dma form of mm's stream with tiling t into l (initialised
 * here; free it with cg_npu_lowered_free); DRAM buffers "A", "B", "C" in
 * tile layout.  Returns 0, or -1 with a message in err when the tiling
 * overflows a scratchpad. */
int cg_npu_matmul_lower(const NpuConfig *c, const NpuMatmul *mm, const NpuTiling *t, NpuLowered *l, char *err,
                        size_t errlen);
/* The whole stream (every stage, npu_lower.h) into p (initialised by the caller). */
int cg_npu_matmul_program(const NpuConfig *c, const NpuMatmul *mm, const NpuTiling *t, NpuProgram *p, char *err,
                          size_t errlen);

#endif
