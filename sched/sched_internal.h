/* sched_internal.h - what the files of sched/ share: the Schedule struct,
 * trace instructions and the method table, statement paths and copy-on-write
 * path rebuilding, handle lookup, scopes and producer/consumer queries.
 * Not for use outside sched/. */
#ifndef TVS_SCHED_SCHED_INTERNAL_H
#define TVS_SCHED_SCHED_INTERNAL_H

#include "ir/arith.h"
#include "ir/mutate.h"
#include "ir/printer.h"
#include "ir/visit.h"
#include "sched/schedule.h"

/* ------------------------------------------------------- values (trace/script) */

typedef enum SchValKind {
  SV_NONE, SV_BOOL, SV_INT, SV_FLOAT, SV_STR, SV_RV, SV_LIST,
  SV_CODE  /* source text kept verbatim, e.g. an index map `lambda i, j: (j, i)` (in s) */
} SchValKind;

/* A value in a trace instruction or a script: None, literals, a handle, a list. */
typedef struct SchVal {
  SchValKind kind;       /* which fields are used */
  int64_t i;             /* SV_INT, SV_BOOL (0/1), SV_RV (the handle) */
  double f;              /* SV_FLOAT */
  char *s;               /* SV_STR (malloc'd) */
  struct SchVal *items;  /* SV_LIST elements (malloc'd) */
  int n;                 /* SV_LIST length */
} SchVal;

void sch_val_free(SchVal *v);
SchVal sch_val_copy(const SchVal *v);
SchVal sch_val_int(int64_t i);
SchVal sch_val_bool(bool b);
SchVal sch_val_str(const char *s);
SchVal sch_val_rv(SchRV rv);
SchVal sch_val_none(void);
/* A list of n handles. */
SchVal sch_val_rv_list(const SchRV *rvs, int n);
/* Script text printed verbatim in traces (a lambda index map). */
SchVal sch_val_code(const char *text);
/* TVM's ("read", i) / ("write", i) buffer argument. */
SchVal sch_val_buffer_pair(bool is_write, int64_t index);

/* Annotation values: script/trace value <-> IR attribute value (in h). */
IrValue *sch_val_to_irv(IrHeap *h, const SchVal *v);
SchVal sch_irv_to_val(const IrValue *v);

/* -------------------------------------------------------------- methods */

typedef enum SchParamKind {
  SP_BLOCK,          /* BlockRV or block name */
  SP_LOOP,           /* LoopRV */
  SP_BLOCK_OR_LOOP,  /* either handle */
  SP_LOOPS,          /* *loops (varargs, printed positionally) */
  SP_INT,            /* int */
  SP_BOOL,           /* bool */
  SP_STR,            /* str */
  SP_OPT_STR,        /* str or None */
  SP_FACTORS,        /* list of int / None */
  SP_ANY,            /* an annotation value */
  /* A buffer of the block argument (param 0): an index, a ("read"|"write", i)
   * pair, or a buffer name.  SP_READ_BUFFER / SP_WRITE_BUFFER normalize to the
   * index into the block's reads / writes (SV_INT); SP_BUFFER to the pair
   * (SV_LIST of SV_STR "read"|"write" and SV_INT), printed as a tuple. */
  SP_READ_BUFFER,
  SP_WRITE_BUFFER,
  SP_BUFFER,
  SP_INDEX_MAP,      /* lambda (or T.index_map(lambda ...)): SV_CODE, printed verbatim */
  SP_OPT_CODE,       /* None, a number, or a lambda (pad_value=) */
  SP_INTS,           /* list of ints */
  SP_FLOATS,         /* list of numbers (ints become floats) */
  SP_OPT_INT,        /* int or None */
  SP_OPT_INTS,       /* list of ints or None */
  SP_OPT_BLOCKS,     /* list of BlockRVs / block names, or None */
  SP_BLOCKS,         /* *blocks (varargs of BlockRV / names, printed positionally) */
  SP_LOOP_OR_BLOCKS  /* a LoopRV or a list of BlockRVs (blockize's target) */
} SchParamKind;

