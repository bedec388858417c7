/* analysis.c - one analysis of a document: the parse, elaboration and the
 * file's own schedule statements, as `tvs check` runs them, with every
 * diagnostic kept (not printed) for publishDiagnostics. */
#include <stdlib.h>
#include <string.h>

#include "lang/elab.h"
#include "lsp/lsp_internal.h"
#include "parser/parser.h"
#include "sched/schedule.h"

/* The module a schedule script alone schedules: X.tvs beside X.sched.tvs or
 * X.sch; NULL when there is none or it does not elaborate. */
static IrModule *script_target(LspAnalysis *a, const char *name) {
  size_t n = strlen(name);
  size_t stem = n > 10 && !strcmp(name + n - 10, ".sched.tvs") ? n - 10
              : n > 4 && !strcmp(name + n - 4, ".sch") ? n - 4 : 0;
  if (!stem) return NULL;
  char *path = xasprintf("%.*s.tvs", (int)stem, name);
  const char *why;
  a->target_src = src_from_path(path, &why);
  free(path);
  if (!a->target_src) return NULL;
  DiagCtx quiet;
  diag_init(&quiet, NULL);
  IrModule *m = tvs_load_module(a->target_src, &quiet);
  diag_free(&quiet);
  return m;
}

LspAnalysis *lsp_analyze(const char *name, const char *text, size_t len) {
  LspAnalysis *a = xcalloc(1, sizeof *a);
  a->src = src_from_string(name, text, len);
  diag_init(&a->diag, NULL);
  a->diag.color = false;
  a->diag.max_errors = 200;
  a->ast = parse_file(a->src, &a->diag);
  lsp_index_build(&a->ix, a->ast);
  if (a->diag.nerr) return a;
  a->mod = elab_module(a->ast, &a->diag);
  if (a->mod && a->mod->nfuncs == 0 && sch_file_has_script(a->ast)) {
    a->target = script_target(a, name);
    if (a->target) {
      IrModule *copy = ir_module_copy(a->target);
      sch_eval_file(a->ast, &copy, &a->diag, NULL);
      ir_module_free(copy);
    }
  } else if (a->mod && sch_file_has_script(a->ast)) {
    /* Schedule errors against the file's module; the module itself stays as
     * written (hovers describe the source, not the scheduled IR). */
    IrModule *copy = ir_module_copy(a->mod);
    sch_eval_file(a->ast, &copy, &a->diag, NULL);
    ir_module_free(copy);
  }
  return a;
}

void lsp_analysis_free(LspAnalysis *a) {
  if (!a) return;
  ir_module_free(a->mod);
  ir_module_free(a->target);
  src_free(a->target_src);
  lsp_index_free(&a->ix);
  ast_file_free(a->ast);
  diag_free(&a->diag);
  src_free(a->src);
  free(a);
}
