/* cg_internal.h - state shared by the LLVM backend's files (private to codegen/).
 *
 * llvm_expr.c emits expressions (llvm_fast_exp.c: exp under --fast-math),
 * llvm_stmt.c statements (loops, parallel outlining, allocations),
 * llvm_func.c the entry points and module metadata, llvm_target.c target
 * machines and the optimization pipeline, jit.c ORC. */
#ifndef TVS_CODEGEN_CG_INTERNAL_H
#define TVS_CODEGEN_CG_INTERNAL_H

#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>

#include "codegen/codegen.h"
#include "ir/arith.h"

/* A compiled module: the LLVM module as generated, and lazily the optimized one. */
struct CgResult {
  LLVMOrcThreadSafeContextRef tsctx; /* owns ctx (shared with JIT sessions) */
  LLVMContextRef ctx;                /* the context of both modules */
  LLVMModuleRef mod;                 /* as generated (verified) */
  LLVMModuleRef opt_mod;             /* optimized clone, or NULL until asked for */
  char *triple;                      /* resolved target triple */
  char *cpu;                         /* resolved CPU name */
  char *features;                    /* resolved feature string */
  CgOptions opt;                     /* options (strings point at the fields above) */
};

struct CgFn;

/* Module-wide codegen state. */
typedef struct CgModule {
  LLVMContextRef ctx;      /* the context */
  LLVMModuleRef mod;       /* the module being built */
  DiagCtx *diag;           /* errors */
  const CgOptions *opt;    /* options (resolved cpu/features) */
  const char *cpu;         /* "target-cpu" attribute value */
  const char *features;    /* "target-features" attribute value */
  LLVMTypeRef i1, i8, i16, i32, i64, f16, f32, f64, i8p, voidt; /* common types */
  int ntasks;              /* outlined parallel bodies so far (for names) */
  int nstrings;            /* string constants so far */
  /* A device backend's own lowering of some statements (thread-bound loops,
   * shared allocations, barriers): true when it emitted s.  NULL on the CPU. */
  bool (*device_stmt)(struct CgFn *f, const TirStmt *s);
  const IrModule *low;     /* the lowered module (subroutine calls), or NULL */
} CgModule;

/* A binding of a loop-IR variable to its LLVM value. */
typedef struct CgVar {
  const TirVar *var;       /* identity by pointer */
  LLVMValueRef val;        /* its value (a data pointer i8* for buffer data vars) */
} CgVar;

/* Per-function codegen state (a direct entry or an outlined parallel task). */
typedef struct CgFn {
  CgModule *m;             /* module state */
  LLVMBuilderRef b;        /* the builder, positioned where code goes */
  LLVMValueRef fn;         /* the LLVM function */
  LLVMBasicBlockRef entry; /* its entry block (static allocas go there) */
  CgVar *vars;             /* binding stack, innermost last */
  int nvars, capvars;
  ArithCtx *arith;         /* loop ranges and facts, for udiv and bounds */
  const char *name;        /* prim_func name (messages) */
  int parallel_depth;      /* > 0 inside an outlined parallel body */
  int vec_bits;            /* widest vector (bits) used: min-legal-vector-width */
  bool failed;             /* an error was reported (diag) */
  LLVMValueRef *live_ws;   /* workspace allocations live here, outermost first:
                              an early `return -1` frees them */
  int nlive_ws, caplive_ws;
  LLVMValueRef ret_slot;   /* a value-returning prim_func's direct entry: where
                              T.ret stores its value (i8*), else NULL */
} CgFn;

/* ---- llvm_expr.c */
LLVMTypeRef cg_reg_type(CgModule *m, DType t); /* value type: bool=i1, bf16=float */
LLVMTypeRef cg_mem_type(CgModule *m, DType t); /* in memory: bool=i8, bf16=i16 */
LLVMValueRef cg_expr(CgFn *f, const TirExpr *e);
/* A BufferStore (flat, scalar or vector). */
void cg_store(CgFn *f, const TirStmt *s);
/* Converts a value of dtype `from` to dtype `to` (lanes must agree or from
 * is scalar: then it is broadcast). */
