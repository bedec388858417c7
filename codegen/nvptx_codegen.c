/* nvptx_codegen.c - the CUDA backend: the kernels of a GPU-lowered module as
 * PTX through LLVM's NVPTX backend (C API, triple nvptx64-nvidia-cuda).
 *
 * Bodies go through the CPU backend's statement and expression code; this
 * file lowers what differs on the device (the CgModule.device_stmt hook):
 * thread-bound loops read %tid / %ctaid (llvm.nvvm.read.ptx.sreg.*), shared
 * allocations are addrspace(3) globals, the barrier of thread-storage-sync is
 * llvm.nvvm.barrier0, asserts are dropped.  Kernels are marked in
 * !nvvm.annotations ("kernel", and "maxntid{x,y,z}": launch bounds).  Math
 * that NVPTX does not select (exp, log, sin, pow...) is renamed to
 * libdevice's __nv_* functions and libdevice is linked when the CUDA
 * toolkit's libdevice.10.bc is found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "base/util.h"
#include "codegen/cg_internal.h"
#include "codegen/gpu_codegen.h"
#include "ir/transform.h"
#include "ir/visit.h"

#define NVPTX_TRIPLE "nvptx64-nvidia-cuda"
#define NVPTX_FEATURES "+ptx75"

/* ------------------------------------------------------ device statements */

static LLVMValueRef nvvm_call(CgFn *f, const char *name, LLVMTypeRef ret) {
  LLVMValueRef fn = cg_runtime_fn(f->m, name, LLVMFunctionType(ret, NULL, 0, 0));
  return LLVMBuildCall2(f->b, LLVMGlobalGetValueType(fn), fn, NULL, 0, "");
}

static void thread_loop(CgFn *f, const TirStmt *s) {
  const char *tag = s->loop.thread_tag;
  char name[64];
  snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%c", !strncmp(tag, "blockIdx.", 9) ? "ctaid" : "tid",
           tag[strlen(tag) - 1]);
  LLVMValueRef id = nvvm_call(f, name, f->m->i32);
  id = cg_convert(f, id, dt_int32, s->loop.var->dtype);
  int mark = f->nvars;
  cg_bind(f, s->loop.var, id);
  arith_push(f->arith);
  arith_bind_range(f->arith, s->loop.var, s->loop.min, s->loop.extent);
  cg_stmt(f, s->loop.body);
  arith_pop(f->arith);
  f->nvars = mark;
}

static void shared_alloc(CgFn *f, const TirStmt *s) {
  CgModule *m = f->m;
  int64_t n = 1;
  for (int i = 0; i < s->alloc.n; i++) {
    int64_t e;
    if (!tir_is_const_int(s->alloc.extents[i], &e)) {
      cg_fail(f, s->span, NULL, "cuda: shared allocation '%s' needs a constant size", s->alloc.var->name);
      return;
    }
    n *= e;
  }
  size_t bytes = (size_t)n * dt_bytes(s->alloc.dtype);
  LLVMTypeRef at = LLVMArrayType(m->i8, (unsigned)(bytes ? bytes : 1));
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(m->mod, at, s->alloc.var->name, 3);
  LLVMSetInitializer(g, LLVMGetUndef(at));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, 16);
  LLVMValueRef p = LLVMBuildAddrSpaceCast(f->b, g, LLVMPointerType(at, 0), "");
  int mark = f->nvars;
  cg_bind(f, s->alloc.var, LLVMBuildBitCast(f->b, p, m->i8p, ""));
  cg_stmt(f, s->alloc.body);
  f->nvars = mark;
}

