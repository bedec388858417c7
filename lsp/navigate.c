/* navigate.c - go to definition, find references, rename, document and
 * workspace symbols: all answered from the AST index (index.c). */
#include <string.h>

#include "lsp/lsp_internal.h"

/* The document and analysis of a positional request, and the reference under
 * the cursor (NULL when none); false (with *code set) on bad params. */
static bool at_cursor(LspServer *s, const cJSON *params, LspDoc **d, LspAnalysis **a, const LspRef **ref,
                      int *code, const char **msg) {
  *d = lsp_doc_of_params(s, params);
  size_t off;
  if (!*d || !lsp_params_offset(*d, params, &off)) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = *d ? "missing or malformed position" : "unknown document (not opened)";
    return false;
  }
  *a = lsp_doc_analysis(*d);
  *ref = lsp_index_ref_at(&(*a)->ix, (uint32_t)off);
  return true;
}

static cJSON *location(const LspDoc *d, uint32_t off, uint32_t len) {
  cJSON *l = cJSON_CreateObject();
  cJSON_AddStringToObject(l, "uri", d->uri);
  cJSON_AddItemToObject(l, "range", lsp_json_range(d->text, d->len, off, len));
  return l;
}

cJSON *lsp_definition(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d;
  LspAnalysis *a;
  const LspRef *r;
  if (!at_cursor(s, params, &d, &a, &r, code, msg) || !r) return NULL;
  int k = lsp_index_resolve(&a->ix, r);
  if (k < 0) return NULL;
  return location(d, a->ix.syms[k].off, a->ix.syms[k].len);
}

/* Every reference resolving to symbol k, as locations (or as TextEdits
 * replacing the name with new_name when it is not NULL). */
static cJSON *uses_of(const LspDoc *d, const LspAnalysis *a, int k, const char *new_name) {
  cJSON *arr = cJSON_CreateArray();
  const LspSym *sym = &a->ix.syms[k];
  for (int i = 0; i < a->ix.nrefs; i++) {
    const LspRef *r = &a->ix.refs[i];
    if (strcmp(r->name, sym->name) || lsp_index_resolve(&a->ix, r) != k) continue;
    if (!new_name) {
      cJSON_AddItemToArray(arr, location(d, r->off, r->len));
      continue;
    }
    cJSON *e = cJSON_CreateObject();
    cJSON_AddItemToObject(e, "range", lsp_json_range(d->text, d->len, r->off, r->len));
    cJSON_AddStringToObject(e, "newText", new_name);
    cJSON_AddItemToArray(arr, e);
  }
  return arr;
}

cJSON *lsp_references(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d;
  LspAnalysis *a;
  const LspRef *r;
  if (!at_cursor(s, params, &d, &a, &r, code, msg)) return NULL;
  int k = r ? lsp_index_resolve(&a->ix, r) : -1;
  return k < 0 ? cJSON_CreateArray() : uses_of(d, a, k, NULL);
}

static bool is_identifier(const char *n) {
  if (!n[0] || !(n[0] == '_' || ((n[0] | 32) >= 'a' && (n[0] | 32) <= 'z'))) return false;
  for (const char *p = n; *p; p++)
    if (!(*p == '_' || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z'))) return false;
  return true;
}

cJSON *lsp_rename(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d;
  LspAnalysis *a;
  const LspRef *r;
  if (!at_cursor(s, params, &d, &a, &r, code, msg)) return NULL;
  const cJSON *nn = cJSON_GetObjectItemCaseSensitive(params, "newName");
  int k = r ? lsp_index_resolve(&a->ix, r) : -1;
  if (!cJSON_IsString(nn) || k < 0 || (!r->is_block && !is_identifier(nn->valuestring))) {
    *code = LSP_ERR_REQUEST_FAILED;
    *msg = k < 0 ? "nothing to rename here (not a buffer, variable, function or block)"
                 : "the new name is not an identifier";
    return NULL;
  }
  cJSON *we = cJSON_CreateObject();
  cJSON *changes = cJSON_AddObjectToObject(we, "changes");
  cJSON_AddItemToObject(changes, d->uri, uses_of(d, a, k, nn->valuestring));
  return we;
}

/* SymbolKind numbers of the protocol for each of ours. */
static int symbol_kind(LspSymKind k) {
  static const int kinds[] = {2 /* Module */, 12 /* Function */, 13 /* Variable */, 8 /* Field */,
                              13 /* Variable */, 13, 13, 23 /* Struct */, 13};
  return kinds[k];
}

static bool listed(const LspSym *s) {
  return s->kind == LSP_SYM_MODULE || s->kind == LSP_SYM_FUNCTION || s->kind == LSP_SYM_BLOCK ||
         s->kind == LSP_SYM_BUFFER || (s->kind == LSP_SYM_SCHED_VAR && s->parent < 0);
}

static cJSON *doc_symbol(const LspDoc *d, const LspAnalysis *a, int k) {
  const LspSym *s = &a->ix.syms[k];
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", s->name);
  cJSON_AddStringToObject(o, "detail", lsp_sym_kind_name(s->kind));
  cJSON_AddNumberToObject(o, "kind", symbol_kind(s->kind));
  uint32_t fo = s->full_off, fl = s->full_len;
  if (s->off < fo || s->off + s->len > fo + fl) fo = s->off, fl = s->len; /* selection inside range */
  cJSON_AddItemToObject(o, "range", lsp_json_range(d->text, d->len, fo, fl));
  cJSON_AddItemToObject(o, "selectionRange", lsp_json_range(d->text, d->len, s->off, s->len));
  cJSON *kids = cJSON_AddArrayToObject(o, "children");
  for (int i = k + 1; i < a->ix.nsyms; i++) {
    if (!listed(&a->ix.syms[i])) continue;
    /* a child's nearest listed ancestor is k */
    int p = a->ix.syms[i].parent;
    while (p >= 0 && !listed(&a->ix.syms[p])) p = a->ix.syms[p].parent;
    if (p == k) cJSON_AddItemToArray(kids, doc_symbol(d, a, i));
  }
  return o;
}

cJSON *lsp_document_symbols(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d = lsp_doc_of_params(s, params);
  if (!d) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = "unknown document (not opened)";
    return NULL;
  }
  LspAnalysis *a = lsp_doc_analysis(d);
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < a->ix.nsyms; i++) {
    int p = a->ix.syms[i].parent;
    while (p >= 0 && !listed(&a->ix.syms[p])) p = a->ix.syms[p].parent;
    if (listed(&a->ix.syms[i]) && p < 0) cJSON_AddItemToArray(arr, doc_symbol(d, a, i));
  }
  return arr;
}

cJSON *lsp_workspace_symbols(LspServer *s, const cJSON *params, int *code, const char **msg) {
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(params, "query");
  const char *query = cJSON_IsString(q) ? q->valuestring : "";
  cJSON *arr = cJSON_CreateArray();
  for (int di = 0; di < s->ndocs; di++) {
    LspDoc *d = &s->docs[di];
    LspAnalysis *a = lsp_doc_analysis(d);
    for (int i = 0; i < a->ix.nsyms; i++) {
      const LspSym *sym = &a->ix.syms[i];
      if (!listed(sym) || !strstr(sym->name, query)) continue;
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "name", sym->name);
      cJSON_AddNumberToObject(o, "kind", symbol_kind(sym->kind));
      cJSON_AddItemToObject(o, "location", location(d, sym->off, sym->len));
      if (sym->func && strcmp(sym->func, sym->name)) cJSON_AddStringToObject(o, "containerName", sym->func);
      cJSON_AddItemToArray(arr, o);
    }
  }
  return arr;
}