typedef enum SchOutKind { SO_NONE, SO_ONE, SO_LIST } SchOutKind;

typedef struct SchParam {
  const char *name;   /* keyword name */
  SchParamKind kind;  /* accepted values */
  const char *dflt;   /* default as printed ("True", "None", "-1"), NULL = required */
} SchParam;

#define SCH_MAX_PARAMS 6

/* One schedule method: how scripts call it and how traces print it. */
typedef struct SchMethod {
  const char *name;                  /* "split" */
  SchParam params[SCH_MAX_PARAMS];   /* in declaration order */
  int nparams;
  SchOutKind out;                    /* what it returns */
  bool traced;                       /* recorded in traces */
  /* Applies the method to normalized args (one per param, defaults filled);
   * sets *result; returns 0 or -1 (error reported). */
  int (*apply)(Schedule *s, SchVal *args, SchVal *result);
} SchMethod;

/* Method tables, one per group of primitives (each in its primitive's file,
 * ended by an entry whose name is NULL); trace.c looks names up in all of
 * them, in this order. */
extern const SchMethod sch_methods_core[];      /* trace.c: getters ... storage_align */
extern const SchMethod sch_methods_blockize[];  /* primitive_blockize.c, primitive_tensorize.c */
extern const SchMethod sch_methods_layout[];    /* primitive_layout.c: transform_layout ... */
extern const SchMethod sch_methods_reindex[];   /* primitive_reindex.c: reindex, reindex_cache_* */
extern const SchMethod sch_methods_cache_ext[]; /* primitive_cache_ext.c: cache_inplace, cache_index, read_at ... */
extern const SchMethod sch_methods_misc[];      /* primitive_misc.c: merge, loop_partition, pad_einsum ... */
extern const SchMethod sch_methods_sampling[];  /* primitive_sampling.c: sample_* */
const SchMethod *sch_method_lookup(const char *name);
/* Method i over all tables (NULL past the end), for listings and completion. */
const SchMethod *sch_method_at(int i);

/* The buffer-argument sugar: the index of the buffer named `name` in the
 * block's reads (which = 0), writes (which = 1), or either (which = -1: the
 * name must be unique among reads + writes; *is_write tells which list).
 * Returns -1 after reporting "<prim>: ..." at argument argi. */
int sch_buffer_index_by_name(Schedule *s, SchRV block, const char *name, int which,
                             bool *is_write, const char *prim, int argi);

/* ----------------------------------------------------------------- state */

typedef struct SchRVInfo {
  SchRVKind kind;     /* block / loop / expr */
  char *func;         /* function the statement lives in (malloc'd) */
  const void *key;    /* loop: its TirVar*; block: its first iter var (or NULL) */
  char *block_name;   /* block without iters: identified by name (malloc'd) */
  char name[16];      /* trace name: b0, l1, v2 */
  int64_t value;      /* expr: the sampled integer; loop: 0, or the compute-location
                       * marks of sample_compute_location (-1 root, -2 inline; key NULL) */
  bool removed;       /* sch.remove_rv(rv): any later use is an error */
} SchRVInfo;

typedef struct SchInst {
  const SchMethod *method;
  SchVal *args;      /* one per param */
  int nargs;
  SchRV *outs;       /* results */
  int nouts;
} SchInst;

struct Schedule {
  IrModule **versions;  /* versions[0] = the input; the last is current */
  int *trace_at;        /* trace length when each version was made */
  int nversions, capversions;
  char *func;           /* function worked on (malloc'd) */
  SchRVInfo *rvs;       /* handles */
  int nrvs, caprvs;
  SchInst *trace;       /* applied instructions */
  int ntrace, captrace;
  DiagCtx *diag;        /* where errors go */
  Span call_span;       /* the script call being evaluated (or span_none) */
  Span arg_spans[8];    /* its arguments by parameter index */
  int nargspans;
  uint64_t rand_state;  /* the sampling RNG's state (primitive_sampling.c) */
  int debug_mask;       /* nonzero: verify the IR after every primitive (verify.c) */
  SchErrorKind last_error; /* kind of the latest error; a recorded primitive clears it */
};

