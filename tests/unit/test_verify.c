/* test_verify.c - the IR verifier (ir/verify.h) and the pipeline's check
 * after every pass (tir_run_passes with verify).
 *
 * (a) every prim_func of every tests/corpus program is well formed before
 *     lowering and after each pass of the CPU pipeline;
 * (b) hand-built broken functions (an undefined var, a var used outside its
 *     loop, a rank mismatch, operand dtypes that differ in type or lanes, a
 *     realize binding the wrong number of values) give their messages;
 * (c) a pipeline with a deliberately broken pass reports an internal error
 *     naming that pass and the function. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "corpus_files.h"
#include "ir/transform.h"
#include "ir/verify.h"
#include "lang/elab.h"

/* ------------------------------------------------------- (a) the corpus */

typedef struct CorpusRun {
  const char *file;
  int checked;
} CorpusRun;

static void verify_module(CorpusRun *r, const IrModule *m, const char *stage) {
  for (int i = 0; i < m->nfuncs; i++) {
    if (m->funcs[i].kind != IR_FUNC_TIR) continue;
    StrBuf why;
    sb_init(&why);
    bool ok = tir_verify_func(m->funcs[i].tir, &why);
    if (!ok) fprintf(stderr, "%s:%s: after %s: %s\n", r->file, m->funcs[i].name, stage, why.data);
    CHECK(ok);
    r->checked++;
    sb_free(&why);
  }
}

static void after_pass(void *user, const TirPass *p, const IrModule *m, bool changed) {
  (void)changed;
  verify_module(user, m, p->name);
}

static int n_programs, n_checks;

static void verify_program(const char *dir, const char *file) {
  char *path = xasprintf("%s/%s", dir, file);
  const char *err = NULL;
  SourceFile *src = src_from_path(path, &err);
  free(path);
  if (!src) return;
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *m = tvs_load_module(src, &d);
  if (m && !d.nerr) {
    n_programs++;
    CorpusRun r = {file, 0};
    verify_module(&r, m, "elaboration");
    int np;
    const TirPass *passes = tir_cpu_pipeline(&np);
    IrModule *low = tir_run_passes(m, passes, np, true, &d, after_pass, &r);
    if (!low) fprintf(stderr, "%s: %s\n", file, d.len ? d.items[0].msg : "lowering failed");
    CHECK(low != NULL);
    ir_module_free(low);
    n_checks += r.checked;
  }
  ir_module_free(m);
  diag_free(&d);
  src_free(src);
}

static void test_corpus(void) {
  PtrVec names = {0};
  char *dir = corpus_files(&names);
  CHECK(dir != NULL);
  if (!dir) return;
  for (int i = 0; i < names.len; i++) verify_program(dir, names.items[i]);
  corpus_files_free(&names, dir);
  printf("corpus: %d programs, %d function versions verified\n", n_programs, n_checks);
  CHECK(n_programs >= 60);
}

/* ------------------------------------------------- (b) broken functions */

/* f(A: T.Buffer((16,), "float32")) with the given body. */
typedef struct Fixture {
  IrHeap *h;
  TirBuffer *A;
  TirVar *param;
} Fixture;

static Fixture fixture(void) {
  Fixture fx;
  fx.h = ir_heap_new();
  TirExpr *shape[1] = {tir_i32(fx.h, 16)};
  fx.A = tir_buffer(fx.h, "A", dt_float32, shape, 1, "global");
  fx.param = tir_var(fx.h, "A_handle", dt_handle);
  return fx;
}

static char *verify_body(Fixture *fx, TirStmt *body) {
  TirFunc *f = tir_func(fx->h, &fx->param, &fx->A, 1, body, NULL);
  StrBuf why;
  sb_init(&why);
  bool ok = tir_verify_func(f, &why);
  CHECK(ok == (why.len == 0));
  return sb_take(&why);
}

static TirExpr *ref(Fixture *fx, TirVar *v) { return tir_var_ref(fx->h, v); }

static TirStmt *loop16(Fixture *fx, TirVar *i, TirStmt *body) {
  return tir_for(fx->h, i, tir_i32(fx->h, 0), tir_i32(fx->h, 16), TIR_FOR_SERIAL, NULL, NULL, body);
}

