/* server.c - JSON-RPC dispatch, the lifecycle (initialize, shutdown, exit),
 * document synchronisation and published diagnostics.  Every request gets
 * exactly one reply; a message that is not valid JSON-RPC gets an error reply
 * (id null when the id cannot be read); notifications never get one. */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "lsp/lsp_internal.h"

void lsp_server_init(LspServer *s, FILE *out, FILE *log) {
  memset(s, 0, sizeof *s);
  s->out = out;
  s->log = log;
  s->cancelled = cJSON_CreateArray();
}

static void doc_free(LspDoc *d) {
  free(d->uri);
  free(d->text);
  lsp_analysis_free(d->an);
  lsp_analysis_free(d->good);
}

void lsp_doc_invalidate(LspDoc *d) {
  if (d->an && d->an->mod) {
    lsp_analysis_free(d->good);
    d->good = d->an;
  } else {
    lsp_analysis_free(d->an);
  }
  d->an = NULL;
}

const IrModule *lsp_doc_module(const LspDoc *d) {
  if (d->an && d->an->mod) return d->an->mod;
  return d->good ? d->good->mod : NULL;
}

void lsp_server_free(LspServer *s) {
  for (int i = 0; i < s->ndocs; i++) doc_free(&s->docs[i]);
  free(s->docs);
  cJSON_Delete(s->cancelled);
}

static void send(LspServer *s, cJSON *msg) {
  char *body = cJSON_PrintUnformatted(msg);
  /* cJSON copies strings' bytes as they are; documents may hold invalid UTF-8 */
  StrBuf sb;
  sb_init(&sb);
  utf8_put_valid(&sb, body, strlen(body));
  lsp_write_message(s->out, sb.data, sb.len);
  sb_free(&sb);
  free(body);
  cJSON_Delete(msg);
}

static cJSON *envelope(const cJSON *id) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "jsonrpc", "2.0");
  cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
  return m;
}

void lsp_send_result(LspServer *s, const cJSON *id, cJSON *result) {
  cJSON *m = envelope(id);
  cJSON_AddItemToObject(m, "result", result ? result : cJSON_CreateNull());
  send(s, m);
}

void lsp_send_error(LspServer *s, const cJSON *id, int code, const char *msg) {
  cJSON *m = envelope(id);
  cJSON *e = cJSON_AddObjectToObject(m, "error");
  cJSON_AddNumberToObject(e, "code", code);
  cJSON_AddStringToObject(e, "message", msg);
  if (s->log) fprintf(s->log, "tvs lsp: error %d: %s\n", code, msg);
  send(s, m);
}

void lsp_send_notification(LspServer *s, const char *method, cJSON *params) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "jsonrpc", "2.0");
  cJSON_AddStringToObject(m, "method", method);
  cJSON_AddItemToObject(m, "params", params);
  send(s, m);
}

/* ------------------------------------------------------------- documents */

static LspDoc *find_doc(LspServer *s, const char *uri) {
  for (int i = 0; i < s->ndocs; i++)
    if (!strcmp(s->docs[i].uri, uri)) return &s->docs[i];
  return NULL;
}

static const char *params_uri(const cJSON *params) {
  const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
  const cJSON *uri = cJSON_GetObjectItemCaseSensitive(td, "uri");
  return cJSON_IsString(uri) ? uri->valuestring : NULL;
}

LspDoc *lsp_doc_of_params(LspServer *s, const cJSON *params) {
  const char *uri = params_uri(params);
  return uri ? find_doc(s, uri) : NULL;
}

/* The file name diagnostics carry: a file URI's path, percent-decoded
 * (malloc'd); another URI as it is. */