static bool device_stmt(CgFn *f, const TirStmt *s) {
  switch (s->kind) {
    case TIR_S_FOR:
      if (s->loop.kind != TIR_FOR_THREAD_BINDING) return false;
      thread_loop(f, s);
      return true;
    case TIR_S_ALLOCATE: {
      const char *sc = s->alloc.scope ? s->alloc.scope : "global";
      if (!strcmp(sc, "shared")) {
        shared_alloc(f, s);
        return true;
      }
      int64_t e;
      if (!strcmp(sc, "local") && s->alloc.n == 1 && tir_is_const_int(s->alloc.extents[0], &e)) return false;
      cg_fail(f, s->span, NULL, "cuda: allocation '%s' in scope '%s' inside a kernel (shared, or local of constant "
              "size)", s->alloc.var->name, sc);
      return true;
    }
    case TIR_S_EVAL:
      if (!tir_is_storage_sync(s)) return false;
      nvvm_call(f, "llvm.nvvm.barrier0", f->m->voidt);
      return true;
    case TIR_S_ASSERT: cg_stmt(f, s->assrt.body); return true;
    default: return false;
  }
}

/* ----------------------------------------------------------------- kernels */

static void annotate(CgModule *m, LLVMValueRef fn, const char *key, int v) {
  LLVMMetadataRef ops[3] = {LLVMValueAsMetadata(fn), LLVMMDStringInContext2(m->ctx, key, strlen(key)),
                            LLVMValueAsMetadata(LLVMConstInt(m->i32, (unsigned long long)v, 0))};
  LLVMAddNamedMetadataOperand(m->mod, "nvvm.annotations",
                              LLVMMetadataAsValue(m->ctx, LLVMMDNodeInContext2(m->ctx, ops, 3)));
}

/* maxntid{x,y,z}: the threadIdx extents of the launch, read from the
 * kernel's leading loops (one per thread axis after unify-thread-binding;
 * constant by verify-thread-binding). */
static void launch_bounds(const TirStmt *s, int64_t ext[3]) {
  for (; s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING; s = s->loop.body) {
    int64_t e;
    if (!strncmp(s->loop.thread_tag, "threadIdx.", 10) && tir_is_const_int(s->loop.extent, &e))
      ext[s->loop.thread_tag[10] - 'x'] = e;
  }
}

static void build_kernel(CgModule *m, const char *name, const TirFunc *f) {
  int n = f->nparams;
  LLVMTypeRef *ps = xmalloc((size_t)(n ? n : 1) * sizeof *ps);
  for (int i = 0; i < n; i++) ps[i] = dt_is_handle(f->params[i]->dtype) ? m->i8p : cg_reg_type(m, f->params[i]->dtype);
  LLVMValueRef fn = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->voidt, ps, (unsigned)n, 0));
  free(ps);
  IrHeap *h = ir_heap_new();
  CgFn g;
  cg_fn_init(&g, m, fn, name, h);
  for (int i = 0; i < n; i++) {
    LLVMValueRef p = LLVMGetParam(fn, (unsigned)i);
    LLVMSetValueName2(p, f->params[i]->name, strlen(f->params[i]->name));
    if (dt_is_handle(f->params[i]->dtype)) cg_add_enum_attr(m, fn, i + 1, "noalias", 0);
    cg_bind(&g, f->params[i], p);
  }
  cg_stmt(&g, f->body);
  LLVMBuildRetVoid(g.b);
  cg_fn_done(&g);
  ir_heap_release(h);
  annotate(m, fn, "kernel", 1);
  int64_t ext[3] = {0, 0, 0};
  launch_bounds(f->body, ext);
  static const char *const keys[3] = {"maxntidx", "maxntidy", "maxntidz"};
  if (ext[0] || ext[1] || ext[2])
    for (int i = 0; i < 3; i++) annotate(m, fn, keys[i], ext[i] ? (int)ext[i] : 1);
}

/* --------------------------------------------------------------- libdevice */

/* The libdevice name for a math function the module declares, or NULL. */
static char *libdevice_name(const char *fn) {
  static const char *const via[] = {"exp", "exp2", "log", "log2", "log10", "sin", "cos", "pow", NULL};
  if (!strncmp(fn, "llvm.", 5)) {
    for (int i = 0; via[i]; i++) {
      size_t k = strlen(via[i]);
      if (!strncmp(fn + 5, via[i], k) && fn[5 + k] == '.')
        return xasprintf("__nv_%s%s", via[i], strstr(fn, ".f32") ? "f" : "");
    }
    return NULL;
  }
  return strncmp(fn, "__nv_", 5) ? xasprintf("__nv_%s", fn) : NULL;
}

