/* pipeline.c - the CPU lowering pipeline as one visible, ordered table, and the
 * driver that runs it pass by pass (each pass = one named, printable stage).
 * Order follows TVM v0.23's default_tir_pipeline (reference/lowering.md
 * section 2); GPU-only and config-gated passes keep their slots as comments. */
#include "ir/transform/xform_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/verify.h"

static const TirPass cpu_pipeline[] = {
    {"canonicalize-loop", tir_canonicalize_loop,
     "loops start at 0 with step 1: range(a, b, s) becomes range(ceildiv(b - a, s)), i -> i * s + a"},
    /* (GPU) lower-cross-thread-reduction */
    {"lower-init-block", tir_lower_init_block,
     "a block's T.init() becomes `if (reduce iters at their minimum): init` before the body"},
    {"plan-and-update-buffer-allocation-location", tir_plan_buffer_allocation,
     "move each alloc_buffer to the lowest common ancestor of its uses (an opaque block)"},
    {"convert-blocks-to-opaque", tir_convert_blocks_to_opaque,
     "substitute block iter vars by their bindings; drop iter vars"},
    /* (GPU) lift-thread-binding, manifest-shared-memory-local-stage */
    {"compact-buffer-allocation", tir_compact_buffer_allocation,
     "shrink each allocated buffer to the region accessed and shift its indices"},
    /* (GPU) lower-auto-copy, unify-thread-binding */
    {"lower-match-buffer", tir_lower_match_buffer,
     "rewrite accesses to block-level match_buffer views onto their source buffers"},
    {"simplify", tir_simplify, "arithmetic simplification of every expression; drop `if True`"},
    /* (GPU) inject-permuted-layout; annotate-irregular-loop and
     * inject-software-pipeline (no-ops without break/continue or pipeline
     * annotations); (GPU) transform-mma-buffer-layout */
    {"lower-opaque-block", tir_lower_opaque_block,
     "remove all blocks: alloc_buffers become Allocate+DeclBuffer, T.where becomes if"},
    {"flatten-buffer", tir_flatten_buffer,
     "multi-dimensional buffer accesses become 1-D accesses (strides, elem_offset)"},
    /* bf16-compute-legalize, narrow-data-type(32), loop-partition: not yet */
    {"vectorize-loop", tir_vectorize_loop,
     "vectorized loops become Ramp/Broadcast vector code (or serial loops, with a warning)"},
    /* (GPU) inject-virtual-thread; inject-double-buffer (no annotations yet) */
    {"storage-rewrite", tir_storage_rewrite,
     "reuse an allocation for a later one of the same size/dtype/scope whose lifetime is disjoint"},
    /* hoist-if-then-else: not yet */
    {"unroll-loop", tir_unroll_loop, "unrolled loops of constant extent become copies of the body"},
    /* renormalize-split-pattern: not yet */
    {"simplify-2", tir_simplify, "simplify again, after vectorize/unroll"},
    {"remove-no-op", tir_remove_no_op,
     "delete statements without effect: empty loops, evaluate(0), empty ifs"},
    /* rewrite-unsafe-select: not yet */
    {"instrument-bound-checkers", tir_instrument_bound_checkers,
     "(--bounds-check) assert every buffer index is inside its buffer and every integer divisor is not 0"},
    /* common-subexpr-elim, annotate-entry-func,
     * (GPU) thread-sync..., split-host-device (no device regions on CPU) */
    {"make-packed-api", tir_make_packed_api,
     "annotate the packed calling convention and the symbolic vars the entry binds"},
};

/* The GPU pipeline: the same spine, the GPU passes in their TVM slots
 * (docs/gpu.md).  Thread-bound loops stay For loops of kind thread_binding
 * down to codegen (TVM turns them into thread_extent attributes). */
