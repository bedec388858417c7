/* test_memory_plan.c - the static memory plan of graph functions
 * (ir/memory_plan.c).
 *
 * Invariants, on every graph function of examples/mlp.tvs and the relax_*
 * corpus programs (legalized) and on hand-written graphs:
 * - two intermediates whose live ranges overlap never share a byte:
 *   [offset, offset + size) are disjoint;
 * - offsets are 64-byte aligned, every tensor lies inside [0, peak);
 * - the planned peak is at most the largest sum of the sizes of the
 *   intermediates live at one binding (live_max: the planner finds an
 *   optimal packing on these graphs), and at most the unplanned total;
 * - tensors returned are written to the outputs, not planned.
 * Exact plans: a chain reuses two slots; a tensor kept alive across the
 * chain pins its own; a tuple output and a symbolic size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/memory_plan.h"
#include "corpus_files.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "base/util.h"

/* The invariants of one plan. */
static void check_plan(const RxMemPlan *p, const char *what) {
  int64_t sum = 0, top = 0;
  for (int i = 0; i < p->n; i++) {
    const RxPlanTensor *a = &p->t[i];
    CHECK(a->def <= a->last && a->last <= p->nbindings);
    if (a->out >= 0 || a->size < 0) {
      CHECK(a->offset == -1);
      continue;
    }
    sum += a->size;
    CHECK(a->offset >= 0 && a->offset % RX_PLAN_ALIGN == 0);
    CHECK(a->size >= a->bytes && a->size % RX_PLAN_ALIGN == 0);
    if (a->offset + a->size > top) top = a->offset + a->size;
    for (int j = i + 1; j < p->n; j++) {
      const RxPlanTensor *b = &p->t[j];
      if (b->out >= 0 || b->size < 0 || !rx_plan_lifetimes_overlap(a, b)) continue;
      bool disjoint = a->offset + a->size <= b->offset || b->offset + b->size <= a->offset;
      if (!disjoint) fprintf(stderr, "%s: %s and %s overlap\n", what, a->name, b->name);
      CHECK(disjoint);
    }
  }
  CHECK_EQ_INT(top, p->peak);
  CHECK_EQ_INT(sum, p->unplanned);
  CHECK(p->peak <= p->unplanned);
  if (p->peak > p->live_max)
    fprintf(stderr, "%s: planned peak %lld above the live maximum %lld\n", what, (long long)p->peak,
            (long long)p->live_max);
  CHECK(p->peak <= p->live_max);
}

/* Plans every graph function of the legalized module loaded from src. */
static int plan_module(SourceFile *src, const char *what, bool print) {
  DiagCtx d;
  diag_init(&d, NULL);
  IrModule *m = tvs_load_module(src, &d);
  IrModule *leg = m && !d.nerr ? rx_run_graph_passes(m, rx_graph_pipeline_index("legalize"), &d, NULL, NULL) : NULL;
  CHECK(leg != NULL);
  int planned = 0;
  for (int i = 0; leg && i < leg->nfuncs; i++) {
    if (leg->funcs[i].kind != IR_FUNC_RELAX) continue;
    RxMemPlan p;
    if (rx_memory_plan(leg->funcs[i].rx, &p) != 0) continue;
    char name[256];
    snprintf(name, sizeof name, "%s:%s", what, leg->funcs[i].name);
    check_plan(&p, name);
    if (print)
      printf("%-40s %2d call_tir outputs: planned peak %6lld bytes, live max %6lld, unplanned total %6lld\n", name,
             p.n, (long long)p.peak, (long long)p.live_max, (long long)p.unplanned);
    rx_memory_plan_free(&p);
    planned++;
  }
  ir_module_free(leg);
  ir_module_free(m);
  diag_free(&d);
  return planned;
}

static void test_examples(void) {
  const char *root = getenv("TVS_SOURCE_DIR");
  char *mlp = xasprintf("%s/examples/mlp.tvs", root ? root : ".");
  const char *err = NULL;
  SourceFile *src = src_from_path(mlp, &err);
  CHECK(src != NULL);
  if (src) CHECK_EQ_INT(plan_module(src, "examples/mlp.tvs", true), 1);
  src_free(src);
  free(mlp);
  PtrVec names = {0};
  char *dir = corpus_files(&names);
  CHECK(dir != NULL);
  int planned = 0;
  for (int i = 0; dir && i < names.len; i++) {
    if (strncmp(names.items[i], "relax_", 6)) continue;
    char *path = xasprintf("%s/%s", dir, (char *)names.items[i]);
    SourceFile *s = src_from_path(path, &err);
    if (s) planned += plan_module(s, names.items[i], true);
    src_free(s);
    free(path);
  }
  CHECK(planned >= 5);
  corpus_files_free(&names, dir);
}

