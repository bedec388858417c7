/* custom.c - the server's own requests, for an editor that shows the lowered
 * IR beside the source:
 *   tvs/showStage {textDocument, stage, function?} -> {stage, text}: the
 *     module (or one function) after a stage of `tvs show --list-stages`
 *     (graph, the graph passes, tir, the lowering passes), after the file's
 *     own schedule statements, as `tvs show --stage` prints it;
 *   tvs/scheduleTrace {textDocument} -> {trace}: the trace of the file's
 *     schedule statements as replayable schedule-script text. */
#include <string.h>

#include "ir/printer.h"
#include "ir/transform.h"
#include "lsp/lsp_internal.h"
#include "sched/schedule.h"

/* The module m after stage (graph, a graph pass, tir or a lowering pass); NULL
 * with *why set when the stage is unknown or a pass failed. */
static IrModule *after_stage(const IrModule *m, const char *stage, DiagCtx *d, const char **why) {
  int gi = rx_graph_pipeline_index(stage), ti = tir_pipeline_index(stage);
  if (!strcmp(stage, "graph")) return ir_module_copy(m);
  if (gi < 0 && ti < 0 && strcmp(stage, "tir")) {
    *why = "unknown stage, or one an editor cannot show (tokens, ast, llvm-unopt, llvm, asm: use tvs show)";
    return NULL;
  }
  IrModule *g = rx_run_graph_passes(m, gi >= 0 ? gi : -1, d, NULL, NULL);
  if (!g || gi >= 0 || ti < 0) {
    if (!g) *why = "a graph pass failed";
    return g;
  }
  IrModule *low = tir_lower(g, ti, d, NULL, NULL);
  ir_module_free(g);
  if (!low) *why = "a lowering pass failed";
  return low;
}

static void print_stage(StrBuf *sb, const IrModule *m, const char *stage, const char *func) {
  PrintOptions opt = print_options_default();
  bool tir_only = strcmp(stage, "graph") && rx_graph_pipeline_index(stage) < 0;
  IrModule *t = ir_module_copy(m);
  int n = 0;
  for (int i = 0; i < t->nfuncs; i++) {
    if (tir_only && t->funcs[i].kind != IR_FUNC_TIR) continue;
    if (func && strcmp(t->funcs[i].name, func)) continue;
    t->funcs[n++] = t->funcs[i];
  }
  t->nfuncs = n;
  print_module(sb, t, &opt);
  ir_module_free(t);
}

/* The document's module with its schedule statements applied, or NULL. */
static IrModule *scheduled(LspServer *s, const cJSON *params, DiagCtx *d, int *code, const char **msg) {
  LspDoc *doc = lsp_doc_of_params(s, params);
  LspAnalysis *a = doc ? lsp_doc_analysis(doc) : NULL;
  if (!a || !a->mod) {
    *code = doc ? LSP_ERR_REQUEST_FAILED : LSP_ERR_INVALID_PARAMS;
    *msg = doc ? "the file has errors (see its diagnostics)" : "unknown document (not opened)";
    return NULL;
  }
  IrModule *m = ir_module_copy(a->mod);
  if (sch_eval_file(a->ast, &m, d, NULL)) {
    ir_module_free(m);
    *code = LSP_ERR_REQUEST_FAILED;
    *msg = "the file's schedule statements fail (see its diagnostics)";
    return NULL;
  }
  return m;
}

/* $/progress {token, value: {kind, title|message}} for a client-given
 * workDoneToken (lowering a large module takes a while). */
static void progress(LspServer *s, const cJSON *params, const char *kind, const char *text) {
  const cJSON *tok = cJSON_GetObjectItemCaseSensitive(params, "workDoneToken");
  if (!cJSON_IsString(tok) && !cJSON_IsNumber(tok)) return;
  cJSON *p = cJSON_CreateObject();
  cJSON_AddItemToObject(p, "token", cJSON_Duplicate(tok, 1));
  cJSON *v = cJSON_AddObjectToObject(p, "value");
  cJSON_AddStringToObject(v, "kind", kind);
  cJSON_AddStringToObject(v, !strcmp(kind, "begin") ? "title" : "message", text);
  lsp_send_notification(s, "$/progress", p);
}

cJSON *lsp_show_stage(LspServer *s, const cJSON *params, int *code, const char **msg) {
  const cJSON *stage = cJSON_GetObjectItemCaseSensitive(params, "stage");
  const cJSON *func = cJSON_GetObjectItemCaseSensitive(params, "function");
  if (!cJSON_IsString(stage) || (func && !cJSON_IsString(func) && !cJSON_IsNull(func))) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = "params: {textDocument, stage: string, function?: string}";
    return NULL;
  }
  DiagCtx d;
  diag_init(&d, NULL);
  progress(s, params, "begin", "tvs: lowering");
  IrModule *m = scheduled(s, params, &d, code, msg);
  IrModule *out = m ? after_stage(m, stage->valuestring, &d, msg) : NULL;
  progress(s, params, "end", out ? stage->valuestring : "failed");
  cJSON *res = NULL;
  if (out) {
    StrBuf sb;
    sb_init(&sb);
    print_stage(&sb, out, stage->valuestring, cJSON_IsString(func) ? func->valuestring : NULL);
    res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "stage", stage->valuestring);
    cJSON_AddStringToObject(res, "text", sb.data);
    sb_free(&sb);
  } else if (m) {
    *code = LSP_ERR_REQUEST_FAILED;
  }
  ir_module_free(out);
  ir_module_free(m);
  diag_free(&d);
  return res;
}

cJSON *lsp_schedule_trace(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *doc = lsp_doc_of_params(s, params);
  LspAnalysis *a = doc ? lsp_doc_analysis(doc) : NULL;
  if (!a || !a->mod) {
    *code = doc ? LSP_ERR_REQUEST_FAILED : LSP_ERR_INVALID_PARAMS;
    *msg = doc ? "the file has errors (see its diagnostics)" : "unknown document (not opened)";
    return NULL;
  }
  DiagCtx d;
  diag_init(&d, NULL);
  SchScript *sc = sch_script_new(a->mod, &d);
  const AstList *body = &a->ast->module->body;
  int rc = 0;
  for (int i = 0; i < body->len && !rc; i++)
    if (sch_is_script_stmt(body->items[i])) rc = sch_script_exec(sc, body->items[i], NULL);
  cJSON *res = NULL;
  if (rc) {
    *code = LSP_ERR_REQUEST_FAILED;
    *msg = "the file's schedule statements fail (see its diagnostics)";
  } else {
    StrBuf sb;
    sb_init(&sb);
    sch_trace_print(sch_script_schedule(sc), &sb, false);
    res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "trace", sb.data);
    sb_free(&sb);
  }
  sch_script_free(sc);
  diag_free(&d);
  return res;
}
