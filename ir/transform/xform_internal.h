/* xform_internal.h - small helpers shared by the lowering passes (ir/transform/).
 *
 * Private to the files of ir/transform/.  All simplification goes through
 * xf_simplify so that the analyzer (ir/arith.h) is reached in one place. */
#ifndef TVS_IR_TRANSFORM_XFORM_INTERNAL_H
#define TVS_IR_TRANSFORM_XFORM_INTERNAL_H

#include "ir/arith.h"
#include "ir/mutate.h"
#include "ir/transform.h"
#include "ir/visit.h"

/* The analyzer's canonical form of e (e itself when unchanged or when e is
 * not something the analyzer handles, e.g. a vector expression). */
TirExpr *xf_simplify(ArithCtx *a, TirExpr *e);
/* An integer constant of e's dtype (or t's when e is NULL). */
TirExpr *xf_int(IrHeap *h, DType t, int64_t v);
/* a + b, a - b, a * b with constant folding and matching dtypes (b cast to a's). */
TirExpr *xf_add(IrHeap *h, TirExpr *a, TirExpr *b);
TirExpr *xf_sub(IrHeap *h, TirExpr *a, TirExpr *b);
TirExpr *xf_mul(IrHeap *h, TirExpr *a, TirExpr *b);
/* Casts e to t unless it already has that dtype (constants are rebuilt). */
TirExpr *xf_cast_to(IrHeap *h, DType t, TirExpr *e);
/* Constant true/false tests (bool or integer IntImm). */
bool xf_is_const_true(const TirExpr *e);
bool xf_is_const_false(const TirExpr *e);
/* The no-op statement T.evaluate(0), and the test for statements with no effect
 * (Evaluate of a constant, NULL). */
TirStmt *xf_nop(IrHeap *h);
bool xf_is_nop(const TirStmt *s);
/* n copies of body in sequence, var replaced by min + 0 .. min + n-1 (an
 * unrolled loop, or one copy per virtual thread); vars bound inside body
 * are shared by the copies. */
TirStmt *xf_repeat(IrHeap *h, const TirStmt *body, const TirVar *var, TirExpr *min, int64_t n);
/* A copy of f with a new body (f itself when body == f->body). */
TirFunc *xf_with_body(IrHeap *h, TirFunc *f, TirStmt *body);
/* TVM's warp shuffle intrinsic fn ("tvm_warp_shuffle", "..._down", "..._up")
 * of v, as T.call_extern(dt, fn, mask=-1, v, lane_or_delta, width, warp_size):
 * the one form the GPU codegens lower to shfl.sync. */
TirExpr *xf_warp_shuffle(IrHeap *h, DType dt, const char *fn, TirExpr *v, TirExpr *lane_or_delta, int64_t width,
                         int64_t warp_size);
/* f with each kernel rewritten: every outermost loop for which is_launch
 * holds is replaced by rewrite(heap, loop) (its kernel: loops inside it are
 * not visited again); the GPU passes that work kernel by kernel. */
TirFunc *xf_map_kernels(TirPassCtx *ctx, TirFunc *f, bool (*is_launch)(const TirStmt *loop),
                        TirStmt *(*rewrite)(IrHeap *h, TirStmt *loop));
/* Whether expression e contains a call with side effects (call_extern...). */
bool xf_has_side_effect(const TirExpr *e);

/* A fresh var for the launch thread of a thread-bound loop, named after its
 * axis as TVM names it (threadIdx.x -> threadIdx_x), of the loop var's dtype. */
TirVar *xf_thread_var(IrHeap *h, const TirStmt *loop);
#endif
