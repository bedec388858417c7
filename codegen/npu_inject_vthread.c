/* npu_inject_vthread.c - npu-inject-vthread (npu_lower.h), TVM's
 * InjectVirtualThread on the NPU stream: before it, every virtual thread
 * addresses the same scratchpad buffer (slot 0); after it, thread t owns
 * buffer copy t.  A LOAD or STORE moves to its thread's copy; the micro-op
 * table is instantiated once per (input/weight thread, accumulator thread)
 * pair, and each GEMM or ALU loop points at its pair's copy.  The stream's
 * order does not change: consecutive tasks already belong to alternate
 * threads (the vthread loop is the innermost split of the task loop), so
 * after this pass one thread's loads can run while the other's GEMMs do,
 * once npu-coproc-sync has put in the tokens. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "codegen/npu_lower.h"

static int tag_or_0(int8_t t) { return t < 0 ? 0 : t; }

/* The micro-op table: the reset micro-ops per accumulator thread, then the
 * kernels per (task thread, accumulator thread). */
static void expand_uops(NpuLowered *l) {
  int v = l->vthreads;
  int64_t nr = l->nreset_uops, nk = l->p.nuops - nr;
  NpuUop *old = xmalloc((size_t)(l->p.nuops ? l->p.nuops : 1) * sizeof *old);
  memcpy(old, l->p.uops, (size_t)l->p.nuops * sizeof *old);
  l->p.nuops = 0;
  int64_t sa = l->slot[NPU_MEM_ACC], si = l->slot[NPU_MEM_INP], sw = l->slot[NPU_MEM_WGT];
  for (int a = 0; a < v; a++)
    for (int64_t u = 0; u < nr; u++) npu_program_add_uop(&l->p, old[u].dst + a * sa, old[u].src, old[u].wgt);
  for (int s = 0; s < v; s++)
    for (int a = 0; a < v; a++)
      for (int64_t u = nr; u < nr + nk; u++)
        npu_program_add_uop(&l->p, old[u].dst + a * sa, old[u].src + s * si, old[u].wgt + s * sw);
  free(old);
}

static int64_t remap_uop(const NpuLowered *l, int64_t u, int s, int a, int64_t nk) {
  int64_t nr = l->nreset_uops, v = l->vthreads;
  return u < nr ? a * nr + u : v * nr + (s * v + a) * nk + (u - nr);
}

void cg_npu_inject_vthread(NpuLowered *l) {
  if (l->vthreads <= 1) return; /* one thread: its buffers are the whole slots already */
  int64_t nk = l->p.nuops - l->nreset_uops;
  expand_uops(l);
  for (int64_t i = 0; i < l->p.ninsns; i++) {
    NpuInsn *in = &l->p.insns[i];
    int s = tag_or_0(l->tags[i].task), a = tag_or_0(l->tags[i].acc);
    if (in->op == NPU_LOAD && in->mem.mem == NPU_MEM_UOP) {
      in->mem.x_size = l->p.nuops;
    } else if (in->op == NPU_LOAD || in->op == NPU_STORE) {
      NpuMem m = in->mem.mem == NPU_MEM_OUT ? NPU_MEM_ACC : in->mem.mem;
      in->mem.sram_base += l->slot[m] * (m == NPU_MEM_ACC ? a : s);
    } else if (in->op == NPU_GEMM || in->op == NPU_ALU) {
      int64_t n = in->loop.uop_end - in->loop.uop_bgn;
      in->loop.uop_bgn = remap_uop(l, in->loop.uop_bgn, s, a, nk);
      in->loop.uop_end = in->loop.uop_bgn + n;
    }
  }
}
