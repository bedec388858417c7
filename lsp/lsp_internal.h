/* lsp_internal.h - the pieces of the language server shared between its files:
 * documents and positions (document.c), one analysis of a document
 * (analysis.c, index.c), the server state and replies (server.c), and the
 * feature handlers (hover.c, complete.c, navigate.c, edit.c). */
#ifndef TVS_LSP_INTERNAL_H
#define TVS_LSP_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/diag.h"
#include "base/util.h"
#include "ir/module.h"
#include "lang/ast.h"
#include "lsp/transport.h"

/* JSON-RPC error codes (the LSP specification's numbers). */
enum {
  LSP_ERR_PARSE = -32700,
  LSP_ERR_INVALID_REQUEST = -32600,
  LSP_ERR_METHOD_NOT_FOUND = -32601,
  LSP_ERR_INVALID_PARAMS = -32602,
  LSP_ERR_INTERNAL = -32603,
  LSP_ERR_NOT_INITIALIZED = -32002,
  LSP_ERR_REQUEST_FAILED = -32803,
  LSP_ERR_CANCELLED = -32800,
};

/* ------------------------------------------------------------ positions */

/* Byte offset of an LSP position (0-based line, UTF-16 code units), clamped
 * to the line's end and the text's end. */
size_t lsp_offset_of(const char *text, size_t len, long line, long utf16_col);
/* The LSP position of byte offset off. */
void lsp_position_of(const char *text, size_t len, size_t off, int *line, int *utf16_col);
/* A position walked forward through a text (positions of sorted offsets in
 * one pass). */
typedef struct LspPosCursor {
  const char *text;
  size_t len, off;
  int line, col;
} LspPosCursor;
/* Moves c to byte offset off (>= c->off) and returns its position. */
void lsp_cursor_advance(LspPosCursor *c, size_t off);
/* {"line":..,"character":..} and {"start":..,"end":..} for bytes [off, off+n). */
cJSON *lsp_json_position(const char *text, size_t len, size_t off);
cJSON *lsp_json_range(const char *text, size_t len, size_t off, size_t n);

/* -------------------------------------------------------------- symbols */

typedef enum LspSymKind {
  LSP_SYM_MODULE, LSP_SYM_FUNCTION, LSP_SYM_PARAM, LSP_SYM_BUFFER, LSP_SYM_VAR,
  LSP_SYM_LOOP_VAR, LSP_SYM_ITER_VAR, LSP_SYM_BLOCK, LSP_SYM_SCHED_VAR
} LspSymKind;

/* A definition found in the AST. */
typedef struct LspSym {
  const char *name;   /* borrowed from the AST arena */
  LspSymKind kind;
  uint32_t off, len;  /* the name's bytes */
  uint32_t full_off, full_len; /* the whole definition (for document symbols) */
  uint32_t scope_off, scope_len; /* where the name is visible */
  int parent;         /* enclosing function (or block) symbol, -1 at top level */
  const char *func;   /* the enclosing function's name, or NULL */
  char iter;          /* ITER_VAR: its kind letter as T.axis.remap spells it (S, R, ...), else 0 */
} LspSym;

/* A use of a name (NAME nodes, block-name strings, definitions themselves). */
typedef struct LspRef {
  const char *name;
  uint32_t off, len;
  bool is_block;      /* a block name (in T.block("...") or get_block("...")) */
} LspRef;

typedef struct LspIndex {
  LspSym *syms;
  int nsyms, capsyms;
  LspRef *refs;
  int nrefs, caprefs;
  int *by_name;       /* symbol indices sorted by name, then by index (resolution) */
} LspIndex;

/* Builds the index of a parsed file. */
void lsp_index_build(LspIndex *ix, const AstFile *f);
void lsp_index_free(LspIndex *ix);
/* The reference under byte offset off, or NULL. */
const LspRef *lsp_index_ref_at(const LspIndex *ix, uint32_t off);
/* The definition a reference resolves to, or -1. */
int lsp_index_resolve(const LspIndex *ix, const LspRef *r);
const char *lsp_sym_kind_name(LspSymKind k);

/* ------------------------------------------------------------- analysis */

