/* index_map.c - index-map lambdas of the schedule primitives: parsing the
 * lambda text with the .tvs parser, elaborating its results as TIR
 * expressions (lang/elab_tir_expr.c), applying a map to index expressions,
 * its image shape and the inverse of a quasi-affine bijection. */
#include "sched/index_map.h"

#include <stdlib.h>
#include <string.h>

#include "lang/elab_internal.h"
#include "parser/parser.h"

/* ------------------------------------------------------------------ parse */

/* Elaborated nodes point into the lambda's temporary source file; the map
 * outlives it, so every span is cleared (the nodes are all fresh). */
static void clear_spans(TirExpr *e) {
  if (!e) return;
  e->span = span_none;
  switch (e->kind) {
  case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: return;
  case TIR_NOT: case TIR_CAST: clear_spans(e->un.a); return;
  case TIR_SELECT:
    clear_spans(e->sel.cond), clear_spans(e->sel.t), clear_spans(e->sel.f);
    return;
  case TIR_LOAD:
    for (int i = 0; i < e->load.n; i++) clear_spans(e->load.idx[i]);
    return;
  case TIR_RAMP: clear_spans(e->ramp.base), clear_spans(e->ramp.stride); return;
  case TIR_BROADCAST: clear_spans(e->bcast.value); return;
  case TIR_LET: clear_spans(e->let.value), clear_spans(e->let.body); return;
  case TIR_CALL:
    for (int i = 0; i < e->call.n; i++) clear_spans(e->call.args[i]);
    return;
  default: clear_spans(e->bin.a), clear_spans(e->bin.b); return;
  }
}

static bool is_axis_separator(const Ast *e) {
  return e->kind == AST_ATTR && e->name && !strcmp(e->name, "AXIS_SEPARATOR");
}

/* The first error message in d (or a generic one). */
static const char *first_error(const DiagCtx *d) {
  for (int i = 0; i < d->len; i++)
    if (d->items[i].sev == DIAG_ERROR) return d->items[i].msg;
  return "invalid lambda";
}

/* What a lambda's results are: index expressions, or one value. */
typedef struct LambdaKind {
  bool value;        /* a pad value: one result of value_dtype */
  DType value_dtype;
  TirBuffer *buf;    /* loadable by name in a value (may be NULL) */
} LambdaKind;

/* Elaborates the lambda node into out (messages into c->diag). */
static bool elab_lambda(ElabCtx *c, const Ast *lam, DType index_dtype, const LambdaKind *k,
                        SchIndexMap *out) {
  int np = lam->list.len;
  out->nsrc = np;
  out->src = ir_alloc(c->h, (size_t)(np ? np : 1) * sizeof *out->src);
  elab_push_scope(c);
  static const char *const ns[] = {"T", "tvm", "tir"};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
    elab_define(c, ns[i], SYM_NAMESPACE, (void *)(strcmp(ns[i], "tir") ? ns[i] : "T"), span_none);
  if (k->buf) elab_define(c, k->buf->name, SYM_BUFFER, k->buf, span_none);
  elab_push_scope(c);
  for (int i = 0; i < np; i++) {
    const Ast *p = lam->list.items[i];
    if (p->ival != 0 || !p->name || p->b) {
      diag_error(c->diag, p->span, "index map parameters must be plain names");
      return false;
    }
    for (int q = 0; q < i; q++)
      if (!strcmp(out->src[q]->name, p->name)) {
        diag_error(c->diag, p->span, "duplicate parameter '%s'", p->name);
        return false;
      }
    out->src[i] = tir_var(c->h, ir_strdup(c->h, p->name), index_dtype);
    elab_define(c, p->name, SYM_TIR_VAR, out->src[i], span_none);
  }
  const Ast *body = lam->a;
  const Ast *one[1] = {body};
  Ast *const *items = (Ast *const *)one;
  int n = 1;
  if (body->kind == AST_TUPLE || body->kind == AST_LIST) items = body->list.items, n = body->list.len;
  out->dst = ir_alloc(c->h, (size_t)(n ? n : 1) * sizeof *out->dst);
  out->seps = ir_alloc(c->h, (size_t)(n ? n : 1) * sizeof *out->seps);
  out->ndst = out->nseps = 0;
  for (int i = 0; i < n; i++) {
    if (is_axis_separator(items[i])) {
      out->seps[out->nseps++] = out->ndst;
      continue;
    }
    TirExpr *e;
    if (k->value) {
      TirVal v = elab_tir_val(c, items[i]);
      e = v.e && v.lit ? elab_tir_adopt(c, v, k->value_dtype) : v.e;
      if (v.e && v.lit && !e) return false;
    } else {
      e = elab_tir_int_expr(c, items[i], index_dtype, "an index map result");
      if (e && e->dtype.bits != index_dtype.bits) e = elab_tir_int_cast(c->h, e, index_dtype);
    }
    if (!e) return false;
    clear_spans(e);
    out->dst[out->ndst++] = e;
  }
  if (out->nseps == 0) out->seps = NULL;
  return true;
}

