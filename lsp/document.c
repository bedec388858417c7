/* document.c - open documents and LSP positions.  Positions count UTF-16
 * code units within a line (the protocol's default encoding), so a character
 * outside the Basic Multilingual Plane counts two and a multi-byte UTF-8
 * character one; offsets into the text are bytes. */
#include <stdlib.h>
#include <string.h>

#include "lsp/lsp_internal.h"

/* Bytes in the UTF-8 sequence starting with lead byte c (1 for invalid bytes). */
static int utf8_len(unsigned char c) {
  if (c >= 0xF0 && c < 0xF8) return 4;
  if (c >= 0xE0) return c < 0xF0 ? 3 : 1;
  if (c >= 0xC0) return 2;
  return 1;
}

size_t lsp_offset_of(const char *text, size_t len, long line, long utf16_col) {
  size_t i = 0;
  for (long l = 0; l < line && i < len; i++)
    if (text[i] == '\n') l++;
  if (line < 0) return 0;
  long col = 0;
  while (i < len && text[i] != '\n' && col < utf16_col) {
    int n = utf8_len((unsigned char)text[i]);
    if (i + (size_t)n > len) n = 1;
    col += n == 4 ? 2 : 1;
    i += (size_t)n;
  }
  return i;
}

void lsp_position_of(const char *text, size_t len, size_t off, int *line, int *utf16_col) {
  if (off > len) off = len;
  int l = 0, col = 0;
  for (size_t i = 0; i < off;) {
    if (text[i] == '\n') {
      l++, col = 0, i++;
      continue;
    }
    int n = utf8_len((unsigned char)text[i]);
    if (i + (size_t)n > len) n = 1;
    col += n == 4 ? 2 : 1;
    i += (size_t)n;
  }
  *line = l;
  *utf16_col = col;
}

void lsp_cursor_advance(LspPosCursor *c, size_t off) {
  if (off > c->len) off = c->len;
  while (c->off < off) {
    if (c->text[c->off] == '\n') {
      c->line++, c->col = 0, c->off++;
      continue;
    }
    int n = utf8_len((unsigned char)c->text[c->off]);
    if (c->off + (size_t)n > c->len) n = 1;
    c->col += n == 4 ? 2 : 1;
    c->off += (size_t)n;
  }
}

cJSON *lsp_json_position(const char *text, size_t len, size_t off) {
  int line, col;
  lsp_position_of(text, len, off, &line, &col);
  cJSON *p = cJSON_CreateObject();
  cJSON_AddNumberToObject(p, "line", line);
  cJSON_AddNumberToObject(p, "character", col);
  return p;
}

cJSON *lsp_json_range(const char *text, size_t len, size_t off, size_t n) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddItemToObject(r, "start", lsp_json_position(text, len, off));
  cJSON_AddItemToObject(r, "end", lsp_json_position(text, len, off + n));
  return r;
}

/* Reads {"line":L,"character":C} into *off; false when malformed. */
static bool read_position(const LspDoc *d, const cJSON *p, size_t *off) {
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(p, "line");
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(p, "character");
  if (!cJSON_IsNumber(l) || !cJSON_IsNumber(c) || l->valuedouble < 0 || c->valuedouble < 0)
    return false;
  double lv = l->valuedouble > 1e9 ? 1e9 : l->valuedouble;
  double cv = c->valuedouble > 1e9 ? 1e9 : c->valuedouble;
  *off = lsp_offset_of(d->text, d->len, (long)lv, (long)cv);
  return true;
}

bool lsp_params_offset(const LspDoc *d, const cJSON *params, size_t *off) {
  return read_position(d, cJSON_GetObjectItemCaseSensitive(params, "position"), off);
}

bool lsp_doc_apply_change(LspDoc *d, const cJSON *change) {
  const cJSON *text = cJSON_GetObjectItemCaseSensitive(change, "text");
  if (!cJSON_IsString(text)) return false;
  size_t tl = strlen(text->valuestring);
  const cJSON *range = cJSON_GetObjectItemCaseSensitive(change, "range");
  size_t a = 0, b = d->len;
  if (range) {
    if (!read_position(d, cJSON_GetObjectItemCaseSensitive(range, "start"), &a) ||
        !read_position(d, cJSON_GetObjectItemCaseSensitive(range, "end"), &b))
      return false;
    if (b < a) return false;
  }
  char *nt = xmalloc(d->len - (b - a) + tl + 1);
  memcpy(nt, d->text, a);
  memcpy(nt + a, text->valuestring, tl);
  memcpy(nt + a + tl, d->text + b, d->len - b);
  d->len = d->len - (b - a) + tl;
  nt[d->len] = 0;
  free(d->text);
  d->text = nt;
  return true;
}