static char *uri_path(const char *uri) {
  if (strncmp(uri, "file://", 7)) return xstrdup(uri);
  const char *p = uri + 7;
  char *out = xmalloc(strlen(p) + 1), *o = out;
  static const char hex[] = "0123456789abcdef";
  for (; *p; p++) {
    const char *h1 = p[0] == '%' && p[1] ? strchr(hex, p[1] | 32) : NULL;
    const char *h2 = h1 && p[2] ? strchr(hex, p[2] | 32) : NULL;
    if (h1 && h2 && p[1] != '\0' && p[2] != '\0') {
      *o++ = (char)((h1 - hex) * 16 + (h2 - hex));
      p += 2;
    } else {
      *o++ = *p;
    }
  }
  *o = 0;
  return out;
}

LspAnalysis *lsp_doc_analysis(LspDoc *d) {
  if (!d->an) {
    char *name = uri_path(d->uri);
    d->an = lsp_analyze(name, d->text, d->len);
    free(name);
  }
  return d->an;
}

static cJSON *diag_json(const LspAnalysis *a, const Diag *g) {
  cJSON *o = cJSON_CreateObject();
  const SourceFile *f = a->src;
  bool here = g->span.file == f;
  size_t off = here ? g->span.off : 0, len = here ? g->span.len : 0;
  cJSON_AddItemToObject(o, "range", lsp_json_range(f->text, f->len, off, len));
  cJSON_AddNumberToObject(o, "severity", g->sev == DIAG_ERROR ? 1 : g->sev == DIAG_WARNING ? 2 : 3);
  if (g->code) cJSON_AddStringToObject(o, "code", g->code);
  cJSON_AddStringToObject(o, "source", "tvs");
  cJSON_AddStringToObject(o, "message", g->msg);
  return o;
}

static void publish(LspServer *s, LspDoc *d) {
  LspAnalysis *a = lsp_doc_analysis(d);
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "uri", d->uri);
  cJSON_AddNumberToObject(p, "version", d->version);
  cJSON *arr = cJSON_AddArrayToObject(p, "diagnostics");
  for (int i = 0; i < a->diag.len; i++) cJSON_AddItemToArray(arr, diag_json(a, &a->diag.items[i]));
  d->dirty = false;
  lsp_send_notification(s, "textDocument/publishDiagnostics", p);
}

void lsp_flush_diagnostics(LspServer *s) {
  for (int i = 0; i < s->ndocs; i++)
    if (s->docs[i].dirty) publish(s, &s->docs[i]);
}

static void did_open(LspServer *s, const cJSON *params) {
  const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
  const cJSON *uri = cJSON_GetObjectItemCaseSensitive(td, "uri");
  const cJSON *text = cJSON_GetObjectItemCaseSensitive(td, "text");
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(td, "version");
  if (!cJSON_IsString(uri) || !cJSON_IsString(text)) return;
  LspDoc *d = find_doc(s, uri->valuestring);
  if (!d) {
    LspDoc nd = {0};
    nd.uri = xstrdup(uri->valuestring);
    VEC_PUSH(s->docs, s->ndocs, s->capdocs, nd);
    d = &s->docs[s->ndocs - 1];
  }
  free(d->text);
  d->text = xstrdup(text->valuestring);
  d->len = strlen(d->text);
  d->version = cJSON_IsNumber(ver) ? ver->valueint : 0;
  lsp_doc_invalidate(d);
  d->dirty = true;
}

static void did_change(LspServer *s, const cJSON *params) {
  LspDoc *d = lsp_doc_of_params(s, params);
  const cJSON *changes = cJSON_GetObjectItemCaseSensitive(params, "contentChanges");
  if (!d || !cJSON_IsArray(changes)) return;
  const cJSON *c;
  cJSON_ArrayForEach(c, changes)
    if (!lsp_doc_apply_change(d, c) && s->log) fprintf(s->log, "tvs lsp: bad change ignored\n");
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "textDocument"), "version");
  if (cJSON_IsNumber(ver)) d->version = ver->valueint;
  lsp_doc_invalidate(d);
  d->dirty = true; /* analysed when the input goes quiet (debounce) */
}

