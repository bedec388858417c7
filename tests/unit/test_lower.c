/* test_lower.c - the lowering pipeline (ir/transform.h) against the interpreter.
 *
 * The oracle test: every prim_func of every .tvs program of tests/corpus runs
 * in the reference interpreter before lowering and after EACH pass on the
 * same deterministic inputs, and every tensor must come out bit-identical
 * (exact ints, bitwise floats).  Then targeted checks of single passes:
 * shapes of the IR they produce, "(unchanged)" pointer identity, and the
 * vectorize fallback warning. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "corpus_files.h"
#include "ir/flops.h"
#include "ir/interp.h"
#include "ir/printer.h"
#include "ir/transform.h"
#include "ir/visit.h"
#include "lang/elab.h"
#include "runtime/ndarray.h"

#define MAX_ARGS 32

#include "tir_args.h"

/* One runnable call of a prim_func: its arguments, initial and reference data. */
typedef struct Call {
  int nargs;
  InterpArg args[MAX_ARGS];
  TvsNDArray *arr[MAX_ARGS];
  unsigned char *init[MAX_ARGS];  /* initial bytes of each tensor */
  unsigned char *ref[MAX_ARGS];   /* bytes after the reference run */
} Call;

static void call_free(Call *c) {
  for (int i = 0; i < c->nargs; i++) {
    if (c->arr[i]) tvs_ndarray_free(c->arr[i]);
    free(c->init[i]);
    free(c->ref[i]);
  }
}

static void call_reset(Call *c) {
  for (int i = 0; i < c->nargs; i++)
    if (c->arr[i]) memcpy(c->arr[i]->t.data, c->init[i], tvs_ndarray_nbytes(&c->arr[i]->t));
}

/* Builds arguments for f; false when f cannot be driven this way. */
static bool call_build(Call *c, const TirFunc *f) {
  memset(c, 0, sizeof *c);
  if (f->nparams > MAX_ARGS) return false;
  Env env = {{0}, {0}, 0};
  c->nargs = f->nparams;
  for (int i = 0; i < f->nparams; i++) { /* scalars first: they may size buffers */
    const TirVar *p = f->params[i];
    if (f->buffer_map && f->buffer_map[i]) continue;
    if (dt_is_handle(p->dtype)) return false;
    if (dt_is_float(p->dtype)) c->args[i].f = 0.75;
    else {
      c->args[i].i = 5;
      env.vars[env.n] = p;
      env.vals[env.n++] = 5;
    }
  }
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    int64_t shape[8];
    if (b->ndim > 8 || b->dtype.lanes != 1) return false;
    for (int d = 0; d < b->ndim; d++)
      if (!eval_shape(&env, b->shape[d], &shape[d]) || shape[d] < 0) return false;
    c->arr[i] = tvs_ndarray_empty(b->ndim, shape, dl_of(b->dtype));
    fill(&c->arr[i]->t, b->dtype);
    size_t nb = tvs_ndarray_nbytes(&c->arr[i]->t);
    c->init[i] = xmalloc(nb ? nb : 1);
    memcpy(c->init[i], c->arr[i]->t.data, nb);
    c->args[i].tensor = &c->arr[i]->t;
  }
  return true;
}

static int n_programs, n_funcs, n_skipped, n_pass_runs;

/* Runs fname of m and compares with the reference; returns 0 when equal. */
static int run_and_compare(Call *c, const IrModule *m, const char *fname, DiagCtx *d) {
  call_reset(c);
  if (interp_run_tir(m, fname, c->args, c->nargs, d)) return -1;
  for (int i = 0; i < c->nargs; i++)
    if (c->arr[i] && memcmp(c->arr[i]->t.data, c->ref[i], tvs_ndarray_nbytes(&c->arr[i]->t))) return i + 1;
  return 0;
}

static void check_source(SourceFile *src, const char *file);

static void check_program(const char *dir, const char *file) {
  char *path = xasprintf("%s/%s", dir, file);
  const char *err = NULL;
  SourceFile *src = src_from_path(path, &err);
  free(path);
  if (src) check_source(src, file);
}