void sch_lambda_text_parse(SchLambdaText *lt, const char *name, const char *text) {
  /* Parsed as the right-hand side of an assignment: a lambda is an expression. */
  char *src_text = xasprintf("_ = %s\n", text ? text : "");
  lt->src = src_from_string(name, src_text, strlen(src_text));
  free(src_text);
  diag_init(&lt->diag, NULL);
  lt->file = parse_file(lt->src, &lt->diag);
  lt->lambda = NULL;
  if (lt->diag.nerr == 0 && lt->file->module->body.len == 1) {
    const Ast *st = lt->file->module->body.items[0];
    if (st->kind == AST_ASSIGN && st->a && st->a->kind == AST_LAMBDA) lt->lambda = st->a;
  }
}

void sch_lambda_text_free(SchLambdaText *lt) {
  ast_file_free(lt->file);
  diag_free(&lt->diag);
  src_free(lt->src);
}

static int parse_lambda(Schedule *s, IrHeap *h, const char *text, DType index_dtype,
                        const LambdaKind *k, const char *prim, int argi, SchIndexMap *out) {
  memset(out, 0, sizeof *out);
  if (!text) text = "";
  SchLambdaText lt;
  sch_lambda_text_parse(&lt, "<index_map>", text);
  DiagCtx *d = &lt.diag;
  const Ast *lam = lt.lambda;
  bool ok = false;
  if (lam) {
    ElabCtx c;
    memset(&c, 0, sizeof c);
    c.diag = d;
    c.h = h;
    arena_init(&c.scratch);
    ok = elab_lambda(&c, lam, index_dtype, k, out) && d->nerr == 0;
    arena_free(&c.scratch);
    pv_free(&c.poisoned);
  }
  if (!ok) {
    if (!lam && d->nerr == 0)
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, argi, "%s: the %s '%s' is not a lambda", prim,
               k->value ? "pad_value" : "index map", text);
    else
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, argi, "%s: invalid %s '%s': %s", prim,
               k->value ? "pad_value" : "index map", text, first_error(d));
    memset(out, 0, sizeof *out);
  }
  sch_lambda_text_free(&lt);
  return ok ? 0 : -1;
}

int sch_index_map_parse(Schedule *s, IrHeap *h, const char *text, DType index_dtype,
                        const char *prim, int argi, SchIndexMap *out) {
  LambdaKind k = {false, dt_int32, NULL};
  return parse_lambda(s, h, text, index_dtype, &k, prim, argi, out);
}

int sch_index_map_parse_value(Schedule *s, IrHeap *h, const char *text, DType index_dtype,
                              TirBuffer *buf, DType value_dtype, const char *prim, int argi,
                              SchIndexMap *out) {
  LambdaKind k = {true, value_dtype, buf};
  return parse_lambda(s, h, text, index_dtype, &k, prim, argi, out);
}

/* ------------------------------------------------------------------ apply */

