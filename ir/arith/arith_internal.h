/* arith_internal.h - state and helpers shared by the analyzer's files (ir/arith/).
 *
 * ctx.c holds bindings, facts and variable ordering; poly.c the canonical sum
 * (APoly); simplify.c the rewrite rules; bounds.c intervals, symbolic bounds
 * and proofs; affine.c affine views and iterator maps; const_fold.c folding. */
#ifndef TVS_IR_ARITH_INTERNAL_H
#define TVS_IR_ARITH_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/arith.h"
#include "ir/visit.h"

/* ------------------------------------------------------------- context */

typedef enum ABindKind {
  AB_RANGE, /* var in [a, a + b) */
  AB_VALUE  /* var == a */
} ABindKind;

typedef struct ABinding {
  const TirVar *var; /* the bound variable */
  ABindKind kind;    /* range or value */
  TirExpr *a;        /* RANGE: min; VALUE: the value */
  TirExpr *b;        /* RANGE: extent; VALUE: NULL */
} ABinding;

/* A fact `d in [lo, hi]` where d is a canonical linear form without constant
 * whose coefficients have gcd 1 and whose first coefficient is positive. */
typedef struct AFact {
  TirExpr *d;        /* the linear part */
  const TirVar *var; /* d when it is a plain variable, else NULL */
  int64_t lo, hi;    /* inclusive; AIV_NINF / AIV_PINF for unbounded */
} AFact;

struct ArithCtx {
  IrHeap *h;             /* where new expressions are allocated */
  ABinding *binds;       /* binding stack (latest last) */
  int nbinds, capbinds;
  AFact *facts;          /* assumed facts (latest last) */
  int nfacts, capfacts;
  int nvarfacts;         /* facts whose d is not a plain var (fast path when 0) */
  int *marks;            /* per scope: nbinds, nfacts at push */
  int nmarks, capmarks;
  IrPtrMap seen;         /* unbound var -> first-seen sequence + 1 (ordering ties) */
  int nseen;
  int depth;             /* recursion guard for cyclic or deep bindings */
};

#define ARITH_MAX_DEPTH 24

/* The latest binding of var, or NULL. */
const ABinding *arith_lookup(const ArithCtx *ctx, const TirVar *var);
/* Index of var's latest binding, -1 when unbound. */
int arith_bind_index(const ArithCtx *ctx, const TirVar *var);

/* ------------------------------------------------------------ intervals */

#define AIV_NINF INT64_MIN
#define AIV_PINF INT64_MAX

typedef struct AIv {
  int64_t lo, hi; /* inclusive; AIV_NINF / AIV_PINF mean unbounded */
} AIv;

AIv arith_iv_full(void);
AIv arith_iv_dtype(DType t);

/* ------------------------------------------------------------ polynomials */

/* coef * atoms[0] * atoms[1] * ... (atoms sorted, repeated for powers). */
typedef struct ATerm {
  int64_t coef;          /* wrapped to the dtype's width, signed view */
  int n;                 /* number of atoms (>= 1) */
  const TirExpr **atoms; /* malloc'd */
} ATerm;

/* sum(terms) + c over an integer dtype. */
typedef struct APoly {
  DType t;       /* the dtype of the expression */
  int64_t c;     /* constant part, signed view */
  ATerm *terms;  /* canonical order after arith_poly_normalize */
  int n, cap;
} APoly;

int64_t arith_pwrap(DType t, uint64_t v); /* sign-extended wrap to t's width */
bool arith_is_poly_type(DType t);          /* int/uint scalar */
bool arith_is_signed_poly(DType t);        /* int scalar */

void arith_poly_init(APoly *p, DType t);
void arith_poly_free(APoly *p);
void arith_poly_copy(APoly *dst, const APoly *src);
void arith_poly_move(APoly *dst, APoly *src); /* overwrites dst (not freed), empties src */
void arith_poly_set_const(APoly *p, int64_t c);
/* p += k * atom */
void arith_poly_add_atom(ArithCtx *ctx, APoly *p, const TirExpr *atom, int64_t k);
/* p += coef * atoms[0] * ... * atoms[n-1] (n == 0: a constant) */
void arith_poly_add_mono(ArithCtx *ctx, APoly *p, int64_t coef, const TirExpr *const *atoms, int n);
/* p += k * q */
void arith_poly_add(ArithCtx *ctx, APoly *p, const APoly *q, int64_t k);
void arith_poly_scale(APoly *p, int64_t k);
/* out = a * b (out is overwritten, not freed); false (out untouched) when
 * the product would be too large. */
bool arith_poly_mul(ArithCtx *ctx, APoly *out, const APoly *a, const APoly *b);
bool arith_poly_is_const(const APoly *p);
bool arith_poly_equal(const APoly *a, const APoly *b);
/* Sorts atoms and terms, combines like terms, drops zero terms. */
void arith_poly_normalize(ArithCtx *ctx, APoly *p);
TirExpr *arith_poly_to_expr(ArithCtx *ctx, const APoly *p);
TirExpr *arith_term_expr(ArithCtx *ctx, DType t, const ATerm *term, int64_t coef);
/* Whether the term's monomials contain var (also inside atoms). */
bool arith_term_uses_var(const ATerm *term, const TirVar *var);

int arith_var_cmp(ArithCtx *ctx, const TirVar *a, const TirVar *b);
int arith_atom_cmp(ArithCtx *ctx, const TirExpr *a, const TirExpr *b);

TirExpr *arith_mk_int(ArithCtx *ctx, DType t, int64_t v);

/* ------------------------------------------------------------ simplify */

/* The simplified poly of integer scalar e (p is initialised here). */
void arith_simp_poly(ArithCtx *ctx, const TirExpr *e, APoly *p);
/* The poly view of an already simplified expression (no rewriting). */
void arith_poly_of_simplified(ArithCtx *ctx, const TirExpr *e, APoly *p);
TirExpr *arith_simp(ArithCtx *ctx, const TirExpr *e);
/* out = a // c (floor), c > 0, with the range-aware rules. */
void arith_floordiv_const(ArithCtx *ctx, const APoly *a, int64_t c, APoly *out);

/* ------------------------------------------------------------ bounds */

AIv arith_iv_expr(ArithCtx *ctx, const TirExpr *e);
AIv arith_iv_poly(ArithCtx *ctx, const APoly *p);
/* A bound (upper or lower) of p free of range-bound vars; false if none. */
bool arith_sym_bound(ArithCtx *ctx, const APoly *p, bool upper, APoly *out);
/* Proves `d CMP 0` for comparison kind k (EQ..GE). */
bool arith_prove_poly_cmp(ArithCtx *ctx, TirExprKind k, const APoly *d);

/* ------------------------------------------------------------ int math */

uint64_t arith_ugcd(uint64_t a, uint64_t b);
uint64_t arith_uabs(int64_t v);

#endif
