/* memory_plan.c - lifetimes and workspace offsets of a graph function's
 * intermediates (see memory_plan.h). */
#include "ir/memory_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ir/relax_op.h"
#include "ir/visit.h"

#define MAX_LEAVES 64

/* What the walk over the bindings shares. */
typedef struct Pw {
  RxMemPlan *p;
  IrPtrMap bound;  /* var -> the expression bound to it */
  int cap;
} Pw;

static bool is_call_tir(const RxExpr *e) {
  return e && e->kind == RX_CALL && e->call.op && e->call.op->id == RX_OP_CALL_TIR;
}

static const RxExpr *resolve(Pw *w, const RxExpr *e) {
  for (int guard = 0; e && (e->kind == RX_VAR || e->kind == RX_DATAFLOW_VAR) && guard < 1 << 20; guard++) {
    const RxExpr *v = ir_ptrmap_get(&w->bound, e);
    if (!v) break;
    e = v;
  }
  return e;
}

/* The call_tir outputs e stands for: (call, idx) pairs, call NULL for a
 * tensor that no call_tir produced (a parameter, a constant). */
static int leaves(Pw *w, const RxExpr *e, const RxExpr **calls, int *idx, int cap) {
  e = resolve(w, e);
  if (!e || cap <= 0) return 0;
  if (e->kind == RX_TUPLE) {
    int n = 0;
    for (int i = 0; i < e->tuple.n; i++) n += leaves(w, e->tuple.fields[i], calls + n, idx + n, cap - n);
    return n;
  }
  if (is_call_tir(e)) {
    int n;
    rx_call_outputs(e, &n, NULL);
    for (int i = 0; i < n && i < cap; i++) calls[i] = e, idx[i] = i;
    return n < cap ? n : cap;
  }
  if (e->kind == RX_TUPLE_GET_ITEM) {
    const RxExpr *tc[MAX_LEAVES];
    int ti[MAX_LEAVES];
    int n = leaves(w, e->get.tuple, tc, ti, MAX_LEAVES);
    bool in = e->get.index >= 0 && e->get.index < n;
    calls[0] = in ? tc[e->get.index] : NULL;
    idx[0] = in ? ti[e->get.index] : 0;
    return 1;
  }
  calls[0] = NULL, idx[0] = 0;
  return 1;
}

static RxPlanTensor *find(RxMemPlan *p, const RxExpr *call, int idx) {
  for (int i = 0; i < p->n; i++)
    if (p->t[i].call == call && p->t[i].idx == idx) return &p->t[i];
  return NULL;
}

const RxPlanTensor *rx_memory_plan_find(const RxMemPlan *p, const RxExpr *call, int idx) {
  return find((RxMemPlan *)p, call, idx);
}

/* Extends the live range of every tensor e reads to binding `at`. */
static void use(Pw *w, const RxExpr *e, int at) {
  if (!e) return;
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: {
      const RxExpr *calls[MAX_LEAVES];
      int idx[MAX_LEAVES];
      int n = leaves(w, e, calls, idx, MAX_LEAVES);
      for (int i = 0; i < n; i++) {
        RxPlanTensor *t = calls[i] ? find(w->p, calls[i], idx[i]) : NULL;
        if (t && t->last < at) t->last = at;
      }
      return;
    }
    case RX_CALL:
      for (int i = 0; i < e->call.n; i++) use(w, e->call.args[i], at);
      return;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++) use(w, e->tuple.fields[i], at);
      return;
    case RX_TUPLE_GET_ITEM: use(w, e->get.tuple, at); return;
    default: return;
  }
}

static int64_t static_bytes(const RxSInfo *si) {
  if (!si || si->kind != RX_SI_TENSOR || !si->shape || si->ndim < 0 || dt_is_void(si->dtype)) return -1;
  int64_t n = (int64_t)dt_bytes(si->dtype);
  for (int d = 0; d < si->ndim; d++) {
    int64_t v;
    if (!tir_is_const_int(si->shape[d], &v) || v < 0) return -1;
    n *= v;
  }
  return n;
}

