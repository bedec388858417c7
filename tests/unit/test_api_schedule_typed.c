/* test_api_schedule_typed.c - the typed schedule calls of tvs/schedule.h,
 * through libtvs.so only: each scenario schedules a module by typed calls and
 * by the equivalent script statements, and the two must give structurally
 * equal modules, the same printed text and the same trace; typed handles and
 * script variables share one name space; illegal steps fail with the
 * primitive's message and change nothing; the typed mm_relu builds and runs
 * against a C reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvs/tvs.h"

static int failures, checks;

#define EXPECT(cond)                                                                                    \
  do {                                                                                                  \
    checks++;                                                                                           \
    if (!(cond)) {                                                                                      \
      fprintf(stderr, "%s:%d: FAIL: %s (last error: %s)\n", __FILE__, __LINE__, #cond, tvs_last_error()); \
      failures++;                                                                                       \
    }                                                                                                   \
  } while (0)
#define OK(call) EXPECT((call) == TVS_OK)

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

static const char *mm_relu =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\"),\n"
    "                C: T.Buffer((64, 64), \"float32\")):\n"
    "        Y = T.alloc_buffer((64, 64))\n"
    "        for i, j, k in T.grid(64, 64, 64):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(64, 64):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n";

/* An elementwise producer, a sum, and two elementwise consumers. */
static const char *chain =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 64), \"float32\"), D: T.Buffer((16,), \"float32\")):\n"
    "    B = T.alloc_buffer((16, 64))\n"
    "    C = T.alloc_buffer((16,))\n"
    "    Dt = T.alloc_buffer((16,))\n"
    "    for i, j in T.grid(16, 64):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "    for i, k in T.grid(16, 64):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "            with T.init():\n"
    "                C[vi] = T.float32(0)\n"
    "            C[vi] = C[vi] + B[vi, vk]\n"
    "    for i in range(16):\n"
    "        with T.block(\"D\"):\n"
    "            vi = T.axis.remap(\"S\", [i])\n"
    "            Dt[vi] = T.max(C[vi], T.float32(0))\n"
    "    for i in range(16):\n"
    "        with T.block(\"E\"):\n"
    "            vi = T.axis.remap(\"S\", [i])\n"
    "            D[vi] = Dt[vi] + T.float32(1)\n";

/* An int8 matmul for the NPU's GEMM intrinsic. */
static const char *mm_int8 =
    "@T.prim_func\n"
    "def main(A: T.Buffer((8, 48), \"int8\"), B: T.Buffer((48, 32), \"int8\"), C: T.Buffer((8, 32), \"int32\")):\n"
    "    for i, j, k in T.grid(8, 32, 48):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = 0\n"
    "            C[vi, vj] = C[vi, vj] + T.Cast(\"int32\", A[vi, vk]) * T.Cast(\"int32\", B[vk, vj])\n";

/* ------------------------------------------------------------ scenarios */

static const char *course_script =
    "b = sch.get_block(\"Y\", func_name=\"mm_relu\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "j0, j1 = sch.split(j, factors=[None, 8])\n"
    "sch.reorder(j0, k, j1)\n"
    "c = sch.get_block(\"C\", func_name=\"mm_relu\")\n"
    "sch.reverse_compute_at(c, j0)\n"
    "init = sch.decompose_reduction(b, k)\n"
    "sch.vectorize(j1)\n"
    "sch.parallel(i)\n";

static void course_typed(TvsSchedule *s) {
  TvsBlockRV b, c, init;
  TvsLoopRV *l = NULL, j[2];
  int n = 0;
  OK(tvs_sched_get_block(s, "Y", "mm_relu", &b));
  OK(tvs_sched_get_loops(s, b, &l, &n));
  EXPECT(n == 3);
  if (n != 3) return;
  OK(tvs_sched_split(s, l[1], (const int64_t[]){-1, 8}, 2, 1, 0, j));
  OK(tvs_sched_reorder(s, (const TvsLoopRV[]){j[0], l[2], j[1]}, 3));
  OK(tvs_sched_get_block(s, "C", "mm_relu", &c));
  OK(tvs_sched_reverse_compute_at(s, c, j[0], 0, -1));
  OK(tvs_sched_decompose_reduction(s, b, l[2], &init));
  OK(tvs_sched_vectorize(s, j[1]));
  OK(tvs_sched_parallel(s, l[0]));
  EXPECT(tvs_sched_rv_kind(s, tvs_rv_block(init)) == TVS_VALUE_BLOCK);
  tvs_handles_free(l);
}

