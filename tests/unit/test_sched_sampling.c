/* test_sched_sampling.c - the sampling primitives and the decision API.
 *
 * Scripts that sample (with fixed decisions, or seeded draws) must compute
 * what the unscheduled function computes and replay from their printed
 * traces; the C API must draw TVM's distributions (perfect tiles uniform
 * over the factorizations within max_innermost_factor, categorical by the
 * weights, compute locations uniform over the legal candidates), repeat
 * itself for a seed, repair stale decisions, and replay a trace with
 * modified decisions.  debug_mask reports ill-formed IR. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parser/parser.h"
#include "sched_harness.h"

static void test_cases(void) {
  char *p;
  p = check_case("matmul.tvs", "main",
                 "sch = tvm.tir.Schedule(Module, seed=5, debug_mask=\"all\")\n"
                 "i, j, k = sch.get_loops(\"C\")\n"
                 "v = sch.sample_perfect_tile(i, n=3, max_innermost_factor=4)\n"
                 "sch.split(i, factors=v)\n"
                 "a, b = sch.sample_perfect_tile(j, n=2, decision=[2, 8])\n"
                 "sch.split(j, factors=[a, b])\n");
  expect_contains(p, "for i_0, i_1, i_2, j_0, j_1, k in T.grid(");
  expect_contains(p, "vj = T.axis.spatial(16, j_0 * 8 + j_1)");
  free(p);
  /* Compute locations: the first consumer loop, and the inline mark. */
  p = check_case("two_stage.tvs", "main",
                 "b = sch.get_block(\"B\")\nl = sch.sample_compute_location(b, decision=1)\n"
                 "sch.compute_at(b, l)\n");
  expect_contains(p, "for i, j in T.grid(16, 12):\n        with T.block(\"B\"):");
  free(p);
  p = check_case("multi_consumer.tvs", "main",
                 "b = sch.get_block(\"B\")\nl = sch.sample_compute_location(b, decision=-2)\n"
                 "sch.compute_at(b, l)\n");
  expect_contains(p, "D[vi, vj] = (A[vi, vj] + T.float32(1.0)) * T.float32(3.0)");
  free(p);
  /* Seeded draws everywhere, including an annotation from a categorical. */
  p = check_case("two_stage.tvs", "main",
                 "sch = tvm.tir.Schedule(Module, seed=1234)\n"
                 "b = sch.get_block(\"B\")\nc = sch.get_block(\"C\")\ni, j = sch.get_loops(c)\n"
                 "sch.split(j, factors=sch.sample_perfect_tile(j, n=2))\n"
                 "l = sch.sample_compute_location(b)\nsch.compute_at(b, l)\n"
                 "u = sch.sample_categorical([0, 16, 64], [0.2, 0.5, 0.3])\n"
                 "sch.annotate(c, \"pragma_auto_unroll_max_step\", u)\n");
  expect_contains(p, "T.block_attr({\"pragma_auto_unroll_max_step\": ");
  free(p);
}

/* ---------------------------------------------------------- distributions */

static Schedule *fresh(const IrModule *m, DiagCtx *d, int64_t seed) {
  Schedule *s = sch_new(m, d);
  sch_seed(s, seed);
  return s;
}

/* The index of a tiling among the ones seen so far (added when new). */
static int tile_index(int64_t seen[][4], int *nseen, const int64_t *t, int n) {
  for (int i = 0; i < *nseen; i++)
    if (!memcmp(seen[i], t, (size_t)n * sizeof *t)) return i;
  memcpy(seen[*nseen], t, (size_t)n * sizeof *t);
  return (*nseen)++;
}