static const TirPass gpu_pipeline[] = {
    {"canonicalize-loop", tir_canonicalize_loop,
     "loops start at 0 with step 1: range(a, b, s) becomes range(ceildiv(b - a, s)), i -> i * s + a"},
    {"lower-cross-thread-reduction", tir_lower_cross_thread_reduction,
     "(GPU) a reduction over a threadIdx loop becomes per-thread partials and a T.tvm_thread_allreduce"},
    {"verify-thread-binding", tir_verify_thread_binding,
     "(GPU) check thread bindings: one extent per thread axis and kernel, reduce iters on threadIdx, block size"},
    {"lower-init-block", tir_lower_init_block,
     "a block's T.init() becomes `if (reduce iters at their minimum): init` before the body"},
    {"plan-and-update-buffer-allocation-location", tir_plan_buffer_allocation,
     "move each alloc_buffer to the lowest common ancestor of its uses (an opaque block)"},
    {"convert-blocks-to-opaque", tir_convert_blocks_to_opaque,
     "substitute block iter vars by their bindings; drop iter vars"},
    {"lift-thread-binding", tir_lift_thread_binding,
     "(GPU) one loop per thread axis and kernel, at the lowest loop around all the loops bound to it"},
    {"compact-buffer-allocation", tir_compact_buffer_allocation,
     "shrink each allocated buffer to the region accessed and shift its indices"},
    {"unify-thread-binding", tir_unify_thread_binding,
     "(GPU) each kernel starts with one launch loop per thread axis (blockIdx_x, threadIdx_x, ...)"},
    {"lower-match-buffer", tir_lower_match_buffer,
     "rewrite accesses to block-level match_buffer views onto their source buffers"},
    {"simplify", tir_simplify, "arithmetic simplification of every expression; drop `if True`"},
    {"lower-opaque-block", tir_lower_opaque_block,
     "remove all blocks: alloc_buffers become Allocate+DeclBuffer, T.where becomes if"},
    {"flatten-buffer", tir_flatten_buffer,
     "multi-dimensional buffer accesses become 1-D accesses (strides, elem_offset)"},
    {"vectorize-loop", tir_vectorize_loop,
     "vectorized loops become Ramp/Broadcast vector code (or serial loops, with a warning)"},
    {"inject-virtual-thread", tir_inject_virtual_thread,
     "(GPU) vthread loops disappear: what depends on the virtual thread is repeated per vthread, the rest shared"},
    {"storage-rewrite", tir_storage_rewrite,
     "reuse an allocation for a later one of the same size/dtype/scope whose lifetime is disjoint"},
    {"unroll-loop", tir_unroll_loop, "unrolled loops of constant extent become copies of the body"},
    {"simplify-2", tir_simplify, "simplify again, after vectorize/unroll"},
    {"remove-no-op", tir_remove_no_op,
     "delete statements without effect: empty loops, evaluate(0), empty ifs"},
    {"lower-warp-memory", tir_lower_warp_memory,
     "(GPU) a \"warp\" buffer: one part per lane read through warp shuffles (CUDA), shared memory per warp (OpenCL)"},
    {"verify-gpu-code", tir_verify_gpu_code,
     "(GPU) shared memory per block and threads per block within the device limits"},
    {"thread-storage-sync", tir_thread_storage_sync,
     "(GPU) T.tvm_storage_sync(\"shared\") where threads read shared memory other threads wrote"},
    {"lower-thread-allreduce", tir_lower_thread_allreduce,
     "(GPU) T.tvm_thread_allreduce becomes warp shuffles (CUDA, whole warps) or a shared-memory tree"},
    {"split-host-device", NULL,
     "(GPU) each thread-bound loop nest becomes a kernel; the host function launches it"},
    {"make-packed-api", tir_make_packed_api,
     "annotate the packed calling convention and the symbolic vars the entry binds"},
};

const TirPass *tir_gpu_pipeline(int *n) {
  *n = (int)(sizeof gpu_pipeline / sizeof gpu_pipeline[0]);
  return gpu_pipeline;
}

int tir_gpu_pipeline_index(const char *name) {
  int n;
  const TirPass *p = tir_gpu_pipeline(&n);
  for (int i = 0; i < n; i++)
    if (!strcmp(p[i].name, name)) return i;
  return -1;
}

bool tir_is_gpu_target(const char *target) {
  return target && (!strcmp(target, "cuda") || !strcmp(target, "opencl"));
}

const TirPass *tir_cpu_pipeline(int *n) {
  *n = (int)(sizeof cpu_pipeline / sizeof cpu_pipeline[0]);
  return cpu_pipeline;
}

int tir_pipeline_index(const char *name) {
  int n;
  const TirPass *p = tir_cpu_pipeline(&n);
  for (int i = 0; i < n; i++)
    if (!strcmp(p[i].name, name)) return i;
  return -1;
}

/* The passes that map a module to a module (rows with fn == NULL). */
static const struct {
  const char *name;
  TirModulePassFn fn;
} module_passes[] = {
    {"split-host-device", tir_split_host_device},
};

