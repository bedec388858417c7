/* relax_index_map.c - R.layout_transform's index_map, kept as the text of its
 * lambda ("lambda n, c, h, w: (n, c // 16, h, w, c % 16)") and read here
 * into the forms a layout transform is made of: an axis kept (v), split
 * (v // k with v % k) or two axes fused back (v * k + u).  Other index maps
 * are refused: the interpreter and the legalizer invert these by reading
 * them, as TVM's IndexMap.inverse does for bijective affine maps. */
#include "ir/relax_op.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct Lex {
  const char *p;
  char tok[32]; /* identifier or number text; punctuation as itself */
} Lex;

static void next(Lex *l) {
  while (*l->p == ' ' || *l->p == '\t' || *l->p == '\n') l->p++;
  size_t n = 0;
  if (isalnum((unsigned char)*l->p) || *l->p == '_') {
    while ((isalnum((unsigned char)*l->p) || *l->p == '_') && n < sizeof l->tok - 1) l->tok[n++] = *l->p++;
  } else if (l->p[0] == '/' && l->p[1] == '/') {
    l->tok[n++] = '/', l->tok[n++] = '/', l->p += 2;
  } else if (*l->p) {
    l->tok[n++] = *l->p++;
  }
  l->tok[n] = 0;
}

static bool is(const Lex *l, const char *t) { return !strcmp(l->tok, t); }
static bool is_num(const Lex *l) { return isdigit((unsigned char)l->tok[0]); }

static int param(const RxIndexMap *m, const char *name) {
  for (int i = 0; i < m->nin; i++)
    if (!strcmp(m->names[i], name)) return i;
  return -1;
}

/* One output: v | v // k | v % k | v * k + u. */
static bool entry(Lex *l, RxIndexMap *m, RxIndexMapEntry *e, StrBuf *err) {
  memset(e, 0, sizeof *e);
  if ((e->v = param(m, l->tok)) < 0) {
    sb_printf(err, "index_map: '%s' is not a parameter of the lambda", l->tok);
    return false;
  }
  next(l);
  if (is(l, ",") || is(l, ")") || !*l->tok) return true;
  char op = l->tok[0];
  if (!is(l, "//") && !is(l, "%") && !is(l, "*")) goto unsupported;
  next(l);
  if (!is_num(l) || (e->k = atoll(l->tok)) < 1) goto unsupported;
  e->kind = op == '/' ? RX_IM_DIV : op == '%' ? RX_IM_MOD : RX_IM_FUSE;
  next(l);
  if (e->kind != RX_IM_FUSE) return true;
  if (!is(l, "+")) goto unsupported;
  next(l);
  if ((e->u = param(m, l->tok)) < 0) goto unsupported;
  next(l);
  return true;
unsupported:
  sb_printf(err, "index_map: only v, v // k, v %% k and v * k + u outputs are supported");
  return false;
}

/* Each input axis is used exactly once: kept, split in two (same factor), or
 * fused (as the outer or the inner part). */
static bool bijective(const RxIndexMap *m, StrBuf *err) {
  int div[RX_LAYOUT_MAX], mod[RX_LAYOUT_MAX], other[RX_LAYOUT_MAX];
  int64_t kd[RX_LAYOUT_MAX] = {0}, km[RX_LAYOUT_MAX] = {0};
  memset(div, 0, sizeof div), memset(mod, 0, sizeof mod), memset(other, 0, sizeof other);
  for (int i = 0; i < m->nout; i++) {
    const RxIndexMapEntry *e = &m->out[i];
    if (e->kind == RX_IM_DIV) div[e->v]++, kd[e->v] = e->k;
    else if (e->kind == RX_IM_MOD) mod[e->v]++, km[e->v] = e->k;
    else other[e->v]++;
    if (e->kind == RX_IM_FUSE) other[e->u]++;
  }
  for (int v = 0; v < m->nin; v++) {
    bool split = div[v] == 1 && mod[v] == 1 && !other[v] && kd[v] == km[v];
    if (!split && !(other[v] == 1 && !div[v] && !mod[v])) {
      sb_printf(err, "index_map: axis '%s' must appear once (or once as v // k and once as v %% k)", m->names[v]);
      return false;
    }
  }
  return true;
}

bool rx_index_map_parse(const char *text, RxIndexMap *m, StrBuf *err) {
  memset(m, 0, sizeof *m);
  Lex l = {text ? text : "", {0}};
  next(&l);
  if (!is(&l, "lambda")) {
    sb_printf(err, "index_map must be a lambda");
    return false;
  }
  for (next(&l); !is(&l, ":"); next(&l)) {
    if (!isalpha((unsigned char)l.tok[0]) && l.tok[0] != '_') goto syntax;
    if (m->nin >= RX_LAYOUT_MAX || param(m, l.tok) >= 0) goto syntax;
    strcpy(m->names[m->nin++], l.tok);
    next(&l);
    if (is(&l, ":")) break;
    if (!is(&l, ",")) goto syntax;
  }
  next(&l);
  bool paren = is(&l, "(");
  if (paren) next(&l);
  while (*l.tok && !is(&l, ")")) {
    if (m->nout >= RX_LAYOUT_MAX || !entry(&l, m, &m->out[m->nout++], err)) return false;
    if (is(&l, ",")) next(&l);
  }
  if (paren != is(&l, ")") || m->nin == 0 || m->nout == 0) goto syntax;
  return bijective(m, err);
syntax:
  sb_printf(err, "index_map: expected lambda a, b, ...: (outputs)");
  return false;
}

void rx_index_map_inverse(const RxIndexMap *m, const int64_t *out_idx, int64_t *in_idx) {
  for (int v = 0; v < m->nin; v++) in_idx[v] = 0;
  for (int i = 0; i < m->nout; i++) {
    const RxIndexMapEntry *e = &m->out[i];
    switch (e->kind) {
    case RX_IM_VAR: in_idx[e->v] += out_idx[i]; break;
    case RX_IM_DIV: in_idx[e->v] += out_idx[i] * e->k; break;
    case RX_IM_MOD: in_idx[e->v] += out_idx[i]; break;
    case RX_IM_FUSE:
      in_idx[e->v] += out_idx[i] / e->k;
      in_idx[e->u] += out_idx[i] % e->k;
      break;
    }
  }
}

void rx_index_map_print(const RxIndexMap *m, StrBuf *sb) {
  sb_printf(sb, "lambda ");
  for (int i = 0; i < m->nin; i++) sb_printf(sb, "%s%s", i ? ", " : "", m->names[i]);
  sb_printf(sb, ": (");
  for (int i = 0; i < m->nout; i++) {
    const RxIndexMapEntry *e = &m->out[i];
    const char *v = m->names[e->v];
    if (i) sb_printf(sb, ", ");
    if (e->kind == RX_IM_VAR) sb_printf(sb, "%s", v);
    else if (e->kind == RX_IM_DIV) sb_printf(sb, "%s // %lld", v, (long long)e->k);
    else if (e->kind == RX_IM_MOD) sb_printf(sb, "%s %% %lld", v, (long long)e->k);
    else sb_printf(sb, "%s * %lld + %s", v, (long long)e->k, m->names[e->u]);
  }
  sb_printf(sb, m->nout == 1 ? ",)" : ")");
}
