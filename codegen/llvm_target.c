/* llvm_target.c - target machines, LLVM's optimization pipeline and emission.
 *
 * The host CPU name and features by default (LLVMGetHostCPUName/Features),
 * overridable per CgOptions; the new pass manager's default<O0..3> pipeline
 * with loop vectorization, SLP and unrolling; textual IR, assembly, objects. */
#include "codegen/cg_internal.h"

#include <llvm-c/Support.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "runtime/write_file.h"

CgOptions cg_options_default(void) {
  CgOptions o;
  memset(&o, 0, sizeof o);
  o.opt_level = 3;
  return o;
}

int cg_parse_fp_contract(const char *s, CgFpContract *out) {
  static const char *const names[] = {"fast", "on", "off"};
  for (int i = 0; i < 3; i++)
    if (s && !strcmp(s, names[i])) return *out = (CgFpContract)i, 0;
  return -1;
}

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

/* The host's triple, CPU name and features: queried once per process (the
 * features query walks cpuid for every feature on each call), read-only after. */
static char *host_triple, *host_cpu, *host_features;

static void init_once(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMInitializeNativeAsmParser();
  /* -O3 fully unrolls loops of cost up to 300; for nests of small constant
   * loops (an 8x64 softmax) that makes one basic block of thousands of
   * scalar operations, and x86 instruction selection, superlinear in block
   * size, then takes a quarter of a second for no measurable speed.  -O2's
   * budget is used at -O3 too; schedules ask for unrolling explicitly
   * (sch.unroll), which the lowering honours before LLVM. */
  const char *const argv[] = {"tvs", "-unroll-threshold-aggressive=100"};
  LLVMParseCommandLineOptions(2, argv, NULL);
  char *t = LLVMGetDefaultTargetTriple();
  char *n = LLVMNormalizeTargetTriple(t);
  host_triple = xstrdup(n);
  LLVMDisposeMessage(t);
  LLVMDisposeMessage(n);
  char *c = LLVMGetHostCPUName();
  host_cpu = xstrdup(c);
  LLVMDisposeMessage(c);
  char *f = LLVMGetHostCPUFeatures();
  host_features = xstrdup(f);
  LLVMDisposeMessage(f);
}

void cg_init_llvm(void) { pthread_once(&llvm_once, init_once); }

static bool is_host_cpu(const char *cpu) { return !cpu || !cpu[0] || !strcmp(cpu, "native"); }

void cg_resolve_target(CgResult *r, const CgOptions *opt) {
  cg_init_llvm();
  r->opt = *opt;
  if (r->opt.opt_level < 0) r->opt.opt_level = 0;
  if (r->opt.opt_level > 3) r->opt.opt_level = 3;
  if (opt->triple && opt->triple[0]) {
    r->triple = xstrdup(opt->triple);
  } else {
    r->triple = xstrdup(host_triple);
  }
  if (is_host_cpu(opt->mcpu)) {
    const char *feat = host_features;
    r->cpu = xstrdup(host_cpu);
    if (!opt->mattr) r->features = xstrdup(feat);
    else if (opt->mattr[0] == '+' || opt->mattr[0] == '-')
      r->features = feat[0] ? xasprintf("%s,%s", feat, opt->mattr) : xstrdup(opt->mattr);
    else r->features = xstrdup(opt->mattr);
  } else {
    r->cpu = xstrdup(opt->mcpu);
    r->features = xstrdup(opt->mattr ? opt->mattr : "");
  }
  r->opt.mcpu = r->cpu;
  r->opt.mattr = r->features;
  r->opt.triple = r->triple;
}

static LLVMCodeGenOptLevel cg_level(int l) {
  switch (l) {
    case 0: return LLVMCodeGenLevelNone;
    case 1: return LLVMCodeGenLevelLess;
    case 2: return LLVMCodeGenLevelDefault;
    default: return LLVMCodeGenLevelAggressive;
  }
}

LLVMTargetMachineRef cg_target_machine(CgResult *r, LLVMRelocMode reloc, LLVMCodeModel cm, DiagCtx *diag) {
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(r->triple, &target, &err)) {
    diag_error(diag, span_none, "codegen: unknown target triple '%s': %s", r->triple, err ? err : "?");
    LLVMDisposeMessage(err);
    return NULL;
  }
  return LLVMCreateTargetMachine(target, r->triple, r->cpu, r->features, cg_level(r->opt.opt_level),
                                 reloc, cm);
}