/* A call_tir bound at binding `at` to var: one tensor per output. */
static void define(Pw *w, const RxExpr *var, const RxExpr *call, int at) {
  int n;
  const RxSInfo *const *osi = rx_call_outputs(call, &n, NULL);
  for (int i = 0; i < n; i++) {
    RxMemPlan *p = w->p;
    VEC_PUSH(p->t, p->n, w->cap, ((RxPlanTensor){.call = call, .idx = i, .si = osi[i], .offset = -1,
                                                 .def = at, .last = at, .out = -1}));
    RxPlanTensor *t = &p->t[p->n - 1];
    const char *vn = var ? var->var.name : "?";
    if (n == 1 && osi == (const RxSInfo *const *)call->call.sinfo_args && osi[0]->kind != RX_SI_TUPLE)
      snprintf(t->name, sizeof t->name, "%s", vn);
    else snprintf(t->name, sizeof t->name, "%s[%d]", vn, i);
    t->bytes = static_bytes(osi[i]);
    t->size = t->bytes < 0 ? -1 : (t->bytes + RX_PLAN_ALIGN - 1) / RX_PLAN_ALIGN * RX_PLAN_ALIGN;
  }
}

/* Which tensors the result names: each one's first appearance is written
 * into that output (the others are copied, and live to the end). */
static void mark_outputs(Pw *w, const RxExpr *result) {
  const RxExpr *calls[MAX_LEAVES];
  int idx[MAX_LEAVES];
  int n = leaves(w, result, calls, idx, MAX_LEAVES);
  w->p->nout = n;
  for (int k = 0; k < n; k++) {
    RxPlanTensor *t = calls[k] ? find(w->p, calls[k], idx[k]) : NULL;
    if (t && t->out < 0) t->out = k;
  }
}

bool rx_plan_lifetimes_overlap(const RxPlanTensor *a, const RxPlanTensor *b) {
  return a->def <= b->last && b->def <= a->last;
}

/* Orders of placement the planner tries. */
static int by_size(const void *x, const void *y) {
  const RxPlanTensor *a = *(RxPlanTensor *const *)x, *b = *(RxPlanTensor *const *)y;
  if (a->size != b->size) return a->size > b->size ? -1 : 1;
  return a->def - b->def;
}
static int by_def(const void *x, const void *y) {
  const RxPlanTensor *a = *(RxPlanTensor *const *)x, *b = *(RxPlanTensor *const *)y;
  return a->def != b->def ? a->def - b->def : by_size(x, y);
}
static int by_length(const void *x, const void *y) {
  const RxPlanTensor *a = *(RxPlanTensor *const *)x, *b = *(RxPlanTensor *const *)y;
  int la = a->last - a->def, lb = b->last - b->def;
  return la != lb ? lb - la : by_size(x, y);
}