/* Plans the single graph function "main" of text; the plan is returned. */
static bool plan_text(const char *text, RxMemPlan *p, SourceFile **src, IrModule **leg) {
  DiagCtx d;
  diag_init(&d, NULL);
  *src = src_from_string("test.tvs", text, strlen(text));
  IrModule *m = tvs_load_module(*src, &d);
  *leg = m && !d.nerr ? rx_run_graph_passes(m, rx_graph_pipeline_index("legalize"), &d, NULL, NULL) : NULL;
  ir_module_free(m);
  diag_free(&d);
  const IrGlobal *g = *leg ? ir_module_lookup(*leg, "main") : NULL;
  return g && rx_memory_plan(g->rx, p) == 0;
}

static const RxPlanTensor *named(const RxMemPlan *p, const char *name) {
  for (int i = 0; i < p->n; i++)
    if (!strcmp(p->t[i].name, name)) return &p->t[i];
  return NULL;
}

#define HEADER "@I.ir_module\nclass Module:\n    @R.function\n"

static void test_chain(void) {
  /* 1x256 floats = 1024 bytes each: a chain needs two slots */
  const char *text = HEADER
      "    def main(x: R.Tensor((1, 256), \"float32\")) -> R.Tensor((1, 256), \"float32\"):\n"
      "        with R.dataflow():\n"
      "            a = R.nn.relu(x)\n"
      "            b = R.add(a, x)\n"
      "            c = R.nn.relu(b)\n"
      "            d = R.add(c, x)\n"
      "            e = R.nn.relu(d)\n"
      "            R.output(e)\n"
      "        return e\n";
  RxMemPlan p;
  SourceFile *src;
  IrModule *leg;
  CHECK(plan_text(text, &p, &src, &leg));
  check_plan(&p, "chain");
  CHECK_EQ_INT(p.n, 5);
  CHECK_EQ_INT(p.unplanned, 4 * 1024);
  CHECK_EQ_INT(p.peak, 2 * 1024);
  const RxPlanTensor *e = named(&p, "e"), *a = named(&p, "a");
  CHECK(e && e->out == 0 && e->offset == -1);
  CHECK(a && a->def == 0 && a->last == 1);
  rx_memory_plan_free(&p);
  ir_module_free(leg);
  src_free(src);
}

static void test_long_lived(void) {
  /* a lives to the end: the chain after it reuses one other pair of slots */
  const char *text = HEADER
      "    def main(x: R.Tensor((1, 256), \"float32\")) -> R.Tensor((1, 256), \"float32\"):\n"
      "        with R.dataflow():\n"
      "            a = R.nn.relu(x)\n"
      "            b = R.add(a, x)\n"
      "            c = R.nn.relu(b)\n"
      "            d = R.add(c, x)\n"
      "            e = R.add(d, a)\n"
      "            R.output(e)\n"
      "        return e\n";
  RxMemPlan p;
  SourceFile *src;
  IrModule *leg;
  CHECK(plan_text(text, &p, &src, &leg));
  check_plan(&p, "long-lived");
  CHECK_EQ_INT(p.peak, 3 * 1024);
  CHECK_EQ_INT(p.live_max, 3 * 1024);
  const RxPlanTensor *a = named(&p, "a");
  CHECK(a && a->last == 4);
  rx_memory_plan_free(&p);
  ir_module_free(leg);
  src_free(src);
}

static void test_tuple_and_symbolic(void) {
  /* a tuple result: both fields are outputs; symbolic sizes are not planned */
  const char *text = HEADER
      "    def main(x: R.Tensor((\"n\", 4), \"float32\"), y: R.Tensor((2, 3), \"float32\")):\n"
      "        with R.dataflow():\n"
      "            a = R.nn.relu(x)\n"
      "            b = R.add(a, x)\n"
      "            c = R.nn.relu(y)\n"
      "            d = R.add(c, y)\n"
      "            gv = (b, d)\n"
      "            R.output(gv)\n"
      "        return gv\n";
  RxMemPlan p;
  SourceFile *src;
  IrModule *leg;
  CHECK(plan_text(text, &p, &src, &leg));
  check_plan(&p, "tuple");
  CHECK_EQ_INT(p.nout, 2);
  CHECK_EQ_INT(p.ndynamic, 1);
  const RxPlanTensor *a = named(&p, "a"), *b = named(&p, "b"), *c = named(&p, "c"), *d = named(&p, "d");
  CHECK(a && a->bytes == -1 && a->offset == -1 && a->out == -1);
  CHECK(b && b->out == 0 && d && d->out == 1);
  CHECK(c && c->bytes == 24 && c->size == 64 && c->offset == 0);
  CHECK_EQ_INT(p.peak, 64);
  StrBuf sb;
  sb_init(&sb);
  rx_memory_plan_print(&sb, &p);
  CHECK(strstr(sb.data, "planned peak 64 bytes (unplanned total 64 bytes)") != NULL);
  CHECK(strstr(sb.data, "symbolic") != NULL && strstr(sb.data, "output 1") != NULL);
  sb_free(&sb);
  rx_memory_plan_free(&p);
  ir_module_free(leg);
  src_free(src);
}

int main(void) {
  test_examples();
  test_chain();
  test_long_lived();
  test_tuple_and_symbolic();
  TEST_MAIN_END();
}
