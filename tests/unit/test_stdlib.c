/* test_stdlib.c - the operator library (lang/stdlib.c) and PrimFunc
 * specialization (ir/specialize.c).
 *
 * - every embedded stdlib/ source elaborates without a diagnostic (a broken
 *   template would otherwise only be reported at run time);
 * - templates are found by name, through lang and through ir's provider hook;
 * - tir_specialize binds size and attribute vars: shapes fold to constants,
 *   the template is not changed, a padding of 0 removes the pad condition,
 *   unbound vars stay symbolic;
 * - tir_inline_copy_block removes a plain copy stage and reads its source. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/printer.h"
#include "ir/specialize.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "lang/stdlib.h"
#include "base/util.h"

static void test_sources_elaborate(void) {
  CHECK(tvs_stdlib_count >= 4);
  for (int i = 0; i < tvs_stdlib_count; i++) {
    DiagCtx d;
    diag_init(&d, NULL);
    const TvsStdlibSource *s = &tvs_stdlib_sources[i];
    SourceFile *src = src_from_string(s->file, s->text, strlen(s->text));
    IrModule *m = tvs_load_module(src, &d);
    CHECK(m != NULL);
    CHECK_EQ_INT(d.nerr, 0);
    if (m) CHECK(m->nfuncs > 0);
    ir_module_free(m);
    src_free(src);
    diag_free(&d);
  }
}

static void test_lookup(void) {
  IrHeap *h = NULL;
  const TirFunc *f = tvs_stdlib_func("conv2d_nchw", &h);
  CHECK(f != NULL && h != NULL);
  CHECK(tvs_stdlib_func("no_such_template", NULL) == NULL);
  tvs_stdlib_install();
  IrHeap *h2 = NULL;
  CHECK(rx_stdlib_template("conv2d_nchw", &h2) == f && h2 == h);
  CHECK(rx_stdlib_template("max_pool2d_nhwc", NULL) != NULL);
}

/* The var of f called name (params' shapes first, then anywhere printed). */
static TirVar *shape_var(const TirFunc *f, const char *name) {
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map[i];
    for (int d = 0; b && d < b->ndim; d++)
      if (b->shape[d]->kind == TIR_VAR && !strcmp(b->shape[d]->var->name, name)) return b->shape[d]->var;
  }
  return NULL;
}

static char *print_func(const TirFunc *f) {
  StrBuf sb;
  sb_init(&sb);
  print_tir_func(&sb, f, "f", NULL);
  return sb.data;
}

static void test_specialize(void) {
  const TirFunc *t = tvs_stdlib_func("conv2d_nchw", NULL);
  TVS_ASSERT(t);
  IrHeap *h = ir_heap_new();
  const char *names[] = {"N", "C", "H", "W", "F", "KH", "KW"};
  int64_t vals[] = {1, 3, 8, 8, 4, 3, 3};
  TirVar *vars[16];
  TirExpr *values[16];
  int n = 0;
  for (int i = 0; i < 7; i++) {
    vars[n] = shape_var(t, names[i]);
    CHECK(vars[n] != NULL);
    values[n++] = tir_int(h, dt_int64, vals[i]);
  }
  /* only the size vars are bound; the attribute vars stay symbolic */
  char *before = print_func(t);
  TirFunc *g = tir_specialize(h, t, vars, values, n);
  char *after = print_func(g);
  /* H, W, KH... are gone from the shapes; strides and paddings stay symbolic */
  CHECK(strstr(after, "T.Buffer((T.int64(1), T.int64(3), T.int64(8), T.int64(8))") ||
        strstr(after, "(T.int64(1), T.int64(3), T.int64(8), T.int64(8))"));
  CHECK(strstr(after, "stride_h") != NULL);
  CHECK(strstr(after, "pad_top") != NULL);
  char *again = print_func(t);
  CHECK(!strcmp(before, again)); /* the template is unchanged */
  free(before);
  free(after);
  free(again);
  ir_heap_release(h);
}

static void test_legalized_conv(void) {
  static const char *src_text =
      "@R.function\n"
      "def main(x: R.Tensor((1, 3, 8, 8), \"float32\"), w: R.Tensor((4, 3, 3, 3), \"float32\")):\n"
      "    gv = R.nn.conv2d(x, w)\n"
      "    return gv\n";
  DiagCtx d;
  diag_init(&d, NULL);
  SourceFile *src = src_from_string("t.tvs", src_text, strlen(src_text));
  IrModule *m = tvs_load_module(src, &d);
  CHECK(m != NULL);
  IrModule *lm = m ? rx_legalize_ops(m, &d, NULL) : NULL;
  const IrGlobal *g = lm ? ir_module_lookup(lm, "conv2d") : NULL;
  CHECK(g && g->kind == IR_FUNC_TIR);
  if (g && g->kind == IR_FUNC_TIR) {
    char *p = print_func(g->tir);
    /* padding 0: the pad stage is a plain copy, the output 6 x 6 */
    CHECK(strstr(p, "pad_temp[v_i0, v_i1, v_i2, v_i3] = A[v_i0, v_i1, v_i2, v_i3]") != NULL);
    CHECK(strstr(p, "T.int64(6), T.int64(6)") != NULL);
    CHECK(strstr(p, "with T.block(\"conv2d_nchw\")") != NULL);
    CHECK(strstr(p, "if_then_else") == NULL);
    /* and the copy goes when asked (what pools without padding get) */
    IrHeap *h = ir_heap_new();
    TirFunc *nf = tir_inline_copy_block(h, g->tir, "pad_temp");
    char *q = print_func(nf);
    CHECK(strstr(q, "pad_temp") == NULL);
    CHECK(strstr(q, "A[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx]") != NULL);
    free(q);
    free(p);
    ir_heap_release(h);
  }
  ir_module_free(lm);
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
}

int main(void) {
  test_sources_elaborate();
  test_lookup();
  test_specialize();
  test_legalized_conv();
  TEST_MAIN_END();
}