void sch_index_map_apply(IrHeap *h, const SchIndexMap *m, TirExpr *const *indices, TirExpr **out) {
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  for (int i = 0; i < m->nsrc; i++) {
    TirExpr *x = indices[i];
    /* the map's literals have the index dtype; indices of another width are cast */
    if (x->dtype.bits != m->src[i]->dtype.bits) x = tir_cast(h, m->src[i]->dtype, x);
    ir_ptrmap_put(&vmap, m->src[i], x);
  }
  for (int j = 0; j < m->ndst; j++) out[j] = tir_substitute_expr(h, m->dst[j], &vmap);
  ir_ptrmap_free(&vmap);
}

/* ------------------------------------------------------------------ image */

static TirExpr *zero_of(IrHeap *h, const TirExpr *like) { return tir_int(h, like->dtype, 0); }

/* The image extents of m with src var i in [0, ext[i]) (ctx binds them). */
static bool image_in(ArithCtx *ctx, IrHeap *h, const SchIndexMap *m, TirExpr *const *ext,
                     TirExpr **out, const char **why) {
  for (int i = 0; i < m->nsrc; i++) arith_bind_range(ctx, m->src[i], zero_of(h, ext[i]), ext[i]);
  for (int j = 0; j < m->ndst; j++) {
    TirExpr *lo = NULL, *hi = NULL;
    if (!arith_symbolic_bounds(ctx, m->dst[j], &lo, &hi)) {
      *why = "a result of the index map is unbounded";
      return false;
    }
    if (!arith_prove(ctx, tir_binary(h, TIR_GE, lo, zero_of(h, lo)))) {
      *why = "a result of the index map can be negative";
      return false;
    }
    out[j] = arith_simplify(ctx, tir_binary(h, TIR_ADD, hi, tir_int(h, hi->dtype, 1)));
  }
  return true;
}

bool sch_index_map_image(IrHeap *h, const SchIndexMap *m, TirExpr *const *extents,
                         TirExpr **out_shape, const char **why) {
  ArithCtx *ctx = arith_new(h);
  bool ok = image_in(ctx, h, m, extents, out_shape, why);
  arith_free(ctx);
  return ok;
}

/* ---------------------------------------------------------------- inverse */

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a < 0 ? -a : a;
}

/* The lcm of the constant divisors of // and % in e (capped: 0 = too big). */
static int64_t divisor_lcm(const TirExpr *e, int64_t acc) {
  if (!e || acc == 0) return acc;
  switch (e->kind) {
  case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: return acc;
  case TIR_NOT: case TIR_CAST: return divisor_lcm(e->un.a, acc);
  case TIR_SELECT: case TIR_LOAD: case TIR_RAMP: case TIR_BROADCAST: case TIR_LET: case TIR_CALL:
    return acc;
  case TIR_FLOORDIV: case TIR_FLOORMOD: case TIR_DIV: case TIR_MOD: {
    int64_t c;
    if (tir_is_const_int(e->bin.b, &c) && c > 0) {
      acc = acc / gcd64(acc, c) * c;
      if (acc > ((int64_t)1 << 40)) return 0;
    }
  } /* fall through */
  default: return divisor_lcm(e->bin.b, divisor_lcm(e->bin.a, acc));
  }
}

/* Builds inv from the splits of a bijective detection; false when a piece
 * comes from a fused source (not expressible per src var here). */
