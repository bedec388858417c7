/* text_diff.c - unified diffs of printed IR (the REPL's :diff, tvs show --diff).
 * A longest-common-subsequence table over lines (printed functions are a few
 * hundred lines), then hunks with three lines of context, as `diff -u` shows
 * them; on a terminal removed lines are red and added ones green. */
#include <stdlib.h>
#include <string.h>

#include "base/text_diff.h"
#include "base/util.h"

typedef struct Lines {
  const char **s;  /* line starts */
  int *len;        /* lengths without the newline */
  int n;
} Lines;

static Lines split_lines(const char *t) {
  Lines l = {NULL, NULL, 0};
  int cap = 0;
  while (*t) {
    const char *nl = strchr(t, '\n');
    int len = nl ? (int)(nl - t) : (int)strlen(t);
    if (l.n == cap) { /* parallel arrays: grow s, then len to the same cap */
      VEC_RESERVE(l.s, cap, (size_t)l.n + 1);
      l.len = xrealloc(l.len, (size_t)cap * sizeof *l.len);
    }
    l.s[l.n] = t;
    l.len[l.n++] = len;
    t += len + (nl ? 1 : 0);
  }
  return l;
}

static bool same(const Lines *a, int i, const Lines *b, int j) {
  return a->len[i] == b->len[j] && !memcmp(a->s[i], b->s[j], (size_t)a->len[i]);
}

/* One edit-script entry: ' ' keep, '-' from a, '+' from b. */
typedef struct Op {
  char kind;
  int ai, bi;  /* line indices (a for ' ' and '-', b for '+') */
} Op;

static void put_line(StrBuf *out, char kind, const char *s, int len, bool color) {
  const char *on = kind == '-' ? "\033[31m" : kind == '+' ? "\033[32m" : NULL;
  if (color && on) sb_puts(out, on);
  sb_putc(out, kind);
  sb_putn(out, s, (size_t)len);
  if (color && on) sb_puts(out, "\033[0m");
  sb_putc(out, '\n');
}

/* The edit script a -> b: ' ' kept, '-' removed, '+' added lines, in order
 * (a longest common subsequence); *changes counts the '-' and '+' ops. */
static Op *compute_ops(const Lines *a, const Lines *b, int *nops_out, int *changes_out) {
  /* Common prefix and suffix first: a schedule step usually touches the middle. */
  int pre = 0;
  while (pre < a->n && pre < b->n && same(a, pre, b, pre)) pre++;
  int suf = 0;
  while (suf < a->n - pre && suf < b->n - pre && same(a, a->n - 1 - suf, b, b->n - 1 - suf)) suf++;
  int na = a->n - pre - suf, nb = b->n - pre - suf;
  /* lcs[i][j] = LCS length of a[pre+i..] and b[pre+j..] in the middle part. */
  int *lcs = xcalloc((size_t)(na + 1) * (size_t)(nb + 1), sizeof *lcs);
#define L(i, j) lcs[(size_t)(i) * (size_t)(nb + 1) + (size_t)(j)]
  for (int i = na - 1; i >= 0; i--)
    for (int j = nb - 1; j >= 0; j--)
      L(i, j) = same(a, pre + i, b, pre + j) ? L(i + 1, j + 1) + 1
                : L(i + 1, j) > L(i, j + 1) ? L(i + 1, j) : L(i, j + 1);
  Op *ops = xmalloc((size_t)(a->n + b->n + 1) * sizeof *ops);
  int nops = 0, changes = 0;
  for (int i = 0; i < pre; i++) ops[nops++] = (Op){' ', i, i};
  int i = 0, j = 0;
  while (i < na || j < nb) {
    if (i < na && j < nb && same(a, pre + i, b, pre + j)) {
      ops[nops++] = (Op){' ', pre + i, pre + j};
      i++, j++;
    } else if (i < na && (j == nb || L(i + 1, j) >= L(i, j + 1))) {
      ops[nops++] = (Op){'-', pre + i, pre + j};
      i++, changes++;
    } else {
      ops[nops++] = (Op){'+', pre + i, pre + j};
      j++, changes++;
    }
  }
  for (int k = 0; k < suf; k++) ops[nops++] = (Op){' ', a->n - suf + k, b->n - suf + k};
#undef L
  free(lcs);
  *nops_out = nops;
  *changes_out = changes;
  return ops;
}

/* Appends the hunk of ops[start..stop): its @@ header, then its lines. */
static void put_hunk(StrBuf *out, const Op *ops, int start, int stop, const Lines *a, const Lines *b, bool color) {
  int as = -1, bs = -1, ac = 0, bc = 0;
  for (int q = start; q < stop; q++) {
    if (ops[q].kind != '+') {
      if (as < 0) as = ops[q].ai;
      ac++;
    }
    if (ops[q].kind != '-') {
      if (bs < 0) bs = ops[q].bi;
      bc++;
    }
  }
  if (as < 0) as = ops[start].ai;
  if (bs < 0) bs = ops[start].bi;
  sb_printf(out, "%s@@ -%d,%d +%d,%d @@%s\n", color ? "\033[36m" : "", ac ? as + 1 : as, ac,
            bc ? bs + 1 : bs, bc, color ? "\033[0m" : "");
  for (int q = start; q < stop; q++) {
    const Op *o = &ops[q];
    if (o->kind == '+') put_line(out, '+', b->s[o->bi], b->len[o->bi], color);
    else put_line(out, o->kind, a->s[o->ai], a->len[o->ai], color);
  }
}

int text_unified_diff(StrBuf *out, const char *ta, const char *tb, const char *name_a,
                      const char *name_b, bool color) {
  Lines a = split_lines(ta), b = split_lines(tb);
  int nops, changes;
  Op *ops = compute_ops(&a, &b, &nops, &changes);
  if (changes) {
    sb_printf(out, "--- %s\n+++ %s\n", name_a, name_b);
    int k = 0;
    while (k < nops) {
      if (ops[k].kind == ' ') {
        k++;
        continue;
      }
      /* A hunk: from 3 lines before this change to 3 after the last change
       * that is within 6 lines of the previous one. */
      int start = k - 3 < 0 ? 0 : k - 3;
      while (start < k && ops[start].kind != ' ') start++;
      int end = k;
      for (;;) {
        while (end < nops && ops[end].kind != ' ') end++;
        int next = end;
        while (next < nops && ops[next].kind == ' ' && next - end < 7) next++;
        if (next < nops && ops[next].kind != ' ' && next - end < 7) {
          end = next;
          continue;
        }
        break;
      }
      int stop = end + 3 > nops ? nops : end + 3;
      put_hunk(out, ops, start, stop, &a, &b, color);
      k = stop;
    }
  }
  free(ops);
  free(a.s);
  free(a.len);
  free(b.s);
  free(b.len);
  return changes;
}
