/* complete.c - textDocument/completion and signatureHelp, from the text
 * before the cursor: T./R./I./te. members, schedule methods after `sch.` and
 * their keyword arguments inside the call, block names inside
 * get_block("..."), dtype strings in other strings, and the names in scope. */
#include <ctype.h>
#include <string.h>

#include "lang/elab.h"
#include "lsp/lsp_internal.h"
#include "sched/schedule.h"

enum { KIND_METHOD = 2, KIND_FUNCTION = 3, KIND_VARIABLE = 6, KIND_MODULE = 9, KIND_KEYWORD = 14,
       KIND_CONSTANT = 21, KIND_STRUCT = 22 };

static bool word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static void add_item(cJSON *items, const char *label, int kind, const char *detail) {
  const cJSON *it;
  cJSON_ArrayForEach(it, items)
    if (!strcmp(cJSON_GetObjectItemCaseSensitive(it, "label")->valuestring, label)) return;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "label", label);
  cJSON_AddNumberToObject(o, "kind", kind);
  if (detail && *detail) cJSON_AddStringToObject(o, "detail", detail);
  cJSON_AddItemToArray(items, o);
}

/* Members of namespace chain ns ("T", "T.axis", "R.nn") starting with prefix. */
static void ns_members(cJSON *items, const char *ns, const char *prefix) {
  size_t nl = strlen(ns), pl = strlen(prefix);
  for (int i = 0; builtin_name_at(i); i++) {
    const char *n = builtin_name_at(i);
    if (strncmp(n, ns, nl) || n[nl] != '.' || strncmp(n + nl + 1, prefix, pl)) continue;
    const char *rest = n + nl + 1, *dot = strchr(rest, '.');
    char label[64];
    snprintf(label, sizeof label, "%.*s", dot ? (int)(dot - rest) : (int)strlen(rest), rest);
    StrBuf sig, doc;
    sb_init(&sig);
    sb_init(&doc);
    if (!dot) lsp_builtin_doc(n, &sig, &doc);
    add_item(items, label, dot ? KIND_MODULE : KIND_FUNCTION, sig.data);
    sb_free(&sig);
    sb_free(&doc);
  }
}

static void sched_methods(cJSON *items, const char *prefix) {
  for (int i = 0; sch_script_method(i, NULL, NULL); i++) {
    const char *m = sch_script_method(i, NULL, NULL);
    if (strncmp(m, prefix, strlen(prefix))) continue;
    StrBuf sig;
    sb_init(&sig);
    sch_method_signature(m, &sig);
    add_item(items, m, KIND_METHOD, sig.data);
    sb_free(&sig);
  }
}

static const char *const dtypes[] = {"float32", "float16", "bfloat16", "float64", "int8", "int16", "int32",
                                     "int64", "uint8", "uint16", "uint32", "uint64", "bool"};

/* The innermost unclosed '(' before end on the text, or -1. */
static long open_paren(const char *t, long end, int *commas) {
  int depth = 0;
  *commas = 0;
  for (long i = end - 1; i >= 0 && end - i < 4000; i--) {
    char c = t[i];
    if (c == ')' || c == ']' || c == '}') depth++;
    else if (c == '(' || c == '[' || c == '{') {
      if (depth == 0) return c == '(' ? i : -1;
      depth--;
    } else if (c == ',' && depth == 0) (*commas)++;
  }
  return -1;
}

/* The dotted chain ending at t[end) ("sch.split", "T.axis"), copied to buf. */
static void chain_before(const char *t, long end, char *buf, size_t n) {
  long b = end;
  while (b > 0 && (word_char(t[b - 1]) || t[b - 1] == '.')) b--;
  snprintf(buf, n, "%.*s", (int)(end - b), t + b);
}

static void in_scope(cJSON *items, const LspAnalysis *a, uint32_t off, const char *prefix) {
  for (int i = 0; i < a->ix.nsyms; i++) {
    const LspSym *s = &a->ix.syms[i];
    if (s->kind == LSP_SYM_BLOCK || off < s->scope_off || off > s->scope_off + s->scope_len) continue;
    if (strncmp(s->name, prefix, strlen(prefix)) || (s->off <= off && off <= s->off + s->len)) continue;
    add_item(items, s->name, s->kind == LSP_SYM_FUNCTION ? KIND_FUNCTION : KIND_VARIABLE, lsp_sym_kind_name(s->kind));
  }
  const char *ns[] = {"T", "R", "I", "te"};
  for (int i = 0; i < 4; i++)
    if (!strncmp(ns[i], prefix, strlen(prefix))) add_item(items, ns[i], KIND_MODULE, "builtin namespace");
}

typedef struct BlockItems {
  cJSON *items;
  const char *prefix;
} BlockItems;

static void add_block(void *user, const char *block, const char *func) {
  BlockItems *b = user;
  if (!strncmp(block, b->prefix, strlen(b->prefix))) add_item(b->items, block, KIND_STRUCT, func);
}

/* Completion inside a string literal that starts at t[q]. */
static void in_string(cJSON *items, const LspAnalysis *a, const char *t, long q, const char *prefix) {
  char callee[128];
  long b = q;
  while (b > 0 && t[b - 1] == ' ') b--;
  if (b > 0 && t[b - 1] == '(') {
    chain_before(t, b - 1, callee, sizeof callee);
    const char *dot = strrchr(callee, '.');
    if (dot && !strcmp(dot + 1, "get_block")) {
      for (int i = 0; i < a->ix.nsyms; i++)
        if (a->ix.syms[i].kind == LSP_SYM_BLOCK && !strncmp(a->ix.syms[i].name, prefix, strlen(prefix)))
          add_item(items, a->ix.syms[i].name, KIND_STRUCT, a->ix.syms[i].func ? a->ix.syms[i].func : "block");
      BlockItems bi = {items, prefix}; /* a script alone: the blocks of the module it schedules */
      lsp_ir_blocks(a->target, add_block, &bi);
      return;
    }
  }
  for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
    if (!strncmp(dtypes[i], prefix, strlen(prefix))) add_item(items, dtypes[i], KIND_CONSTANT, "dtype");
}

