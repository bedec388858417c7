/* jit.c - ORC LLJIT sessions behind the runtime's module interface.
 *
 * One LLJIT per compiled module, targeting the same CPU and features as the
 * optimizer.  The runtime functions generated code calls are registered as
 * absolute symbols (robust whether or not the executable exports them);
 * anything else (libm) is resolved from the process. */
#include "codegen/cg_internal.h"

#include <llvm-c/LLJIT.h>
#include <stdlib.h>
#include <string.h>

#include "ir/transform.h"
#include "base/util.h"

/* One JIT session: what tvs_module_from_symbols' lookup callback reads. */
typedef struct CgJit {
  LLVMOrcLLJITRef jit; /* the session (owns the compiled code) */
} CgJit;

static void *jit_lookup(void *ctx, const char *symbol) {
  CgJit *j = ctx;
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(j->jit, &addr, symbol);
  if (e) {
    LLVMConsumeError(e);
    return NULL;
  }
  return (void *)(uintptr_t)addr;
}

static void jit_destroy(void *ctx) {
  CgJit *j = ctx;
  if (j->jit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->jit);
    if (e) LLVMConsumeError(e);
  }
  free(j);
}

/* The runtime entry points generated code may call. */
#define RT_SYM(name) {#name, (void (*)(void))name}
static const struct {
  const char *name;
  void (*addr)(void);
} runtime_syms[] = {
    RT_SYM(tvs_check_num_args),    RT_SYM(tvs_check_scalar_arg),
    RT_SYM(tvs_check_tensor_arg),  RT_SYM(tvs_bind_dim),
    RT_SYM(tvs_set_last_error),    RT_SYM(tvs_set_last_error_str),
    RT_SYM(tvs_parallel_launch),   RT_SYM(tvs_backend_alloc_workspace),
    RT_SYM(tvs_backend_free_workspace), RT_SYM(tvs_backend_get_func_from_env),
    RT_SYM(tvs_func_call),         RT_SYM(tvs_out_of_bounds_message),
    RT_SYM(tvs_division_by_zero_message),
    {"__gnu_h2f_ieee", (void (*)(void))cg_rt_h2f}, {"__extendhfsf2", (void (*)(void))cg_rt_h2f},
    {"__gnu_f2h_ieee", (void (*)(void))cg_rt_f2h}, {"__truncsfhf2", (void (*)(void))cg_rt_f2h},
};
#undef RT_SYM

static bool jit_error(DiagCtx *diag, LLVMErrorRef e, const char *what) {
  if (!e) return false;
  char *msg = LLVMGetErrorMessage(e);
  diag_error(diag, span_none, "codegen: JIT: %s: %s", what, msg);
  LLVMDisposeErrorMessage(msg);
  return true;
}

static int define_runtime_syms(LLVMOrcLLJITRef jit, LLVMOrcJITDylibRef jd, DiagCtx *diag) {
  size_t n = sizeof runtime_syms / sizeof runtime_syms[0];
  LLVMJITCSymbolMapPair *pairs = xcalloc(n, sizeof *pairs);
  for (size_t i = 0; i < n; i++) {
    pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, runtime_syms[i].name);
    uintptr_t a;
    memcpy(&a, &runtime_syms[i].addr, sizeof a);
    pairs[i].Sym.Address = (LLVMOrcExecutorAddress)a;
    pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    pairs[i].Sym.Flags.TargetFlags = 0;
  }
  LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n);
  free(pairs);
  LLVMErrorRef e = LLVMOrcJITDylibDefine(jd, mu);
  if (e) {
    LLVMOrcDisposeMaterializationUnit(mu);
    jit_error(diag, e, "defining runtime symbols");
    return -1;
  }
  return 0;
}

TVSModule *cg_jit(CgResult *r, DiagCtx *diag) {
  if (!r) return NULL;
  LLVMModuleRef opt = cg_optimized(r, diag);
  if (!opt) return NULL;
  LLVMTargetMachineRef tm = cg_target_machine(r, LLVMRelocDefault, LLVMCodeModelJITDefault, diag);
  if (!tm) return NULL;
  LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm);
  LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, jtmb);
  CgJit *j = xcalloc(1, sizeof *j);
  if (jit_error(diag, LLVMOrcCreateLLJIT(&j->jit, jb), "cannot create the JIT")) {
    j->jit = NULL;
    jit_destroy(j);
    return NULL;
  }
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(j->jit);
  if (define_runtime_syms(j->jit, jd, diag)) {
    jit_destroy(j);
    return NULL;
  }
  LLVMOrcDefinitionGeneratorRef gen = NULL;
  if (jit_error(diag, LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                          &gen, LLVMOrcLLJITGetGlobalPrefix(j->jit), NULL, NULL),
                "process symbols")) {
    jit_destroy(j);
    return NULL;
  }
  LLVMOrcJITDylibAddGenerator(jd, gen);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(LLVMCloneModule(opt), r->tsctx);
  LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModule(j->jit, jd, tsm);
  if (e) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    jit_error(diag, e, "adding the module");
    jit_destroy(j);
    return NULL;
  }
  /* compile now, so that errors surface here rather than at the first call */
  LLVMOrcExecutorAddress addr;
  e = LLVMOrcLLJITLookup(j->jit, &addr, "__tvs_metadata");
  if (jit_error(diag, e, "compiling the module")) {
    jit_destroy(j);
    return NULL;
  }
  TVSModule *mod = tvs_module_from_symbols("jit", jit_lookup, j, jit_destroy);
  if (!mod) diag_error(diag, span_none, "codegen: JIT: %s", tvs_get_last_error());
  return mod;
}

TVSModule *cg_compile_module(const IrModule *m, const CgOptions *opt, DiagCtx *diag) {
  if (!m) return NULL;
  TirPassConfig cfg = {opt && opt->bounds_check};
  IrModule *low = tir_lower_with(m, -1, &cfg, diag, NULL, NULL);
  if (!low) return NULL;
  CgResult *r = cg_build(low, opt, diag);
  ir_module_free(low);
  if (!r) return NULL;
  TVSModule *mod = cg_jit(r, diag);
  cg_free(r);
  return mod;
}