static const char *cache_script =
    "b = sch.get_block(\"Y\")\n"
    "c = sch.get_block(\"C\")\n"
    "p = sch.get_producers(c)\n"
    "q = sch.get_consumers(b)\n"
    "a_sh = sch.cache_read(b, 0, \"shared\")\n"
    "y_l = sch.cache_write(b, 0, \"local\")\n"
    "sch.set_scope(b, 0, \"shared\")\n"
    "sch.storage_align(a_sh, 0, 0, 16, 1)\n"
    "sch.annotate(b, \"pragma_f\", 0.5)\n"
    "sch.annotate(b, \"pragma_s\", \"hello\")\n"
    "sch.annotate(c, \"pragma_i\", 3)\n"
    "sch.unannotate(c, \"pragma_i\")\n"
    "i, j = sch.get_loops(c)\n"
    "f = sch.fuse(i, j)\n"
    "f0, f1 = sch.split(f, factors=[None, 4])\n"
    "sch.unroll(f1)\n"
    "kids = sch.get_child_blocks(f0)\n"
    "yi, yj, yk = sch.get_loops(b)\n"
    "sch.compute_at(a_sh, yi)\n";

static void cache_typed(TvsSchedule *s) {
  TvsBlockRV b, c, a_sh, y_l, *p = NULL, *q = NULL, *kids = NULL;
  TvsLoopRV *l = NULL, *yl = NULL, f, f01[2];
  int np = 0, nq = 0, n = 0, nk = 0, ny = 0;
  OK(tvs_sched_get_block(s, "Y", NULL, &b));
  OK(tvs_sched_get_block(s, "C", NULL, &c));
  OK(tvs_sched_get_producers(s, c, &p, &np));
  OK(tvs_sched_get_consumers(s, b, &q, &nq));
  EXPECT(np == 1 && nq == 1);
  OK(tvs_sched_cache_read(s, b, 0, "shared", NULL, 0, &a_sh));
  OK(tvs_sched_cache_write(s, b, 0, "local", NULL, 0, &y_l));
  OK(tvs_sched_set_scope(s, b, 0, "shared"));
  OK(tvs_sched_storage_align(s, a_sh, 0, 0, 16, 1));
  OK(tvs_sched_annotate_float(s, tvs_rv_block(b), "pragma_f", 0.5));
  OK(tvs_sched_annotate_string(s, tvs_rv_block(b), "pragma_s", "hello"));
  OK(tvs_sched_annotate_int(s, tvs_rv_block(c), "pragma_i", 3));
  OK(tvs_sched_unannotate(s, tvs_rv_block(c), "pragma_i"));
  OK(tvs_sched_get_loops(s, c, &l, &n));
  EXPECT(n == 2);
  if (n == 2) OK(tvs_sched_fuse(s, l, 2, 1, &f));
  OK(tvs_sched_split(s, f, (const int64_t[]){0, 4}, 2, 1, 0, f01));
  OK(tvs_sched_unroll(s, f01[1]));
  OK(tvs_sched_get_child_blocks(s, tvs_rv_loop(f01[0]), &kids, &nk));
  EXPECT(nk == 1);
  OK(tvs_sched_get_loops(s, b, &yl, &ny));
  EXPECT(ny == 3);
  if (ny == 3) OK(tvs_sched_compute_at(s, a_sh, yl[0], 0, -1));
  tvs_handles_free(p), tvs_handles_free(q), tvs_handles_free(l), tvs_handles_free(kids), tvs_handles_free(yl);
}

static const char *reduce_script =
    "sch.compute_inline(sch.get_block(\"B\"))\n"
    "c = sch.get_block(\"C\")\n"
    "i, k = sch.get_loops(c)\n"
    "t = sch.sample_perfect_tile(k, n=2, max_innermost_factor=16, decision=[8, 8])\n"
    "k0, k1 = sch.split(k, factors=t)\n"
    "rf = sch.rfactor(k1, 0)\n"
    "sch.reverse_compute_inline(sch.get_block(\"E\"))\n"
    "ri, rk0, rk1 = sch.get_loops(rf)\n"
    "o = sch.blockize(rk1)\n"
    "sch.bind(ri, \"threadIdx.x\")\n";