static void did_close(LspServer *s, const cJSON *params) {
  LspDoc *d = lsp_doc_of_params(s, params);
  if (!d) return;
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "uri", d->uri);
  cJSON_AddArrayToObject(p, "diagnostics");
  lsp_send_notification(s, "textDocument/publishDiagnostics", p);
  doc_free(d);
  *d = s->docs[--s->ndocs];
}

/* ------------------------------------------------------------ lifecycle */

static cJSON *capabilities(void) {
  cJSON *c = cJSON_CreateObject();
  cJSON *sync = cJSON_AddObjectToObject(c, "textDocumentSync");
  cJSON_AddBoolToObject(sync, "openClose", 1);
  cJSON_AddNumberToObject(sync, "change", 2); /* incremental */
  cJSON_AddBoolToObject(c, "hoverProvider", 1);
  cJSON *comp = cJSON_AddObjectToObject(c, "completionProvider");
  cJSON *trig = cJSON_AddArrayToObject(comp, "triggerCharacters");
  cJSON_AddItemToArray(trig, cJSON_CreateString("."));
  cJSON_AddItemToArray(trig, cJSON_CreateString("\""));
  cJSON *sig = cJSON_AddObjectToObject(c, "signatureHelpProvider");
  cJSON *st = cJSON_AddArrayToObject(sig, "triggerCharacters");
  cJSON_AddItemToArray(st, cJSON_CreateString("("));
  cJSON_AddItemToArray(st, cJSON_CreateString(","));
  cJSON_AddBoolToObject(c, "definitionProvider", 1);
  cJSON_AddBoolToObject(c, "referencesProvider", 1);
  cJSON_AddBoolToObject(c, "renameProvider", 1);
  cJSON_AddBoolToObject(c, "documentSymbolProvider", 1);
  cJSON_AddBoolToObject(c, "workspaceSymbolProvider", 1);
  cJSON_AddBoolToObject(c, "documentFormattingProvider", 1);
  cJSON_AddBoolToObject(c, "codeActionProvider", 1);
  cJSON *sem = cJSON_AddObjectToObject(c, "semanticTokensProvider");
  cJSON_AddItemToObject(sem, "legend", lsp_semantic_legend());
  cJSON_AddBoolToObject(sem, "full", 1);
  return c;
}

static cJSON *initialize(LspServer *s, const cJSON *params, int *code, const char **msg) {
  s->initialized = true;
  cJSON *r = cJSON_CreateObject();
  cJSON_AddItemToObject(r, "capabilities", capabilities());
  cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
  cJSON_AddStringToObject(info, "name", "tvs");
  cJSON_AddStringToObject(info, "version", "0.1.0");
  return r;
}

static cJSON *shutdown_req(LspServer *s, const cJSON *params, int *code, const char **msg) {
  s->shutdown = true;
  return NULL;
}

/* ------------------------------------------------------------- dispatch */

typedef struct Route {
  const char *method;
  LspRequestFn fn;
} Route;

static const Route requests[] = {
    {"initialize", initialize},
    {"shutdown", shutdown_req},
    {"textDocument/hover", lsp_hover},
    {"textDocument/completion", lsp_completion},
    {"textDocument/signatureHelp", lsp_signature_help},
    {"textDocument/definition", lsp_definition},
    {"textDocument/references", lsp_references},
    {"textDocument/rename", lsp_rename},
    {"textDocument/documentSymbol", lsp_document_symbols},
    {"workspace/symbol", lsp_workspace_symbols},
    {"textDocument/formatting", lsp_formatting},
    {"textDocument/codeAction", lsp_code_action},
    {"textDocument/semanticTokens/full", lsp_semantic_tokens},
    {"tvs/showStage", lsp_show_stage},
    {"tvs/scheduleTrace", lsp_schedule_trace},
};

