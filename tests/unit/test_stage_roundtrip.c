/* test_stage_roundtrip.c - every lowering stage's printed IR parses back to
 * a structurally equal module (ir/structural_equal.h).
 *
 * For each .tvs program of tests/corpus and examples/ with prim_funcs, and
 * each pass of the CPU pipeline: lower up to that pass, print, parse the text
 * again and compare with the in-memory module (global symbols included), and
 * check that printing the reparsed module gives the same text.  Running the
 * reparsed programs is tests/e2e/test_stage_roundtrip.sh's job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "corpus_files.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/transform.h"
#include "lang/elab.h"

static int n_pairs, n_ok;

static char *print_mod(const IrModule *m) {
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, m, NULL);
  return sb_take(&sb);
}

static bool has_tir(const IrModule *m) {
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_TIR) return true;
  return false;
}

/* One (program, stage) pair; reports and returns false on a difference. */
static bool check_stage(const char *prog, const IrModule *m, int stage, const char *stage_name) {
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *low = tir_lower(m, stage, &d, NULL, NULL);
  bool ok = false;
  if (!low) {
    printf("FAIL: %s @ %s: lowering failed\n", prog, stage_name);
    diag_free(&d);
    return false;
  }
  char *text = print_mod(low);
  SourceFile *src = src_from_string("stage.tvs", text, strlen(text));
  DiagCtx d2;
  diag_init(&d2, NULL);
  d2.out = NULL;
  IrModule *back = tvs_load_module(src, &d2);
  char *diff = NULL;
  if (!back || d2.nerr) {
    printf("FAIL: %s @ %s: the printed stage does not parse back\n", prog, stage_name);
  } else if (!seq_module(low, back, NULL, &diff)) {
    printf("FAIL: %s @ %s: reparsed module differs: %s\n", prog, stage_name, diff ? diff : "?");
  } else {
    char *again = print_mod(back);
    ok = !strcmp(again, text);
    if (!ok) printf("FAIL: %s @ %s: print(parse(print(x))) != print(x)\n", prog, stage_name);
    free(again);
  }
  free(diff);
  if (back) ir_module_free(back);
  diag_free(&d2);
  src_free(src);
  free(text);
  ir_module_free(low);
  diag_free(&d);
  return ok;
}

static void check_program(const char *dir, const char *name) {
  char *path = xasprintf("%s/%s", dir, name);
  const char *err = NULL;
  SourceFile *src = src_from_path(path, &err);
  free(path);
  CHECK(src != NULL);
  if (!src) return;
  DiagCtx d;
  diag_init(&d, NULL);
  d.out = NULL;
  IrModule *m = tvs_load_module(src, &d);
  if (m && !d.nerr && has_tir(m)) {
    int n;
    const TirPass *passes = tir_cpu_pipeline(&n);
    for (int s = 0; s < n; s++) {
      n_pairs++;
      if (check_stage(name, m, s, passes[s].name)) n_ok++;
    }
  }
  if (m) ir_module_free(m);
  diag_free(&d);
  src_free(src);
}

static void check_dir(const char *sub) {
  const char *root = getenv("TVS_SOURCE_DIR");
  char *dir = xasprintf("%s/%s", root ? root : ".", sub);
  PtrVec names = {0};
  DIR *dp = opendir(dir);
  CHECK(dp != NULL);
  if (dp) {
    struct dirent *de;
    while ((de = readdir(dp))) {
      size_t n = strlen(de->d_name);
      if (n > 4 && !strcmp(de->d_name + n - 4, ".tvs")) pv_push(&names, xstrdup(de->d_name));
    }
    closedir(dp);
    qsort(names.items, (size_t)names.len, sizeof *names.items, corpus_cmp_names);
  }
  for (int i = 0; i < names.len; i++) check_program(dir, names.items[i]);
  corpus_files_free(&names, dir);
}

int main(void) {
  PtrVec names = {0};
  char *dir = corpus_files(&names);
  CHECK(dir != NULL);
  for (int i = 0; dir && i < names.len; i++) check_program(dir, names.items[i]);
  if (dir) corpus_files_free(&names, dir);
  check_dir("examples");
  printf("stage round trip: %d of %d (program, stage) pairs parse back structurally equal\n", n_ok,
         n_pairs);
  CHECK(n_pairs > 900);
  CHECK_EQ_INT(n_ok, n_pairs);
  TEST_MAIN_END();
}