static const char *libdevice_path(void) {
  const char *env = getenv("TVS_LIBDEVICE");
  static const char *const paths[] = {"/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
                                      "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc",
                                      "/usr/lib/cuda/nvvm/libdevice/libdevice.10.bc"};
  if (env && *env) return env;
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
    FILE *f = fopen(paths[i], "rb");
    if (f) return fclose(f), paths[i];
  }
  return NULL;
}

/* ------------------------------------------------------------ warp shuffles */

/* T.tvm_warp_shuffle_down(mask, value, delta, width, warp_size) and
 * T.tvm_warp_shuffle(mask, value, lane, width, warp_size), which
 * lower-thread-allreduce and lower-warp-memory write as call_externs:
 * defined here as calls of llvm.nvvm.shfl.sync.{down,idx}.{f32,i32}, whose
 * last operand packs the segment ((32 - width) << 8) with the clamp lane 31. */
static void define_warp_shuffle(CgModule *m, const char *name, const char *mode) {
  LLVMValueRef fn = LLVMGetNamedFunction(m->mod, name);
  if (!fn || LLVMCountBasicBlocks(fn) || LLVMCountParams(fn) != 5) return;
  LLVMTypeRef vt = LLVMTypeOf(LLVMGetParam(fn, 1));
  bool f32 = LLVMGetTypeKind(vt) == LLVMFloatTypeKind;
  LLVMTypeRef ps[4] = {m->i32, vt, m->i32, m->i32};
  char intrin[64];
  snprintf(intrin, sizeof intrin, "llvm.nvvm.shfl.sync.%s.%s", mode, f32 ? "f32" : "i32");
  LLVMValueRef shfl = cg_runtime_fn(m, intrin, LLVMFunctionType(vt, ps, 4, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(m->ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(m->ctx, fn, "entry"));
  LLVMValueRef seg = LLVMBuildShl(b, LLVMBuildSub(b, LLVMConstInt(m->i32, 32, 0), LLVMGetParam(fn, 3), ""),
                                  LLVMConstInt(m->i32, 8, 0), "");
  LLVMValueRef c = LLVMBuildOr(b, seg, LLVMConstInt(m->i32, 31, 0), "");
  LLVMValueRef args[4] = {LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), LLVMGetParam(fn, 2), c};
  LLVMBuildRet(b, LLVMBuildCall2(b, LLVMGlobalGetValueType(shfl), shfl, args, 4, ""));
  LLVMDisposeBuilder(b);
}

/* Renames the math declarations to libdevice's and links it (internalized).
 * 0, or -1 + diag when a function is left that the device cannot call. */
static int link_libdevice(CgModule *m, DiagCtx *diag) {
  PtrVec olds = {0}, news = {0};
  for (LLVMValueRef fn = LLVMGetFirstFunction(m->mod); fn; fn = LLVMGetNextFunction(fn)) {
    size_t len;
    const char *nm = LLVMGetValueName2(fn, &len);
    if (LLVMCountBasicBlocks(fn) || !strncmp(nm, "llvm.nvvm.", 10)) continue;
    char *nv = libdevice_name(nm);
    if (nv) pv_push(&olds, fn), pv_push(&news, nv);
  }
  int rc = 0;
  if (olds.len) {
    const char *path = libdevice_path();
    LLVMMemoryBufferRef buf = NULL;
    char *msg = NULL;
    LLVMModuleRef lib = NULL;
    if (!path || LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg) ||
        LLVMParseBitcodeInContext2(m->ctx, buf, &lib)) {
      diag_error(diag, span_none, "cuda: math functions need libdevice.10.bc (CUDA toolkit; or set TVS_LIBDEVICE)%s%s",
                 msg ? ": " : "", msg ? msg : "");
      rc = -1;
    }
    LLVMDisposeMessage(msg);
    if (buf) LLVMDisposeMemoryBuffer(buf);
    for (int i = 0; !rc && i < olds.len; i++) {
      LLVMValueRef old = olds.items[i];
      if (!LLVMGetNamedFunction(lib, news.items[i])) {
        diag_error(diag, span_none, "cuda: no device function for '%s'", LLVMGetValueName2(old, &(size_t){0}));
        rc = -1;
        break;
      }
      LLVMValueRef nf = LLVMGetNamedFunction(m->mod, news.items[i]);
      if (!nf) nf = LLVMAddFunction(m->mod, news.items[i], LLVMGlobalGetValueType(old));
      LLVMReplaceAllUsesWith(old, nf);
      LLVMDeleteFunction(old);
    }
    if (!rc) {
      LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m->mod));
      LLVMSetTarget(lib, NVPTX_TRIPLE);
      PtrVec kernels = {0};
      for (LLVMValueRef fn = LLVMGetFirstFunction(m->mod); fn; fn = LLVMGetNextFunction(fn))
        if (LLVMCountBasicBlocks(fn)) pv_push(&kernels, fn);
      rc = LLVMLinkModules2(m->mod, lib) ? -1 : 0; /* consumes lib */
      if (rc) diag_error(diag, span_none, "cuda: linking libdevice failed");
      /* what libdevice brought is internal: the optimizer drops the unused */
      for (LLVMValueRef fn = LLVMGetFirstFunction(m->mod); fn && !rc; fn = LLVMGetNextFunction(fn)) {
        bool kernel = false;
        for (int k = 0; k < kernels.len && !kernel; k++) kernel = kernels.items[k] == fn;
        if (!kernel && LLVMCountBasicBlocks(fn)) LLVMSetLinkage(fn, LLVMInternalLinkage);
      }
      pv_free(&kernels);
    } else if (lib) {
      LLVMDisposeModule(lib);
    }
  }
  for (int i = 0; i < news.len; i++) free(news.items[i]);
  pv_free(&olds);
  pv_free(&news);
  return rc;
}

