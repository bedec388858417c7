/* nvptx_codegen.c - PTX through LLVM's NVPTX backend (placeholder). */
#include "codegen/gpu_codegen.h"

char *cg_nvptx_source(const IrModule *low, const char *sm, int opt_level, bool llvm_ir, DiagCtx *diag) {
  (void)low, (void)sm, (void)opt_level, (void)llvm_ir;
  diag_error(diag, span_none, "cuda: not yet");
  return NULL;
}