/* Lowers every prim_func of src pass by pass against the interpreter. */
static void check_source(SourceFile *src, const char *file) {
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *m = tvs_load_module(src, &d);
  if (!m || d.nerr) {
    ir_module_free(m);
    src_free(src);
    diag_free(&d);
    return;
  }
  n_programs++;
  int np;
  const TirPass *passes = tir_cpu_pipeline(&np);
  for (int fi = 0; fi < m->nfuncs; fi++) {
    if (m->funcs[fi].kind != IR_FUNC_TIR) continue;
    const char *fname = m->funcs[fi].name;
    Call c;
    rng_state = 0x1234567ULL + (uint64_t)fi;
    if (!call_build(&c, m->funcs[fi].tir)) {
      n_skipped++;
      printf("[SKIP] %s:%s (arguments)\n", file, fname);
      call_free(&c);
      continue;
    }
    /* An unchanged pass cannot change results, so it is not re-run.  In
     * quick mode (TVS_TEST_QUICK, set for the sanitizer build, where the
     * interpreter is ~15x slower) functions of more than 1 MFLOP go through
     * every pass (memory checking) without the interpreter comparisons,
     * which the normal build does in full. */
    double flops = tir_count_flops(m->funcs[fi].tir, NULL, 0);
    const char *qenv = getenv("TVS_TEST_QUICK");
    bool quick = qenv && *qenv && (flops < 0 || flops > 1e6);
    diag_clear(&d);
    if (!quick && interp_run_tir(m, fname, c.args, c.nargs, &d)) {
      n_skipped++;
      printf("[SKIP] %s:%s (the unlowered function fails: %s)\n", file, fname,
             d.len ? d.items[d.len - 1].msg : "?");
      call_free(&c);
      continue;
    }
    n_funcs++;
    for (int i = 0; i < c.nargs; i++)
      if (c.arr[i]) {
        size_t nb = tvs_ndarray_nbytes(&c.arr[i]->t);
        c.ref[i] = xmalloc(nb ? nb : 1);
        memcpy(c.ref[i], c.arr[i]->t.data, nb);
      }
    IrModule *cur = ir_module_copy(m);
    for (int p = 0; p < np; p++) {
      diag_clear(&d);
      bool changed;
      IrModule *next = tir_run_pass(cur, &passes[p], &d, &changed);
      ir_module_free(cur);
      cur = next;
      StrBuf sb;
      sb_init(&sb);
      print_module(&sb, cur, NULL);
      CHECK(sb.len > 0);
      sb_free(&sb);
      if (d.nerr) {
        fprintf(stderr, "%s:%s: pass %s reported: %s\n", file, fname, passes[p].name, d.items[0].msg);
        CHECK(!"pass reported an error");
        break;
      }
      n_pass_runs++;
      if (!changed || quick) continue;
      int rc = run_and_compare(&c, cur, fname, &d);
      if (rc) {
        if (rc < 0)
          fprintf(stderr, "%s:%s: after %s the interpreter fails: %s\n", file, fname, passes[p].name,
                  d.len ? d.items[d.len - 1].msg : "?");
        else
          fprintf(stderr, "%s:%s: after %s argument %d differs\n", file, fname, passes[p].name, rc - 1);
        CHECK(!"lowered function differs from the original");
        break;
      }
      check_passed++;
    }
    ir_module_free(cur);
    call_free(&c);
  }
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
}

static void test_corpus(void) {
  PtrVec names = {0};
  char *dir = corpus_files(&names);
  CHECK(dir != NULL);
  if (!dir) return;
  for (int i = 0; i < names.len; i++) check_program(dir, names.items[i]);
  corpus_files_free(&names, dir);
  printf("corpus: %d programs, %d prim_funcs checked after every pass (%d pass runs), %d skipped\n",
         n_programs, n_funcs, n_pass_runs, n_skipped);
  CHECK(n_programs >= 60);
  CHECK(n_funcs >= 60);
}

/* ---------------------------------------------------- targeted checks */