static void reduce_typed(TvsSchedule *s) {
  TvsBlockRV b, c, e, rf, o;
  TvsLoopRV *l = NULL, *rl = NULL, k01[2];
  TvsExprRV t[2];
  int64_t tf[2] = {0, 0}, v = 0;
  int n = 0, nr = 0;
  OK(tvs_sched_get_block(s, "B", NULL, &b));
  OK(tvs_sched_compute_inline(s, b));
  OK(tvs_sched_get_block(s, "C", NULL, &c));
  OK(tvs_sched_get_loops(s, c, &l, &n));
  if (n != 2) return;
  OK(tvs_sched_sample_perfect_tile(s, l[1], 2, 16, (const int64_t[]){8, 8}, t, tf));
  EXPECT(tf[0] == 8 && tf[1] == 8);
  OK(tvs_sched_expr_value(s, t[1], &v));
  EXPECT(v == 8 && tvs_sched_rv_kind(s, tvs_rv_expr(t[0])) == TVS_VALUE_OTHER);
  OK(tvs_sched_split_exprs(s, l[1], t, 2, 1, 0, k01));
  OK(tvs_sched_rfactor(s, k01[1], 0, &rf));
  OK(tvs_sched_get_block(s, "E", NULL, &e));
  OK(tvs_sched_reverse_compute_inline(s, e));
  OK(tvs_sched_get_loops(s, rf, &rl, &nr));
  EXPECT(nr == 3);
  if (nr == 3) {
    OK(tvs_sched_blockize(s, rl[2], 1, &o));
    OK(tvs_sched_bind(s, rl[0], "threadIdx.x"));
  }
  tvs_handles_free(l), tvs_handles_free(rl);
}

static const char *tensorize_script =
    "b = sch.get_block(\"C\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "j0, j1 = sch.split(j, factors=[None, 16])\n"
    "k0, k1 = sch.split(k, factors=[None, 16])\n"
    "sch.reorder(i, j0, k0, j1, k1)\n"
    "sch.tensorize(j1, \"npu_gemm_1x16x16_nn\")\n";

static void tensorize_typed(TvsSchedule *s) {
  TvsBlockRV b;
  TvsLoopRV *l = NULL, j[2], k[2];
  int n = 0;
  OK(tvs_sched_get_block(s, "C", NULL, &b));
  OK(tvs_sched_get_loops(s, b, &l, &n));
  if (n != 3) return;
  OK(tvs_sched_split(s, l[1], (const int64_t[]){-1, 16}, 2, 1, 0, j));
  OK(tvs_sched_split(s, l[2], (const int64_t[]){-1, 16}, 2, 1, 0, k));
  OK(tvs_sched_reorder(s, (const TvsLoopRV[]){l[0], j[0], k[0], j[1], k[1]}, 5));
  OK(tvs_sched_tensorize(s, tvs_rv_loop(j[1]), "npu_gemm_1x16x16_nn", 1));
  tvs_handles_free(l);
}

static const char *more_script =
    "c = sch.get_block(\"C\")\n"
    "i, k = sch.get_loops(c)\n"
    "t = sch.sample_perfect_tile(k, n=3, max_innermost_factor=4)\n"
    "k0, k1, k2 = sch.split(k, factors=t)\n"
    "bc = sch.cache_read(c, 0, \"local\", consumer_blocks=[c])\n"
    "d = sch.get_block(\"D\")\n"
    "e = sch.get_block(\"E\")\n"
    "o = sch.blockize([d, e])\n";

static void more_typed(TvsSchedule *s) {
  TvsBlockRV c, bc, de[2], o;
  TvsLoopRV *l = NULL, k[3];
  TvsExprRV t[3];
  int64_t f[3] = {0, 0, 0};
  int n = 0;
  OK(tvs_sched_get_block(s, "C", NULL, &c));
  OK(tvs_sched_get_loops(s, c, &l, &n));
  if (n != 2) return;
  OK(tvs_sched_sample_perfect_tile(s, l[1], 3, 4, NULL, t, f));
  EXPECT(f[0] * f[1] * f[2] == 64 && f[2] <= 4);
  OK(tvs_sched_split_exprs(s, l[1], t, 3, 1, 0, k));
  OK(tvs_sched_cache_read(s, c, 0, "local", &c, 1, &bc));
  OK(tvs_sched_get_block(s, "D", NULL, &de[0]));
  OK(tvs_sched_get_block(s, "E", NULL, &de[1]));
  OK(tvs_sched_blockize_blocks(s, de, 2, 1, &o));
  tvs_handles_free(l);
}