static void check_perfect_tile_distribution(const IrModule *m, DiagCtx *d, int n, int max_inner,
                                            int expect_kinds) {
  Schedule *s = fresh(m, d, 17);
  SchRV *loops;
  sch_get_loops(s, sch_get_block(s, "C", NULL), &loops);
  int64_t seen[64][4];
  int counts[64] = {0}, nseen = 0;
  const int draws = 3000;
  for (int k = 0; k < draws; k++) {
    SchRV out[4];
    CHECK_EQ_INT(sch_sample_perfect_tile(s, loops[0], n, max_inner, NULL, out), 0);
    int64_t t[4], prod = 1;
    for (int i = 0; i < n; i++) t[i] = sch_expr_value(s, out[i]), prod *= t[i];
    CHECK(prod == 16);
    CHECK(max_inner < 0 || t[n - 1] <= max_inner);
    if (nseen < 64) counts[tile_index(seen, &nseen, t, n)]++;
  }
  /* Uniform over the valid factorizations: each near draws / kinds. */
  CHECK_EQ_INT(nseen, expect_kinds);
  double want = (double)draws / expect_kinds;
  for (int i = 0; i < nseen; i++) {
    CHECK(fabs(counts[i] - want) < 0.2 * want);
    if (fabs(counts[i] - want) >= 0.2 * want)
      fprintf(stderr, "tiling %d drawn %d times, expected about %.0f\n", i, counts[i], want);
  }
  free(loops);
  sch_free(s);
}