static const char *LOCAL_SRC =
    "@T.prim_func\n"
    "def f(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\")):\n"
    "    L = T.alloc_buffer((16, 16))\n"
    "    for i in range(16):\n"
    "        for j in range(16):\n"
    "            with T.block(\"L\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                L[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "        for j in T.unroll(16):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = L[vi, vj] + T.float32(1)\n";

typedef struct Census {
  int blocks, multi_dim, loops, unrolled;
} Census;

static bool census_stmt(TirVisitor *v, const TirStmt *s) {
  Census *c = v->ctx;
  if (s->kind == TIR_S_BLOCK || s->kind == TIR_S_BLOCK_REALIZE) c->blocks++;
  if (s->kind == TIR_S_STORE && s->store.n != 1) c->multi_dim++;
  if (s->kind == TIR_S_FOR) c->loops++;
  if (s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_UNROLLED) c->unrolled++;
  return true;
}

static bool census_expr(TirVisitor *v, const TirExpr *e) {
  Census *c = v->ctx;
  if (e->kind == TIR_LOAD && e->load.n != 1) c->multi_dim++;
  return true;
}

static Census census(const IrModule *m) {
  Census c = {0, 0, 0, 0};
  TirVisitor v;
  memset(&v, 0, sizeof v);
  v.pre_stmt = census_stmt;
  v.pre_expr = census_expr;
  v.ctx = &c;
  tir_visit_stmt(&v, m->funcs[0].tir->body);
  return c;
}

static char *print_stage(const IrModule *m, int stage, DiagCtx *d) {
  IrModule *low = tir_lower(m, stage, d, NULL, NULL);
  if (!low) return xstrdup("");
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, low, NULL);
  ir_module_free(low);
  return sb_take(&sb);
}

static void test_local_buffer(void) {
  SourceFile *src = src_from_string("local.tvs", LOCAL_SRC, strlen(LOCAL_SRC));
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *m = tvs_load_module(src, &d);
  CHECK(m && !d.nerr);
  if (!m) {
    src_free(src);
    diag_free(&d);
    return;
  }
  /* plan moves L under loop i; compact shrinks it to one row */
  char *t = print_stage(m, tir_pipeline_index("plan-and-update-buffer-allocation-location"), &d);
  CHECK(strstr(t, "for i in range(16):\n        with T.block(\"\"):") != NULL);
  free(t);
  t = print_stage(m, tir_pipeline_index("compact-buffer-allocation"), &d);
  CHECK(strstr(t, "L = T.alloc_buffer((1, 16))") != NULL);
  CHECK(strstr(t, "L[0, j] = A[i, j]") != NULL);
  free(t);
  /* structural contracts of the late stages */
  IrModule *low = tir_lower(m, tir_pipeline_index("lower-opaque-block"), &d, NULL, NULL);
  Census c = census(low);
  CHECK_EQ_INT(c.blocks, 0);
  CHECK(c.multi_dim > 0);
  /* a pass with nothing to do returns the very same function */
  bool changed = true;
  IrModule *again = tir_run_pass(low, &tir_cpu_pipeline(&(int){0})[1], &d, &changed);
  CHECK(!changed);
  CHECK(again->funcs[0].tir == low->funcs[0].tir);
  ir_module_free(again);
  ir_module_free(low);
  low = tir_lower(m, -1, &d, NULL, NULL);
  c = census(low);
  CHECK_EQ_INT(c.multi_dim, 0);
  CHECK_EQ_INT(c.unrolled, 0);
  CHECK_EQ_INT(c.loops, 2); /* i and the first j; the second j is unrolled */
  CHECK(irv_dict_get(low->funcs[0].tir->attrs, "calling_conv") != NULL);
  ir_module_free(low);
  CHECK_EQ_INT(d.nerr, 0);
  ir_module_free(m);
  diag_free(&d);
  src_free(src);
  /* and the oracle on it */
  src = src_from_string("local.tvs", LOCAL_SRC, strlen(LOCAL_SRC));
  check_source(src, "local.tvs");
}

int main(void) {
  test_local_buffer();
  test_corpus();
  TEST_MAIN_END();
}