/* ---------------------------------------------------------------- the module */

static LLVMTargetMachineRef nvptx_machine(const char *sm, int opt_level, DiagCtx *diag) {
  static bool init;
  if (!init) {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    init = true;
  }
  LLVMTargetRef t;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(NVPTX_TRIPLE, &t, &err)) {
    diag_error(diag, span_none, "cuda: this LLVM has no NVPTX backend: %s", err ? err : "");
    LLVMDisposeMessage(err);
    return NULL;
  }
  if (strncmp(sm, "sm_", 3) || atoi(sm + 3) < 30 || atoi(sm + 3) > 86) {
    diag_error(diag, span_none, "cuda: unknown --mcpu '%s' (sm_30 .. sm_86, default sm_80)", sm);
    return NULL;
  }
  LLVMCodeGenOptLevel lv = opt_level <= 0 ? LLVMCodeGenLevelNone : opt_level >= 3 ? LLVMCodeGenLevelAggressive
                                                                                   : LLVMCodeGenLevelDefault;
  return LLVMCreateTargetMachine(t, NVPTX_TRIPLE, sm, NVPTX_FEATURES, lv, LLVMRelocDefault, LLVMCodeModelDefault);
}

static char *emit(LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level, bool llvm_ir, DiagCtx *diag) {
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%d>", opt_level < 0 ? 0 : opt_level > 3 ? 3 : opt_level);
  LLVMErrorRef e = LLVMRunPasses(mod, pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    diag_error(diag, span_none, "cuda: LLVM optimization failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return NULL;
  }
  if (llvm_ir) {
    char *s = LLVMPrintModuleToString(mod);
    char *r = xstrdup(s);
    LLVMDisposeMessage(s);
    return r;
  }
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &err, &buf)) {
    diag_error(diag, span_none, "cuda: PTX emission failed: %s", err ? err : "?");
    LLVMDisposeMessage(err);
    return NULL;
  }
  char *r = xstrndup(LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
  LLVMDisposeMemoryBuffer(buf);
  return r;
}