static void test_broken(void) {
  Fixture fx = fixture();
  IrHeap *h = fx.h;
  TirVar *i = tir_var(h, "i", dt_int32), *j = tir_var(h, "j", dt_int32);
  TirExpr *zero = tir_float(h, dt_float32, 0.0);

  /* well formed: for i: A[i] = A[i] + 0 */
  TirExpr *idx = ref(&fx, i);
  TirExpr *sum = tir_binary(h, TIR_ADD, tir_load(h, fx.A, &idx, 1), zero);
  char *why = verify_body(&fx, loop16(&fx, i, tir_store(h, fx.A, sum, &idx, 1)));
  CHECK_EQ_STR(why, "");
  free(why);

  /* an undefined variable */
  idx = ref(&fx, j);
  why = verify_body(&fx, loop16(&fx, i, tir_store(h, fx.A, zero, &idx, 1)));
  CHECK_EQ_STR(why, "var 'j' is used but never defined (in block 'root')");
  free(why);

  /* a loop var used after its loop */
  idx = ref(&fx, i);
  TirStmt *two[2] = {loop16(&fx, i, tir_store(h, fx.A, zero, &idx, 1)), tir_store(h, fx.A, zero, &idx, 1)};
  why = verify_body(&fx, tir_seq(h, two, 2));
  CHECK_EQ_STR(why, "var 'i' is used outside the loop or block that defines it (in block 'root')");
  free(why);

  /* a rank mismatch */
  TirExpr *idx2[2] = {ref(&fx, i), ref(&fx, i)};
  why = verify_body(&fx, loop16(&fx, i, tir_store(h, fx.A, zero, idx2, 2)));
  CHECK_EQ_STR(why, "a store of buffer 'A' has 2 indices for 1 dimensions");
  free(why);
  why = verify_body(&fx, loop16(&fx, i, tir_store(h, fx.A, tir_load(h, fx.A, idx2, 2), &idx, 1)));
  CHECK_EQ_STR(why, "a load of buffer 'A' has 2 indices for 1 dimensions");
  free(why);

  /* operand dtypes: scalar types, then lanes */
  sum = tir_binary(h, TIR_ADD, tir_load(h, fx.A, &idx, 1), tir_float(h, dt_float64, 1.0));
  why = verify_body(&fx, loop16(&fx, i, tir_store(h, fx.A, sum, &idx, 1)));
  CHECK_EQ_STR(why, "the operands of Add have different dtypes: float32 and float64 (in block 'root')");
  free(why);
  TirExpr *ramp = tir_ramp(h, tir_i32(h, 0), tir_i32(h, 1), 4);
  sum = tir_binary(h, TIR_MUL, tir_load(h, fx.A, &ramp, 1), tir_broadcast(h, zero, 8));
  why = verify_body(&fx, tir_store(h, fx.A, sum, &ramp, 1));
  CHECK_EQ_STR(why, "the operands of Mul have different dtypes: float32x4 and float32x8 (in block 'root')");
  free(why);
  sum = tir_binary(h, TIR_MUL, tir_load(h, fx.A, &ramp, 1), tir_broadcast(h, zero, 4));
  why = verify_body(&fx, tir_store(h, fx.A, sum, &ramp, 1));
  CHECK_EQ_STR(why, "");
  free(why);

  /* a realize binding fewer values than its block has iters */
  TirVar *vi = tir_var(h, "vi", dt_int32);
  TirIterVar iv = {vi, {tir_i32(h, 0), tir_i32(h, 16)}, TIR_ITER_SPATIAL};
  TirExpr *vidx = ref(&fx, vi);
  TirBlock blk;
  memset(&blk, 0, sizeof blk);
  blk.name = "B";
  blk.iters = &iv;
  blk.niters = 1;
  blk.body = tir_store(h, fx.A, zero, &vidx, 1);
  TirStmt *realize = tir_block_realize(h, NULL, 0, tir_bool(h, true), tir_block(h, &blk));
  why = verify_body(&fx, loop16(&fx, i, realize));
  CHECK_EQ_STR(why, "block 'B' has 1 iters but its realize binds 0 values");
  free(why);

  /* a let var used outside its LetStmt */
  idx = ref(&fx, j);
  TirStmt *let_then[2] = {tir_let_stmt(h, j, tir_i32(h, 3), tir_store(h, fx.A, zero, &idx, 1)),
                          tir_store(h, fx.A, zero, &idx, 1)};
  why = verify_body(&fx, tir_seq(h, let_then, 2));
  CHECK_EQ_STR(why, "var 'j' is used outside the statement that defines it (in block 'root')");
  free(why);
  ir_heap_release(h);
}

/* ---------------------------------------------- (c) a broken pass named */

static const char *SRC =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16,), \"float32\")):\n"
    "    for i in range(16):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(16, i)\n"
    "            A[vi] = A[vi] * T.float32(2)\n";

/* Appends `A[k] = 0` with k defined nowhere. */
static TirFunc *break_it(TirPassCtx *ctx, TirFunc *f) {
  IrHeap *h = ctx->heap;
  TirBuffer *A = f->buffer_map[0];
  TirExpr *k = tir_var_ref(h, tir_var(h, "k", dt_int32));
  TirStmt *body[2] = {f->body, tir_store(h, A, tir_float(h, dt_float32, 0.0), &k, 1)};
  return tir_func(h, f->params, f->buffer_map, f->nparams, tir_seq(h, body, 2), f->attrs);
}

static void test_broken_pass(void) {
  SourceFile *src = src_from_string("broken.tvs", SRC, strlen(SRC));
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *m = tvs_load_module(src, &d);
  CHECK(m && !d.nerr);
  if (m) {
    const TirPass *cpu = tir_cpu_pipeline(&(int){0});
    TirPass passes[3] = {cpu[0], cpu[1], {"break-it", break_it, "a pass that leaves a var undefined"}};
    IrModule *low = tir_run_passes(m, passes, 2, true, &d, NULL, NULL);
    CHECK(low != NULL && d.nerr == 0);
    ir_module_free(low);
    low = tir_run_passes(m, passes, 3, true, &d, NULL, NULL);
    CHECK(low == NULL);
    CHECK_EQ_INT(d.nerr, 1);
    CHECK_EQ_STR(d.len ? d.items[0].msg : NULL,
                 "internal error: lowering pass 'break-it' produced ill-formed IR in 'main': var 'k' is used but "
                 "never defined (in block 'root')");
    /* without verification the broken module comes back */
    diag_clear(&d);
    low = tir_run_passes(m, passes, 3, false, &d, NULL, NULL);
    CHECK(low != NULL && d.nerr == 0);
    ir_module_free(low);
  }
  ir_module_free(m);
  diag_free(&d);
  src_free(src);
}

int main(void) {
  test_broken();
  test_broken_pass();
  test_corpus();
  TEST_MAIN_END();
}