LLVMValueRef cg_convert(CgFn *f, LLVMValueRef v, DType from, DType to);
LLVMValueRef cg_splat(CgFn *f, LLVMValueRef v, int lanes);
/* Constants of LLVM type ty, scalar or vector (splat). */
LLVMValueRef cg_const_int(CgFn *f, LLVMTypeRef ty, uint64_t v);
LLVMValueRef cg_const_real(CgFn *f, LLVMTypeRef ty, double v);
/* A call of the intrinsic name overloaded on type ov. */
LLVMValueRef cg_call_intrinsic(CgFn *f, const char *name, LLVMTypeRef ov, LLVMValueRef *args, int n);
/* A boolean (i1 or <N x i1>) from any value: != 0. */
LLVMValueRef cg_truth(CgFn *f, LLVMValueRef v, DType t);
/* The element pointer for buf's data var (bitcast to its element type). */
LLVMValueRef cg_buffer_base(CgFn *f, const TirBuffer *buf);
LLVMValueRef cg_lookup(CgFn *f, const TirVar *v);
void cg_bind(CgFn *f, const TirVar *v, LLVMValueRef val);
/* Declares (once) and returns function name of type ty. */
LLVMValueRef cg_runtime_fn(CgModule *m, const char *name, LLVMTypeRef ty);
LLVMValueRef cg_intrinsic(CgModule *m, const char *name, LLVMTypeRef *overloads, int n);
/* A private constant C string; returns an i8*. */
LLVMValueRef cg_const_string(CgModule *m, const char *s);
/* Reports an error once per function; returns a placeholder value of type ty. */
LLVMValueRef cg_fail(CgFn *f, Span sp, LLVMTypeRef ty, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- llvm_fast_exp.c */
/* exp of a float or float vector as inline arithmetic (--fast-math): within
 * 2 ulp of libm, and it vectorizes. */
LLVMValueRef cg_fast_expf(CgFn *f, LLVMValueRef x);

/* ---- llvm_stmt.c */
void cg_stmt(CgFn *f, const TirStmt *s);
/* Closes a function whose first block "entry" holds only allocas: branches
 * it to the next block and adds the function attributes. */
void cg_finish_fn(CgFn *f);
/* if (rc != 0) return -1 (freeing the live workspaces). */
void cg_check_rc(CgFn *f, LLVMValueRef rc);
/* T.ret(v): stores v at f->ret_slot and returns 0 (freeing the live
 * workspaces); later code goes to an unreachable block.  Returns v. */
LLVMValueRef cg_ret_value(CgFn *f, const TirExpr *e);
/* An alloca in f's entry block. */
LLVMValueRef cg_entry_alloca(CgFn *f, LLVMTypeRef ty, unsigned align, const char *name);
/* Bytes the slot of a returned value holds (the widest scalar or vector). */
#define CG_RET_SLOT_BYTES 64
/* Common function attributes (target-cpu/features, nounwind, fast-math). */
void cg_add_fn_attrs(CgModule *m, LLVMValueRef fn, int vec_bits);
void cg_add_str_attr(CgModule *m, LLVMValueRef fn, int idx, const char *k, const char *v);
void cg_add_enum_attr(CgModule *m, LLVMValueRef fn, int idx, const char *k, uint64_t v);

/* ---- llvm_func.c */
/* Builds every prim_func of lowered into m (errors to m->diag), and its graph
 * functions when m->opt->graph_funcs is set. */
void cg_build_functions(CgModule *m, const IrModule *lowered);

/* Where a symbolic var of a direct entry comes from. */
typedef enum { CG_BIND_SHAPE, CG_BIND_STRIDE, CG_BIND_OFFSET } CgBindKind;

typedef struct CgBindVar {
  const TirVar *var; /* the var */
  int param;         /* first buffer param using it */
  CgBindKind kind;   /* shape / stride / elem_offset */
  int dim;           /* the dimension (shape, stride) */
} CgBindVar;

/* What the entries of one function need to know.  A graph function is
 * described by its signature prim_func (cg_graph_signature: inputs, then
 * outputs, no body) so that it shares the prim_funcs' conventions. */
typedef struct CgFuncSig {
  const char *name;    /* global name */
  const TirFunc *f;    /* the lowered function, or a graph function's signature */
  CgBindVar *binds;    /* symbolic vars bound from buffers, first appearance order */
  int nbinds, capbinds;
  int nbufs;           /* buffer params */
  LLVMTypeRef type;    /* the direct entry's type */
  LLVMValueRef direct; /* the direct entry */
  const RxFunc *rx;    /* the graph function, or NULL for a prim_func */
  int num_outputs;     /* graph function: trailing output params (metadata) */
} CgFuncSig;

/* A call of prim_func e->call.args[0] of m->low (CALL_GLOBAL): a direct call
 * of its direct entry; a failing callee makes the caller fail. */
LLVMValueRef cg_call_prim_func(CgFn *g, const TirExpr *e);
/* Starts / closes a function body (builder at a "body" block after "entry"). */
void cg_fn_init(CgFn *g, CgModule *m, LLVMValueRef fn, const char *name, IrHeap *h);
void cg_fn_done(CgFn *g);
/* The packed entry __tvs_packed_NAME of s: argument checks, then the call. */
void cg_build_packed(CgModule *m, CgFuncSig *s);

/* ---- cg_relax_graph.c */
/* The body of graph function s's direct entry: the call_tir sequence over
 * the direct entries of sigs (the module's prim_funcs), intermediates from
 * the runtime workspace.  Errors (unsupported expressions) go to m->diag. */
void cg_build_graph(CgModule *m, CgFuncSig *s, CgFuncSig *sigs, int nsigs);

/* ---- fp16_rt.c: libcall targets for half conversions without F16C */
float cg_rt_h2f(uint16_t h);
uint16_t cg_rt_f2h(float f);

/* ---- llvm_target.c */
/* Initializes LLVM's native target once (thread-safe). */
void cg_init_llvm(void);
/* Resolves triple/cpu/features from opt into r (host defaults). */
void cg_resolve_target(CgResult *r, const CgOptions *opt);
/* A target machine for r's triple/cpu/features; NULL + diag on failure. */
LLVMTargetMachineRef cg_target_machine(CgResult *r, LLVMRelocMode reloc, LLVMCodeModel cm,
                                       DiagCtx *diag);
/* The optimized module (built on first use); NULL + diag on failure. */
LLVMModuleRef cg_optimized(CgResult *r, DiagCtx *diag);

#endif
