/* interp_internal.h - state shared by the reference interpreter's files.
 *
 * interp_expr.c evaluates loop-IR expressions with exact dtype semantics,
 * interp_stmt.c runs statements and binds prim_func params, interp_relax.c
 * runs graph functions.  Private to those three files. */
#ifndef TVS_IR_INTERP_INTERNAL_H
#define TVS_IR_INTERP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/interp.h"
#include "runtime/ndarray.h"

#define INTERP_MAX_LANES 128 /* widest vector value (Ramp/Broadcast lanes) */
#define INTERP_MAX_DIMS 16   /* most buffer dimensions */
#define INTERP_MAX_DEPTH 64  /* nested prim_func calls (relax -> tir) */

/* One lane.  Integers are kept normalized to their dtype: signed values
 * sign-extended into i, unsigned values zero-extended into u, bool 0/1 in i;
 * floats hold a double that is exactly representable in the lane's format. */
typedef union IScalar {
  int64_t i;  /* int and bool lanes */
  uint64_t u; /* uint lanes; the raw bit pattern of every integer */
  double f;   /* float16/bfloat16/float32/float64 lanes */
} IScalar;

/* A value: dtype (with lanes) and lanes [0, t.lanes) of v. */
typedef struct IVal {
  DType t;                     /* type of the value; t.lanes lanes are used */
  IScalar v[INTERP_MAX_LANES]; /* lane values */
} IVal;

/* A bound variable (loop var, block iter, let var, size var, scalar param). */
typedef struct IBinding {
  const TirVar *var;    /* the variable (identity by pointer) */
  DType t;              /* value dtype (lanes may be > 1) */
  IScalar s;            /* value of a scalar */
  IScalar *vec;         /* lanes of a vector value (malloc'd), else NULL */
  const char *bound_by; /* size vars: the argument whose shape bound it, or NULL */
} IBinding;

/* Memory behind a data pointer var. */
typedef struct IStorage {
  const TirVar *var;    /* the handle var it is bound to */
  unsigned char *data;  /* first byte */
  size_t nbytes;        /* bytes available from data */
  bool owned;           /* free() at scope exit */
} IStorage;

/* A buffer resolved against its storage: evaluated shape, strides, offset. */
typedef struct IView {
  const TirBuffer *buf;            /* the buffer */
  int storage;                     /* index into Interp.stores */
  int ndim;                        /* == buf->ndim */
  size_t esz;                      /* bytes per element */
  int64_t elem_offset;             /* in elements */
  int64_t shape[INTERP_MAX_DIMS];  /* extents */
  int64_t strides[INTERP_MAX_DIMS];/* in elements */
} IView;

/* Scope marks: what to drop when leaving a scope. */
typedef struct IMark {
  int nvars, nstores, nviews;
} IMark;

typedef struct IRace IRace; /* the race detector's state (interp_race.c) */

typedef struct Interp {
  const IrModule *mod;   /* module (for call_tir lookups) */
  DiagCtx *diag;         /* where errors go */
  const char *fname;     /* function being run */
  Span fspan;            /* its span (fallback location) */
  Span span;             /* span of the statement being run (or span_none) */
  int depth;             /* call nesting */
  IBinding *vars;        /* binding stack, innermost last */
  int nvars, capvars;
  IStorage *stores;      /* storage stack */
  int nstores, capstores;
  IView *views;          /* resolved buffers, innermost last */
  int nviews, capviews;
  IRace *race;           /* GPU threads emulated and races checked, or NULL */
  IVal *ret;             /* where T.ret puts the function's value, or NULL */
  bool returned;         /* T.ret ran: the rest of the body is skipped */
} Interp;