/* Reports an error of the given kind at argument argi's span (the call's
 * when unknown). */
void sch_fail(Schedule *s, SchErrorKind kind, int argi, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The prim_func being worked on (NULL + error when absent). */
TirFunc *sch_cur_func(Schedule *s, const char *func);
SchRV sch_new_rv(Schedule *s, SchRVKind kind, const char *func, const void *key,
                 const char *block_name);
SchRV sch_loop_rv(Schedule *s, const char *func, const TirStmt *loop);
SchRV sch_block_rv(Schedule *s, const char *func, const TirStmt *realize);
/* Records an instruction (args are taken over, outs copied). */
void sch_record(Schedule *s, const char *method, SchVal *args, int nargs, const SchRV *outs,
                int nouts);
/* A new version derived from the current one, for a primitive to fill. */
IrModule *sch_begin(Schedule *s);
/* Makes nm current with func's body replaced by body (nm's functions are
 * filled here from the current version). */
void sch_commit(Schedule *s, IrModule *nm, const char *func, TirStmt *body);

/* ------------------------------------------------------------- paths */

/* Statements from the function body (s[0]) down to a target (s[n-1]). */
typedef struct SchPath {
  TirStmt **s;
  int n, cap;
} SchPath;

void sch_path_free(SchPath *p);
void sch_path_push(SchPath *p, TirStmt *st);
void sch_path_copy(SchPath *dst, const SchPath *src);

/* The children of a statement in order (a block: init, body; ...). */
int sch_children(const TirStmt *st, TirStmt **out, int cap);
/* Copy of parent with child `old` replaced by `nw` (NULL: removed; returns
 * NULL when the parent becomes empty and should itself go). */
TirStmt *sch_replace_child(IrHeap *h, const TirStmt *parent, const TirStmt *old, TirStmt *nw);
/* Replaces path->s[depth] by nw (NULL removes it, along with loops left
 * empty) and rebuilds the ancestors; returns the new root. */
TirStmt *sch_replace_at(IrHeap *h, const SchPath *path, int depth, TirStmt *nw);

/* Handle lookup in the current version: fills path (to the For, or to the
 * BlockRealize of a block) and returns the statement; on a stale or wrong
 * handle reports "<prim>: ..." at argument argi and returns NULL. */
TirStmt *sch_find_loop(Schedule *s, SchRV rv, const char *prim, int argi, SchPath *path);
TirStmt *sch_find_block(Schedule *s, SchRV rv, const char *prim, int argi, SchPath *path);
/* Finds a For by loop var / a realize whose block matches, anywhere under root. */
bool sch_path_to_loop(TirStmt *root, const TirVar *var, SchPath *path);
bool sch_path_to_realize(TirStmt *root, const TirStmt *block, SchPath *path);

/* The index in path of the innermost BLOCK above position depth (-1 if none). */
int sch_scope_index(const SchPath *p, int depth);
/* The index in p of the scope block of the block realize p ends at; for the
 * root block (no scope above it) reports "<prim>: block 'root' is the root
 * block" and returns -1. */
int sch_block_scope_index(Schedule *s, const char *prim, const SchPath *p);

/* The child block realizes of a scope (a BLOCK stmt), in program order, not
 * descending into nested blocks. */
void sch_scope_blocks(TirStmt *scope_block, PtrVec *out);
/* Whether block (a BLOCK) writes / reads buffer b per its regions. */
bool sch_block_writes(const TirBlock *b, const TirBuffer *buf);
bool sch_block_reads(const TirBlock *b, const TirBuffer *buf);

/* buffer_views.c: body with old -> nw everywhere, and each match_buffer view
 * of a swapped buffer (views of views too) -> derive(h, view, new source, ctx). */
typedef TirBuffer *(*SchViewDerive)(IrHeap *h, const TirBuffer *view, const TirBuffer *new_src, void *ctx);
TirStmt *sch_swap_buffer_and_views(IrHeap *h, TirStmt *body, const TirBuffer *old, TirBuffer *nw,
                                   SchViewDerive derive, void *ctx);
/* Whether buf is a parameter buffer of f (an output in TVM's sense). */
bool sch_is_param_buffer(const TirFunc *f, const TirBuffer *buf);
/* Whether stmt contains the statement target (pointer identity). */
bool sch_contains(const TirStmt *stmt, const TirStmt *target);
/* Rebuilds a realize with a new block (copy of `blk`). */
TirStmt *sch_realize_with(IrHeap *h, const TirStmt *realize, const TirBlock *blk,
                          TirExpr **values, TirExpr *pred);
/* A copy of a loop with a new body (and same var, range, kind, annotations). */
TirStmt *sch_for_with_body(IrHeap *h, const TirStmt *loop, TirStmt *body);
/* The names of the loop a handle denotes, for messages. */
const char *sch_loop_name(const TirStmt *loop);
/* Simplifies the iter bindings and predicates of the block realizes in st
 * (ranges known in ctx); when pred is non-NULL it is also conjoined to the
 * predicate of every outermost realize (TVM's BlockPredicateAppender). */
TirStmt *sch_simplify_bindings(ArithCtx *ctx, TirStmt *st, TirExpr *pred);
/* Whether iter type is data-parallel or reduce only. */
bool sch_is_trivial_pred(const TirExpr *pred);

/* ------------------------------------------- shared by the later primitives */

/* Whether the scope whose child block realizes are sibs is a stage pipeline
 * (no buffer written by two of its blocks); if not, reports
 * "<prim>: the scope root of block 'b' is not a stage pipeline ..." at argi. */
bool sch_check_stage_pipeline(Schedule *s, const char *prim, int argi, const PtrVec *sibs,
                              const TirBlock *b);
/* TVM's own stage-pipeline rule: no block of the scope writes a buffer that
 * an earlier block reads (write after read).  Several writers in order, as
 * decompose_reduction's init and update, are fine.  Used by the inlines. */
bool sch_check_no_war(Schedule *s, const char *prim, int argi, const PtrVec *sibs, const TirBlock *b);
/* Whether a storage scope is valid for cache_read/cache_write/set_scope. */
bool sch_valid_storage_scope(const char *scope);

/* blockize(loop)'s new outer realize, built in h without committing (shared
 * with tensorize); *old_block / *inner get the block before and after.
 * NULL after reporting "<prim>: ..." at argument 0. */
TirStmt *sch_blockize_build(Schedule *s, IrHeap *h, TirStmt *loop, const SchPath *lp,
                            bool preserve_unit_iters, const char *prim, const TirBlock **old_block,
                            const TirBlock **inner);
/* Re-points block handles of the block old (by its first iter / its name)
 * to the rebuilt block nb. */
void sch_rekey_block_handles(Schedule *s, const TirBlock *old, const TirBlock *nb);

/* ------------------------------------------------ sampling and verification */

/* The compute-location marks a sampled LoopRV may hold (SchRVInfo.value). */
enum { SCH_LOC_ROOT = -1, SCH_LOC_INLINE = -2 };
/* Checks the well-formedness of func in the current version (scoping of
 * vars and buffers, block isolation, bindings in their iter domains,
 * regions covering accesses, print/parse round trip); false with a reason
 * in why (appended). */
bool sch_verify_func(Schedule *s, const char *func, StrBuf *why);

/* affine_binding.c: whether a realize's bindings are quasi-affine in the
 * loops above it under root (TVM's IsAffineBinding, predicate included), and
 * the first block under subtree that is neither complete nor a reduction
 * block with affine bindings (TVM's compact data flow), else NULL. */
bool sch_binding_is_affine(TirStmt *root, const TirStmt *realize);
const TirBlock *sch_first_non_compact(TirStmt *root, const TirStmt *subtree);
/* Drops the trace instructions from index ntrace on / the handles from nrvs
 * on (state.c), for primitives that try things and roll back. */
void sch_trace_truncate(Schedule *s, int ntrace);
void sch_rvs_truncate(Schedule *s, int nrvs);

/* For the primitives that give a block a new buffer to write (cache_write,
 * write_at, reindex, reindex_cache_write): a reduction accumulates into it
 * across the loops of its reduce iters, so those loops must all lie below
 * path index `from` (where the new buffer lives); returns the first one that
 * does not (NULL when all do).  path ends at the block's realize. */
static inline const TirStmt *sch_reduce_loop_above(const SchPath *path, int from) {
  const TirStmt *realize = path->s[path->n - 1];
  const TirBlock *b = tir_realize_block(realize);
  for (int d = 0; d <= from && d < path->n - 1; d++) {
    if (path->s[d]->kind != TIR_S_FOR) continue;
    for (int k = 0; k < b->niters && k < realize->realize.n; k++)
      if (b->iters[k].type == TIR_ITER_REDUCE &&
          tir_expr_uses_var(realize->realize.values[k], path->s[d]->loop.var))
        return path->s[d];
  }
  return NULL;
}
/* The check built on it: a reduction block (one with an init) whose reduce
 * loops are not all below scope index scope_i is refused, naming what would
 * be allocated anew for each step ("cache", "new buffer").  path ends at the
 * block's realize; false when refused. */
bool sch_check_reduce_below_scope(Schedule *s, const char *prim, const SchPath *path, int scope_i,
                                  const char *what);

/* region_cover.c: TVM's region cover of a scope (its child blocks sibs):
 * every block reading a buffer written by others of the scope reads only
 * what they write there (a gap constant bounds show is refused, "<prim>: the
 * scope root of block '<b>' is not a stage pipeline ..."); false when not. */
bool sch_check_region_cover(Schedule *s, const char *prim, int argi, IrHeap *h, TirStmt *root,
                            const PtrVec *sibs, const TirBlock *b);

/* inline_inverse.c: the consumer iters of block b at the point where the
 * producer stores store_idx, given the indices with which b loads it
 * (sums of mixed-radix digits of b's iters, unit iters absent); fills vmap
 * (iter -> expression over store_idx); false when the loads have another
 * form. */
bool sch_inverse_load_indices(IrHeap *h, const TirBlock *b, TirExpr *const *load_idx, int n,
                              TirExpr *const *store_idx, IrPtrMap *vmap);

/* reducer.c: a reduction block matched against TVM's registered commutative
 * reducers (sum, product, min, max, the pairwise sum, argmax/argmin and
 * their tie-breaking forms). */
#define SCH_RED_MAX 2
typedef struct SchReduction {
  int n;                           /* buffers reduced together (1 or 2) */
  int kind;                        /* which reducer */
  TirBuffer *buf[SCH_RED_MAX];     /* the buffers, in the body's let order */
  TirExpr **upd_idx[SCH_RED_MAX];  /* each update's indices */
  TirExpr **idx;                   /* the indices they share (the first update's) */
  int nidx;
  TirExpr *init[SCH_RED_MAX];      /* the identities, in the same order */
  TirExpr *lhs[SCH_RED_MAX];       /* combiner operands: the buffers' loads */
  TirExpr *rhs[SCH_RED_MAX];       /* and the values combined into them */
} SchReduction;
/* 0 when block b's init and body match a reducer; else TVM's violated
 * condition number (1..12, see sch_reduction_condition) or -1 when no
 * reducer matches. */
int sch_match_reduction(const TirBlock *b, SchReduction *r);
/* Value i of reducer `kind` combining x (accumulators) with y. */
TirExpr *sch_reducer_combine(IrHeap *h, int kind, int i, TirExpr *const *x, TirExpr *const *y);

#endif
