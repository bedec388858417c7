/* test_sched_layout.c - index maps (parse, apply, image, inverse) and the
 * layout primitives transform_layout, transform_block_layout and
 * set_axis_separator.
 *
 * Script cases must keep the interpreter (and native) results of the
 * unscheduled function, replay their trace to an equal module and print IR
 * that parses back; refusals leave the schedule unchanged with one error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/interp.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "lang/elab.h"
#include "runtime/ndarray.h"
#include "sched/index_map.h"
#include "sched/schedule.h"

#include "sched_harness.h"

static const char *last_msg(const DiagCtx *d) { return d->len ? d->items[d->len - 1].msg : ""; }

static char *expr_str(const TirExpr *e) {
  StrBuf sb;
  sb_init(&sb);
  if (e) print_tir_expr(&sb, e);
  else sb_puts(&sb, "(null)");
  return sb_take(&sb);
}

static void check_expr(const TirExpr *e, const char *want) {
  char *got = expr_str(e);
  CHECK_EQ_STR(got, want);
  free(got);
}

/* ------------------------------------------------------------ index maps */

/* e with vars := vals, folded to a constant (-999999 when it does not fold). */
static int64_t eval_at(IrHeap *h, ArithCtx *a, const TirExpr *e, TirVar *const *vars, const int64_t *vals, int n) {
  IrPtrMap vm;
  ir_ptrmap_init(&vm);
  for (int i = 0; i < n; i++) ir_ptrmap_put(&vm, vars[i], tir_int(h, vars[i]->dtype, vals[i]));
  TirExpr *x = arith_simplify(a, tir_substitute_expr(h, e, &vm));
  ir_ptrmap_free(&vm);
  int64_t v;
  return tir_is_const_int(x, &v) ? v : -999999;
}

/* inverse(map(x)) == x on every point of the 2-D box, and map(x) lies in the image. */
static void check_roundtrip(Schedule *s, const char *text, int64_t e0, int64_t e1) {
  IrHeap *h = ir_heap_new();
  ArithCtx *a = arith_new(h);
  SchIndexMap m, inv;
  CHECK_EQ_INT(sch_index_map_parse(s, h, text, dt_int32, "t", 0, &m), 0);
  TirExpr *ext[2] = {tir_i32(h, e0), tir_i32(h, e1)};
  TirExpr *shape[8];
  const char *why = NULL;
  CHECK(sch_index_map_image(h, &m, ext, shape, &why));
  bool ok = sch_index_map_inverse(h, &m, ext, NULL, &inv, NULL, &why);
  CHECK(ok);
  if (!ok) fprintf(stderr, "no inverse for %s: %s\n", text, why);
  bool good = ok;
  for (int64_t i = 0; good && i < e0; i++)
    for (int64_t j = 0; good && j < e1; j++) {
      int64_t x[2] = {i, j}, y[8];
      for (int k = 0; k < m.ndst; k++) {
        y[k] = eval_at(h, a, m.dst[k], m.src, x, 2);
        int64_t lim;
        if (!tir_is_const_int(shape[k], &lim) || y[k] < 0 || y[k] >= lim) good = false;
      }
      for (int k = 0; good && k < 2; k++) good = eval_at(h, a, inv.dst[k], inv.src, y, m.ndst) == x[k];
    }
  CHECK(good);
  if (ok && !good) fprintf(stderr, "inverse of %s is wrong\n", text);
  arith_free(a);
  ir_heap_release(h);
}

