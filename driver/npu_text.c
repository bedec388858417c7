/* npu_text.c - the text of a module's NPU streams at a lowering stage (what
 * `tvs show --stage npu-*` prints and `tvsc --target npu` writes): per
 * kernel a comment line saying what the backend recognised and how it
 * tiled it, then the stream in the stage's form (codegen/npu_lower.h). */
#include <stdio.h>

#include "driver/npu.h"

static void kernel_line(FILE *out, const char *name, const DrvNpuKernelInfo *k) {
  if (k->conv) {
    const NpuConv2d *cv = &k->cv;
    fprintf(out,
            "# prim_func %s: int8 conv2d %lldx%lldx%lldx%lld * %lldx%lldx%lldx%lld, stride %lld, padding %lld %lld %lld "
            "%lld, tiles %lld x %lld x %lld, %d virtual thread%s\n",
            name, (long long)cv->n, (long long)cv->c, (long long)cv->h, (long long)cv->w, (long long)cv->o,
            (long long)cv->c, (long long)cv->kh, (long long)cv->kw, (long long)cv->stride, (long long)cv->pad_top,
            (long long)cv->pad_left, (long long)cv->pad_bottom, (long long)cv->pad_right, (long long)k->ct.tob,
            (long long)k->ct.toy, (long long)k->ct.tcb, k->ct.vthreads, k->ct.vthreads > 1 ? "s" : "");
  } else {
    fprintf(out, "# prim_func %s: int8 matmul %lld x %lld x %lld%s, tiles %lld x %lld x %lld, %d virtual thread%s\n",
            name, (long long)k->mm.m, (long long)k->mm.n, (long long)k->mm.k, k->mm.b_transposed ? " (B transposed)" : "",
            (long long)k->t.tm, (long long)k->t.tn, (long long)k->t.tk, k->t.vthreads, k->t.vthreads > 1 ? "s" : "");
  }
}

int drv_npu_module_text(const IrModule *m, const DrvNpuOptions *o, NpuStage stage, bool graph, FILE *out,
                        int *nkernels, DiagCtx *d) {
  int rc = 0;
  *nkernels = 0;
  for (int i = 0; i < m->nfuncs && rc == 0; i++) {
    if (m->funcs[i].kind != IR_FUNC_TIR) continue;
    if (graph && !drv_npu_is_kernel(m, m->funcs[i].name)) {
      fprintf(out, "# prim_func %s: not an NPU kernel (runs on the interpreter)\n", m->funcs[i].name);
      continue;
    }
    NpuLowered l;
    DrvNpuKernelInfo k;
    rc = drv_npu_lower(m, m->funcs[i].name, o, stage, &l, &k, d);
    if (rc == 0) {
      kernel_line(out, m->funcs[i].name, &k);
      cg_npu_lowered_print(out, &l);
      (*nkernels)++;
    }
    cg_npu_lowered_free(&l);
  }
  return rc;
}