static bool inverse_from_splits(ArithCtx *ctx, IrHeap *h, const SchIndexMap *m,
                                const ArithIterMap *im, SchIndexMap *inv) {
  TirExpr **acc = ir_alloc(h, (size_t)(m->nsrc ? m->nsrc : 1) * sizeof *acc);
  for (int i = 0; i < m->nsrc; i++) acc[i] = tir_int(h, m->src[i]->dtype, 0);
  for (int j = 0; j < m->ndst; j++) {
    TirExpr *y = tir_var_ref(h, inv->src[j]);
    for (int k = 0; k < im->nsplits[j]; k++) {
      const ArithIterSplit *sp = &im->splits[j][k];
      int i = 0;
      while (i < m->nsrc && m->src[i] != sp->var) i++;
      if (i == m->nsrc) return false;
      /* TVM's canonical digit: y % (scale * extent) // scale; the mod
       * folds away for the outermost piece. */
      TirExpr *piece = y;
      TirExpr *span = tir_is_one(sp->scale) ? sp->extent : tir_binary(h, TIR_MUL, sp->scale, sp->extent);
      piece = tir_binary(h, TIR_FLOORMOD, piece, arith_simplify(ctx, span));
      if (!tir_is_one(sp->scale)) piece = tir_binary(h, TIR_FLOORDIV, piece, sp->scale);
      if (!tir_is_one(sp->lower_factor)) piece = tir_binary(h, TIR_MUL, piece, sp->lower_factor);
      acc[i] = tir_binary(h, TIR_ADD, acc[i], piece);
    }
  }
  for (int i = 0; i < m->nsrc; i++) acc[i] = arith_simplify(ctx, acc[i]);
  /* A unit-extent src passed through as a whole output maps back to that
   * output's var (TVM detects without simplifying trivial iterators). */
  for (int j = 0; j < m->ndst; j++)
    for (int i = 0; i < m->nsrc; i++)
      if (m->dst[j]->kind == TIR_VAR && m->dst[j]->var == m->src[i])
        acc[i] = tir_var_ref(h, inv->src[j]);
  inv->dst = acc;
  inv->ndst = m->nsrc;
  return true;
}

/* e with vars[i] := vals[i], folded to a constant (false if it does not fold). */
static bool eval_at(ArithCtx *ctx, IrHeap *h, const TirExpr *e, TirVar *const *vars, const int64_t *vals,
                    int n, int64_t *out) {
  IrPtrMap vm;
  ir_ptrmap_init(&vm);
  for (int i = 0; i < n; i++) ir_ptrmap_put(&vm, vars[i], tir_int(h, vars[i]->dtype, vals[i]));
  TirExpr *x = arith_simplify(ctx, tir_substitute_expr(h, e, &vm));
  ir_ptrmap_free(&vm);
  return tir_is_const_int(x, out);
}

/* The inverse through row-major linearization, for bijections whose pieces
 * fuse iterators inside a division ((i * 12 + j) // 8, (i * 12 + j) % 8): the
 * linear index of the image (outputs taken in the order perm) as a function
 * of the src vars must be a dense affine form sum(c_i * x_i) (a permuted
 * row-major order of the box; checked on every point of small boxes, on a
 * sample of large ones); then x_i = (linear index of the new vars // c_i) %
 * ext_i. */
static bool linearize_in_order(ArithCtx *ctx, IrHeap *h, const SchIndexMap *m, TirExpr *const *ext,
                               TirExpr *const *shape, const int *perm, SchIndexMap *inv) {
  enum { MAXV = 16 };
  if (m->nsrc == 0 || m->nsrc > MAXV) return false;
  DType t = m->src[0]->dtype;
  int64_t e[MAXV], coef[MAXV], pt[MAXV] = {0}, total = 1;
  for (int i = 0; i < m->nsrc; i++) {
    if (!tir_is_const_int(ext[i], &e[i]) || e[i] <= 0) return false;
    total = total > ((int64_t)1 << 40) / e[i] ? ((int64_t)1 << 40) : total * e[i];
  }
  TirExpr *lx = tir_int(h, t, 0), *ly = tir_int(h, t, 0);
  for (int q = 0; q < m->ndst; q++) {
    int j = perm[q];
    lx = tir_binary(h, TIR_ADD, tir_binary(h, TIR_MUL, lx, shape[j]), m->dst[j]);
    ly = tir_binary(h, TIR_ADD, tir_binary(h, TIR_MUL, ly, shape[j]), tir_var_ref(h, inv->src[j]));
  }
  int64_t base;
  if (!eval_at(ctx, h, lx, m->src, pt, m->nsrc, &base) || base != 0) return false;
  for (int i = 0; i < m->nsrc; i++) {
    pt[i] = e[i] > 1 ? 1 : 0;
    if (!eval_at(ctx, h, lx, m->src, pt, m->nsrc, &coef[i])) return false;
    pt[i] = 0;
  }
  /* dense: sorted by coefficient, each is the previous one times its extent */
  int order[MAXV];
  for (int i = 0; i < m->nsrc; i++) order[i] = i;
  for (int i = 1; i < m->nsrc; i++)
    for (int k = i; k > 0 && coef[order[k]] < coef[order[k - 1]]; k--) {
      int x = order[k];
      order[k] = order[k - 1], order[k - 1] = x;
    }
  int64_t expect = 1;
  for (int k = 0; k < m->nsrc; k++) {
    if (e[order[k]] == 1) continue;
    if (coef[order[k]] != expect) return false;
    expect *= e[order[k]];
  }
  /* the form holds on every point (small boxes) or on a deterministic sample */
  uint64_t seed = 0x9e3779b97f4a7c15u;
  int64_t npts = total <= 4096 ? total : 512;
  for (int64_t p = 0; p < npts; p++) {
    int64_t rem = p, want = 0, got;
    for (int i = m->nsrc - 1; i >= 0; i--) {
      if (total <= 4096) {
        pt[i] = rem % e[i];
        rem /= e[i];
      } else {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        pt[i] = (int64_t)((seed >> 33) % (uint64_t)e[i]);
      }
      want += coef[i] * pt[i];
    }
    if (!eval_at(ctx, h, lx, m->src, pt, m->nsrc, &got) || got != want) return false;
  }
  ly = arith_simplify(ctx, ly);
  TirExpr **dst = ir_alloc(h, (size_t)m->nsrc * sizeof *dst);
  for (int i = 0; i < m->nsrc; i++) {
    if (e[i] == 1) {
      dst[i] = tir_int(h, t, 0);
      continue;
    }
    TirExpr *x = ly;
    if (coef[i] != 1) x = tir_binary(h, TIR_FLOORDIV, x, tir_int(h, t, coef[i]));
    if (coef[i] * e[i] != expect) x = tir_binary(h, TIR_FLOORMOD, x, ext[i]);
    dst[i] = arith_simplify(ctx, x);
  }
  inv->dst = dst;
  inv->ndst = m->nsrc;
  return true;
}