static void test_index_map(void) {
  IrModule *m = load("two_stage.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  IrHeap *h = ir_heap_new();
  SchIndexMap im;

  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda i, j: (i // 4, j, i % 4)", dt_int32, "t", 0, &im), 0);
  CHECK_EQ_INT(im.nsrc, 2);
  CHECK_EQ_INT(im.ndst, 3);
  check_expr(im.dst[0], "i // 4");
  check_expr(im.dst[2], "i % 4");
  /* apply */
  TirExpr *idx[2] = {tir_i32(h, 13), tir_var_ref(h, tir_var(h, "k", dt_int32))};
  TirExpr *res[3];
  sch_index_map_apply(h, &im, idx, res);
  check_expr(res[0], "13 // 4");
  check_expr(res[1], "k");
  /* image and inverse of a bijection */
  TirExpr *ext[2] = {tir_i32(h, 16), tir_i32(h, 12)};
  TirExpr *shape[3];
  const char *why = NULL;
  CHECK(sch_index_map_image(h, &im, ext, shape, &why));
  check_expr(shape[0], "4");
  check_expr(shape[1], "12");
  check_expr(shape[2], "4");
  SchIndexMap inv;
  TirExpr *pad = NULL;
  CHECK(sch_index_map_inverse(h, &im, ext, NULL, &inv, &pad, &why));
  CHECK(pad == NULL);
  CHECK_EQ_INT(inv.ndst, 2);
  check_expr(inv.dst[0], "v0 * 4 + v2");
  check_expr(inv.dst[1], "v1");
  /* padding: 30 is not a multiple of 4 */
  ext[0] = tir_i32(h, 30);
  CHECK(sch_index_map_image(h, &im, ext, shape, &why));
  check_expr(shape[0], "8");
  CHECK(sch_index_map_inverse(h, &im, ext, NULL, &inv, &pad, &why));
  check_expr(pad, "30 <= v0 * 4 + v2");
  CHECK(!sch_index_map_inverse(h, &im, ext, NULL, &inv, NULL, &why));
  /* fuse, and int64 */
  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda i, j: [i * 12 + j]", dt_int64, "t", 0, &im), 0);
  CHECK_EQ_INT(im.dst[0]->dtype.bits, 64);
  ext[0] = tir_int(h, dt_int64, 16), ext[1] = tir_int(h, dt_int64, 12);
  CHECK(sch_index_map_inverse(h, &im, ext, NULL, &inv, &pad, &why));
  check_expr(inv.dst[0], "v0 // T.int64(12)");
  check_expr(inv.dst[1], "v0 % T.int64(12)");
  /* T.* builtins, axis separators, a single result */
  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda i, j: (T.floordiv(i, 2), IndexMap.AXIS_SEPARATOR, T.max(j, 1))",
                                   dt_int32, "t", 0, &im), 0);
  CHECK_EQ_INT(im.ndst, 2);
  CHECK_EQ_INT(im.nseps, 1);
  CHECK_EQ_INT(im.seps ? im.seps[0] : -1, 1);
  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda i: i + 1", dt_int32, "t", 0, &im), 0);
  CHECK_EQ_INT(im.ndst, 1);
  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda: ()", dt_int32, "t", 0, &im), 0);
  CHECK_EQ_INT(im.nsrc + im.ndst, 0);
  /* not bijective: not onto, overlapping */
  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda i, j: (i, i)", dt_int32, "t", 0, &im), 0);
  CHECK(!sch_index_map_inverse(h, &im, ext, NULL, &inv, &pad, &why));
  /* inverses checked point by point */
  check_roundtrip(s, "lambda i, j: (j, i // 4, i % 4)", 16, 12);
  check_roundtrip(s, "lambda i, j: (i % 4, j, i // 4)", 8, 3);
  check_roundtrip(s, "lambda i, j: (i * 4 + j // 4, j % 4)", 5, 16);
  check_roundtrip(s, "lambda i, j: ((i * 12 + j) // 8, (i * 12 + j) % 8)", 4, 12);
  check_roundtrip(s, "lambda i, j: ((j * 6 + i) % 9, (j * 6 + i) // 9)", 6, 6);
  check_roundtrip(s, "lambda i, j: (j // 2, i, j % 2)", 1, 6);
  /* errors */
  int nerr = d.nerr;
  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda i, j: (i, k)", dt_int32, "prim", 0, &im), -1);
  CHECK(strstr(last_msg(&d), "prim: invalid index map 'lambda i, j: (i, k)': use of undefined name 'k'") != NULL);
  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda i: (i * 0.5,)", dt_int32, "prim", 0, &im), -1);
  CHECK(strstr(last_msg(&d), "must be an integer") != NULL);
  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda i: (i,", dt_int32, "prim", 0, &im), -1);
  CHECK_EQ_INT(sch_index_map_parse(s, h, "3", dt_int32, "prim", 0, &im), -1);
  CHECK(strstr(last_msg(&d), "is not a lambda") != NULL);
  CHECK_EQ_INT(sch_index_map_parse(s, h, "lambda i, i: i", dt_int32, "prim", 0, &im), -1);
  CHECK_EQ_INT(d.nerr, nerr + 5);
  ir_heap_release(h);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

/* ---------------------------------------------------- script cases */

static void test_cases(void) {
  char *p;
  /* an intermediate tiled 4 x 4 (a trace with a tuple buffer and a lambda) */
  p = check_case("two_stage.tvs", "main",
                 "sch.transform_layout(\"B\", (\"write\", 0), lambda i, j: (i // 4, j // 4, i % 4, j % 4))\n");
  expect_contains(p, "B = T.alloc_buffer((4, 3, 4, 4))");
  expect_contains(p, "B[vi // 4, vj // 4, vi % 4, vj % 4] = A[vi, vj] * T.float32(2.0)");
  expect_contains(p, "T.reads(B[vi // 4, vj // 4, vi % 4, vj % 4])");
  free(p);
  /* the same buffer by name, twice (maps compose), then loop primitives on its users */
  p = check_case("two_stage.tvs", "main",
                 "sch.transform_layout(\"C\", \"B\", T.index_map(lambda i, j: (j, i)))\n"
                 "sch.transform_layout(\"C\", \"B\", lambda a, b: (a * 16 + b,))\n"
                 "i, j = sch.get_loops(\"C\")\nsch.split(j, [None, 4])\n");
  expect_contains(p, "B = T.alloc_buffer((192,))");
  expect_contains(p, "B[vj * 16 + vi] = A[vi, vj] * T.float32(2.0)");
  free(p);
  /* padding: 14 rows tile by 4 into 16; the row-major writer now traverses
   * the new shape and stores the pad value in the padding */
  p = check_case("layout_pad.tvs", "main",
                 "sch.transform_layout(\"B\", (\"write\", 0), lambda i, j: (i // 4, j, i % 4), pad_value=0.0)\n");
  expect_contains(p, "B = T.alloc_buffer((4, 8, 4))");
  expect_contains(p, "for axis0, axis1, axis2 in T.grid(4, 8, 4):");
  expect_contains(p, "B[v_axis0, v_axis1, v_axis2] = T.if_then_else(14 <= v_axis0 * 4 + v_axis2, T.float32(0.0), "
                     "A[v_axis0 * 4 + v_axis2, v_axis1] + T.float32(1.0))");
  free(p);
  /* a writer that is not row-major: a block filling the padding after it */
  p = check_case("layout_pad.tvs", "main",
                 "i, j = sch.get_loops(\"B\")\nsch.reorder(j, i)\n"
                 "sch.transform_layout(\"B\", (\"write\", 0), lambda i, j: (i // 4, j, i % 4), pad_value=0.0)\n");
  expect_contains(p, "with T.block(\"buffer_B_padding\"):");
  expect_contains(p, "T.where(14 <= axis0 * 4 + axis2)");
  expect_contains(p, "B[v_axis0, v_axis1, v_axis2] = T.float32(0.0)");
  free(p);
  /* a reduction writer: init and update both store the pad value in the padding */
  p = check_case("layout_reduce.tvs", "main",
                 "sch.transform_layout(\"B\", \"B\", lambda i: [i // 4, i % 4], pad_value=0.0)\n"
                 "sch.decompose_reduction(\"B\", sch.get_loops(\"B\")[2])\n");
  expect_contains(p, "v_axis0, v_axis1, vk = T.axis.remap(\"SSR\", [axis0, axis1, k])");
  expect_contains(p, "B[v_axis0, v_axis1] = T.if_then_else(14 <= v_axis0 * 4 + v_axis1, T.float32(0.0), "
                     "B[v_axis0, v_axis1] + A[v_axis0 * 4 + v_axis1, vk])");
  free(p);
  /* a lambda pad value reading the buffer itself */
  p = check_case("layout_pad.tvs", "main",
                 "sch.transform_layout(\"C\", (\"read\", 0), lambda i, j: (i // 4, j, i % 4), "
                 "pad_value=lambda a, b, c: B[a, b, 0] + T.float32(1))\n");
  expect_contains(p, "T.if_then_else(14 <= v_axis0 * 4 + v_axis2, B[v_axis0, v_axis1, 0] + T.float32(1.0), "
                     "A[v_axis0 * 4 + v_axis2, v_axis1] + T.float32(1.0))");
  free(p);
  /* axis separators from the index map, and set_axis_separator on a parameter */
  p = check_case("two_stage.tvs", "main",
                 "sch.transform_layout(\"B\", (\"write\", 0), lambda i, j: (i // 4, IndexMap.AXIS_SEPARATOR, i % 4, j))\n"
                 "sch.set_axis_separator(\"C\", (\"write\", 0), [1])\n"
                 "sch.set_axis_separator(\"B\", \"A\", axis_separators=[1])\n");
  expect_contains(p, "B = T.alloc_buffer((4, 4, 12), axis_separators=[1])");
  expect_contains(p, "C: T.Buffer((16, 12), \"float32\", axis_separators=[1])");
  expect_contains(p, "A: T.Buffer((16, 12), \"float32\", axis_separators=[1])");
  free(p);
  /* block layouts: fuse the spatial iters and split the reduction one */
  p = check_case("matmul.tvs", "main",
                 "sch.transform_block_layout(\"C\", lambda i, j, k: (i * 16 + j, k // 4, k % 4))\n");
  expect_contains(p, "for ax0, ax1, ax2 in T.grid(256, 4, 4):");
  expect_contains(p, "v0, v1, v2 = T.axis.remap(\"SRR\", [ax0, ax1, ax2])");
  expect_contains(p, "C[v0 // 16, v0 % 16] = C[v0 // 16, v0 % 16] + A[v0 // 16, v1 * 4 + v2] * B[v0 % 16, v1 * 4 + v2]");
  free(p);
  /* the block handle stays valid: transpose, then tile the new loops */
  p = check_case("two_stage.tvs", "main",
                 "b = sch.get_block(\"B\")\nsch.transform_block_layout(b, lambda i, j: (j, i))\n"
                 "x, y = sch.get_loops(b)\nsch.split(x, [None, 4])\nsch.compute_at(b, sch.get_loops(\"C\")[0])\n");
  expect_contains(p, "B[v1, v0] = A[v1, v0] * T.float32(2.0)");
  free(p);
  p = check_case("three_stage.tvs", "main",
                 "sch.transform_block_layout(\"C\", lambda i, j: ((i * 12 + j) // 8, (i * 12 + j) % 8))\n");
  expect_contains(p, "for ax0, ax1 in T.grid(24, 8):");
  expect_contains(p, "C[(v0 * 8 + v1) // 12, (v0 * 8 + v1) % 12] = B[(v0 * 8 + v1) // 12, (v0 * 8 + v1) % 12] * T.float32(2.0)");
  free(p);
}

/* Cases the harness cannot run (symbolic shapes): the trace replays to an
 * equal module and the printed IR parses back equal. */
static void check_replay(const char *file, const char *script, const char *needle) {
  IrModule *orig = load(file);
  CHECK(orig != NULL);
  if (!orig) return;
  IrModule *m = ir_module_copy(orig);
  DiagCtx d;
  diag_init(&d, stderr);
  char *text = xasprintf("%s\nprint(sch.trace)\n", script);
  SourceFile *src = src_from_string("<script>", text, strlen(text));
  free(text);
  StrBuf out;
  sb_init(&out);
  CHECK_EQ_INT(sch_eval_text(src, &m, &d, &out), 0);
  diag_flush(&d);
  const char *tr = out.data ? strstr(out.data, "# from tvm import tir") : NULL;
  CHECK(tr != NULL);
  IrModule *re = tr ? sch_trace_replay(orig, tr, &d) : NULL;
  CHECK(re && seq_module(re, m, NULL, NULL));
  StrBuf sb;
  sb_init(&sb);
  PrintOptions opt = print_options_default();
  print_module(&sb, m, &opt);
  CHECK(sb.data && strstr(sb.data, needle));
  SourceFile *ps = src_from_string("<printed>", sb.data, sb.len);
  IrModule *back = tvs_load_module(ps, &d);
  diag_flush(&d);
  CHECK(back && seq_module(back, m, NULL, NULL));
  ir_module_free(back);
  src_free(ps);
  sb_free(&sb);
  ir_module_free(re);
  sb_free(&out);
  src_free(src);
  diag_free(&d);
  ir_module_free(m);
  ir_module_free(orig);
}

static void test_symbolic(void) {
  check_replay("layout_symbolic.tvs",
               "sch.transform_layout(\"B\", \"B\", lambda i, j: (i // 4, j, i % 4), pad_value=0.0)\n"
               "sch.transform_block_layout(\"C\", lambda i, j: (j, i))\n",
               "B = T.alloc_buffer(((n + 3) // 4, 8, 4))");
  check_replay("layout_symbolic.tvs",
               "sch.transform_layout(\"C\", \"C\", lambda i, j: (j, i))\n"
               "sch.transform_layout(\"B\", (\"read\", 0), lambda i, j: (i * 8 + j,))\n",
               "def main(a: T.handle, c: T.handle):");
}

/* transform_layout of parameters changes the function's signature: run the
 * scheduled function on inputs laid out accordingly. */
static void test_param_layouts(void) {
  IrModule *orig = load("two_stage.tvs");
  CHECK(orig != NULL);
  if (!orig) return;
  IrModule *m = ir_module_copy(orig);
  DiagCtx d;
  diag_init(&d, stderr);
  const char *text = "sch.transform_layout(\"B\", \"A\", lambda i, j: (j, i))\n"
                     "sch.transform_layout(\"C\", (\"write\", 0), lambda i, j: (j // 4, i, j % 4))\n";
  SourceFile *src = src_from_string("<script>", text, strlen(text));
  CHECK_EQ_INT(sch_eval_text(src, &m, &d, NULL), 0);
  diag_flush(&d);
  const TirFunc *f = ir_module_lookup(m, "main")->tir;
  CHECK_EQ_INT(f->buffer_map[0]->ndim, 2);
  CHECK_EQ_INT(f->buffer_map[0]->shape[0]->ival, 12);
  CHECK_EQ_INT(f->buffer_map[1]->ndim, 3);
  DLDataType dt = {kDLFloat, 32, 1};
  int64_t sa[2] = {16, 12}, sat[2] = {12, 16}, sc[3] = {3, 16, 4};
  TvsNDArray *a = tvs_ndarray_empty(2, sa, dt), *c = tvs_ndarray_empty(2, sa, dt);
  TvsNDArray *at = tvs_ndarray_empty(2, sat, dt), *ct = tvs_ndarray_empty(3, sc, dt);
  float *pa = a->t.data, *pat = at->t.data;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 12; j++) pa[i * 12 + j] = pat[j * 16 + i] = (float)(i * 3 - j);
  InterpArg args[2] = {{&a->t, 0, 0}, {&c->t, 0, 0}};
  InterpArg argt[2] = {{&at->t, 0, 0}, {&ct->t, 0, 0}};
  CHECK_EQ_INT(interp_run_tir(orig, "main", args, 2, &d), 0);
  CHECK_EQ_INT(interp_run_tir(m, "main", argt, 2, &d), 0);
  diag_flush(&d);
  float *pc = c->t.data, *pct = ct->t.data;
  bool same = true;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 12; j++) same = same && pc[i * 12 + j] == pct[(j / 4) * 64 + i * 4 + j % 4];
  CHECK(same);
  tvs_ndarray_free(a), tvs_ndarray_free(c), tvs_ndarray_free(at), tvs_ndarray_free(ct);
  src_free(src);
  /* an input padded: its padding is assumed (a block of T.assume facts first) */
  IrModule *m2 = load("layout_pad.tvs");
  const char *t2 = "sch.transform_layout(\"B\", \"A\", lambda i, j: (i // 4, j, i % 4), pad_value=-1.0)\n";
  SourceFile *s2 = src_from_string("<script>", t2, strlen(t2));
  StrBuf out;
  sb_init(&out);
  CHECK_EQ_INT(sch_eval_text(s2, &m2, &d, &out), 0);
  diag_flush(&d);
  StrBuf pr;
  sb_init(&pr);
  PrintOptions opt = print_options_default();
  print_module(&pr, m2, &opt);
  CHECK(strstr(pr.data, "with T.block(\"buffer_A_assumptions\"):") != NULL);
  CHECK(strstr(pr.data, "T.evaluate(T.assume(not 14 <= v_axis0 * 4 + v_axis2 or A[v_axis0, v_axis1, v_axis2] == T.float32(-1.0)))") != NULL);
  CHECK(strstr(pr.data, "def main(A: T.Buffer((4, 8, 4), \"float32\")") != NULL);
  sb_free(&pr);
  sb_free(&out);
  src_free(s2);
  ir_module_free(m2);
  diag_free(&d);
  ir_module_free(m);
  ir_module_free(orig);
}

