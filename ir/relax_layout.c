/* relax_layout.c - TVM's data layout strings ("NCHW", "NCHW16c", "OIHW16i16o"):
 * upper-case letters are primal axes, a number and a lower-case letter a
 * sub-axis that splits its primal axis by that factor (the primal axis then
 * holds dim / factor blocks).  Inference and the interpreter map a canonical
 * index (N, C, H, W) onto such a layout with RxLayoutMap. */
#include "ir/relax_op.h"

#include <ctype.h>
#include <string.h>

bool rx_layout_parse(const char *s, RxLayout *l) {
  memset(l, 0, sizeof *l);
  if (!s || !*s) return false;
  for (const char *p = s; *p;) {
    int64_t f = 0;
    while (isdigit((unsigned char)*p)) {
      f = f * 10 + (*p++ - '0');
      if (f > (1 << 20)) return false;
    }
    char a = *p++;
    if (!isalpha((unsigned char)a) || l->ndim >= RX_LAYOUT_MAX) return false;
    if (isupper((unsigned char)a) ? f != 0 : f < 1) return false; /* "16C" or "c" */
    for (int i = 0; i < l->ndim; i++)
      if (l->axis[i] == a) return false; /* an axis twice */
    l->axis[l->ndim] = a;
    l->factor[l->ndim++] = f;
  }
  for (int i = 0; i < l->ndim; i++) /* a sub-axis needs its primal axis */
    if (l->factor[i] && !strchr(l->axis, toupper((unsigned char)l->axis[i]))) return false;
  return true;
}

bool rx_layout_map(const char *layout, const char *canon, RxLayoutMap *m) {
  RxLayout l;
  memset(m, 0, sizeof *m);
  size_t n = strlen(canon);
  if (!rx_layout_parse(layout, &l) || n > 4) return false;
  int primal = 0;
  for (int i = 0; i < l.ndim; i++) primal += l.factor[i] == 0;
  if (primal != (int)n) return false;
  m->ndim = l.ndim;
  for (size_t i = 0; i < n; i++) {
    const char *p = memchr(l.axis, canon[i], (size_t)l.ndim);
    if (!p) return false;
    m->pos[i] = (int)(p - l.axis);
    m->sub[i] = -1;
    m->fac[i] = 1;
    const char *q = memchr(l.axis, tolower((unsigned char)canon[i]), (size_t)l.ndim);
    if (q) {
      m->sub[i] = (int)(q - l.axis);
      m->fac[i] = l.factor[q - l.axis];
      m->blocked = true;
    }
  }
  return true;
}

void rx_layout_index(const RxLayoutMap *m, const int64_t *canon_idx, int n, int64_t *idx) {
  for (int i = 0; i < n; i++) {
    if (m->sub[i] < 0) {
      idx[m->pos[i]] = canon_idx[i];
    } else {
      idx[m->pos[i]] = canon_idx[i] / m->fac[i];
      idx[m->sub[i]] = canon_idx[i] % m->fac[i];
    }
  }
}
