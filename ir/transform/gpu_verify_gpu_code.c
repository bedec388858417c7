/* gpu_verify_gpu_code.c - VerifyGPUCode's memory rules on the lowered IR: the
 * shared memory a kernel allocates (the "shared" Allocates under one
 * blockIdx nest) fits the device's 48 KiB per block, and the local memory of
 * each thread (the "local" Allocates, registers or the thread's stack) at
 * most 64 KiB (TVM's max_local_memory_per_block check; many virtual threads
 * of large register tiles get there).  Errors only; checked before any code
 * is generated. */
#include "ir/transform/xform_internal.h"

#include <string.h>

#define GPU_MAX_SHARED_BYTES 49152
#define GPU_MAX_LOCAL_BYTES 65536

typedef struct Shared {
  const char *scope; /* "shared" or "local" */
  int64_t limit;
  int64_t bytes;     /* bytes allocated so far */
  bool symbolic;     /* an extent that is not a constant */
  const TirStmt *at; /* the allocation that went over (or the symbolic one) */
} Shared;

static bool count_pre(TirVisitor *v, const TirStmt *s) {
  Shared *sh = v->ctx;
  if (s->kind != TIR_S_ALLOCATE || !s->alloc.scope || strcmp(s->alloc.scope, sh->scope)) return true;
  int64_t n = (int64_t)dt_bytes(s->alloc.dtype);
  for (int i = 0; i < s->alloc.n; i++) {
    int64_t e;
    if (!tir_is_const_int(s->alloc.extents[i], &e)) {
      sh->symbolic = true;
      sh->at = s;
      return true;
    }
    n *= e;
  }
  sh->bytes += n;
  if (sh->bytes > sh->limit && !sh->at) sh->at = s;
  return true;
}

static bool kernel_pre(TirVisitor *v, const TirStmt *s) {
  TirPassCtx *ctx = v->ctx;
  if (s->kind != TIR_S_FOR || s->loop.kind != TIR_FOR_THREAD_BINDING) return true;
  Shared sh = {"shared", GPU_MAX_SHARED_BYTES, 0, false, NULL};
  TirVisitor cv = {.pre_stmt = count_pre, .ctx = &sh};
  tir_visit_stmt(&cv, s);
  if (sh.symbolic)
    diag_error(ctx->diag, sh.at->span, "shared allocation '%s' of '%s' has a symbolic size: shared memory is sized "
               "when the kernel is compiled", sh.at->alloc.var->name, ctx->func_name);
  else if (sh.at)
    diag_error(ctx->diag, sh.at->span,
               "kernel of '%s' allocates %lld bytes of shared memory: the device allows at most %d per block",
               ctx->func_name, (long long)sh.bytes, GPU_MAX_SHARED_BYTES);
  Shared lo = {"local", GPU_MAX_LOCAL_BYTES, 0, false, NULL};
  cv.ctx = &lo;
  tir_visit_stmt(&cv, s);
  if (lo.at && !lo.symbolic)
    diag_error(ctx->diag, lo.at->span,
               "kernel of '%s' allocates %lld bytes of local memory per thread: at most %d (fewer virtual threads "
               "or smaller register tiles)", ctx->func_name, (long long)lo.bytes, GPU_MAX_LOCAL_BYTES);
  if (sh.at || (lo.at && !lo.symbolic)) v->stop = true;
  return false;
}

/* requires: lowered (after lower-opaque-block); ensures: nothing changes. */
TirFunc *tir_verify_gpu_code(TirPassCtx *ctx, TirFunc *f) {
  TirVisitor v = {.pre_stmt = kernel_pre, .ctx = ctx};
  tir_visit_stmt(&v, f->body);
  return f;
}