/* Refusals: one error naming the rule, the schedule unchanged. */
static void test_refusals(void) {
  IrModule *m = load("layout_pad.tvs");
  IrModule *mm = load("matmul.tvs");
  IrModule *mb = load("layout_match.tvs");
  CHECK(m && mm && mb);
  if (!m || !mm || !mb) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV b = sch_get_block(s, "B", NULL);
  int nv = sch_num_versions(s), nt = sch_trace_len(s);
  struct {
    int rc;
    const char *msg;
  } cases[12];
  int n = 0;
#define REFUSE(call, text)                 \
  do {                                     \
    cases[n].rc = (call);                  \
    cases[n].msg = text;                   \
    CHECK_EQ_INT(cases[n].rc, -1);         \
    CHECK(strstr(last_msg(&d), text) != NULL); \
    if (!strstr(last_msg(&d), text)) fprintf(stderr, "got: %s\n", last_msg(&d)); \
    n++;                                   \
  } while (0)
  REFUSE(sch_transform_layout(s, b, true, 0, "lambda i, j: (i // 4, j, i % 4)", NULL, false),
         "transform_layout: the transformation would introduce padding at 14 <= axis0 * 4 + axis2 in buffer 'B'");
  REFUSE(sch_transform_layout(s, b, true, 0, "lambda i, j: (i // 4, j, i % 4)", "0", false),
         "transform_layout: type mismatch: buffer 'B' has dtype float32 but pad_value has dtype int32");
  REFUSE(sch_transform_layout(s, b, true, 0, "lambda i, j: (i // 2, j)", NULL, false),
         "transform_layout: the index map is not a bijection from the shape of buffer 'B'");
  REFUSE(sch_transform_layout(s, b, true, 0, "lambda i: (i,)", NULL, false),
         "transform_layout: the index map takes 1 indices but buffer 'B' has 2 dimensions");
  REFUSE(sch_transform_layout(s, b, true, 3, "lambda i, j: (j, i)", NULL, false),
         "transform_layout: buffer index 3 is out of range [0, 1) of the writes of block 'B'");
  REFUSE(sch_transform_layout(s, b, true, 0, "lambda i, j: (i // 4, j, i % 4)", "lambda a, b: T.float32(0)", false),
         "transform_layout: pad_value must map the 3 indices of the new buffer to one value");
  REFUSE(sch_transform_layout(s, b, true, 0, "lambda i, j: (i, j - 1)", NULL, false),
         "transform_layout: cannot infer the shape of buffer 'B' under the index map: a result of the index map can be negative");
  int64_t seps[2] = {1, 1};
  REFUSE(sch_set_axis_separator(s, b, true, 0, seps, 2),
         "set_axis_separator: the axis separators of buffer 'B' must be strictly increasing");
  seps[0] = 2;
  REFUSE(sch_set_axis_separator(s, b, true, 0, seps, 1),
         "set_axis_separator: axis separator 2 is out of range [1, 2) of buffer 'B'");
  REFUSE(sch_transform_block_layout(s, b, "lambda i, j: (i // 2, j)"),
         "transform_block_layout: the index map is not bijective affine on the iters of block 'B'");
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK_EQ_INT(sch_trace_len(s), nt);
  /* assume_injective_transform skips the bijection check */
  CHECK_EQ_INT(sch_transform_layout(s, b, true, 0, "lambda i, j: (i // 4, j, i % 4)", NULL, true), 0);
  CHECK_EQ_INT(sch_num_versions(s), nv + 1);
  sch_free(s);

  s = sch_new(mm, &d);
  b = sch_get_block(s, "C", NULL);
  REFUSE(sch_transform_block_layout(s, b, "lambda i, j, k: (i, j * 16 + k)"),
         "transform_block_layout: cannot detect the type of the new iter vj * 16 + vk of block 'C': it mixes iters of different types");
  SchRV *loops = NULL;
  CHECK_EQ_INT(sch_get_loops(s, b, &loops), 3);
  CHECK_EQ_INT(sch_reorder(s, (SchRV[]){loops[1], loops[0]}, 2), 0);
  free(loops);
  nv = sch_num_versions(s);
  REFUSE(sch_transform_block_layout(s, b, "lambda i, j, k: (j, i, k)"),
         "transform_block_layout: block 'C' must have trivial bindings");
  CHECK_EQ_INT(sch_num_versions(s), nv);
  sch_free(s);

  s = sch_new(mb, &d);
  b = sch_get_block(s, "C", NULL);
  int nerr = d.nerr;
  CHECK_EQ_INT(sch_transform_layout(s, b, false, 0, "lambda i, j: (j, i)", NULL, false), -1);
  CHECK(strstr(last_msg(&d), "transform_layout: buffer 'A' is viewed by a match_buffer of block 'C'") != NULL);
  CHECK_EQ_INT(d.nerr, nerr + 1);
  sch_free(s);
#undef REFUSE
  diag_free(&d);
  ir_module_free(m);
  ir_module_free(mm);
  ir_module_free(mb);
}

int main(void) {
  test_index_map();
  test_cases();
  test_param_layouts();
  test_symbolic();
  test_refusals();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
