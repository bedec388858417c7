/* npu_lower.h - the NPU backend's lowering stages (docs/npu.md), each a
 * named stage of `tvs show --stage`:
 *
 *   npu-inject-dma      the emitters (npu_matmul.c, npu_conv2d.c): the tiled
 *                       kernel as DMA copies into the scratchpads, GEMM/ALU
 *                       loops over micro-op kernels (the tensor intrinsics),
 *                       stores back; every instruction tagged with its
 *                       virtual thread; each scratchpad buffer is one
 *                       thread's (VTA's InjectDMAIntrin, the tensorized GEMM,
 *                       InjectALUIntrin).
 *   npu-inject-vthread  gives each virtual thread its own copy of the
 *                       scratchpad buffers and of the micro-op kernels
 *                       (TVM's InjectVirtualThread: a vthread-local buffer is
 *                       expanded by the thread count, its index offset by
 *                       the thread).
 *   npu-coproc-sync     finds every dependence between the load, compute and
 *                       store modules on a virtual-thread buffer and inserts
 *                       a dependency-token push after the producer and a pop
 *                       before the consumer (TVM's CoProcSync as VTA uses it:
 *                       coproc_dep_push / coproc_dep_pop).
 *   npu-isa             the pushes and pops folded into the instructions'
 *                       dependency flags: the stream the simulator runs. */
#ifndef TVS_CODEGEN_NPU_LOWER_H
#define TVS_CODEGEN_NPU_LOWER_H

#include <stdint.h>
#include <stdio.h>

#include "runtime/npu_isa.h"

typedef enum NpuStage {
  NPU_STAGE_INJECT_DMA,
  NPU_STAGE_INJECT_VTHREAD,
  NPU_STAGE_COPROC_SYNC,
  NPU_STAGE_ISA,
  NPU_STAGE_COUNT
} NpuStage;

/* The stage's name ("npu-inject-dma", ...) and the stage of a name (-1: none). */
const char *cg_npu_stage_name(NpuStage s);
int cg_npu_stage_lookup(const char *name);

/* The virtual threads an instruction works for: `task` for its input and
 * weight buffers, `acc` for its accumulator buffer; -1 where it touches none. */
typedef struct NpuVthreadTag { int8_t task, acc; } NpuVthreadTag;

typedef struct NpuLowered {
  NpuProgram p;
  NpuVthreadTag *tags;       /* one per instruction of p */
  int64_t cap_tags;
  int vthreads;
  int64_t slot[NPU_MEM_COUNT]; /* tiles of one thread's buffer in inp, wgt, acc */
  int64_t nreset_uops;       /* leading micro-ops that only the accumulator thread offsets */
  NpuStage stage;            /* the last stage applied */
} NpuLowered;

void cg_npu_lowered_init(NpuLowered *l, int vthreads);
void cg_npu_lowered_free(NpuLowered *l);
/* Appends an instruction with its thread tags (what the emitters call). */
NpuInsn *cg_npu_lowered_add(NpuLowered *l, NpuOpcode op, int task_vt, int acc_vt);
/* Runs the stages after l->stage up to and including upto; 0, or -1 with
 * a message (a dependence between modules that share no token queue). */
int cg_npu_lower_to(NpuLowered *l, NpuStage upto, char *err, size_t errlen);
/* Hands the stream to p (l is freed). */
void cg_npu_lowered_take(NpuLowered *l, NpuProgram *p);
/* What the *_program entries share: l, emitted with status rc (0 or -1),
 * taken to the npu-isa stage and handed to p (replacing what p held); 0, or
 * -1 with a message (l freed either way). */
int cg_npu_lowered_finish(NpuLowered *l, int rc, NpuProgram *p, char *err, size_t errlen);
/* Prints l in its stage's form: the npu-isa text, earlier stages with the
 * threads as comments and the tokens as coproc_dep_push/pop statements. */
void cg_npu_lowered_print(FILE *out, const NpuLowered *l);

/* The passes (npu_inject_vthread.c, npu_coproc_sync.c). */
void cg_npu_inject_vthread(NpuLowered *l);
int cg_npu_coproc_sync(NpuLowered *l, char *err, size_t errlen);

#endif
