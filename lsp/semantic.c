/* semantic.c - textDocument/semanticTokens/full: every name the index knows,
 * typed by what it names (functions, parameters, buffers, blocks, loop vars,
 * block iter vars by kind, schedule handles) so that an editor can colour a
 * reduction axis apart from a spatial one. */
#include <stdlib.h>

#include "lsp/lsp_internal.h"

enum { TT_NAMESPACE, TT_FUNCTION, TT_PARAMETER, TT_VARIABLE, TT_STRUCT, TT_PROPERTY };
enum { TM_DECLARATION = 1, TM_SPATIAL = 2, TM_REDUCE = 4, TM_LOOP = 8, TM_SCHEDULE = 16 };

cJSON *lsp_semantic_legend(void) {
  static const char *const types[] = {"namespace", "function", "parameter", "variable", "struct", "property"};
  static const char *const mods[] = {"declaration", "spatial", "reduce", "loop", "schedule"};
  cJSON *l = cJSON_CreateObject();
  cJSON_AddItemToObject(l, "tokenTypes", cJSON_CreateStringArray(types, 6));
  cJSON_AddItemToObject(l, "tokenModifiers", cJSON_CreateStringArray(mods, 5));
  return l;
}

/* The token type and modifiers of a symbol. */
static void classify(const LspSym *s, int *type, int *mods) {
  *mods = 0;
  switch (s->kind) {
    case LSP_SYM_MODULE: *type = TT_NAMESPACE; return;
    case LSP_SYM_FUNCTION: *type = TT_FUNCTION; return;
    case LSP_SYM_PARAM: *type = TT_PARAMETER; return;
    case LSP_SYM_BUFFER: *type = TT_PROPERTY; return;
    case LSP_SYM_BLOCK: *type = TT_STRUCT; return;
    case LSP_SYM_LOOP_VAR: *type = TT_VARIABLE, *mods = TM_LOOP; return;
    case LSP_SYM_ITER_VAR:
      *type = TT_VARIABLE;
      *mods = s->iter == 'S' ? TM_SPATIAL : s->iter == 'R' ? TM_REDUCE : 0;
      return;
    case LSP_SYM_SCHED_VAR: *type = TT_VARIABLE, *mods = TM_SCHEDULE; return;
    default: *type = TT_VARIABLE; return;
  }
}

static int by_offset(const void *a, const void *b) {
  uint32_t x = ((const LspRef *)a)->off, y = ((const LspRef *)b)->off;
  return x < y ? -1 : x > y;
}

cJSON *lsp_semantic_tokens(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d = lsp_doc_of_params(s, params);
  if (!d) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = "unknown document (not opened)";
    return NULL;
  }
  LspAnalysis *a = lsp_doc_analysis(d);
  LspRef *refs = xmalloc(sizeof *refs * (size_t)(a->ix.nrefs + 1));
  int n = 0;
  for (int i = 0; i < a->ix.nrefs; i++) /* one token per place */
    refs[n++] = a->ix.refs[i];
  qsort(refs, (size_t)n, sizeof *refs, by_offset);
  cJSON *data = cJSON_CreateArray();
  int pline = 0, pcol = 0;
  LspPosCursor cur = {d->text, d->len, 0, 0, 0};
  uint32_t last_end = 0;
  for (int i = 0; i < n; i++) {
    const LspRef *r = &refs[i];
    if (r->off < last_end) continue; /* a duplicate or overlap */
    int k = lsp_index_resolve(&a->ix, r), type, mods;
    if (k < 0) continue;
    const LspSym *sym = &a->ix.syms[k];
    classify(sym, &type, &mods);
    if (sym->off == r->off) mods |= TM_DECLARATION;
    lsp_cursor_advance(&cur, r->off);
    int line = cur.line, col = cur.col;
    lsp_cursor_advance(&cur, r->off + r->len);
    if (cur.line != line) continue;
    int ecol = cur.col;
    int vals[5] = {line - pline, line == pline ? col - pcol : col, ecol - col, type, mods};
    for (int v = 0; v < 5; v++) cJSON_AddItemToArray(data, cJSON_CreateNumber(vals[v]));
    pline = line, pcol = col;
    last_end = r->off + r->len;
  }
  free(refs);
  cJSON *res = cJSON_CreateObject();
  cJSON_AddItemToObject(res, "data", data);
  return res;
}
