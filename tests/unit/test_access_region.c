/* test_access_region.c - tir_infer_access_regions on hand-built blocks.
 *
 * Checks TVM v0.23's GetBlockAccessRegion behaviour: order of first access,
 * init exclusion, relaxation over inner loops, nested blocks, if_then_else,
 * alloc_buffer exclusion and match_buffer redirection. */
#include "ir/access_region.h"
#include "base/util.h"
#include "check.h"

static IrHeap *H;

static TirExpr *I(int64_t v) { return tir_i32(H, v); }
static TirExpr *V(TirVar *v) { return tir_var_ref(H, v); }
static TirExpr *add(TirExpr *a, TirExpr *b) { return tir_binary(H, TIR_ADD, a, b); }
static TirExpr *mul(TirExpr *a, TirExpr *b) { return tir_binary(H, TIR_MUL, a, b); }

static TirBuffer *buf2(const char *name, int64_t m, int64_t n) {
  TirExpr *shape[2] = {I(m), I(n)};
  return tir_buffer(H, name, dt_float32, shape, 2, NULL);
}
static TirBuffer *buf1(const char *name, int64_t m) {
  TirExpr *shape[1] = {I(m)};
  return tir_buffer(H, name, dt_float32, shape, 1, NULL);
}
static TirExpr *ld2(TirBuffer *b, TirExpr *i, TirExpr *j) {
  TirExpr *idx[2] = {i, j};
  return tir_load(H, b, idx, 2);
}
static TirExpr *ld1(TirBuffer *b, TirExpr *i) { return tir_load(H, b, &i, 1); }
static TirStmt *st2(TirBuffer *b, TirExpr *i, TirExpr *j, TirExpr *v) {
  TirExpr *idx[2] = {i, j};
  return tir_store(H, b, v, idx, 2);
}
static TirStmt *st1(TirBuffer *b, TirExpr *i, TirExpr *v) { return tir_store(H, b, v, &i, 1); }

static bool is_var(const TirExpr *e, const TirVar *v) { return e && e->kind == TIR_VAR && e->var == v; }
static bool is_int(const TirExpr *e, int64_t v) { return e && e->kind == TIR_INT && e->ival == v; }

/* mm_relu's "Y" block: Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj] with init. */
static void test_mm_y(void) {
  TirBuffer *A = buf2("A", 128, 128), *B = buf2("B", 128, 128), *Y = buf2("Y", 128, 128);
  TirVar *vi = tir_var(H, "vi", dt_int32), *vj = tir_var(H, "vj", dt_int32), *vk = tir_var(H, "vk", dt_int32);
  TirBlock b = {0};
  b.name = "Y";
  b.init = st2(Y, V(vi), V(vj), tir_float(H, dt_float32, 0));
  b.body = st2(Y, V(vi), V(vj), add(ld2(Y, V(vi), V(vj)), tir_binary(H, TIR_MUL, ld2(A, V(vi), V(vk)), ld2(B, V(vk), V(vj)))));
  TirBufferRegion *r, *w;
  int nr, nw;
  tir_infer_access_regions(H, &b, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 2);
  CHECK_EQ_INT(nw, 1);
  CHECK(r[0].buffer == A);
  CHECK(r[1].buffer == B);
  CHECK(w[0].buffer == Y);
  CHECK(is_var(r[0].ranges[0].min, vi));
  CHECK(is_int(r[0].ranges[0].extent, 1));
  CHECK(is_var(r[0].ranges[1].min, vk));
  CHECK(is_var(r[1].ranges[0].min, vk));
  CHECK(is_var(r[1].ranges[1].min, vj));
  CHECK(is_var(w[0].ranges[0].min, vi));
  CHECK(is_int(w[0].ranges[1].extent, 1));
  CHECK(dt_eq(w[0].ranges[1].extent->dtype, dt_int32));

  /* Without init the written buffer stays among the reads (first there). */
  b.init = NULL;
  tir_infer_access_regions(H, &b, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 3);
  CHECK(r[0].buffer == Y);
  CHECK(r[1].buffer == A);
}