/* ---- interp_expr.c */
/* Reports an error at sp (or the current statement / function span); returns -1. */
int interp_error(Interp *in, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void interp_init(Interp *in, const IrModule *m, DiagCtx *diag, const char *fname, Span fspan);
/* Frees everything the interpreter holds. */
void interp_cleanup(Interp *in);
IMark interp_mark(const Interp *in);
void interp_pop(Interp *in, IMark m);

IBinding *interp_lookup(Interp *in, const TirVar *v);
void interp_bind(Interp *in, const TirVar *v, const IVal *val);
void interp_bind_int(Interp *in, const TirVar *v, int64_t x);
int interp_eval(Interp *in, const TirExpr *e, IVal *out);
/* Evaluates a scalar integer expression (shape, extent, index...). */
int interp_eval_int(Interp *in, const TirExpr *e, int64_t *out);
/* Finds (or lazily builds) the view of buffer b. */
int interp_view(Interp *in, const TirBuffer *b, IView **out);
/* Builds a view of b over storage index st (shape etc. evaluated now). */
int interp_make_view(Interp *in, const TirBuffer *b, int st, IView *v);
int interp_push_view(Interp *in, const IView *v);
int interp_push_storage(Interp *in, const TirVar *var, void *data, size_t nbytes, bool owned);
int interp_find_storage(const Interp *in, const TirVar *var);
/* Flattens a full index of view v into an element offset, bounds-checked. */
int interp_flat_index(Interp *in, const IView *v, const int64_t *idx, int n, bool store,
                      Span sp, int64_t *off);

/* Runs a BufferStore whose value (val) is already evaluated. */
int interp_store(Interp *in, const TirStmt *s, IVal *val);

/* Scalar semantics, shared with the Relax built-in operators. */
IScalar interp_normalize_int(DType t, uint64_t u);
IScalar interp_cast_scalar(DType from, IScalar v, DType to);
/* a OP b on one lane of dtype t (OP a binary TirExprKind: ADD..MAX or a comparison). */
int interp_binop(Interp *in, TirExprKind op, DType t, IScalar a, IScalar b, IScalar *out, Span sp);
IScalar interp_read_elem(DType t, const void *p);
void interp_write_elem(DType t, void *p, IScalar v);
/* float <-> binary16 / bfloat16 bit patterns (round to nearest even). */
uint16_t interp_f16_bits(double x);
double interp_f16_value(uint16_t h);
uint16_t interp_bf16_bits(double x);
double interp_bf16_value(uint16_t h);

/* ---- interp_stmt.c */
int interp_exec(Interp *in, const TirStmt *s);
/* Runs prim_func f (named name) on args; depth = nesting for recursion limits. */
int interp_call_tir(const IrModule *m, const TirFunc *f, const char *name, InterpArg *args,
                    int nargs, DiagCtx *diag, int depth);
/* interp_call_tir whose T.ret value lands in *ret (a subroutine call). */
int interp_call_tir_ret(const IrModule *m, const TirFunc *f, const char *name, InterpArg *args,
                        int nargs, DiagCtx *diag, int depth, IVal *ret);
/* interp_call_tir at depth 0 with the race detector race (may be NULL). */
int interp_call_tir_with(const IrModule *m, const TirFunc *f, const char *name, InterpArg *args, int nargs,
                         DiagCtx *diag, IRace *race);

/* ---- interp_call.c */
/* A call of another prim_func of the module (CALL_GLOBAL): its value in out. */
int interp_call_global(Interp *in, const TirExpr *e, IVal *out);

/* ---- interp_race.c */
/* A thread-bound loop under emulation: 0 / -1 like interp_exec, or 1 when s
 * is not one (the caller runs it). */
int interp_race_for(Interp *in, const TirStmt *s);
/* The current thread passes a barrier. */
void interp_race_sync(Interp *in);
/* An access of element elem of b at addr: -1 (reported) on a race. */
int interp_race_access(Interp *in, const TirBuffer *b, const void *addr, int64_t elem, bool store, Span sp);
void interp_race_free(IRace *r);
/* The block's one storage of a shared allocation var while threads are
 * emulated (owned by the detector), or NULL: allocate privately. */
void *interp_race_shared_storage(Interp *in, const TirVar *var, size_t nbytes);

/* Whether DLPack dtype d is t (bool is {kDLBool, 8, 1}; see interp_dl_dtype in ir/interp.h). */
bool interp_dl_matches(DType t, DLDataType d);

/* ---- interp_relax.c: what the operator families' eval files
 *      (interp_relax_<family>.c) use to read operands and make results */
struct RxExpr;
struct RxInterpCtx;
struct RxInterpVal;
int rx_interp_error(struct RxInterpCtx *c, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
Interp *rx_interp_tin(struct RxInterpCtx *c); /* size-var bindings and error reporting */
int rx_interp_eval(struct RxInterpCtx *c, const struct RxExpr *e, struct RxInterpVal **out);
/* Evaluates all e->call.n operands into v[]; releases what it made on failure. */
int rx_interp_operands(struct RxInterpCtx *c, const struct RxExpr *e, struct RxInterpVal **v);
/* The same for exactly op->min_args operands (an error otherwise). */
int rx_interp_operands_exact(struct RxInterpCtx *c, const struct RxExpr *e, struct RxInterpVal **v);
void rx_interp_release(struct RxInterpVal *v);
/* The value as a tensor / shape / scalar / tuple; NULL, false or -1 when it is not one. */
const DLTensor *rx_interp_as_tensor(const struct RxInterpVal *v);
bool rx_interp_as_shape(const struct RxInterpVal *v, const int64_t **shape, int *n);
bool rx_interp_as_prim(const struct RxInterpVal *v, DType *t, IScalar *s);
int rx_interp_tuple_size(const struct RxInterpVal *v);
struct RxInterpVal *rx_interp_tuple_field(const struct RxInterpVal *v, int i);
/* New values: a tensor owning a; a tuple taking one reference of each field;
 * a tuple of tensors owning a[0..n). */
struct RxInterpVal *rx_interp_tensor(TvsNDArray *a);
struct RxInterpVal *rx_interp_tuple(struct RxInterpVal **fields, int n);
struct RxInterpVal *rx_interp_tensor_tuple(TvsNDArray **a, int n);
DType rx_interp_dtype(DLDataType d);
/* The element at multi-index idx of a (possibly strided) tensor, and its offset in elements. */
IScalar rx_interp_read(const DLTensor *t, const int64_t *idx);
int64_t rx_interp_offset(const DLTensor *t, const int64_t *idx);

#endif
