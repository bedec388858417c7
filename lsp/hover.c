/* hover.c - textDocument/hover: a T./R./I. builtin's or schedule method's
 * signature and summary, or what the IR says about the name under the
 * cursor (buffer, loop or iter var, block, graph variable). */
#include <string.h>

#include "lsp/lsp_info.h"
#include "sched/schedule.h"

/* The innermost ATTR node containing off (NULL when none). */
static const Ast *attr_at(const Ast *n, uint32_t off) {
  if (!n || off < n->span.off || off > n->span.off + n->span.len) return NULL;
  const Ast *kids[] = {n->a, n->b, n->c};
  for (int i = 0; i < 3; i++) {
    const Ast *h = attr_at(kids[i], off);
    if (h) return h;
  }
  const AstList *lists[] = {&n->list, &n->list2, &n->body, &n->orelse, &n->decorators};
  for (int l = 0; l < 5; l++)
    for (int i = 0; i < lists[l]->len; i++) {
      const Ast *h = attr_at(lists[l]->items[i], off);
      if (h) return h;
    }
  if (n->kind != AST_ATTR) return NULL;
  /* the cursor on the attribute's own name (not inside the value) */
  uint32_t name_off = n->span.off + n->span.len - (uint32_t)strlen(n->name);
  return off >= name_off ? n : NULL;
}

/* The hover text of a builtin or schedule method spelled by ATTR node n. */
static bool attr_doc(const LspAnalysis *a, const Ast *n, StrBuf *out) {
  Arena ar;
  arena_init(&ar);
  const char *dotted = ast_dotted_name(&ar, n);
  StrBuf sig, doc;
  sb_init(&sig);
  sb_init(&doc);
  bool ok = false;
  if (dotted && lsp_builtin_doc(dotted, &sig, &doc)) {
    sb_printf(out, "```python\n%s\n```\n%s", sig.data, doc.data);
    ok = true;
  } else if (n->a && n->a->kind == AST_NAME && sch_method_signature(n->name, &sig)) {
    sb_printf(out, "```python\n%s\n```\nschedule primitive", sig.data);
    ok = true;
  }
  sb_free(&sig);
  sb_free(&doc);
  arena_free(&ar);
  return ok;
}

static void sym_doc(const LspAnalysis *a, const IrModule *mod, const LspSym *s, StrBuf *out) {
  StrBuf info;
  sb_init(&info);
  LspSymKind k = s->kind;
  bool ok = lsp_ir_info(mod, s->func, s->name, k, &info);
  if (!ok && k == LSP_SYM_VAR) ok = lsp_ir_info(mod, s->func, s->name, LSP_SYM_BUFFER, &info);
  if (ok) {
    sb_printf(out, "```python\n%s\n```\n(%s)", info.data, lsp_sym_kind_name(k));
  } else {
    size_t ll;
    const char *line = src_line_text(a->src, src_span(a->src, s->off, 0).line, &ll);
    while (ll && (*line == ' ' || *line == '\t')) line++, ll--;
    sb_printf(out, "(%s) %s\n```python\n%.*s\n```", lsp_sym_kind_name(k), s->name, (int)(ll > 200 ? 200 : ll), line);
  }
  sb_free(&info);
}

cJSON *lsp_hover(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d = lsp_doc_of_params(s, params);
  size_t off;
  if (!d || !lsp_params_offset(d, params, &off)) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = d ? "missing or malformed position" : "unknown document (not opened)";
    return NULL;
  }
  LspAnalysis *a = lsp_doc_analysis(d);
  StrBuf text;
  sb_init(&text);
  uint32_t hoff = 0, hlen = 0;
  const LspRef *r = lsp_index_ref_at(&a->ix, (uint32_t)off);
  const Ast *n = attr_at(a->ast->module, (uint32_t)off);
  if (r) {
    int k = lsp_index_resolve(&a->ix, r);
    if (k >= 0) sym_doc(a, lsp_doc_module(d), &a->ix.syms[k], &text);
    else if (r->is_block && lsp_ir_info(a->target, NULL, r->name, LSP_SYM_BLOCK, &text)) { /* a script alone */
      StrBuf md;
      sb_init(&md);
      sb_printf(&md, "```python\n%s\n```\n(block of %s)", text.data, a->target_src->name);
      sb_free(&text);
      text = md;
    }
    hoff = r->off, hlen = r->len;
  } else if (n && attr_doc(a, n, &text)) {
    hoff = n->span.off, hlen = n->span.len;
  }
  cJSON *res = NULL;
  if (text.len) {
    res = cJSON_CreateObject();
    cJSON *c = cJSON_AddObjectToObject(res, "contents");
    cJSON_AddStringToObject(c, "kind", "markdown");
    cJSON_AddStringToObject(c, "value", text.data);
    cJSON_AddItemToObject(res, "range", lsp_json_range(d->text, d->len, hoff, hlen));
  }
  sb_free(&text);
  return res;
}
