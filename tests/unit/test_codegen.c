/* test_codegen.c - the LLVM CPU backend (codegen/codegen.h) against the interpreter.
 *
 * Correctness: every prim_func of every tests/corpus program is compiled with
 * cg_compile_module (full lowering + LLVM O3 + JIT), run through its packed
 * entry on deterministic inputs, and compared with the reference interpreter
 * on the unlowered module.  Integers and bools must match exactly; floats
 * must match bitwise except where libm single-precision functions (expf,
 * tanhf...) differ from the interpreter's double-then-round evaluation: then
 * |got - want| <= 1e-6 * |want| + 1e-6 (float32/64), 2^-10 (float16), 2^-7
 * (bfloat16) relative.  Error cases: the packed entry's argument checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "corpus_files.h"
#include "codegen/cg_internal.h"
#include "ir/interp.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "base/util.h"
#include "runtime/ndarray.h"

#define MAX_ARGS 32

#include "tir_args.h"

/* One call of a prim_func: arguments, initial and reference data. */
typedef struct Call {
  int nargs;
  InterpArg args[MAX_ARGS];
  DType dtypes[MAX_ARGS];
  TvsNDArray *arr[MAX_ARGS];
  unsigned char *init[MAX_ARGS];
  unsigned char *ref[MAX_ARGS];
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

static bool call_build(Call *c, const TirFunc *f) {
  memset(c, 0, sizeof *c);
  if (f->nparams > MAX_ARGS) return false;
  Env env = {{0}, {0}, 0};
  c->nargs = f->nparams;
  for (int i = 0; i < f->nparams; i++) {
    const TirVar *p = f->params[i];
    c->dtypes[i] = p->dtype;
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
    c->dtypes[i] = b->dtype;
    c->arr[i] = tvs_ndarray_empty(b->ndim, shape, dl_of(b->dtype));
    fill(&c->arr[i]->t, b->dtype);
    size_t nb = tvs_ndarray_nbytes(&c->arr[i]->t);
    c->init[i] = xmalloc(nb ? nb : 1);
    memcpy(c->init[i], c->arr[i]->t.data, nb);
    c->args[i].tensor = &c->arr[i]->t;
  }
  return true;
}

static double f16_value(uint16_t h) {
  int sign = h >> 15, e = (h >> 10) & 31, mant = h & 1023;
  double v = e == 0 ? ldexp(mant, -24) : e == 31 ? (mant ? NAN : INFINITY) : ldexp(mant + 1024, e - 25);
  return sign ? -v : v;
}

static double bf16_value(uint16_t h) {
  uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static double elem(const unsigned char *p, DType t, int64_t i) {
  if (t.code == DT_BFLOAT) return bf16_value(((const uint16_t *)p)[i]);
  if (t.bits == 16) return f16_value(((const uint16_t *)p)[i]);
  if (t.bits == 32) return ((const float *)p)[i];
  return ((const double *)p)[i];
}

/* 0 = bitwise equal, 1 = within the float tolerance, -1 = different. */
static int compare(const unsigned char *got, const unsigned char *want, size_t nb, DType t, int64_t n,
                   double *worst) {
  if (!memcmp(got, want, nb)) return 0;
  if (!dt_is_float(t)) return -1;
  /* float32: 1e-5, since the default build contracts a * b + c into FMA
   * (--fp-contract fast, as TVM) where the interpreter rounds the product */
  double rtol = t.code == DT_BFLOAT ? 1.0 / 128 : t.bits == 16 ? 1.0 / 1024 : t.bits == 32 ? 1e-5 : 1e-12;
  /* the absolute part scales with the array's largest value: a contracted
   * sum differs from the rounded one by ulps of its terms, not of its result */
  double scale = 1;
  for (int64_t i = 0; i < n; i++)
    if (isfinite(elem(want, t, i)) && fabs(elem(want, t, i)) > scale) scale = fabs(elem(want, t, i));
  for (int64_t i = 0; i < n; i++) {
    double a = elem(got, t, i), b = elem(want, t, i);
    if (isnan(a) && isnan(b)) continue;
    if (a == b) continue;
    double err = fabs(a - b), lim = rtol * fabs(b) + rtol * scale;
    if (!(err <= lim)) return -1;
    double rel = err / (fabs(b) + 1e-30);
    if (rel > *worst) *worst = rel;
  }
  return 1;
}

static int n_programs, n_funcs, n_exact, n_tol, n_skipped;

static int call_packed(TVSModule *mod, const char *fname, Call *c) {
  TVSFunction *fn = tvs_module_get_function(mod, fname);
  if (!fn) return -2;
  TVSValue vals[MAX_ARGS];
  int codes[MAX_ARGS];
  for (int i = 0; i < c->nargs; i++) {
    if (c->arr[i]) {
      vals[i].v_handle = &c->arr[i]->t;
      codes[i] = TVS_TENSOR;
    } else if (dt_is_float(c->dtypes[i])) {
      vals[i].v_float64 = c->args[i].f;
      codes[i] = TVS_FLOAT;
    } else {
      vals[i].v_int64 = c->args[i].i;
      codes[i] = TVS_INT;
    }
  }
  TVSValue ret;
  int rtc;
  int rc = tvs_func_call(fn, vals, codes, c->nargs, &ret, &rtc);
  tvs_func_release(fn);
  return rc;
}

static void check_program(const char *dir, const char *file, const CgOptions *opt) {
  char *path = xasprintf("%s/%s", dir, file);
  const char *err = NULL;
  SourceFile *src = src_from_path(path, &err);
  free(path);
  if (!src) return;
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *m = tvs_load_module(src, &d);
  bool has_tir = false;
  for (int i = 0; m && i < m->nfuncs; i++) has_tir |= m->funcs[i].kind == IR_FUNC_TIR;
  bool has_relax = false;
  for (int i = 0; m && i < m->nfuncs; i++) has_relax |= m->funcs[i].kind == IR_FUNC_RELAX;
  if (!m || d.nerr || !has_tir || has_relax) { /* Relax programs: later */
    ir_module_free(m);
    src_free(src);
    diag_free(&d);
    return;
  }
  n_programs++;
  TVSModule *mod = cg_compile_module(m, opt, &d);
  if (!mod) {
    fprintf(stderr, "%s: compile failed: %s\n", file, d.len ? d.items[d.len - 1].msg : "?");
    CHECK(!"cg_compile_module failed");
  }
  for (int fi = 0; mod && fi < m->nfuncs; fi++) {
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
    diag_clear(&d);
    if (interp_run_tir(m, fname, c.args, c.nargs, &d)) {
      n_skipped++;
      printf("[SKIP] %s:%s (the interpreter fails: %s)\n", file, fname, d.len ? d.items[d.len - 1].msg : "?");
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
    call_reset(&c);
    int rc = call_packed(mod, fname, &c);
    if (rc) {
      fprintf(stderr, "%s:%s: compiled call failed: %s\n", file, fname, rc == -2 ? "no function" : tvs_get_last_error());
      CHECK(!"compiled call failed");
      call_free(&c);
      continue;
    }
    int worst_kind = 0;
    double worst = 0;
    for (int i = 0; i < c.nargs; i++) {
      if (!c.arr[i]) continue;
      int r = compare(c.arr[i]->t.data, c.ref[i], tvs_ndarray_nbytes(&c.arr[i]->t), c.dtypes[i],
                      tvs_ndarray_numel(&c.arr[i]->t), &worst);
      if (r < 0) {
        fprintf(stderr, "%s:%s: argument %d differs from the interpreter\n", file, fname, i);
        worst_kind = -1;
      } else if (r > worst_kind && worst_kind >= 0) {
        worst_kind = r;
      }
    }
    CHECK(worst_kind >= 0);
    if (worst_kind == 0) n_exact++;
    if (worst_kind == 1) {
      n_tol++;
      printf("[TOL] %s:%s within tolerance (worst relative error %.3g)\n", file, fname, worst);
    }
    call_free(&c);
  }
  tvs_module_free(mod);
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
}

static void test_corpus(void) {
  PtrVec names = {0};
  char *dir = corpus_files(&names);
  CHECK(dir != NULL);
  if (!dir) return;
  const char *only = getenv("TVS_CG_ONLY");
  CgOptions opt = cg_options_default();
  for (int i = 0; i < names.len; i++)
    if (!only || strstr(names.items[i], only)) check_program(dir, names.items[i], &opt);
  printf("corpus (O3, host CPU): %d programs, %d prim_funcs compiled and run: %d bit-exact, %d within "
         "tolerance, %d skipped\n",
         n_programs, n_funcs, n_exact, n_tol, n_skipped);
  if (!only) CHECK(n_funcs >= 50);
  /* a baseline x86-64 CPU (no F16C: half conversions are libcalls, no AVX)
   * and the low optimization levels, on the dtype-heavy programs */
  static const char *const dtype_progs[] = {"bitwise_shifts", "bool_buffers", "casts", "float16_chain",
                                            "int_div_mod", "int_wraparound", "small_int_types",
                                            "minmax_limits", "loop_kinds", "select_logic"};
  for (int lvl = 0; lvl <= 3; lvl += 3) {
    CgOptions g = cg_options_default();
    g.opt_level = lvl;
    g.mcpu = "x86-64";
    g.mattr = "";
    n_programs = n_funcs = n_exact = n_tol = n_skipped = 0;
    for (int i = 0; i < names.len; i++)
      for (size_t k = 0; k < sizeof dtype_progs / sizeof dtype_progs[0]; k++)
        if (strstr(names.items[i], dtype_progs[k]) && (!only || strstr(names.items[i], only)))
          check_program(dir, names.items[i], &g);
    printf("corpus (O%d, x86-64): %d prim_funcs: %d bit-exact, %d within tolerance\n", lvl, n_funcs,
           n_exact, n_tol);
    if (!only) CHECK(n_funcs >= 8);
  }
  corpus_files_free(&names, dir);
}

/* ---------------------------------------------------------- edge cases */

/* Saturating and NaN casts, Python // and % with negative divisors, shifts
 * out of range, bfloat16/float16 rounding, a lazy if_then_else, a while
 * loop, a workspace-sized allocation under parallel loops, strided and
 * reversed vector loads, bool vectors, and a failing assert: all must match
 * the interpreter bit for bit. */
static const char *edges_src =
    "@T.prim_func\n"
    "def edges(A: T.Buffer((16,), \"float32\"), I: T.Buffer((16,), \"int32\"), Bf: T.Buffer((16,), \"bfloat16\"), H: T.Buffer((16,), \"float16\"), O: T.Buffer((16,), \"int32\"), P: T.Buffer((16,), \"float32\"), Q: T.Buffer((16,), \"bfloat16\"), R: T.Buffer((16,), \"float16\"), S: T.Buffer((16,), \"int8\")):\n"
    "    cnt = T.alloc_buffer((1,), \"int32\")\n"
    "    for i in range(16):\n"
    "        O[i] = T.Cast(\"int32\", A[i] * T.float32(1e10)) + I[i] // 3 + I[i] % -3 + T.shift_left(I[i], I[i]) + T.shift_right(I[i], T.int32(40))\n"
    "        P[i] = T.if_then_else(i < 15, A[T.min(i + 1, 15)], T.float32(0)) + T.Cast(\"float32\", Bf[i] * Bf[i] + Bf[i])\n"
    "        Q[i] = Bf[i] / T.bfloat16(3) + T.Cast(\"bfloat16\", A[i]) + T.Cast(\"bfloat16\", T.float64(1.00390625) * T.Cast(\"float64\", A[i]))\n"
    "        R[i] = H[i] * H[i] - T.Cast(\"float16\", A[i]) + T.Cast(\"float16\", I[i] * 1000)\n"
    "        S[i] = T.Cast(\"int8\", A[i] * T.float32(100))\n"
    "    cnt[0] = 0\n"
    "    while cnt[0] < 5:\n"
    "        cnt[0] = cnt[0] + 1\n"
    "    O[0] = O[0] + cnt[0]\n"
    "\n"
    "@T.prim_func\n"
    "def big(A: T.Buffer((64, 1024), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "    tmp = T.alloc_buffer((64, 1024), \"float32\")\n"
    "    for i in T.parallel(64):\n"
    "        for j in range(1024):\n"
    "            tmp[i, j] = A[i, j] * T.float32(2)\n"
    "    for i in T.parallel(64):\n"
    "        B[i] = T.float32(0)\n"
    "        for j in range(1024):\n"
    "            B[i] = B[i] + tmp[i, j]\n"
    "\n"
    "@T.prim_func\n"
    "def gather(A: T.Buffer((64,), \"float32\"), B: T.Buffer((32,), \"float32\"), M: T.Buffer((32,), \"bool\")):\n"
    "    for i in range(2):\n"
    "        for j in T.vectorized(16):\n"
    "            B[i * 16 + j] = A[i * 32 + j * 2] + A[63 - i * 16 - j]\n"
    "            M[i * 16 + j] = A[i * 32 + j * 2] > A[j] and not M[i * 16 + j]\n"
    "\n"
    "@T.prim_func\n"
    "def chk(A: T.Buffer((4,), \"int32\")):\n"
    "    assert A[0] > 0, \"A[0] must be positive\"\n"
    "    A[1] = A[0]\n"
    "\n";

static void test_edges(void) {
  SourceFile *src = src_from_string("edges.tvs", edges_src, strlen(edges_src));
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *m = tvs_load_module(src, &d);
  CHECK(m != NULL);
  CgOptions opt = cg_options_default();
  TVSModule *mod = m ? cg_compile_module(m, &opt, &d) : NULL;
  CHECK(mod != NULL);
  if (!mod) fprintf(stderr, "edges: %s\n", d.len ? d.items[d.len - 1].msg : "?");
  for (int fi = 0; mod && fi < m->nfuncs; fi++) {
    const char *fname = m->funcs[fi].name;
    Call c;
    rng_state = 0x77ULL + (uint64_t)fi;
    CHECK(call_build(&c, m->funcs[fi].tir));
    if (!strcmp(fname, "edges")) {
      float *a = c.arr[0]->t.data;
      a[3] = NAN;
      a[4] = -INFINITY;
      a[5] = 3e9f;
      a[6] = -1.28f;
      a[7] = 1.27f;
      memcpy(c.init[0], a, 16 * sizeof(float));
    }
    if (!strcmp(fname, "chk")) {
      ((int32_t *)c.arr[0]->t.data)[0] = -1;
      CHECK_EQ_INT(call_packed(mod, fname, &c), -1);
      CHECK_EQ_STR(tvs_get_last_error(), "chk: assertion failed: A[0] must be positive");
      ((int32_t *)c.init[0])[0] = 7;
    }
    call_reset(&c);
    diag_clear(&d);
    CHECK_EQ_INT(interp_run_tir(m, fname, c.args, c.nargs, &d), 0);
    for (int i = 0; i < c.nargs; i++) {
      size_t nb = tvs_ndarray_nbytes(&c.arr[i]->t);
      c.ref[i] = xmalloc(nb ? nb : 1);
      memcpy(c.ref[i], c.arr[i]->t.data, nb);
    }
    call_reset(&c);
    CHECK_EQ_INT(call_packed(mod, fname, &c), 0);
    for (int i = 0; i < c.nargs; i++) {
      bool same = !memcmp(c.arr[i]->t.data, c.ref[i], tvs_ndarray_nbytes(&c.arr[i]->t));
      if (!same) fprintf(stderr, "edges: %s argument %d differs\n", fname, i);
      CHECK(same);
    }
    call_free(&c);
  }
  tvs_module_free(mod);
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
}

/* ------------------------------------------------------- argument checks */

static const char *addn_src =
    "@T.prim_func\n"
    "def addn(a: T.handle, b: T.handle, s: T.float32):\n"
    "    n = T.int64()\n"
    "    A = T.match_buffer(a, (n, 4), \"float32\")\n"
    "    B = T.match_buffer(b, (n, 4), \"float32\")\n"
    "    for i, j in T.grid(n, 4):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * s\n";

static TVSModule *compile_text_opt(const char *text, CgOptions opt) {
  SourceFile *src = src_from_string("test.tvs", text, strlen(text));
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *m = tvs_load_module(src, &d);
  TVSModule *mod = m ? cg_compile_module(m, &opt, &d) : NULL;
  if (!mod) fprintf(stderr, "compile_text: %s\n", d.len ? d.items[d.len - 1].msg : "?");
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
  return mod;
}

static TVSModule *compile_text(const char *text) { return compile_text_opt(text, cg_options_default()); }

static int call3(TVSFunction *fn, TVSValue *v, int *codes, int n) {
  TVSValue ret;
  int rtc;
  return tvs_func_call(fn, v, codes, n, &ret, &rtc);
}

static void test_arg_checks(void) {
  TVSModule *mod = compile_text(addn_src);
  CHECK(mod != NULL);
  if (!mod) return;
  TVSFunction *fn = tvs_module_get_function(mod, "addn");
  CHECK(fn != NULL);
  int64_t s34[2] = {3, 4}, s54[2] = {5, 4}, s35[2] = {3, 5}, s3[1] = {3};
  DLDataType f32 = {kDLFloat, 32, 1}, i32 = {kDLInt, 32, 1};
  TvsNDArray *A = tvs_ndarray_empty(2, s34, f32), *B = tvs_ndarray_empty(2, s34, f32);
  TvsNDArray *B5 = tvs_ndarray_empty(2, s54, f32), *Bi = tvs_ndarray_empty(2, s34, i32);
  TvsNDArray *B1 = tvs_ndarray_empty(1, s3, f32), *Bw = tvs_ndarray_empty(2, s35, f32);
  for (int i = 0; i < 12; i++) ((float *)A->t.data)[i] = (float)i;
  TVSValue v[3];
  int codes[3] = {TVS_TENSOR, TVS_TENSOR, TVS_FLOAT};
  v[0].v_handle = &A->t;
  v[1].v_handle = &B->t;
  v[2].v_float64 = 2.0;
  /* success */
  CHECK_EQ_INT(call3(fn, v, codes, 3), 0);
  CHECK(((float *)B->t.data)[11] == 22.0f);
  /* wrong count */
  CHECK_EQ_INT(call3(fn, v, codes, 2), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "addn: expected 3 arguments, got 2");
  /* wrong dtype */
  v[1].v_handle = &Bi->t;
  CHECK_EQ_INT(call3(fn, v, codes, 3), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "addn: argument 1 ('B') has dtype int32, expected float32");
  /* wrong rank */
  v[1].v_handle = &B1->t;
  CHECK_EQ_INT(call3(fn, v, codes, 3), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "addn: argument 1 ('B') has 1 dimension, expected 2");
  /* wrong static dim */
  v[1].v_handle = &Bw->t;
  CHECK_EQ_INT(call3(fn, v, codes, 3), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "addn: argument 1 ('B') shape[1] is 5, expected 4");
  /* inconsistent symbolic dim */
  v[1].v_handle = &B5->t;
  CHECK_EQ_INT(call3(fn, v, codes, 3), -1);
  CHECK_EQ_STR(tvs_get_last_error(),
               "addn: inconsistent value for symbolic dimension 'n': 5 (argument 'B') vs 3 (argument 'A')");
  /* null data */
  v[1].v_handle = &B->t;
  void *saved = A->t.data;
  A->t.data = NULL;
  CHECK_EQ_INT(call3(fn, v, codes, 3), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "addn: argument 0 ('A') has a null data pointer");
  A->t.data = saved;
  /* not a tensor; scalar of the wrong kind */
  codes[0] = TVS_INT;
  CHECK_EQ_INT(call3(fn, v, codes, 3), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "addn: argument 0 ('A') must be a DLTensor, got int");
  codes[0] = TVS_TENSOR;
  codes[2] = TVS_INT;
  CHECK_EQ_INT(call3(fn, v, codes, 3), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "addn: argument 2 ('s') must be a float, got int");
  codes[2] = TVS_FLOAT;
  CHECK_EQ_INT(call3(fn, v, codes, 3), 0);
  /* metadata */
  const TVSFuncInfo *fi = tvs_module_func_info(mod, "addn");
  CHECK(fi != NULL);
  if (fi) {
    CHECK_EQ_INT(fi->num_params, 3);
    CHECK_EQ_STR(fi->params[0].name, "A");
    CHECK_EQ_INT(fi->params[0].shape[0], -1);
    CHECK_EQ_STR(fi->params[0].sym_dims[0], "n");
    CHECK_EQ_INT(fi->params[2].type_code, TVS_FLOAT);
  }
  tvs_func_release(fn);
  tvs_ndarray_free(A);
  tvs_ndarray_free(B);
  tvs_ndarray_free(B5);
  tvs_ndarray_free(Bi);
  tvs_ndarray_free(B1);
  tvs_ndarray_free(Bw);
  tvs_module_free(mod);
}

/* ------------------------------------------------------- emitted code */

static const char *vec_src =
    "@T.prim_func\n"
    "def vadd(A: T.Buffer((64, 16), \"float32\"), B: T.Buffer((64, 16), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    for i in T.parallel(64):\n"
    "        for j in T.vectorized(16):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = A[vi, vj] + T.float32(1)\n";

static void test_emit(void) {
  SourceFile *src = src_from_string("vec.tvs", vec_src, strlen(vec_src));
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *m = tvs_load_module(src, &d);
  CHECK(m != NULL);
  IrModule *low = m ? tir_lower(m, -1, &d, NULL, NULL) : NULL;
  CHECK(low != NULL);
  CgOptions opt = cg_options_default();
  opt.mcpu = "skylake-avx512";
  opt.mattr = "";
  CgResult *r = low ? cg_build(low, &opt, &d) : NULL;
  CHECK(r != NULL);
  if (r) {
    char *ir = cg_emit_llvm(r, false);
    CHECK(ir && strstr(ir, "<16 x float>"));
    CHECK(ir && strstr(ir, "tvs_parallel_launch"));
    CHECK(ir && strstr(ir, "define i32 @__tvs_packed_vadd"));
    free(ir);
    char *oir = cg_emit_llvm(r, true);
    CHECK(oir && strstr(oir, "fadd <16 x float>"));
    free(oir);
    char *as = cg_emit_asm(r, &d);
    CHECK(as && strstr(as, "zmm"));
    free(as);
    char *obj = xasprintf("/tmp/tvs_cg_test_%d.o", (int)getpid());
    CHECK_EQ_INT(cg_emit_object(r, obj, &d), 0);
    FILE *fp = fopen(obj, "rb");
    CHECK(fp != NULL);
    if (fp) {
      char mag[4] = {0};
      CHECK(fread(mag, 1, 4, fp) == 4 && !memcmp(mag, "\177ELF", 4));
      fclose(fp);
    }
    remove(obj);
    free(obj);
  }
  cg_free(r);
  ir_module_free(low);
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
}

/* ------------------------------------------------- exp under fast-math */

static const char *exp_src =
    "@T.prim_func\n"
    "def fexp(A: T.Buffer((65536, 16), \"float32\"), B: T.Buffer((65536, 16), \"float32\"),\n"
    "         C: T.Buffer((65536, 16), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    for i in range(65536):\n"
    "        for j in T.vectorized(16):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = T.exp(A[vi, vj])\n"
    "        for j in range(16):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = T.exp(A[vi, vj])\n";

/* Distance in units in the last place (the bit patterns of two finite floats of one sign). */
static int64_t ulps(float a, float b) {
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  if ((ia < 0) != (ib < 0)) return INT64_MAX;
  return ia > ib ? (int64_t)ia - ib : (int64_t)ib - ia;
}

/* --fast-math computes exp inline (codegen/llvm_fast_exp.c) on vectors and
 * scalars alike: within 2 ulp of libm over the whole float range, with
 * libm's overflow, underflow, infinities and NaN. */
static void test_fast_exp(void) {
  CgOptions opt = cg_options_default();
  opt.fast_math = true;
  TVSModule *mod = compile_text_opt(exp_src, opt);
  CHECK(mod != NULL);
  if (!mod) return;
  TVSFunction *fn = tvs_module_get_function(mod, "fexp");
  CHECK(fn != NULL);
  if (!fn) {
    tvs_module_free(mod);
    return;
  }
  int64_t shape[2] = {65536, 16};
  DLDataType f32 = {kDLFloat, 32, 1};
  TvsNDArray *A = tvs_ndarray_empty(2, shape, f32), *B = tvs_ndarray_empty(2, shape, f32);
  TvsNDArray *C = tvs_ndarray_empty(2, shape, f32);
  float *a = A->t.data, *b = B->t.data, *c = C->t.data;
  const int n = 65536 * 16;
  static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 88.72283f, 88.72284f, 88.7229f, 89.0f,
                                  -87.33654f, -87.5f, -100.0f, -103.27893f, -103.97208f, -103.9721f,
                                  -104.0f, 1e-30f, -1e-45f, 0.34657359f, -0.34657359f, 1e5f, -1e5f};
  const int nspecial = (int)(sizeof special / sizeof special[0]);
  for (int i = 0; i < nspecial; i++) a[i] = special[i];
  a[nspecial] = INFINITY, a[nspecial + 1] = -INFINITY, a[nspecial + 2] = NAN;
  for (int i = nspecial + 3; i < n; i++) a[i] = -110.0f + 205.0f * (float)(i - nspecial - 3) / (float)(n - nspecial - 3);
  TVSValue v[3] = {{.v_handle = &A->t}, {.v_handle = &B->t}, {.v_handle = &C->t}};
  int codes[3] = {TVS_TENSOR, TVS_TENSOR, TVS_TENSOR};
  TVSValue ret;
  int rtc;
  CHECK_EQ_INT(tvs_func_call(fn, v, codes, 3, &ret, &rtc), 0);
  int64_t worst = 0;
  int bad_special = 0;
  for (int i = 0; i < n; i++) {
    float want = expf(a[i]);
    if (isnan(want)) {
      bad_special += !isnan(b[i]) + !isnan(c[i]);
      continue;
    }
    if (isinf(want) || want == 0.0f) { /* exact where libm is */
      bad_special += (b[i] != want) + (c[i] != want);
      continue;
    }
    int64_t u = ulps(b[i], want), uc = ulps(c[i], want);
    if (u > worst) worst = u;
    if (uc > worst) worst = uc;
  }
  CHECK_EQ_INT(bad_special, 0);
  CHECK(worst <= 2);
  if (worst > 2) fprintf(stderr, "fast exp: %lld ulp\n", (long long)worst);
  tvs_func_release(fn);
  tvs_ndarray_free(A);
  tvs_ndarray_free(B);
  tvs_ndarray_free(C);
  tvs_module_free(mod);
}

/* The JIT's half-conversion libcalls: exact round trips, nearest-even ties. */
static void test_fp16_rt(void) {
  int bad = 0;
  for (uint32_t h = 0; h < 0x10000; h++) {
    float f = cg_rt_h2f((uint16_t)h);
    if (isnan(f)) continue;
    if (cg_rt_f2h(f) != h) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(cg_rt_f2h(1.0f + 1.0f / 2048), 0x3c00);                 /* tie -> even */
  CHECK_EQ_INT(cg_rt_f2h(1.0f + 3.0f / 2048), 0x3c02);                 /* tie -> even (up) */
  CHECK_EQ_INT(cg_rt_f2h(65520.0f), 0x7c00);                           /* overflow */
  CHECK_EQ_INT(cg_rt_f2h(ldexpf(1.0f, -25)), 0x0000);                  /* tie -> 0 */
  CHECK_EQ_INT(cg_rt_f2h(ldexpf(1.5f, -25)), 0x0001);                  /* min subnormal */
  CHECK(isnan(cg_rt_h2f(cg_rt_f2h(NAN))));
}

int main(void) {
  test_fp16_rt();
  test_edges();
  test_arg_checks();
  test_emit();
  test_fast_exp();
  test_corpus();
  TEST_MAIN_END();
}