/* Lists the shared-memory globals in llvm.compiler.used.  LLVM's GlobalsAA
 * takes an internal global whose address never escapes to be out of reach
 * of every intrinsic, llvm.nvvm.barrier0 included, and GVN then moved a
 * load of shared memory written by another thread above the barrier (a
 * cross-thread reduction read a stale red_result on an H200).  A use in
 * llvm.compiler.used counts as an escape; the PTX is otherwise unchanged. */
static void keep_shared_globals_visible(CgModule *m) {
  int n = 0, cap = 8;
  LLVMValueRef *used = xmalloc((size_t)cap * sizeof *used);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m->mod); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 3 || LLVMIsDeclaration(g)) continue;
    if (n == cap) used = xrealloc(used, (size_t)(cap *= 2) * sizeof *used);
    used[n++] = LLVMConstAddrSpaceCast(g, m->i8p);
  }
  if (n) {
    LLVMValueRef init = LLVMConstArray(m->i8p, used, (unsigned)n);
    LLVMValueRef u = LLVMAddGlobal(m->mod, LLVMTypeOf(init), "llvm.compiler.used");
    LLVMSetInitializer(u, init);
    LLVMSetLinkage(u, LLVMAppendingLinkage);
    LLVMSetSection(u, "llvm.metadata");
  }
  free(used);
}

char *cg_nvptx_source(const IrModule *low, const char *sm, int opt_level, bool llvm_ir, DiagCtx *diag) {
  if (!sm) sm = "sm_80";
  LLVMTargetMachineRef tm = nvptx_machine(sm, opt_level, diag);
  if (!tm) return NULL;
  CgOptions opt = cg_options_default();
  CgModule m;
  memset(&m, 0, sizeof m);
  m.ctx = LLVMContextCreate();
  m.mod = LLVMModuleCreateWithNameInContext(low->name ? low->name : "tvs", m.ctx);
  LLVMSetTarget(m.mod, NVPTX_TRIPLE);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m.mod, td);
  LLVMDisposeTargetData(td);
  m.diag = diag;
  m.opt = &opt;
  m.cpu = sm;
  m.features = NVPTX_FEATURES;
  m.i1 = LLVMInt1TypeInContext(m.ctx);
  m.i8 = LLVMInt8TypeInContext(m.ctx);
  m.i16 = LLVMInt16TypeInContext(m.ctx);
  m.i32 = LLVMInt32TypeInContext(m.ctx);
  m.i64 = LLVMInt64TypeInContext(m.ctx);
  m.f16 = LLVMHalfTypeInContext(m.ctx);
  m.f32 = LLVMFloatTypeInContext(m.ctx);
  m.f64 = LLVMDoubleTypeInContext(m.ctx);
  m.i8p = LLVMPointerType(m.i8, 0);
  m.voidt = LLVMVoidTypeInContext(m.ctx);
  m.device_stmt = device_stmt;
  int nerr0 = diag->nerr;
  for (int i = 0; i < low->nfuncs && diag->nerr == nerr0; i++)
    if (cg_gpu_is_kernel(&low->funcs[i])) build_kernel(&m, low->funcs[i].name, low->funcs[i].tir);
  char *out = NULL, *msg = NULL;
  if (diag->nerr == nerr0 && LLVMVerifyModule(m.mod, LLVMReturnStatusAction, &msg)) {
    diag_error(diag, span_none, "cuda: internal error: invalid LLVM IR: %s", msg ? msg : "?");
  }
  LLVMDisposeMessage(msg);
  keep_shared_globals_visible(&m);
  define_warp_shuffle(&m, "tvm_warp_shuffle_down", "down");
  define_warp_shuffle(&m, "tvm_warp_shuffle", "idx");
  if (diag->nerr == nerr0 && link_libdevice(&m, diag) == 0) out = emit(m.mod, tm, opt_level, llvm_ir, diag);
  LLVMDisposeModule(m.mod);
  LLVMContextDispose(m.ctx);
  LLVMDisposeTargetMachine(tm);
  return out;
}