/* Tries the outputs' orders (all of them for up to 5 outputs): the linear
 * index must follow the order in which the map's pieces nest, e.g.
 * (f % 9, f // 9) linearizes as f // 9 * 9 + f % 9. */
static bool inverse_by_linearization(ArithCtx *ctx, IrHeap *h, const SchIndexMap *m,
                                     TirExpr *const *ext, TirExpr *const *shape, SchIndexMap *inv) {
  int n = m->ndst, perm[16];
  if (n > 16) return false;
  for (int i = 0; i < n; i++) perm[i] = i;
  if (linearize_in_order(ctx, h, m, ext, shape, perm, inv)) return true;
  if (n > 5) return false;
  /* next permutations in lexicographic order */
  for (;;) {
    int i = n - 2;
    while (i >= 0 && perm[i] > perm[i + 1]) i--;
    if (i < 0) return false;
    int j = n - 1;
    while (perm[j] < perm[i]) j--;
    int t = perm[i];
    perm[i] = perm[j], perm[j] = t;
    for (int a = i + 1, b = n - 1; a < b; a++, b--) t = perm[a], perm[a] = perm[b], perm[b] = t;
    if (linearize_in_order(ctx, h, m, ext, shape, perm, inv)) return true;
  }
}

/* Detects m as a bijection from the box ext onto its image and inverts it;
 * shape receives the image. */
static bool try_inverse(IrHeap *h, const SchIndexMap *m, TirExpr *const *ext, TirExpr **shape,
                        SchIndexMap *inv, const char **why) {
  ArithCtx *ctx = arith_new(h);
  bool ok = image_in(ctx, h, m, ext, shape, why);
  if (ok) {
    TirRange *doms = ir_alloc(h, (size_t)(m->ndst ? m->ndst : 1) * sizeof *doms);
    for (int j = 0; j < m->ndst; j++) doms[j] = (TirRange){zero_of(h, shape[j]), shape[j]};
    ArithIterMap im = arith_detect_iter_map(ctx, m->dst, doms, m->ndst,
                                            (const TirVar *const *)m->src, m->nsrc,
                                            ARITH_ITER_BIJECTIVE);
    ok = im.ok;
    if (!ok) *why = im.error ? im.error : "the index map is not bijective affine";
    if (ok) {
      for (int j = 0; j < m->ndst; j++)
        arith_bind_range(ctx, inv->src[j], zero_of(h, shape[j]), shape[j]);
      ok = inverse_from_splits(ctx, h, m, &im, inv) ||
           inverse_by_linearization(ctx, h, m, ext, shape, inv);
      if (!ok) *why = "the index map fuses iterators inside a division";
    }
    arith_iter_map_free(&im);
  }
  arith_free(ctx);
  return ok;
}