static void keyword_args(cJSON *items, const char *t, long paren, const char *prefix) {
  char callee[128];
  chain_before(t, paren, callee, sizeof callee);
  const char *dot = strrchr(callee, '.');
  if (!dot || !strncmp(callee, "T.", 2) || !strncmp(callee, "R.", 2)) return;
  for (int i = 0; sch_script_method(i, NULL, NULL); i++) {
    const char *params[8];
    int np = 0;
    const char *m = sch_script_method(i, params, &np);
    if (strcmp(m, dot + 1)) continue;
    for (int k = 0; k < np; k++) {
      char label[80];
      snprintf(label, sizeof label, "%s=", params[k]);
      if (!strncmp(label, prefix, strlen(prefix))) add_item(items, label, KIND_KEYWORD, m);
    }
  }
}

cJSON *lsp_completion(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d = lsp_doc_of_params(s, params);
  size_t off;
  if (!d || !lsp_params_offset(d, params, &off)) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = d ? "missing or malformed position" : "unknown document (not opened)";
    return NULL;
  }
  LspAnalysis *a = lsp_doc_analysis(d);
  const char *t = d->text;
  long w = (long)off;
  while (w > 0 && word_char(t[w - 1])) w--;
  char prefix[128];
  snprintf(prefix, sizeof prefix, "%.*s", (int)((long)off - w), t + w);
  long ls = w;
  while (ls > 0 && t[ls - 1] != '\n') ls--;
  long quote = -1; /* an unclosed quote on this line before the word */
  for (long i = ls; i < w; i++)
    if (t[i] == '"' || t[i] == '\'') quote = quote < 0 ? i : -1;
  cJSON *items = cJSON_CreateArray();
  if (quote >= 0) {
    in_string(items, a, t, quote, prefix);
  } else if (w > 0 && t[w - 1] == '.') {
    char chain[128];
    chain_before(t, w - 1, chain, sizeof chain);
    if (!strcmp(chain, "T") || !strncmp(chain, "T.", 2) || !strcmp(chain, "R") || !strncmp(chain, "R.", 2) ||
        !strcmp(chain, "I") || !strcmp(chain, "te"))
      ns_members(items, chain, prefix);
    else if (chain[0])
      sched_methods(items, prefix);
  } else {
    int commas;
    long p = open_paren(t, w, &commas);
    if (p > 0) keyword_args(items, t, p, prefix);
    in_scope(items, a, (uint32_t)off, prefix);
  }
  cJSON *res = cJSON_CreateObject();
  cJSON_AddBoolToObject(res, "isIncomplete", 0);
  cJSON_AddItemToObject(res, "items", items);
  return res;
}

/* The parameters of a signature label "f(a, b=1, *c)" as [start, end] pairs. */
static cJSON *sig_params(const char *label) {
  cJSON *ps = cJSON_CreateArray();
  const char *o = strchr(label, '(');
  if (!o) return ps;
  int depth = 0;
  const char *start = o + 1;
  for (const char *p = o + 1; *p; p++) {
    if (*p == '(' || *p == '[') depth++;
    else if ((*p == ')' || *p == ']') && depth > 0) depth--;
    else if ((*p == ',' || *p == ')') && depth == 0) {
      while (*start == ' ') start++;
      if (p > start) {
        cJSON *pi = cJSON_CreateObject();
        cJSON *range = cJSON_AddArrayToObject(pi, "label");
        cJSON_AddItemToArray(range, cJSON_CreateNumber((double)(start - label)));
        cJSON_AddItemToArray(range, cJSON_CreateNumber((double)(p - label)));
        cJSON_AddItemToArray(ps, pi);
      }
      start = p + 1;
      if (*p == ')') break;
    }
  }
  return ps;
}

cJSON *lsp_signature_help(LspServer *s, const cJSON *params, int *code, const char **msg) {
  LspDoc *d = lsp_doc_of_params(s, params);
  size_t off;
  if (!d || !lsp_params_offset(d, params, &off)) {
    *code = LSP_ERR_INVALID_PARAMS;
    *msg = d ? "missing or malformed position" : "unknown document (not opened)";
    return NULL;
  }
  int commas;
  long p = open_paren(d->text, (long)off, &commas);
  if (p <= 0) return NULL;
  char chain[128];
  chain_before(d->text, p, chain, sizeof chain);
  StrBuf sig, doc;
  sb_init(&sig);
  sb_init(&doc);
  const char *dot = strrchr(chain, '.');
  cJSON *res = NULL;
  if (lsp_builtin_doc(chain, &sig, &doc) || (dot && sch_method_signature(dot + 1, &sig))) {
    res = cJSON_CreateObject();
    cJSON *sigs = cJSON_AddArrayToObject(res, "signatures");
    cJSON *si = cJSON_CreateObject();
    cJSON_AddStringToObject(si, "label", sig.data);
    if (doc.len) cJSON_AddStringToObject(si, "documentation", doc.data);
    cJSON_AddItemToObject(si, "parameters", sig_params(sig.data));
    cJSON_AddItemToArray(sigs, si);
    cJSON_AddNumberToObject(res, "activeSignature", 0);
    cJSON_AddNumberToObject(res, "activeParameter", commas);
  }
  sb_free(&sig);
  sb_free(&doc);
  return res;
}