/* for k in range(16): B[vi] = B[vi] + A[vi*16 + k]  ->  A[vi*16 : vi*16+16]. */
static void test_inner_loop(void) {
  TirBuffer *A = buf1("A", 256), *B = buf1("B", 16);
  TirVar *vi = tir_var(H, "vi", dt_int32), *k = tir_var(H, "k", dt_int32);
  TirStmt *body = st1(B, V(vi), add(ld1(B, V(vi)), ld1(A, add(mul(V(vi), I(16)), V(k)))));
  TirBlock b = {0};
  b.name = "blk";
  b.body = tir_for(H, k, I(0), I(16), TIR_FOR_SERIAL, NULL, NULL, body);
  TirBufferRegion *r, *w;
  int nr, nw;
  tir_infer_access_regions(H, &b, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 2);
  CHECK(r[0].buffer == B);
  CHECK(r[1].buffer == A);
  const TirExpr *mn = r[1].ranges[0].min;
  CHECK(mn->kind == TIR_MUL && is_var(mn->bin.a, vi) && is_int(mn->bin.b, 16));
  CHECK(is_int(r[1].ranges[0].extent, 16));
  CHECK_EQ_INT(nw, 1);
  CHECK(is_int(w[0].ranges[0].extent, 1));

  /* A[k * 2 + 1] over k in [0, 16) -> min 1, extent 31; A[15 - k] -> [0, 16). */
  TirBlock b2 = {0};
  TirStmt *s2[2] = {st1(B, I(0), ld1(A, add(mul(V(k), I(2)), I(1)))),
                    st1(B, I(1), ld1(B, tir_binary(H, TIR_SUB, I(15), V(k))))};
  b2.body = tir_for(H, k, I(0), I(16), TIR_FOR_SERIAL, NULL, NULL, tir_seq(H, s2, 2));
  tir_infer_access_regions(H, &b2, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 2);
  CHECK(r[0].buffer == A && is_int(r[0].ranges[0].min, 1) && is_int(r[0].ranges[0].extent, 31));
  CHECK(r[1].buffer == B && is_int(r[1].ranges[0].min, 0) && is_int(r[1].ranges[0].extent, 16));
  /* B written at 0 and 1: the union is [0, 2). */
  CHECK_EQ_INT(nw, 1);
  CHECK(is_int(w[0].ranges[0].min, 0) && is_int(w[0].ranges[0].extent, 2));

  /* floordiv/floormod by constants relax to their bounds. */
  TirBlock b3 = {0};
  TirStmt *s3[2] = {st1(B, tir_binary(H, TIR_FLOORDIV, V(k), I(4)), I(0)),
                    st1(A, tir_binary(H, TIR_FLOORMOD, V(k), I(8)), I(0))};
  b3.body = tir_for(H, k, I(0), I(16), TIR_FOR_SERIAL, NULL, NULL, tir_seq(H, s3, 2));
  tir_infer_access_regions(H, &b3, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nw, 2);
  CHECK(is_int(w[1].ranges[0].min, 0) && is_int(w[1].ranges[0].extent, 8));
}

/* Order of first access, loads inside indices, stores recorded before values. */
static void test_order(void) {
  TirBuffer *A = buf1("A", 16), *B = buf1("B", 16), *C = buf1("C", 16), *D = buf1("D", 16);
  TirVar *vi = tir_var(H, "vi", dt_int32);
  /* D[vi] = C[vi] + A[B[vi]]; C[vi] = B[vi] */
  TirExpr *bi = tir_cast(H, dt_int32, ld1(B, V(vi)));
  TirStmt *s[2] = {st1(D, V(vi), add(ld1(C, V(vi)), ld1(A, bi))), st1(C, V(vi), ld1(B, V(vi)))};
  TirBlock b = {0};
  b.body = tir_seq(H, s, 2);
  TirBufferRegion *r, *w;
  int nr, nw;
  tir_infer_access_regions(H, &b, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 3);
  CHECK(r[0].buffer == C && r[1].buffer == A && r[2].buffer == B);
  /* A indexed by a load: a point (the load expression) */
  CHECK(r[1].ranges[0].min->kind == TIR_CAST);
  CHECK_EQ_INT(nw, 2);
  CHECK(w[0].buffer == D && w[1].buffer == C);
}

/* A nested block contributes its declared regions, relaxed over loops between. */
static void test_nested(void) {
  TirBuffer *A = buf2("A", 128, 128), *B = buf2("B", 128, 128), *T = buf2("T", 128, 128);
  TirVar *vo = tir_var(H, "vo", dt_int32), *j = tir_var(H, "j", dt_int32);
  TirVar *ui = tir_var(H, "ui", dt_int32), *uj = tir_var(H, "uj", dt_int32);
  TirBlock in = {0};
  in.name = "inner";
  TirIterVar iters[2] = {{ui, {I(0), I(128)}, TIR_ITER_SPATIAL}, {uj, {I(0), I(128)}, TIR_ITER_SPATIAL}};
  in.iters = iters;
  in.niters = 2;
  TirRange rr[2] = {{V(ui), I(1)}, {V(uj), I(1)}};
  TirBufferRegion rd = {A, rr, 2}, wr = {T, rr, 2};
  in.reads = &rd; in.nreads = 1;
  in.writes = &wr; in.nwrites = 1;
  in.body = st2(T, V(ui), V(uj), ld2(A, V(ui), V(uj)));
  TirExpr *vals[2] = {V(vo), V(j)};
  TirStmt *realize = tir_block_realize(H, vals, 2, NULL, tir_block(H, &in));
  TirStmt *loop = tir_for(H, j, I(0), I(128), TIR_FOR_SERIAL, NULL, NULL, realize);
  /* outer block: allocates T, so T must not appear; then B[vo, 0] = T[vo, 0] */
  TirStmt *s[2] = {loop, st2(B, V(vo), I(0), ld2(T, V(vo), I(0)))};
  TirBlock out = {0};
  out.name = "outer";
  out.body = tir_seq(H, s, 2);
  out.allocs = &T;
  out.nallocs = 1;
  TirBufferRegion *r, *w;
  int nr, nw;
  tir_infer_access_regions(H, &out, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 1);
  CHECK(r[0].buffer == A);
  CHECK(is_var(r[0].ranges[0].min, vo) && is_int(r[0].ranges[0].extent, 1));
  CHECK(is_int(r[0].ranges[1].min, 0) && is_int(r[0].ranges[1].extent, 128));
  CHECK_EQ_INT(nw, 1);
  CHECK(w[0].buffer == B);
}