static void test_distributions(void) {
  IrModule *m = load("matmul.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, stderr);
  /* 16 = 2^4: 5 ordered pairs, 3 with the inner factor <= 4; 15 triples. */
  check_perfect_tile_distribution(m, &d, 2, 16, 5);
  check_perfect_tile_distribution(m, &d, 2, 4, 3);
  check_perfect_tile_distribution(m, &d, 3, -1, 15);
  check_perfect_tile_distribution(m, &d, 3, 2, 9); /* inner 1: 5 pairs of 16, inner 2: 4 of 8 */
  /* Categorical: frequencies follow the weights. */
  Schedule *s = fresh(m, &d, 99);
  int64_t cands[3] = {10, 20, 30};
  double probs[3] = {1.0, 6.0, 3.0}; /* weights, normalized */
  int counts[3] = {0};
  for (int k = 0; k < 4000; k++) {
    SchRV v = sch_sample_categorical(s, cands, probs, 3, NULL);
    int64_t x = sch_expr_value(s, v);
    counts[x / 10 - 1]++;
  }
  CHECK(abs(counts[0] - 400) < 80 && abs(counts[1] - 2400) < 150 && abs(counts[2] - 1200) < 120);
  int64_t one = 1;
  CHECK_EQ_INT((int)sch_expr_value(s, sch_sample_categorical(s, cands, probs, 3, &one)), 20);
  sch_free(s);
  CHECK_EQ_INT(d.nerr, 0);
  diag_free(&d);
  ir_module_free(m);
}

/* -------------------------------------------------- seeds and decisions */

static void test_seed_and_repair(void) {
  IrModule *m = load("matmul.tvs");
  IrModule *sym = load("misc_symbolic.tvs");
  CHECK(m && sym);
  if (!m || !sym) return;
  DiagCtx d;
  diag_init(&d, stderr);
  /* The same seed, the same draws; another seed differs somewhere. */
  int64_t a[40], b[40], c[40];
  for (int run = 0; run < 3; run++) {
    Schedule *s = fresh(m, &d, run == 2 ? 8 : 7);
    SchRV *loops;
    sch_get_loops(s, sch_get_block(s, "C", NULL), &loops);
    for (int k = 0; k < 10; k++) {
      SchRV out[4];
      sch_sample_perfect_tile(s, loops[k % 3], 4, -1, NULL, out);
      for (int i = 0; i < 4; i++) (run == 0 ? a : run == 1 ? b : c)[k * 4 + i] = sch_expr_value(s, out[i]);
    }
    free(loops);
    sch_free(s);
  }
  CHECK(!memcmp(a, b, sizeof a));
  CHECK(memcmp(a, c, sizeof a) != 0);
  /* Repairs: [3, 2, 3] of 16 -> [1, 1, 16]; [4, 4] stays. */
  Schedule *s = fresh(m, &d, 1);
  SchRV *loops;
  sch_get_loops(s, sch_get_block(s, "C", NULL), &loops);
  SchRV out[3];
  int64_t dec3[3] = {3, 2, 3}, dec2[2] = {4, 4};
  CHECK_EQ_INT(sch_sample_perfect_tile(s, loops[0], 3, 16, dec3, out), 0);
  CHECK(sch_expr_value(s, out[0]) == 1 && sch_expr_value(s, out[1]) == 1 && sch_expr_value(s, out[2]) == 16);
  CHECK_EQ_INT(sch_sample_perfect_tile(s, loops[1], 2, 16, dec2, out), 0);
  CHECK(sch_expr_value(s, out[0]) == 4 && sch_expr_value(s, out[1]) == 4);
  free(loops);
  sch_free(s);
  /* A symbolic extent: [-1, 1, 1]. */
  s = fresh(sym, &d, 1);
  sch_get_loops(s, sch_get_block(s, "B", NULL), &loops);
  CHECK_EQ_INT(sch_sample_perfect_tile(s, loops[1], 3, 16, NULL, out), 0);
  CHECK(sch_expr_value(s, out[0]) == -1 && sch_expr_value(s, out[1]) == 1 && sch_expr_value(s, out[2]) == 1);
  free(loops);
  sch_free(s);
  CHECK_EQ_INT(d.nerr, 0);
  diag_free(&d);
  ir_module_free(m);
  ir_module_free(sym);
}

/* The candidates of two_stage's B: inline (-2), root (-1), loops i (0) and
 * j (1) of its consumer C, each drawn about equally often; a decision that
 * is no candidate falls back to the nearest one before it. */
static void test_compute_location(void) {
  IrModule *m = load("two_stage.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, stderr);
  Schedule *s = fresh(m, &d, 3);
  SchRV b = sch_get_block(s, "B", NULL);
  int counts[4] = {0};
  int ntrace = sch_trace_len(s);
  for (int k = 0; k < 400; k++) {
    CHECK(sch_sample_compute_location(s, b, NULL) >= 0);
    int64_t dec = -9;
    CHECK_EQ_INT(sch_trace_get_decision(s, k, &dec, 1), 1);
    if (dec >= -2 && dec <= 1) counts[dec + 2]++;
  }
  CHECK_EQ_INT(sch_trace_len(s), ntrace + 400); /* the tries leave only the samples */
  CHECK_EQ_INT(sch_num_versions(s), 1);
  for (int i = 0; i < 4; i++) CHECK(counts[i] > 60 && counts[i] < 140);
  int64_t dec = 7;
  SchRV l = sch_sample_compute_location(s, b, &dec);
  CHECK(l >= 0 && sch_rv_kind(s, l) == SCH_RV_LOOP);
  int64_t got = 0;
  sch_trace_get_decision(s, sch_trace_decision_count(s) - 1, &got, 1);
  CHECK_EQ_INT((int)got, 1);
  CHECK_EQ_INT(sch_compute_at(s, b, l, false, -1), 0);
  sch_free(s);
  CHECK_EQ_INT(d.nerr, 0);
  diag_free(&d);
  ir_module_free(m);
}

/* The tuner's loop: read the decisions, change one, replay. */
static void test_replay_with_decisions(void) {
  IrModule *m = load("matmul.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, stderr);
  Schedule *s = fresh(m, &d, 5);
  SchRV *loops;
  sch_get_loops(s, sch_get_block(s, "C", NULL), &loops);
  SchRV v[2], l[2];
  int64_t dec[2] = {4, 4};
  CHECK_EQ_INT(sch_sample_perfect_tile(s, loops[0], 2, 16, dec, v), 0);
  int64_t f[2] = {sch_expr_value(s, v[0]), sch_expr_value(s, v[1])};
  CHECK_EQ_INT(sch_split(s, loops[0], f, 2, true, false, l), 0);
  free(loops);
  CHECK_EQ_INT(sch_trace_decision_count(s), 1);
  CHECK_EQ_STR(sch_trace_decision_method(s, 0), "sample_perfect_tile");
  CHECK(sch_trace_decision_method(s, 1) == NULL);
  int64_t got[4];
  CHECK_EQ_INT(sch_trace_get_decision(s, 0, got, 4), 2);
  CHECK(got[0] == 4 && got[1] == 4);
  /* The C API's split took ints; the trace holds them, so the new decision
   * shows in the sample only.  Replay with [2, 8]: the split keeps [4, 4]. */
  int64_t nd[2] = {2, 8};
  CHECK_EQ_INT(sch_trace_set_decision(s, 0, nd, 2), 0);
  CHECK_EQ_INT(sch_trace_set_decision(s, 0, nd, 3), -1);
  Schedule *r = sch_replay(s, 1, &d);
  CHECK(r != NULL);
  if (r) {
    CHECK_EQ_INT(sch_trace_get_decision(r, 0, got, 4), 2);
    CHECK(got[0] == 2 && got[1] == 8);
    sch_free(r);
  }
  sch_free(s);
  /* Through a script (split on the ExprRVs), the new decision reshapes the
   * split; a decision that does not divide is repaired on replay. */
  IrModule *cur = ir_module_copy(m);
  const char *script = "i, j, k = sch.get_loops(\"C\")\nv = sch.sample_perfect_tile(i, n=2, decision=[4, 4])\n"
                       "sch.split(i, factors=v)\n";
  SourceFile *src = src_from_string("<script>", script, strlen(script));
  SchScript *sc = sch_script_new(m, &d);
  AstFile *af = parse_file(src, &d);
  for (int i = 0; i < af->module->body.len; i++) CHECK_EQ_INT(sch_script_exec(sc, af->module->body.items[i], NULL), 0);
  Schedule *ss = sch_script_schedule(sc);
  int64_t bad[2] = {3, 5};
  CHECK_EQ_INT(sch_trace_set_decision(ss, 0, bad, 2), 0);
  r = sch_replay(ss, 1, &d);
  CHECK(r != NULL);
  if (r) {
    CHECK_EQ_INT(sch_trace_get_decision(r, 0, got, 4), 2);
    CHECK(got[0] == 1 && got[1] == 16);
    StrBuf sb;
    sb_init(&sb);
    PrintOptions opt = print_options_default();
    print_module(&sb, sch_mod(r), &opt);
    expect_contains(sb.data, "for i_0, i_1, j, k in T.grid(1, 16, 16, 16):");
    sb_free(&sb);
    sch_free(r);
  }
  ast_file_free(af);
  sch_script_free(sc);
  src_free(src);
  ir_module_free(cur);
  CHECK_EQ_INT(d.nerr, 0);
  diag_free(&d);
  ir_module_free(m);
}

/* debug_mask: a primitive leaving ill-formed IR is an internal error (here
 * the input already is: its block reads the enclosing loop var). */
static void test_debug_mask(void) {
  IrModule *m = load("sample_leaky.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV *loops;
  CHECK_EQ_INT(sch_get_loops(s, sch_get_block(s, "B", NULL), &loops), 1);
  IrHeap *h = ir_heap_new();
  IrValue *one = irv_int(h, 1);
  CHECK_EQ_INT(sch_annotate(s, loops[0], "pragma_x", one), 0); /* no verification by default */
  CHECK_EQ_INT(d.nerr, 0);
  sch_set_debug_mask(s, -1);
  sch_annotate(s, loops[0], "pragma_y", one);
  CHECK_EQ_INT(d.nerr, 1);
  CHECK(d.len && strstr(d.items[d.len - 1].msg,
                        "internal error: annotate produced ill-formed IR in 'main': block 'B' uses the loop var 'i'"));
  ir_heap_release(h);
  free(loops);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

int main(void) {
  test_cases();
  test_distributions();
  test_seed_and_repair();
  test_compute_location();
  test_replay_with_decisions();
  test_debug_mask();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
