/* codegen.h - the LLVM CPU backend: lowered loop IR -> LLVM IR -> machine code.
 *
 * cg_build turns a lowered module (tir_lower's output: block-free, flat
 * buffers, Ramp/Broadcast vectors) into one LLVM module; the result can be
 * printed (LLVM IR before/after optimization, assembly), written as an object
 * file, or JIT-compiled into a TVSModule (ORC LLJIT).  Uses LLVM's C API only. */
#ifndef TVS_CODEGEN_CODEGEN_H
#define TVS_CODEGEN_CODEGEN_H

#include <stdbool.h>

#include "ir/module.h"
#include "base/diag.h"
#include "runtime/tvs_runtime.h"

/* Floating-point contraction, like clang's -ffp-contract.  FAST is the
 * default (TVM's LLVM backend contracts by default): a * b + c within one
 * expression becomes llvm.fmuladd, one rounding on CPUs with FMA.  ON does the
 * same (the LLVM C API has no per-instruction flags for contraction across
 * statements, and lowered TIR keeps a multiply-accumulate in one expression).
 * OFF keeps every product rounded, bit-identical to the interpreter. */
typedef enum CgFpContract { CG_FP_CONTRACT_FAST = 0, CG_FP_CONTRACT_ON, CG_FP_CONTRACT_OFF } CgFpContract;

/* "fast"/"on"/"off" -> *out; -1 for anything else. */
int cg_parse_fp_contract(const char *s, CgFpContract *out);

/* How to compile.  Zero-initialized fields mean "the default". */
typedef struct CgOptions {
  int opt_level;      /* 0..3; use cg_options_default() for 3 */
  const char *mcpu;   /* CPU name ("skylake-avx512", "generic"); NULL/"" = the host's */
  const char *mattr;  /* feature string ("+avx512f,-fma"); NULL = the host's features
                         when mcpu is the host, else none; appended to the host's
                         features when it starts with '+'/'-' and mcpu is the host */
  const char *triple; /* target triple; NULL/"" = the host's (the JIT needs the host) */
  bool fast_math;     /* allow reassociation/contraction ("unsafe-fp-math" attrs);
                         off by default: results then match the interpreter */
  CgFpContract fp_contract; /* multiply-add contraction (default FAST) */
  bool graph_funcs;   /* also compile the graph functions (see cg_build); off by
                         default (tvsc and driver/graph_exec.c turn it on) */
  const IrModule *flop_source; /* the module before lowering: each prim_func's
                         static FLOP count goes into the metadata (NULL: -1) */
  bool bounds_check;  /* --bounds-check: lower with instrument-bound-checkers
                         (cg_compile_module; callers lowering themselves pass it on) */
} CgOptions;

/* opt_level 3, host CPU and features, host triple, no fast-math. */
CgOptions cg_options_default(void);

/* Checks that LLVM knows `cpu` and every feature of `features` for `triple`
 * and can generate code with them (a fatal LLVM error, such as
 * -64bit-mode on x86_64, is caught in a forked probe).  cg_build runs it
 * whenever the options name a CPU or features; tvsc runs it for foreign
 * triples.  0, or -1 with "unknown --mcpu CPU ..." or "LLVM cannot generate
 * code ..." errors in d.  Successes are cached per process. */
int cg_check_target(const char *triple, const char *cpu, const char *features, DiagCtx *d);

/* One LLVM module built from a lowered IrModule (opaque). */
typedef struct CgResult CgResult;

/* Builds the LLVM module for every prim_func of `lowered` (graph functions
 * are skipped unless opt->graph_funcs: see below).  Each prim_func NAME gets
 * two external functions:
 *   int32_t NAME(void *A, void *B, ..., int64_t n, ..., scalars...)
 *     the direct entry: one raw data pointer per buffer param (param order),
 *     then the symbolic vars bound from the buffers ("tvs.bind_vars": shape,
 *     stride and elem_offset vars in first-appearance order) as int64_t, then
 *     the scalar params in param order (integers and bool as int64_t, floats
 *     as double, handles as void*); returns 0, or -1 after
 *     tvs_set_last_error (failed T.Assert, workspace allocation failure).
 *   int32_t __tvs_packed_NAME(TVSValue *args, int *type_codes, int num_args,
 *                             TVSValue *ret, int *ret_tcode, void *resource)
 *     the packed entry (TVSPackedCFunc): checks the arguments through the
 *     runtime's tvs_check_* / tvs_bind_dim helpers, then calls NAME.
 * The module also defines __tvs_metadata (TVSModuleMetadata).  Returns NULL
 * with errors in diag for IR it cannot compile. */
CgResult *cg_build(const IrModule *lowered, const CgOptions *opt, DiagCtx *diag);

/* With opt->graph_funcs, each graph function NAME of `lowered` (legalized:
 * rx_legalize_ops, so that only R.call_tir, tuples, TupleGetItem and R.const
 * remain) gets the same two entries, destination-passing:
 *   int32_t NAME(void *x..., void *output..., int64_t n...)
 *     the inputs' data pointers, then one per output tensor (a tuple return
 *     value gives several, in order), then the symbolic dims bound from the
 *     inputs; calls the prim_funcs' direct entries in binding order, with
 *     intermediates of static size at the offsets of the memory plan
 *     (memory_plan.h) in one workspace allocated per call, the others from
 *     tvs_backend_alloc_workspace one by one.
 *   __tvs_packed_NAME, with the prim_funcs' argument checks; the caller
 *     passes the output tensors as the trailing arguments.
 * Its metadata entry lists inputs then outputs (named "output", or
 * "output_0".. for tuples) with num_outputs set.
 * cg_graph_signature gives that calling convention as a prim_func without a
 * body (params: inputs then outputs; buffer shapes in the graph's symbolic
 * vars), allocated in h; *num_outputs receives the output count.  NULL with
 * an error in diag when a parameter or the result is not a tensor (or a
 * tuple of tensors) of known dtype and rank. */
TirFunc *cg_graph_signature(IrHeap *h, const char *name, const RxFunc *f, int *num_outputs, DiagCtx *diag);
void cg_free(CgResult *r); /* NULL-safe */

/* Runs LLVM's O0-O3 pipeline on r now (cg_jit and cg_emit_* otherwise run it
 * on first use and keep the result).  0, or -1 with an error in diag. */
int cg_optimize(CgResult *r, DiagCtx *diag);

/* Textual LLVM IR (malloc'd; free()): as generated (optimized == false) or
 * after LLVM's O0-O3 pipeline (optimized == true).  NULL on failure. */
char *cg_emit_llvm(CgResult *r, bool optimized);
/* Target assembly of the optimized module (malloc'd), or NULL (diag). */
char *cg_emit_asm(CgResult *r, DiagCtx *diag);
/* Writes the optimized module as a relocatable (PIC) object file, through a
 * temporary name renamed into place.  0, or -1 with an error in diag. */
int cg_emit_object(CgResult *r, const char *path, DiagCtx *diag);

/* JIT-compiles the optimized module (ORC LLJIT, host only) into a module
 * whose functions are the packed entries: tvs_module_get_function(mod,
 * "NAME") + tvs_func_call.  r stays usable.  NULL with an error in diag. */
TVSModule *cg_jit(CgResult *r, DiagCtx *diag);
/* One call: tir_lower (the full CPU pipeline) on the unlowered module m,
 * cg_build, cg_jit.  NULL with errors in diag. */
TVSModule *cg_compile_module(const IrModule *m, const CgOptions *opt, DiagCtx *diag);

#endif