/* One analysis of one version of a document. */
typedef struct LspAnalysis {
  SourceFile *src;   /* the text analysed (spans point into it) */
  AstFile *ast;      /* the parse (partial when there are syntax errors) */
  IrModule *mod;     /* the elaborated module, or NULL on errors */
  DiagCtx diag;      /* every diagnostic, with spans into src */
  LspIndex ix;
  /* A schedule script alone (X.sched.tvs, X.sch: no functions of its own) runs
   * against the module of X.tvs beside it, when there is one. */
  SourceFile *target_src;
  IrModule *target;
} LspAnalysis;

/* Parses, elaborates and applies the schedule statements of a document. */
LspAnalysis *lsp_analyze(const char *name, const char *text, size_t len);
void lsp_analysis_free(LspAnalysis *a);

/* ------------------------------------------------------------ documents */

typedef struct LspDoc {
  char *uri;
  char *text;
  size_t len;
  int version;
  bool dirty;          /* changed since the diagnostics were published */
  LspAnalysis *an;     /* of the current text, or NULL (analysed on demand) */
  LspAnalysis *good;   /* the latest earlier analysis whose module elaborated, or NULL:
                          hovers use its IR while the current text has errors */
} LspDoc;

/* Drops d's analysis after a change, keeping it as d->good if it elaborated. */
void lsp_doc_invalidate(LspDoc *d);
/* The module hovers describe: the current one, else the last good one. */
const IrModule *lsp_doc_module(const LspDoc *d);

/* Applies one contentChanges entry (ranged or whole); false on bad params. */
bool lsp_doc_apply_change(LspDoc *d, const cJSON *change);

/* --------------------------------------------------------------- server */

typedef struct LspServer {
  FILE *out, *log;
  LspDoc *docs;
  int ndocs, capdocs;
  bool initialized, shutdown, exit_now;
  cJSON *cancelled;    /* ids of requests cancelled before they ran (array) */
} LspServer;

/* Whether a message body is a $/cancelRequest notification. */
bool lsp_is_cancel(const char *body, size_t len);
/* Handles one message body (already unframed); replies are written to out. */
void lsp_handle_message(LspServer *s, const char *body, size_t len);
void lsp_server_init(LspServer *s, FILE *out, FILE *log);
void lsp_server_free(LspServer *s);
/* Analyses and publishes the diagnostics of every dirty document. */
void lsp_flush_diagnostics(LspServer *s);

/* Sends {"jsonrpc":"2.0","id":id,"result":result} (takes result). */
void lsp_send_result(LspServer *s, const cJSON *id, cJSON *result);
void lsp_send_error(LspServer *s, const cJSON *id, int code, const char *msg);
void lsp_send_notification(LspServer *s, const char *method, cJSON *params);

/* The document named by params.textDocument.uri (NULL if not open), analysed. */
LspDoc *lsp_doc_of_params(LspServer *s, const cJSON *params);
LspAnalysis *lsp_doc_analysis(LspDoc *d);
/* The byte offset of params.position in d; false when position is missing. */
bool lsp_params_offset(const LspDoc *d, const cJSON *params, size_t *off);

/* A request handler: returns the result (NULL = JSON null), or sets *code and
 * *msg for an error reply. */
typedef cJSON *(*LspRequestFn)(LspServer *s, const cJSON *params, int *code, const char **msg);

cJSON *lsp_hover(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_completion(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_signature_help(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_definition(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_references(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_rename(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_document_symbols(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_workspace_symbols(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_formatting(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_code_action(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_semantic_tokens(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_show_stage(LspServer *s, const cJSON *params, int *code, const char **msg);
cJSON *lsp_schedule_trace(LspServer *s, const cJSON *params, int *code, const char **msg);
/* The legend of semantic tokens (initialize's capabilities). */
cJSON *lsp_semantic_legend(void);

/* Builtin documentation (builtin_docs.c): the signature and one-line summary
 * of a T./R./I./te. name, false when it is not a builtin. */
bool lsp_builtin_doc(const char *dotted, StrBuf *sig, StrBuf *doc);

/* Calls fn(user, block name, function name) for every block of m but the
 * root blocks (ir_info.c). */
void lsp_ir_blocks(const IrModule *m, void (*fn)(void *user, const char *block, const char *func), void *user);

#endif