/* Mixed: typed handles bound to script names and script variables read back. */
static void mixed_typed(TvsSchedule *s) {
  TvsBlockRV b, c;
  TvsLoopRV j, k, j01[2];
  TvsRV *list = NULL;
  int n = 0;
  OK(tvs_sched_get_block(s, "Y", "mm_relu", &b));
  OK(tvs_sched_bind_name(s, "b", tvs_rv_block(b)));
  EXPECT(tvs_sched_var_kind(s, "b") == TVS_VALUE_BLOCK);
  OK(tvs_sched_exec(s, "i, j, k = sch.get_loops(b)", NULL));
  OK(tvs_sched_lookup_loop(s, "j", &j));
  OK(tvs_sched_lookup_loop(s, "k", &k));
  OK(tvs_sched_split(s, j, (const int64_t[]){-1, 8}, 2, 1, 0, j01));
  OK(tvs_sched_bind_list(s, "jj", (const TvsRV[]){tvs_rv_loop(j01[0]), tvs_rv_loop(j01[1])}, 2));
  EXPECT(tvs_sched_var_kind(s, "jj") == TVS_VALUE_LIST);
  OK(tvs_sched_exec(s, "j0 = jj[0]\nj1 = jj[1]\nsch.reorder(j0, k, j1)", NULL));
  OK(tvs_sched_exec(s, "c = sch.get_block(\"C\", func_name=\"mm_relu\")", NULL));
  OK(tvs_sched_lookup_block(s, "c", &c));
  OK(tvs_sched_lookup_list(s, "jj", &list, &n));
  EXPECT(n == 2 && list[0].id == j01[0].id);
  OK(tvs_sched_reverse_compute_at(s, c, j01[0], 0, -1));
  OK(tvs_sched_exec(s, "init = sch.decompose_reduction(b, k)\nsch.vectorize(j1)\nsch.parallel(i)", NULL));
  tvs_handles_free(list);
}

/* Schedules kernel both ways and compares module, text and trace. */
static void compare(const char *name, const char *kernel, const char *script, void (*typed)(TvsSchedule *)) {
  TvsIRModule *m = NULL, *ms = NULL, *mt = NULL;
  TvsSchedule *ss = NULL, *st = NULL;
  OK(tvs_irmod_parse(kernel, name, 1, &m));
  if (!m) return;
  OK(tvs_sched_create(m, &ss));
  OK(tvs_sched_create(m, &st));
  OK(tvs_sched_seed(ss, 42)); /* the same draws both ways */
  OK(tvs_sched_seed(st, 42));
  OK(tvs_sched_exec(ss, script, NULL));
  typed(st);
  OK(tvs_sched_module(ss, &ms));
  OK(tvs_sched_module(st, &mt));
  char *why = NULL, *ts = NULL, *tt = NULL, *ps = NULL, *pt = NULL;
  int eq = tvs_irmod_equal(ms, mt, &why);
  EXPECT(eq == 1);
  if (eq != 1) fprintf(stderr, "%s: modules differ: %s\n", name, why ? why : "");
  OK(tvs_irmod_script(ms, &ps));
  OK(tvs_irmod_script(mt, &pt));
  EXPECT(ps && pt && !strcmp(ps, pt));
  for (int as_function = 0; as_function < 2; as_function++) {
    OK(tvs_sched_trace(ss, as_function, &ts));
    OK(tvs_sched_trace(st, as_function, &tt));
    EXPECT(ts && tt && !strcmp(ts, tt));
    if (ts && tt && strcmp(ts, tt)) fprintf(stderr, "%s: traces differ:\n%s---\n%s", name, ts, tt);
    tvs_string_free(ts), tvs_string_free(tt);
  }
  EXPECT(tvs_sched_trace_len(st) > 0 && tvs_sched_trace_len(st) == tvs_sched_trace_len(ss));
  tvs_string_free(why), tvs_string_free(ps), tvs_string_free(pt);
  tvs_irmod_release(ms), tvs_irmod_release(mt);
  tvs_sched_release(ss), tvs_sched_release(st);
  tvs_irmod_release(m);
}