bool sch_index_map_inverse(IrHeap *h, const SchIndexMap *m, TirExpr *const *extents,
                           const char *prefix, SchIndexMap *inv, TirExpr **padding,
                           const char **why) {
  memset(inv, 0, sizeof *inv);
  if (padding) *padding = NULL;
  inv->nsrc = m->ndst;
  inv->src = ir_alloc(h, (size_t)(m->ndst ? m->ndst : 1) * sizeof *inv->src);
  DType t = m->nsrc ? m->src[0]->dtype : dt_int32;
  for (int j = 0; j < m->ndst; j++) {
    char name[64];
    snprintf(name, sizeof name, "%.40s%d", prefix ? prefix : "v", j);
    inv->src[j] = tir_var(h, ir_strdup(h, name), m->ndst && m->dst[j] ? m->dst[j]->dtype : t);
  }
  TirExpr **shape = ir_alloc(h, (size_t)(m->ndst ? m->ndst : 1) * sizeof *shape);
  if (!sch_index_map_image(h, m, extents, shape, why)) return false;
  if (try_inverse(h, m, extents, shape, inv, why)) return true;
  /* Not onto its image: retry on the box padded up to the split factors
   * (i // 4, i % 4 over i < 30 is a bijection from i < 32). */
  if (!padding) return false;
  int64_t l = 1;
  for (int j = 0; j < m->ndst; j++) l = divisor_lcm(m->dst[j], l);
  if (l <= 1) return false;
  TirExpr **padded = ir_alloc(h, (size_t)(m->nsrc ? m->nsrc : 1) * sizeof *padded);
  bool changed = false;
  ArithCtx *pc = arith_new(h);
  for (int i = 0; i < m->nsrc; i++) {
    int64_t e;
    DType et = extents[i]->dtype;
    padded[i] = extents[i];
    if (tir_is_const_int(extents[i], &e)) {
      if (e % l != 0) {
        padded[i] = tir_int(h, et, (e + l - 1) / l * l);
        changed = true;
      }
    } else { /* symbolic n: ((n + l - 1) // l) * l */
      TirExpr *up = tir_binary(h, TIR_ADD, extents[i], tir_int(h, et, l - 1));
      up = tir_binary(h, TIR_MUL, tir_binary(h, TIR_FLOORDIV, up, tir_int(h, et, l)), tir_int(h, et, l));
      padded[i] = arith_simplify(pc, up);
      changed = true;
    }
  }
  arith_free(pc);
  if (!changed) return false;
  TirExpr **pshape = ir_alloc(h, (size_t)(m->ndst ? m->ndst : 1) * sizeof *pshape);
  const char *why2 = NULL;
  if (!try_inverse(h, m, padded, pshape, inv, &why2)) return false;
  ArithCtx *ctx = arith_new(h);
  bool same = true;
  for (int j = 0; j < m->ndst && same; j++) same = arith_can_prove_equal(ctx, shape[j], pshape[j]);
  if (!same) {
    arith_free(ctx);
    inv->dst = NULL, inv->ndst = 0;
    return false;
  }
  for (int j = 0; j < m->ndst; j++)
    arith_bind_range(ctx, inv->src[j], zero_of(h, shape[j]), shape[j]);
  TirExpr *cond = NULL;
  for (int i = 0; i < m->nsrc; i++) {
    if (padded[i] == extents[i]) continue;
    TirExpr *c = tir_binary(h, TIR_GE, inv->dst[i], extents[i]);
    cond = cond ? tir_binary(h, TIR_OR, cond, c) : c;
  }
  *padding = cond ? arith_simplify(ctx, cond) : NULL;
  arith_free(ctx);
  return true;
}
