/* npu_program.c - building an NPU instruction stream: buffers, micro-ops,
 * instructions, and the names the text form and messages share. */
#include "runtime/npu_isa.h"

#include <stdlib.h>
#include <string.h>

#define NPU_GROW(arr, n, cap)                                       \
  do {                                                              \
    if ((n) >= (cap)) {                                             \
      (cap) = (cap) ? 2 * (cap) : 16;                               \
      void *grown_ = realloc((arr), (size_t)(cap) * sizeof *(arr)); \
      if (!grown_) abort();                                         \
      (arr) = grown_;                                               \
    }                                                               \
  } while (0)

void npu_program_init(NpuProgram *p) { memset(p, 0, sizeof *p); }

void npu_program_free(NpuProgram *p) {
  free(p->bufs);
  free(p->uops);
  free(p->insns);
  memset(p, 0, sizeof *p);
}

int npu_program_add_buf(NpuProgram *p, const char *name, NpuMem mem, int64_t ntiles) {
  NPU_GROW(p->bufs, p->nbufs, p->cap_bufs);
  NpuBufDecl *b = &p->bufs[p->nbufs];
  memset(b, 0, sizeof *b);
  strncpy(b->name, name, sizeof b->name - 1);
  b->mem = mem;
  b->ntiles = ntiles;
  return p->nbufs++;
}

int64_t npu_program_add_uop(NpuProgram *p, int64_t dst, int64_t src, int64_t wgt) {
  NPU_GROW(p->uops, p->nuops, p->cap_uops);
  p->uops[p->nuops] = (NpuUop){dst, src, wgt};
  return p->nuops++;
}

NpuInsn *npu_program_add_insn(NpuProgram *p, NpuOpcode op) {
  NPU_GROW(p->insns, p->ninsns, p->cap_insns);
  NpuInsn *in = &p->insns[p->ninsns++];
  memset(in, 0, sizeof *in);
  in->op = op;
  in->loop.iter_out = in->loop.iter_in = 1;
  in->mem.y_size = in->mem.x_size = 1;
  return in;
}

/* VTA's fetch: stores to the store module, input and weight loads to the load
 * module, everything else (uop/acc loads, GEMM, ALU, FINISH) to compute. */
NpuModule npu_insn_module(const NpuInsn *in) {
  if (in->op == NPU_STORE) return NPU_MOD_STORE;
  if (in->op == NPU_LOAD && (in->mem.mem == NPU_MEM_INP || in->mem.mem == NPU_MEM_WGT))
    return NPU_MOD_LOAD;
  return NPU_MOD_COMPUTE;
}

const char *npu_mem_name(NpuMem m) {
  static const char *names[NPU_MEM_COUNT] = {"uop", "wgt", "inp", "acc", "out"};
  return (unsigned)m < NPU_MEM_COUNT ? names[m] : "?";
}

const char *npu_module_name(NpuModule m) {
  static const char *names[NPU_MOD_COUNT] = {"load", "compute", "store"};
  return (unsigned)m < NPU_MOD_COUNT ? names[m] : "?";
}