/* ---------------------------------------------------------- bad steps */

/* The schedule's module and trace length before a step, to check that a
 * failed step changed neither. */
typedef struct Snap {
  TvsIRModule *m;
  int len;
} Snap;

static Snap snap(TvsSchedule *s) {
  Snap x = {NULL, tvs_sched_trace_len(s)};
  OK(tvs_sched_module(s, &x.m));
  return x;
}

static void unchanged(TvsSchedule *s, Snap x) {
  TvsIRModule *now = NULL;
  OK(tvs_sched_module(s, &now));
  EXPECT(tvs_irmod_equal(x.m, now, NULL) == 1);
  EXPECT(tvs_sched_trace_len(s) == x.len);
  tvs_irmod_release(now);
  tvs_irmod_release(x.m);
}

/* A failing step: its status, a message holding `part`, nothing changed. */
#define FAILS(s, call, status, part)                       \
  do {                                                     \
    Snap x_ = snap(s);                                     \
    EXPECT((call) == (status));                            \
    EXPECT(contains(tvs_last_error(), part));              \
    unchanged(s, x_);                                      \
  } while (0)

static void test_errors(void) {
  TvsIRModule *m = NULL;
  TvsSchedule *s = NULL, *other = NULL;
  OK(tvs_irmod_parse(mm_relu, "mm.tvs", 1, &m));
  OK(tvs_sched_create(m, &s));
  OK(tvs_sched_create(m, &other));
  TvsBlockRV b, c, foreign, zero = {0};
  TvsLoopRV *l = NULL, j[2], out;
  int n = 0;
  OK(tvs_sched_get_block(s, "Y", NULL, &b));
  OK(tvs_sched_get_block(s, "C", NULL, &c));
  OK(tvs_sched_get_block(other, "Y", NULL, &foreign));
  OK(tvs_sched_get_loops(s, b, &l, &n));
  if (n != 3) return;

  FAILS(s, tvs_sched_split(s, l[2], (const int64_t[]){3, 5}, 2, 1, 0, j), TVS_ERR_SCHEDULE,
        "error: split: factors [3, 5] multiply to 15");
  /* The same message as the statement gives (after its location). */
  char first[256];
  snprintf(first, sizeof first, "%s", tvs_last_error());
  OK(tvs_sched_bind_name(s, "k", tvs_rv_loop(l[2])));
  EXPECT(tvs_sched_exec(s, "sch.split(k, factors=[3, 5])", NULL) == TVS_ERR_SCHEDULE);
  EXPECT(contains(tvs_last_error(), first));
  FAILS(s, tvs_sched_parallel(s, l[2]), TVS_ERR_SCHEDULE, "parallel: loop 'k' carries a reduction dependency");
  FAILS(s, tvs_sched_reverse_compute_inline(s, c), TVS_ERR_SCHEDULE,
        "reverse_compute_inline: block 'C' must have a single producer");
  FAILS(s, tvs_sched_compute_at(s, b, l[0], 0, -1), TVS_ERR_SCHEDULE, "compute_at:");
  TvsBlockRV nb;
  FAILS(s, tvs_sched_get_block(s, "nope", NULL, &nb), TVS_ERR_SCHEDULE, "nope");
  FAILS(s, tvs_sched_tensorize(s, tvs_rv_block(b), "no_such_intrin", 1), TVS_ERR_SCHEDULE, "no_such_intrin");
  /* Handles: zeroed, another schedule's, stale after split, wrong kind. */
  FAILS(s, tvs_sched_compute_inline(s, zero), TVS_ERR_ARGUMENT, "not a handle of this schedule");
  FAILS(s, tvs_sched_compute_inline(s, foreign), TVS_ERR_ARGUMENT, "not a handle of this schedule");
  OK(tvs_sched_split(s, l[1], (const int64_t[]){-1, 8}, 2, 1, 0, j));
  FAILS(s, tvs_sched_vectorize(s, l[1]), TVS_ERR_SCHEDULE, "stale handle");
  FAILS(s, tvs_sched_fuse(s, (const TvsLoopRV[]){l[0], l[1]}, 2, 1, &out), TVS_ERR_SCHEDULE, "stale handle");
  TvsExprRV bogus = {b.id};
  FAILS(s, tvs_sched_split_exprs(s, j[0], (const TvsExprRV[]){bogus, {0}}, 2, 1, 0, j), TVS_ERR_ARGUMENT,
        "not an ExprRV");
  /* Names. */
  EXPECT(tvs_sched_bind_name(s, "sch", tvs_rv_block(b)) == TVS_ERR_ARGUMENT);
  EXPECT(tvs_sched_bind_name(s, "1x", tvs_rv_block(b)) == TVS_ERR_ARGUMENT);
  EXPECT(tvs_sched_bind_name(s, "x", tvs_rv_block(zero)) == TVS_ERR_ARGUMENT);
  TvsLoopRV lv;
  EXPECT(tvs_sched_lookup_loop(s, "nope", &lv) == TVS_ERR_ARGUMENT && contains(tvs_last_error(), "'nope'"));
  OK(tvs_sched_bind_name(s, "blk", tvs_rv_block(b)));
  EXPECT(tvs_sched_lookup_loop(s, "blk", &lv) == TVS_ERR_ARGUMENT && contains(tvs_last_error(), "a LoopRV"));
  EXPECT(tvs_sched_rv_kind(s, tvs_rv_block(zero)) == TVS_VALUE_NONE);
  EXPECT(tvs_sched_rv_name(s, tvs_rv_block(b)) && !strcmp(tvs_sched_rv_name(s, tvs_rv_block(b)), "b0"));
  EXPECT(tvs_sched_get_block(NULL, "Y", NULL, &nb) == TVS_ERR_ARGUMENT);
  EXPECT(tvs_sched_split(s, j[0], NULL, 2, 1, 0, j) == TVS_ERR_ARGUMENT);
  tvs_handles_free(l);
  tvs_sched_release(other);
  tvs_sched_release(s);
  tvs_irmod_release(m);
}

