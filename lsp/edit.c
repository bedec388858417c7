/* edit.c - textDocument/formatting (the canonical printer's form, offered only
 * when printing loses nothing) and textDocument/codeAction (a quick fix for
 * each diagnostic that carries a fix-it, such as "did you mean 'T.grid'"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/printer.h"
#include "lsp/lsp_internal.h"
#include "sched/schedule.h"

/* Whether the comment at text[i..] (to the end of its line) is in printed,
 * as the printer writes some itself ("# from tvm.script import tir as T"). */
static bool comment_kept(const char *text, size_t len, size_t i, const char *printed) {
  size_t e = i;
  while (e < len && text[e] != '\n') e++;
  while (e > i && (text[e - 1] == ' ' || text[e - 1] == '\r')) e--;
  char *c = xstrndup(text + i, e - i);
  bool kept = strstr(printed, c) != NULL;
  free(c);
  return kept;
}

/* Why replacing the file with printed would lose part of it, or NULL. */
static const char *unformattable(const LspDoc *d, const LspAnalysis *a, const char *printed) {
  if (!a->mod) return "the file has errors";
  if (sch_file_has_script(a->ast)) return "the printer would drop the file's schedule statements";
  bool in_str = false;
  char q = 0;
  for (size_t i = 0; i < d->len; i++) { /* a '#' outside strings starts a comment */
    char c = d->text[i];
    if (in_str) {
      if (c == '\\') i++;
      else if (c == q || c == '\n') in_str = false;
    } else if (c == '"' || c == '\'') {
      in_str = true, q = c;
    } else if (c == '#') {
      if (!comment_kept(d->text, d->len, i, printed)) return "the printer would drop the file's comments";
      while (i + 1 < d->len && d->text[i + 1] != '\n') i++;
    }
  }
  return NULL;
}

cJSON *lsp_formatting(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d = lsp_doc_of_params(s, params);
  if (!d) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = "unknown document (not opened)";
    return NULL;
  }
  LspAnalysis *a = lsp_doc_analysis(d);
  StrBuf out;
  sb_init(&out);
  if (a->mod) {
    PrintOptions po = print_options_default();
    print_module(&out, a->mod, &po);
  }
  const char *why = unformattable(d, a, out.data);
  cJSON *edits = cJSON_CreateArray();
  if (why) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "type", 3);
    char *m = xasprintf("tvs: not formatting: %s", why);
    cJSON_AddStringToObject(p, "message", m);
    free(m);
    lsp_send_notification(s, "window/showMessage", p);
  } else if (out.len != d->len || memcmp(out.data, d->text, d->len)) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddItemToObject(e, "range", lsp_json_range(d->text, d->len, 0, d->len));
    cJSON_AddStringToObject(e, "newText", out.data);
    cJSON_AddItemToArray(edits, e);
  }
  sb_free(&out);
  return edits;
}

/* The replacement a diagnostic suggests: its fix-it, or the name of a
 * "did you mean 'X'?" (written into buf); NULL when none. */
static const char *suggestion(const Diag *g, char *buf, size_t n) {
  if (g->fixit) return g->fixit;
  const char *p = strstr(g->msg, "did you mean '");
  if (!p) return NULL;
  p += strlen("did you mean '");
  const char *q = strchr(p, '\'');
  if (!q || (size_t)(q - p) >= n) return NULL;
  snprintf(buf, n, "%.*s", (int)(q - p), p);
  return buf;
}

/* For "split: factors [a, b] multiply to N but loop has extent M": the
 * factor list with its first factor left to inference ("[None, b]"), as TVM
 * allows one None; NULL otherwise (buf receives the text). */
static const char *split_fix(const Diag *g, const SourceFile *src, char *buf, size_t n) {
  if (strncmp(g->msg, "split: factors ", 15) || !strstr(g->msg, "multiply to") || g->span.len < 3 ||
      g->span.len >= n - 8)
    return NULL;
  const char *t = src->text + g->span.off;
  if (t[0] != '[' || t[g->span.len - 1] != ']') return NULL;
  const char *comma = memchr(t, ',', g->span.len);
  if (!comma) return NULL;
  snprintf(buf, n, "[None%.*s", (int)(t + g->span.len - comma), comma);
  return buf;
}

/* Whether byte ranges [a, a+al] and [b, b+bl] touch. */
static bool overlaps(size_t a, size_t al, size_t b, size_t bl) { return a <= b + bl && b <= a + al; }

cJSON *lsp_code_action(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d = lsp_doc_of_params(s, params);
  const cJSON *range = cJSON_GetObjectItemCaseSensitive(params, "range");
  if (!d || !cJSON_IsObject(range)) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = d ? "missing range" : "unknown document (not opened)";
    return NULL;
  }
  /* the position reader takes {"position": ...}: wrap each end */
  cJSON *tmp = cJSON_CreateObject();
  cJSON_AddItemReferenceToObject(tmp, "position", cJSON_GetObjectItemCaseSensitive(range, "start"));
  size_t a0 = 0, a1 = 0;
  bool ok = lsp_params_offset(d, tmp, &a0);
  cJSON_DeleteItemFromObject(tmp, "position");
  cJSON_AddItemReferenceToObject(tmp, "position", cJSON_GetObjectItemCaseSensitive(range, "end"));
  ok = ok && lsp_params_offset(d, tmp, &a1);
  cJSON_Delete(tmp);
  if (!ok || a1 < a0) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = "malformed range";
    return NULL;
  }
  LspAnalysis *an = lsp_doc_analysis(d);
  cJSON *actions = cJSON_CreateArray();
  for (int i = 0; i < an->diag.len; i++) {
    const Diag *g = &an->diag.items[i];
    char buf[128];
    const char *fix = suggestion(g, buf, sizeof buf);
    if (!fix && g->span.file == an->src) fix = split_fix(g, an->src, buf, sizeof buf);
    if (!fix || g->span.file != an->src || !overlaps(a0, a1 - a0, g->span.off, g->span.len)) continue;
    cJSON *act = cJSON_CreateObject();
    char *title = xasprintf("Replace with '%s'", fix);
    cJSON_AddStringToObject(act, "title", title);
    free(title);
    cJSON_AddStringToObject(act, "kind", "quickfix");
    cJSON *edit = cJSON_AddObjectToObject(act, "edit");
    cJSON *changes = cJSON_AddObjectToObject(edit, "changes");
    cJSON *edits = cJSON_AddArrayToObject(changes, d->uri);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddItemToObject(e, "range", lsp_json_range(d->text, d->len, g->span.off, g->span.len));
    cJSON_AddStringToObject(e, "newText", fix);
    cJSON_AddItemToArray(edits, e);
    cJSON_AddItemToArray(actions, act);
  }
  return actions;
}