static void handle_notification(LspServer *s, const char *method, const cJSON *params) {
  if (!strcmp(method, "exit")) {
    s->exit_now = true;
  } else if (!strcmp(method, "$/cancelRequest")) { /* may come before the batch's initialize runs */
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "id");
    if (id && cJSON_GetArraySize(s->cancelled) < 1024) cJSON_AddItemToArray(s->cancelled, cJSON_Duplicate(id, 1));
  } else if (!s->initialized) {
    return; /* dropped before initialize, as the protocol says */
  } else if (!strcmp(method, "textDocument/didOpen")) {
    did_open(s, params);
  } else if (!strcmp(method, "textDocument/didChange")) {
    did_change(s, params);
  } else if (!strcmp(method, "textDocument/didClose")) {
    did_close(s, params);
  }
}

/* Whether a request id was cancelled (and forgets it). */
static bool take_cancelled(LspServer *s, const cJSON *id) {
  int i = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, s->cancelled) {
    if (cJSON_Compare(c, id, 1)) {
      cJSON_DeleteItemFromArray(s->cancelled, i);
      return true;
    }
    i++;
  }
  return false;
}

static void handle_request(LspServer *s, const cJSON *id, const char *method, const cJSON *params) {
  if (take_cancelled(s, id)) return lsp_send_error(s, id, LSP_ERR_CANCELLED, "request cancelled");
  if (s->shutdown) return lsp_send_error(s, id, LSP_ERR_INVALID_REQUEST, "the server is shut down");
  if (!s->initialized && strcmp(method, "initialize"))
    return lsp_send_error(s, id, LSP_ERR_NOT_INITIALIZED, "the server is not initialized");
  for (size_t i = 0; i < sizeof requests / sizeof *requests; i++) {
    if (strcmp(requests[i].method, method)) continue;
    if (i >= 2) lsp_flush_diagnostics(s); /* answers reflect the latest text */
    int code = 0;
    const char *msg = NULL;
    cJSON *r = requests[i].fn(s, params, &code, &msg);
    if (code) {
      cJSON_Delete(r);
      return lsp_send_error(s, id, code, msg);
    }
    return lsp_send_result(s, id, r);
  }
  char *m = xasprintf("unknown method '%.100s'", method);
  lsp_send_error(s, id, LSP_ERR_METHOD_NOT_FOUND, m);
  free(m);
}

bool lsp_is_cancel(const char *body, size_t len) {
  if (!memmem(body, len, "$/cancelRequest", 15)) return false;
  cJSON *m = cJSON_ParseWithLength(body, len);
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
  bool yes = cJSON_IsString(method) && !strcmp(method->valuestring, "$/cancelRequest") &&
             !cJSON_GetObjectItemCaseSensitive(m, "id");
  cJSON_Delete(m);
  return yes;
}

void lsp_handle_message(LspServer *s, const char *body, size_t len) {
  cJSON *msg = cJSON_ParseWithLength(body, len);
  if (!msg) return lsp_send_error(s, NULL, LSP_ERR_PARSE, "the message is not valid JSON");
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
  bool id_ok = id && (cJSON_IsNumber(id) || cJSON_IsString(id));
  if (!cJSON_IsObject(msg) || (id && !id_ok && !cJSON_IsNull(id))) {
    lsp_send_error(s, NULL, LSP_ERR_INVALID_REQUEST, "a message must be an object with a number or string id");
  } else if (!cJSON_IsString(method)) {
    /* A response from the client (we send no requests) is ignored; anything
     * else with an id is an invalid request. */
    if (id_ok && !cJSON_GetObjectItemCaseSensitive(msg, "result") && !cJSON_GetObjectItemCaseSensitive(msg, "error"))
      lsp_send_error(s, id, LSP_ERR_INVALID_REQUEST, "the message has no method");
  } else if (params && !cJSON_IsObject(params) && !cJSON_IsArray(params) && !cJSON_IsNull(params)) {
    if (id_ok) lsp_send_error(s, id, LSP_ERR_INVALID_PARAMS, "params must be an object or an array");
  } else if (id_ok) {
    handle_request(s, id, method->valuestring, params);
  } else {
    handle_notification(s, method->valuestring, params);
  }
  cJSON_Delete(msg);
}