/* One pass for target (NULL: the CPU pipeline; the GPU passes read it). */
static IrModule *run_pass(const IrModule *m, const TirPass *p, const char *target, const TirPassConfig *cfg,
                          DiagCtx *diag, bool *changed) {
  for (size_t i = 0; !p->fn && i < sizeof module_passes / sizeof module_passes[0]; i++)
    if (!strcmp(module_passes[i].name, p->name)) return module_passes[i].fn(m, target, diag, changed);
  IrModule *out = ir_module_derive(m);
  bool ch = false;
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind != IR_FUNC_TIR) {
      ir_module_add_relax(out, g->name, g->rx);
      continue;
    }
    TirPassCtx ctx = {out->heap, diag, g->name, target, cfg};
    TirFunc *nf = p->fn(&ctx, g->tir);
    if (nf != g->tir) ch = true;
    ir_module_add_tir(out, g->name, nf);
  }
  if (changed) *changed = ch;
  return out;
}

IrModule *tir_run_pass(const IrModule *m, const TirPass *p, DiagCtx *diag, bool *changed) {
  return run_pass(m, p, NULL, NULL, diag, changed);
}

bool tir_verify_passes_enabled(void) {
#ifdef TVS_VERIFY_PASSES
  return true;
#else
  const char *env = getenv("TVS_VERIFY_PASSES");
  return env && !strcmp(env, "1");
#endif
}

/* Reports the first ill-formed prim_func of m (an internal error naming the
 * pass that produced it); false when there is one. */
static bool verify_after(const IrModule *m, const TirPass *p, DiagCtx *diag) {
  bool ok = true;
  StrBuf why;
  sb_init(&why);
  for (int i = 0; i < m->nfuncs && ok; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind != IR_FUNC_TIR || tir_verify_func(g->tir, &why)) continue;
    ok = false;
    if (diag)
      diag_error(diag, g->tir->span, "internal error: lowering pass '%s' produced ill-formed IR in '%s': %s", p->name,
                 g->name, why.data);
    else
      fprintf(stderr, "internal error: lowering pass '%s' produced ill-formed IR in '%s': %s\n", p->name, g->name,
              why.data);
  }
  sb_free(&why);
  return ok;
}

static IrModule *run_passes(const IrModule *m, const TirPass *passes, int n, bool verify, const char *target,
                            const TirPassConfig *cfg, DiagCtx *diag, TirAfterPassFn after, void *user) {
  IrModule *cur = ir_module_copy(m);
  int nerr0 = diag ? diag->nerr : 0;
  for (int i = 0; i < n; i++) {
    bool changed;
    IrModule *next = run_pass(cur, &passes[i], target, cfg, diag, &changed);
    ir_module_free(cur);
    cur = next;
    if (after) after(user, &passes[i], cur, changed);
    if ((diag && diag->nerr > nerr0) || (verify && !verify_after(cur, &passes[i], diag))) {
      ir_module_free(cur);
      return NULL;
    }
  }
  return cur;
}

IrModule *tir_run_passes(const IrModule *m, const TirPass *passes, int n, bool verify, DiagCtx *diag,
                         TirAfterPassFn after, void *user) {
  return run_passes(m, passes, n, verify, NULL, NULL, diag, after, user);
}

IrModule *tir_lower_with(const IrModule *m, int last, const TirPassConfig *cfg, DiagCtx *diag,
                         TirAfterPassFn after, void *user) {
  int n;
  const TirPass *passes = tir_cpu_pipeline(&n);
  if (last < 0 || last >= n) last = n - 1;
  return run_passes(m, passes, last + 1, tir_verify_passes_enabled(), NULL, cfg, diag, after, user);
}

IrModule *tir_lower(const IrModule *m, int last, DiagCtx *diag, TirAfterPassFn after, void *user) {
  return tir_lower_with(m, last, NULL, diag, after, user);
}

IrModule *tir_lower_gpu(const IrModule *m, const char *target, int last, DiagCtx *diag, TirAfterPassFn after,
                        void *user) {
  int n;
  const TirPass *passes = tir_gpu_pipeline(&n);
  if (last < 0 || last >= n) last = n - 1;
  return run_passes(m, passes, last + 1, tir_verify_passes_enabled(), target, NULL, diag, after, user);
}
