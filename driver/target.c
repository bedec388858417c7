/* target.c - the target a tvsc run compiles for: the host by default, or a
 * foreign --mtriple (all of LLVM's targets are then initialized and the CPU
 * defaults to "generic").  The CPU and features are checked before
 * anything is lowered by codegen's one check (cg_check_target). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "driver/drv_internal.h"
#include "base/util.h"

static char *normalized(const char *triple) {
  char *n = LLVMNormalizeTargetTriple(triple);
  char *s = xstrdup(n);
  LLVMDisposeMessage(n);
  return s;
}

static char *host_triple(void) {
  char *t = LLVMGetDefaultTargetTriple();
  char *s = normalized(t);
  LLVMDisposeMessage(t);
  return s;
}

int drv_prepare_target(CgOptions *cg, bool *cross, DiagCtx *d) {
  char *host = host_triple();
  char *want = cg->triple && cg->triple[0] ? normalized(cg->triple) : xstrdup(host);
  *cross = strcmp(host, want) != 0;
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  if (*cross) {
    LLVMInitializeAllTargetInfos();
    LLVMInitializeAllTargets();
    LLVMInitializeAllTargetMCs();
    LLVMInitializeAllAsmPrinters();
    if (!cg->mcpu || !cg->mcpu[0] || !strcmp(cg->mcpu, "native")) cg->mcpu = "generic";
  }
  char *hostcpu = NULL;
  const char *cpu = cg->mcpu;
  bool host_cpu = !cpu || !cpu[0] || !strcmp(cpu, "native");
  if (host_cpu) cpu = hostcpu = LLVMGetHostCPUName();
  /* the host's own CPU and features need no check */
  int rc = *cross || !host_cpu || cg->mattr ? cg_check_target(want, cpu, cg->mattr ? cg->mattr : "", d) : 0;
  if (hostcpu) LLVMDisposeMessage(hostcpu);
  free(host);
  free(want);
  return rc;
}