/* if_then_else visits both arms; its condition narrows inner loop ranges. */
static void test_if_then_else(void) {
  TirBuffer *A = buf1("A", 16), *B = buf1("B", 20), *P = buf1("P", 16);
  TirVar *vi = tir_var(H, "vi", dt_int32), *k = tir_var(H, "k", dt_int32);
  const TirOpInfo *ite = tir_op_lookup("if_then_else");
  /* vi-only condition: both arms, point regions */
  TirExpr *args[3] = {tir_binary(H, TIR_LT, V(vi), I(8)), ld1(A, V(vi)), ld1(P, V(vi))};
  TirBlock b = {0};
  b.body = st1(B, V(vi), tir_call(H, dt_float32, ite, args, 3));
  TirBufferRegion *r, *w;
  int nr, nw;
  tir_infer_access_regions(H, &b, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 2);
  CHECK(r[0].buffer == A && r[1].buffer == P);
  /* padding: for k in range(20): B[k] = if_then_else(2 <= k and k < 18, A[k - 2], 0) -> A[0:16] */
  TirExpr *cond = tir_binary(H, TIR_AND, tir_binary(H, TIR_LE, I(2), V(k)), tir_binary(H, TIR_LT, V(k), I(18)));
  TirExpr *args2[3] = {cond, ld1(A, tir_binary(H, TIR_SUB, V(k), I(2))), tir_float(H, dt_float32, 0)};
  TirBlock b2 = {0};
  b2.body = tir_for(H, k, I(0), I(20), TIR_FOR_SERIAL, NULL, NULL,
                    st1(B, V(k), tir_call(H, dt_float32, ite, args2, 3)));
  tir_infer_access_regions(H, &b2, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 1);
  CHECK(is_int(r[0].ranges[0].min, 0) && is_int(r[0].ranges[0].extent, 16));
  CHECK(is_int(w[0].ranges[0].min, 0) && is_int(w[0].ranges[0].extent, 20));
  /* IfThenElse statement: both branches */
  TirBlock b3 = {0};
  b3.body = tir_if(H, tir_binary(H, TIR_LT, V(vi), I(4)), st1(B, V(vi), ld1(A, V(vi))),
                   st1(P, V(vi), ld1(B, V(vi))));
  tir_infer_access_regions(H, &b3, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 2);
  CHECK_EQ_INT(nw, 2);
  CHECK(w[0].buffer == B && w[1].buffer == P);
}

/* Accesses through a match_buffer count on the source region. */
static void test_match_buffer(void) {
  TirBuffer *A = buf2("A", 128, 128), *S = buf2("S", 16, 16), *B = buf1("B", 128);
  TirVar *vi = tir_var(H, "vi", dt_int32), *x = tir_var(H, "x", dt_int32);
  TirRange src[2] = {{mul(V(vi), I(16)), I(16)}, {I(0), I(16)}};
  TirMatchBuffer mb = {S, {A, src, 2}};
  TirBlock b = {0};
  b.matches = &mb;
  b.nmatches = 1;
  b.body = tir_for(H, x, I(0), I(16), TIR_FOR_SERIAL, NULL, NULL, st1(B, V(vi), ld2(S, V(x), I(3))));
  TirBufferRegion *r, *w;
  int nr, nw;
  tir_infer_access_regions(H, &b, &r, &nr, &w, &nw);
  CHECK_EQ_INT(nr, 1);
  CHECK(r[0].buffer == A);
  CHECK(is_int(r[0].ranges[0].extent, 16));
  CHECK(is_int(r[0].ranges[1].min, 3) && is_int(r[0].ranges[1].extent, 1));
}

int main(void) {
  H = ir_heap_new();
  test_mm_y();
  test_inner_loop();
  test_order();
  test_nested();
  test_if_then_else();
  test_match_buffer();
  ir_heap_release(H);
  TEST_MAIN_END();
}