/* ------------------------------------------------------- build and run */

static DLTensor tensor(float *data, int64_t *shape) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = 2;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

static void test_build_and_run(void) {
  enum { N = 64 };
  TvsIRModule *m = NULL, *sm = NULL;
  TvsSchedule *s = NULL;
  OK(tvs_irmod_parse(mm_relu, "mm.tvs", 1, &m));
  OK(tvs_sched_create(m, &s));
  course_typed(s);
  OK(tvs_sched_module(s, &sm));
  TvsExecutable *e = NULL;
  TvsFunction *f = NULL;
  OK(tvs_build(sm, "llvm", NULL, &e));
  if (e) OK(tvs_executable_get_function(e, "mm_relu", &f));
  static float a[N * N], b[N * N], c[N * N];
  for (int i = 0; i < N * N; i++) a[i] = (float)((i * 7) % 13) - 6, b[i] = (float)((i * 5) % 11) - 5;
  int64_t shape[2] = {N, N};
  DLTensor ta = tensor(a, shape), tb = tensor(b, shape), tc = tensor(c, shape);
  TvsArg args[3] = {{TVS_ARG_TENSOR, &ta, 0, 0}, {TVS_ARG_TENSOR, &tb, 0, 0}, {TVS_ARG_TENSOR, &tc, 0, 0}};
  if (f) OK(tvs_function_call(f, args, 3));
  double maxerr = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0;
      for (int k = 0; k < N; k++) acc += a[i * N + k] * b[k * N + j];
      double err = fabs((double)(acc > 0 ? acc : 0) - (double)c[i * N + j]);
      if (err > maxerr) maxerr = err;
    }
  EXPECT(f && maxerr < 1e-3);
  tvs_function_release(f);
  tvs_executable_release(e);
  tvs_irmod_release(sm);
  tvs_sched_release(s);
  tvs_irmod_release(m);
}

int main(void) {
  compare("course", mm_relu, course_script, course_typed);
  compare("cache", mm_relu, cache_script, cache_typed);
  compare("reduce", chain, reduce_script, reduce_typed);
  compare("tensorize", mm_int8, tensorize_script, tensorize_typed);
  compare("more", chain, more_script, more_typed);
  compare("mixed", mm_relu, course_script, mixed_typed);
  test_errors();
  test_build_and_run();
  printf("test_api_schedule_typed: %d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