static int by_offset(const void *x, const void *y) {
  const RxPlanTensor *a = *(RxPlanTensor *const *)x, *b = *(RxPlanTensor *const *)y;
  return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Places the n tensors of order[] in that order, each at the lowest offset
 * clear of the placed tensors whose lifetimes overlap; offsets go to off[]
 * (indexed like order); returns the peak. */
static int64_t place(RxPlanTensor **order, int n, int64_t *off) {
  RxPlanTensor **placed = xcalloc((size_t)(n ? n : 1), sizeof *placed);
  int64_t peak = 0;
  for (int i = 0; i < n; i++) order[i]->offset = -1;
  for (int i = 0; i < n; i++) {
    int np = 0;
    for (int j = 0; j < i; j++)
      if (rx_plan_lifetimes_overlap(order[i], order[j])) placed[np++] = order[j];
    qsort(placed, (size_t)np, sizeof *placed, by_offset);
    int64_t at = 0;
    for (int j = 0; j < np; j++) {
      if (placed[j]->offset >= at + order[i]->size) break; /* the gap before it fits */
      int64_t end = placed[j]->offset + placed[j]->size;
      if (end > at) at = end;
    }
    order[i]->offset = off[i] = at;
    if (at + order[i]->size > peak) peak = at + order[i]->size;
  }
  free(placed);
  return peak;
}

/* Offsets for the static intermediates: the best of three orders. */
static void assign_offsets(RxMemPlan *p) {
  RxPlanTensor **order = xcalloc((size_t)(p->n ? p->n : 1), sizeof *order);
  int64_t *off = xcalloc((size_t)(p->n ? p->n : 1), sizeof *off);
  int64_t *best = xcalloc((size_t)(p->n ? p->n : 1), sizeof *best);
  int n = 0;
  for (int i = 0; i < p->n; i++) {
    RxPlanTensor *t = &p->t[i];
    if (t->out >= 0) continue;
    if (t->size < 0) p->ndynamic++;
    else order[n++] = t, p->unplanned += t->size;
  }
  int (*const cmps[])(const void *, const void *) = {by_size, by_def, by_length};
  int64_t best_peak = -1;
  for (size_t c = 0; c < sizeof cmps / sizeof cmps[0]; c++) {
    qsort(order, (size_t)n, sizeof *order, cmps[c]);
    int64_t peak = place(order, n, off);
    if (best_peak >= 0 && peak >= best_peak) continue;
    best_peak = peak;
    for (int i = 0; i < n; i++) best[order[i] - p->t] = off[i];
  }
  for (int i = 0; i < n; i++) order[i]->offset = best[order[i] - p->t];
  p->peak = best_peak < 0 ? 0 : best_peak;
  for (int at = 0; at <= p->nbindings; at++) {
    int64_t live = 0;
    for (int i = 0; i < n; i++)
      if (order[i]->def <= at && at <= order[i]->last) live += order[i]->size;
    if (live > p->live_max) p->live_max = live;
  }
  free(order);
  free(off);
  free(best);
}

int rx_memory_plan(const RxFunc *f, RxMemPlan *p) {
  memset(p, 0, sizeof *p);
  const RxExpr *body = f ? f->body : NULL;
  if (!body || body->kind != RX_SEQ) return -1;
  Pw w = {p, {0}, 0};
  ir_ptrmap_init(&w.bound);
  int at = 0, rc = 0;
  for (int bi = 0; bi < body->seq.nblocks && !rc; bi++)
    for (int i = 0; i < body->seq.blocks[bi].n && !rc; i++, at++) {
      const RxBinding *bd = &body->seq.blocks[bi].bindings[i];
      if (bd->cast_to || bd->value->kind == RX_IF || bd->value->kind == RX_SEQ) rc = -1;
      if (rc) break;
      use(&w, bd->value, at);
      ir_ptrmap_put(&w.bound, bd->var, bd->value);
      if (is_call_tir(bd->value)) define(&w, bd->var, bd->value, at);
    }
  p->nbindings = at;
  if (!rc) {
    use(&w, body->seq.body, at);
    mark_outputs(&w, body->seq.body);
    assign_offsets(p);
  }
  ir_ptrmap_free(&w.bound);
  if (rc) rx_memory_plan_free(p);
  return rc;
}

void rx_memory_plan_free(RxMemPlan *p) {
  free(p->t);
  memset(p, 0, sizeof *p);
}

void rx_memory_plan_print(StrBuf *sb, const RxMemPlan *p) {
  sb_printf(sb, "%-16s %-20s %12s %12s  %s\n", "tensor", "shape", "bytes", "offset", "live");
  for (int i = 0; i < p->n; i++) {
    const RxPlanTensor *t = &p->t[i];
    StrBuf sh;
    sb_init(&sh);
    if (t->si->shape) rx_shape_str(&sh, t->si->shape, t->si->ndim);
    else sb_puts(&sh, "?");
    char bytes[32], off[48];
    if (t->bytes >= 0) snprintf(bytes, sizeof bytes, "%lld", (long long)t->bytes);
    else snprintf(bytes, sizeof bytes, "symbolic");
    if (t->out >= 0) snprintf(off, sizeof off, "output %d", t->out);
    else if (t->offset >= 0) snprintf(off, sizeof off, "%lld", (long long)t->offset);
    else snprintf(off, sizeof off, "malloc");
    sb_printf(sb, "%-16s %-20s %12s %12s  [%d, %d]\n", t->name, sh.data ? sh.data : "", bytes, off, t->def,
              t->last);
    sb_free(&sh);
  }
  sb_printf(sb, "planned peak %lld bytes (unplanned total %lld bytes)", (long long)p->peak,
            (long long)p->unplanned);
  if (p->ndynamic) sb_printf(sb, "; %d of symbolic size allocated at run time", p->ndynamic);
  sb_printf(sb, "\n");
}