LLVMModuleRef cg_optimized(CgResult *r, DiagCtx *diag) {
  if (r->opt_mod) return r->opt_mod;
  LLVMTargetMachineRef tm = cg_target_machine(r, LLVMRelocPIC, LLVMCodeModelDefault, diag);
  if (!tm) return NULL;
  LLVMModuleRef m = LLVMCloneModule(r->mod);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  bool on = r->opt.opt_level >= 2;
  LLVMPassBuilderOptionsSetLoopVectorization(po, on);
  LLVMPassBuilderOptionsSetSLPVectorization(po, on);
  LLVMPassBuilderOptionsSetLoopUnrolling(po, r->opt.opt_level >= 1);
  LLVMPassBuilderOptionsSetLoopInterleaving(po, on);
  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%d>", r->opt.opt_level);
  LLVMErrorRef e = LLVMRunPasses(m, pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  LLVMDisposeTargetMachine(tm);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    diag_error(diag, span_none, "codegen: LLVM optimization failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
    LLVMDisposeModule(m);
    return NULL;
  }
  r->opt_mod = m;
  return m;
}

int cg_optimize(CgResult *r, DiagCtx *diag) { return r && cg_optimized(r, diag) ? 0 : -1; }

char *cg_emit_llvm(CgResult *r, bool optimized) {
  if (!r) return NULL;
  LLVMModuleRef m = r->mod;
  if (optimized) {
    DiagCtx d;
    diag_init(&d, NULL);
    d.out = NULL;
    m = cg_optimized(r, &d);
    diag_free(&d);
    if (!m) return NULL;
  }
  char *s = LLVMPrintModuleToString(m);
  char *out = xstrdup(s);
  LLVMDisposeMessage(s);
  return out;
}

/* Emits the optimized module as `ft` into a memory buffer. */
static LLVMMemoryBufferRef emit(CgResult *r, LLVMCodeGenFileType ft, DiagCtx *diag) {
  LLVMModuleRef m = cg_optimized(r, diag);
  if (!m) return NULL;
  LLVMTargetMachineRef tm = cg_target_machine(r, LLVMRelocPIC, LLVMCodeModelDefault, diag);
  if (!tm) return NULL;
  /* codegen may modify the module: emit from a clone */
  LLVMModuleRef c = LLVMCloneModule(m);
  char *err = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, c, ft, &err, &buf)) {
    diag_error(diag, span_none, "codegen: LLVM code generation failed: %s", err ? err : "?");
    LLVMDisposeMessage(err);
    buf = NULL;
  }
  LLVMDisposeModule(c);
  LLVMDisposeTargetMachine(tm);
  return buf;
}

char *cg_emit_asm(CgResult *r, DiagCtx *diag) {
  if (!r) return NULL;
  LLVMMemoryBufferRef buf = emit(r, LLVMAssemblyFile, diag);
  if (!buf) return NULL;
  char *s = xstrndup(LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
  LLVMDisposeMemoryBuffer(buf);
  return s;
}

int cg_emit_object(CgResult *r, const char *path, DiagCtx *diag) {
  if (!r || !path) return -1;
  LLVMMemoryBufferRef buf = emit(r, LLVMObjectFile, diag);
  if (!buf) return -1;
  const void *parts[1] = {LLVMGetBufferStart(buf)};
  size_t sizes[1] = {LLVMGetBufferSize(buf)};
  char err[512];
  int rc = tvs_write_file_atomic(path, parts, sizes, 1, err, sizeof err);
  LLVMDisposeMemoryBuffer(buf);
  if (rc) diag_error(diag, span_none, "codegen: %s", err);
  return rc;
}

void cg_free(CgResult *r) {
  if (!r) return;
  if (r->opt_mod) LLVMDisposeModule(r->opt_mod);
  if (r->mod) LLVMDisposeModule(r->mod);
  if (r->tsctx) LLVMOrcDisposeThreadSafeContext(r->tsctx);
  free(r->triple);
  free(r->cpu);
  free(r->features);
  free(r);
}
