/* analysis.c - one analysis of a document: the parse, elaboration and the
 * file's own schedule statements, as `tvs check` runs them, with every
 * diagnostic kept (not printed) for publishDiagnostics. */
#include <stdlib.h>

#include "lang/elab.h"
#include "lsp/lsp_internal.h"
#include "parser/parser.h"
#include "sched/schedule.h"

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
  if (a->mod && sch_file_has_script(a->ast)) {
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
  lsp_index_free(&a->ix);
  ast_file_free(a->ast);
  diag_free(&a->diag);
  src_free(a->src);
  free(a);
}
