/* api_schedule_typed.c - tvs/schedule.h: the typed schedule calls, each one
 * of sched/'s primitive functions on decoded handles.  The primitives record
 * their own trace instructions, so a typed call and the script statement of
 * the same name leave the same trace; errors are rendered from the
 * schedule's DiagCtx as the statement path renders them. */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "ir/attrs.h"

/* Starts a typed call: clears the message and the diagnostics; NULL (with
 * the message set) when s is NULL. */
static Schedule *begin(TvsSchedule *s, const char *prim) {
  api_clear_error();
  if (!s) {
    api_fail(TVS_ERR_ARGUMENT, "tvs_sched_%s: NULL schedule", prim);
    return NULL;
  }
  diag_clear(&s->diag);
  Schedule *sc = api_cur(s);
  sch_set_call_spans(sc, span_none, NULL, 0); /* no text to point into */
  return sc;
}

/* Ends it: rc < 0 or an error reported is TVS_ERR_SCHEDULE with the message. */
static int done(TvsSchedule *s, int rc, const char *prim) {
  if (rc >= 0 && s->diag.nerr == 0) return TVS_OK;
  return api_fail_diag(TVS_ERR_SCHEDULE, &s->diag, prim);
}

/* done() for a primitive that makes one handle: *id is set on success only. */
static int done_rv(TvsSchedule *s, SchRV rv, int64_t *id, const char *prim) {
  if (rv >= 0 && !s->diag.nerr) *id = api_rv_id(s, rv);
  return done(s, rv, prim);
}

/* Decodes n handles (ids[i * stride]) into a malloc'd array; NULL after
 * setting the message. */
static SchRV *decode_all(TvsSchedule *s, const int64_t *ids, size_t stride, int n, const char *prim,
                         const char *param) {
  SchRV *r = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *r);
  for (int i = 0; i < n; i++)
    if ((r[i] = api_rv_of(s, ids[(size_t)i * stride], prim, param)) < 0) return free(r), NULL;
  return r;
}
#define IDS(arr) (&(arr)[0].id), (sizeof (arr)[0] / sizeof(int64_t))

/* Wraps a getter's result (rvs malloc'd, count n or -1) as typed handles. */
static int list_out(TvsSchedule *s, SchRV *rvs, int n, const char *prim, int64_t **out, int *nout) {
  if (n < 0 || s->diag.nerr) return done(s, -1, prim);
  int64_t *res = xmalloc((size_t)(n ? n : 1) * sizeof *res);
  for (int i = 0; i < n; i++) res[i] = api_rv_id(s, rvs[i]);
  free(rvs);
  *out = res;
  *nout = n;
  return TVS_OK;
}

/* Out-parameters of the struct handle types hold one int64_t: the getters
 * fill arrays of them through this view. */
#define LIST_OUT(s, rvs, n, prim, out, nout) list_out(s, rvs, n, prim, (int64_t **)(void *)(out), nout)

/* ------------------------------------------------------------- getters */

int tvs_sched_get_block(TvsSchedule *s, const char *name, const char *func_name, TvsBlockRV *out) {
  Schedule *sc = begin(s, "get_block");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!name || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_get_block: NULL argument");
  SchRV rv = sch_get_block(sc, name, func_name);
  if (rv < 0 || s->diag.nerr) return done(s, -1, "get_block");
  out->id = api_rv_id(s, rv);
  return TVS_OK;
}

/* The four list getters differ only in the sched/ function and parameter. */
static int get_list(TvsSchedule *s, int64_t id, const char *prim, const char *param,
                    int (*get)(Schedule *, SchRV, SchRV **), void *out, int *n) {
  Schedule *sc = begin(s, prim);
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!out || !n) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_%s: NULL argument", prim);
  SchRV rv = api_rv_of(s, id, prim, param);
  if (rv < 0) return TVS_ERR_ARGUMENT;
  SchRV *rvs = NULL;
  int cnt = get(sc, rv, &rvs);
  return LIST_OUT(s, rvs, cnt, prim, out, n);
}

int tvs_sched_get_loops(TvsSchedule *s, TvsBlockRV block, TvsLoopRV **out, int *n) {
  return get_list(s, block.id, "get_loops", "block", sch_get_loops, out, n);
}
int tvs_sched_get_child_blocks(TvsSchedule *s, TvsRV block_or_loop, TvsBlockRV **out, int *n) {
  return get_list(s, block_or_loop.id, "get_child_blocks", "block_or_loop", sch_get_child_blocks, out, n);
}
int tvs_sched_get_producers(TvsSchedule *s, TvsBlockRV block, TvsBlockRV **out, int *n) {
  return get_list(s, block.id, "get_producers", "block", sch_get_producers, out, n);
}
int tvs_sched_get_consumers(TvsSchedule *s, TvsBlockRV block, TvsBlockRV **out, int *n) {
  return get_list(s, block.id, "get_consumers", "block", sch_get_consumers, out, n);
}

/* ---------------------------------------------------------------- loops */

/* split and split_exprs: factors are numbers (exprs NULL) or ExprRVs. */
static int split(TvsSchedule *s, TvsLoopRV loop, const int64_t *factors, const TvsExprRV *exprs, int n,
                 int preserve_unit_iters, int disable_predication, TvsLoopRV *out) {
  Schedule *sc = begin(s, "split");
  if (!sc) return TVS_ERR_ARGUMENT;
  if ((!factors && !exprs) || !out || n < 1)
    return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_split: NULL argument or no factors");
  SchRV l = api_rv_of(s, loop.id, "split", "loop");
  if (l < 0) return TVS_ERR_ARGUMENT;
  SchRV *o = xmalloc((size_t)n * sizeof *o), *f = NULL;
  int rc;
  if (exprs) {
    f = xmalloc((size_t)n * sizeof *f);
    for (int i = 0; i < n && f; i++) {
      f[i] = exprs[i].id ? api_rv_of(s, exprs[i].id, "split", "factors") : -1;
      if (exprs[i].id && (f[i] < 0 || sch_rv_kind(sc, f[i]) != SCH_RV_EXPR)) {
        if (f[i] >= 0) api_fail(TVS_ERR_ARGUMENT, "split: factor %d is not an ExprRV", i);
        free(f), free(o);
        return TVS_ERR_ARGUMENT;
      }
    }
    rc = sch_split_exprs(sc, l, f, n, preserve_unit_iters != 0, disable_predication != 0, o);
  } else {
    /* -1 and 0 both mean None; 0 is how the statement path passes None, and
     * the trace prints it so. */
    int64_t *fv = xmalloc((size_t)n * sizeof *fv);
    for (int i = 0; i < n; i++) fv[i] = factors[i] == -1 ? 0 : factors[i];
    rc = sch_split(sc, l, fv, n, preserve_unit_iters != 0, disable_predication != 0, o);
    free(fv);
  }
  free(f);
  if (rc == 0 && !s->diag.nerr)
    for (int i = 0; i < n; i++) out[i].id = api_rv_id(s, o[i]);
  free(o);
  return done(s, rc, "split");
}

int tvs_sched_split(TvsSchedule *s, TvsLoopRV loop, const int64_t *factors, int n, int preserve_unit_iters,
                    int disable_predication, TvsLoopRV *out) {
  return split(s, loop, factors, NULL, n, preserve_unit_iters, disable_predication, out);
}

int tvs_sched_split_exprs(TvsSchedule *s, TvsLoopRV loop, const TvsExprRV *factors, int n,
                          int preserve_unit_iters, int disable_predication, TvsLoopRV *out) {
  if (!factors) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_split_exprs: NULL argument");
  return split(s, loop, NULL, factors, n, preserve_unit_iters, disable_predication, out);
}

int tvs_sched_fuse(TvsSchedule *s, const TvsLoopRV *loops, int n, int preserve_unit_iters, TvsLoopRV *out) {
  Schedule *sc = begin(s, "fuse");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!loops || !out || n < 1) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_fuse: NULL argument or no loops");
  SchRV *l = decode_all(s, IDS(loops), n, "fuse", "loops");
  if (!l) return TVS_ERR_ARGUMENT;
  SchRV rv = sch_fuse(sc, l, n, preserve_unit_iters != 0);
  free(l);
  return done_rv(s, rv, &out->id, "fuse");
}

int tvs_sched_reorder(TvsSchedule *s, const TvsLoopRV *loops, int n) {
  Schedule *sc = begin(s, "reorder");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!loops || n < 1) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_reorder: NULL argument or no loops");
  SchRV *l = decode_all(s, IDS(loops), n, "reorder", "ordered_loops");
  if (!l) return TVS_ERR_ARGUMENT;
  int rc = sch_reorder(sc, l, n);
  free(l);
  return done(s, rc, "reorder");
}

/* parallel, vectorize, unroll. */
static int loop_kind(TvsSchedule *s, TvsLoopRV loop, const char *prim, int (*fn)(Schedule *, SchRV)) {
  Schedule *sc = begin(s, prim);
  if (!sc) return TVS_ERR_ARGUMENT;
  SchRV l = api_rv_of(s, loop.id, prim, "loop");
  if (l < 0) return TVS_ERR_ARGUMENT;
  return done(s, fn(sc, l), prim);
}

int tvs_sched_parallel(TvsSchedule *s, TvsLoopRV loop) { return loop_kind(s, loop, "parallel", sch_parallel); }
int tvs_sched_vectorize(TvsSchedule *s, TvsLoopRV loop) { return loop_kind(s, loop, "vectorize", sch_vectorize); }
int tvs_sched_unroll(TvsSchedule *s, TvsLoopRV loop) { return loop_kind(s, loop, "unroll", sch_unroll); }

int tvs_sched_bind(TvsSchedule *s, TvsLoopRV loop, const char *thread_axis) {
  Schedule *sc = begin(s, "bind");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!thread_axis) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_bind: NULL thread_axis");
  SchRV l = api_rv_of(s, loop.id, "bind", "loop");
  if (l < 0) return TVS_ERR_ARGUMENT;
  return done(s, sch_bind(sc, l, thread_axis), "bind");
}

/* ---------------------------------------------------------- annotations */

/* annotate with the value make(h, ...) builds (int, float or string). */
typedef struct AnnVal {
  int kind; /* 0 int, 1 float, 2 string */
  int64_t i;
  double f;
  const char *str;
} AnnVal;

static int annotate(TvsSchedule *s, TvsRV target, const char *key, AnnVal v) {
  Schedule *sc = begin(s, "annotate");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!key || (v.kind == 2 && !v.str)) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_annotate: NULL argument");
  SchRV rv = api_rv_of(s, target.id, "annotate", "block_or_loop");
  if (rv < 0) return TVS_ERR_ARGUMENT;
  IrHeap *h = ir_heap_new();
  IrValue *val = v.kind == 0 ? irv_int(h, v.i) : v.kind == 1 ? irv_float(h, v.f) : irv_str(h, v.str);
  int rc = sch_annotate(sc, rv, key, val);
  ir_heap_release(h);
  return done(s, rc, "annotate");
}

int tvs_sched_annotate_int(TvsSchedule *s, TvsRV block_or_loop, const char *key, int64_t value) {
  return annotate(s, block_or_loop, key, (AnnVal){0, value, 0, NULL});
}
int tvs_sched_annotate_float(TvsSchedule *s, TvsRV block_or_loop, const char *key, double value) {
  return annotate(s, block_or_loop, key, (AnnVal){1, 0, value, NULL});
}
int tvs_sched_annotate_string(TvsSchedule *s, TvsRV block_or_loop, const char *key, const char *value) {
  return annotate(s, block_or_loop, key, (AnnVal){2, 0, 0, value});
}

int tvs_sched_unannotate(TvsSchedule *s, TvsRV block_or_loop, const char *key) {
  Schedule *sc = begin(s, "unannotate");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!key) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_unannotate: NULL key");
  SchRV rv = api_rv_of(s, block_or_loop.id, "unannotate", "block_or_loop");
  if (rv < 0) return TVS_ERR_ARGUMENT;
  return done(s, sch_unannotate(sc, rv, key), "unannotate");
}

/* ----------------------------------------------------- compute location */

typedef int (*AtFn)(Schedule *, SchRV, SchRV, bool, int);

static int at(TvsSchedule *s, const char *prim, AtFn fn, TvsBlockRV block, TvsLoopRV loop, int preserve,
              int index) {
  Schedule *sc = begin(s, prim);
  if (!sc) return TVS_ERR_ARGUMENT;
  SchRV b = api_rv_of(s, block.id, prim, "block"), l = b < 0 ? -1 : api_rv_of(s, loop.id, prim, "loop");
  if (b < 0 || l < 0) return TVS_ERR_ARGUMENT;
  return done(s, fn(sc, b, l, preserve != 0, index), prim);
}

int tvs_sched_compute_at(TvsSchedule *s, TvsBlockRV block, TvsLoopRV loop, int preserve_unit_loops, int index) {
  return at(s, "compute_at", sch_compute_at, block, loop, preserve_unit_loops, index);
}
int tvs_sched_reverse_compute_at(TvsSchedule *s, TvsBlockRV block, TvsLoopRV loop, int preserve_unit_loops,
                                 int index) {
  return at(s, "reverse_compute_at", sch_reverse_compute_at, block, loop, preserve_unit_loops, index);
}

static int on_block(TvsSchedule *s, TvsBlockRV block, const char *prim, int (*fn)(Schedule *, SchRV)) {
  Schedule *sc = begin(s, prim);
  if (!sc) return TVS_ERR_ARGUMENT;
  SchRV b = api_rv_of(s, block.id, prim, "block");
  if (b < 0) return TVS_ERR_ARGUMENT;
  return done(s, fn(sc, b), prim);
}

int tvs_sched_compute_inline(TvsSchedule *s, TvsBlockRV block) {
  return on_block(s, block, "compute_inline", sch_compute_inline);
}
int tvs_sched_reverse_compute_inline(TvsSchedule *s, TvsBlockRV block) {
  return on_block(s, block, "reverse_compute_inline", sch_reverse_compute_inline);
}

/* ------------------------------------------------- caches and buffers */

typedef SchRV (*CacheFn)(Schedule *, SchRV, int, const char *, const SchRV *, int);

static int cache(TvsSchedule *s, const char *prim, CacheFn fn, TvsBlockRV block, int index, const char *scope,
                 const TvsBlockRV *consumers, int n, TvsBlockRV *out) {
  Schedule *sc = begin(s, prim);
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!scope || !out || n < 0 || (n && !consumers))
    return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_%s: NULL argument", prim);
  SchRV b = api_rv_of(s, block.id, prim, "block");
  if (b < 0) return TVS_ERR_ARGUMENT;
  SchRV *c = n ? decode_all(s, IDS(consumers), n, prim, "consumer_blocks") : NULL;
  if (n && !c) return TVS_ERR_ARGUMENT;
  SchRV rv = fn(sc, b, index, scope, c, n);
  free(c);
  return done_rv(s, rv, &out->id, prim);
}

int tvs_sched_cache_read(TvsSchedule *s, TvsBlockRV block, int read_buffer_index, const char *storage_scope,
                         const TvsBlockRV *consumer_blocks, int n, TvsBlockRV *out) {
  return cache(s, "cache_read", sch_cache_read_for_consumers, block, read_buffer_index, storage_scope,
               consumer_blocks, n, out);
}
int tvs_sched_cache_write(TvsSchedule *s, TvsBlockRV block, int write_buffer_index, const char *storage_scope,
                          const TvsBlockRV *consumer_blocks, int n, TvsBlockRV *out) {
  return cache(s, "cache_write", sch_cache_write_for_consumers, block, write_buffer_index, storage_scope,
               consumer_blocks, n, out);
}

int tvs_sched_set_scope(TvsSchedule *s, TvsBlockRV block, int buffer_index, const char *storage_scope) {
  Schedule *sc = begin(s, "set_scope");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!storage_scope) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_set_scope: NULL storage_scope");
  SchRV b = api_rv_of(s, block.id, "set_scope", "block");
  if (b < 0) return TVS_ERR_ARGUMENT;
  return done(s, sch_set_scope(sc, b, buffer_index, storage_scope), "set_scope");
}

int tvs_sched_storage_align(TvsSchedule *s, TvsBlockRV block, int buffer_index, int axis, int factor,
                            int offset) {
  Schedule *sc = begin(s, "storage_align");
  if (!sc) return TVS_ERR_ARGUMENT;
  SchRV b = api_rv_of(s, block.id, "storage_align", "block");
  if (b < 0) return TVS_ERR_ARGUMENT;
  return done(s, sch_storage_align(sc, b, buffer_index, axis, factor, offset), "storage_align");
}

/* ------------------------------------------------------------ reductions */

int tvs_sched_rfactor(TvsSchedule *s, TvsLoopRV loop, int factor_axis, TvsBlockRV *out) {
  Schedule *sc = begin(s, "rfactor");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!out) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_rfactor: NULL argument");
  SchRV l = api_rv_of(s, loop.id, "rfactor", "loop");
  if (l < 0) return TVS_ERR_ARGUMENT;
  SchRV rv = sch_rfactor(sc, l, factor_axis);
  return done_rv(s, rv, &out->id, "rfactor");
}

int tvs_sched_decompose_reduction(TvsSchedule *s, TvsBlockRV block, TvsLoopRV loop, TvsBlockRV *out) {
  Schedule *sc = begin(s, "decompose_reduction");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!out) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_decompose_reduction: NULL argument");
  SchRV b = api_rv_of(s, block.id, "decompose_reduction", "block");
  SchRV l = b < 0 ? -1 : api_rv_of(s, loop.id, "decompose_reduction", "loop");
  if (b < 0 || l < 0) return TVS_ERR_ARGUMENT;
  SchRV rv = sch_decompose_reduction(sc, b, l);
  return done_rv(s, rv, &out->id, "decompose_reduction");
}

/* ------------------------------------------------ blockize and tensorize */

int tvs_sched_blockize(TvsSchedule *s, TvsLoopRV loop, int preserve_unit_iters, TvsBlockRV *out) {
  Schedule *sc = begin(s, "blockize");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!out) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_blockize: NULL argument");
  SchRV l = api_rv_of(s, loop.id, "blockize", "target");
  if (l < 0) return TVS_ERR_ARGUMENT;
  SchRV rv = sch_blockize(sc, l, preserve_unit_iters != 0);
  return done_rv(s, rv, &out->id, "blockize");
}

int tvs_sched_blockize_blocks(TvsSchedule *s, const TvsBlockRV *blocks, int n, int preserve_unit_iters,
                              TvsBlockRV *out) {
  Schedule *sc = begin(s, "blockize");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!blocks || !out || n < 1) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_blockize_blocks: NULL argument or no blocks");
  SchRV *b = decode_all(s, IDS(blocks), n, "blockize", "target");
  if (!b) return TVS_ERR_ARGUMENT;
  SchRV rv = sch_blockize_blocks(sc, b, n, preserve_unit_iters != 0);
  free(b);
  return done_rv(s, rv, &out->id, "blockize");
}

int tvs_sched_tensorize(TvsSchedule *s, TvsRV block_or_loop, const char *intrin_name, int preserve_unit_iters) {
  Schedule *sc = begin(s, "tensorize");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (!intrin_name) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_tensorize: NULL intrin_name");
  SchRV t = api_rv_of(s, block_or_loop.id, "tensorize", "block_or_loop");
  if (t < 0) return TVS_ERR_ARGUMENT;
  return done(s, sch_tensorize(sc, t, intrin_name, preserve_unit_iters != 0), "tensorize");
}

/* ------------------------------------------------------------- sampling */

int tvs_sched_sample_perfect_tile(TvsSchedule *s, TvsLoopRV loop, int n, int max_innermost_factor,
                                  const int64_t *decision, TvsExprRV *rvs, int64_t *factors) {
  Schedule *sc = begin(s, "sample_perfect_tile");
  if (!sc) return TVS_ERR_ARGUMENT;
  if (n < 1) return api_fail(TVS_ERR_ARGUMENT, "sample_perfect_tile: n must be at least 1, got %d", n);
  SchRV l = api_rv_of(s, loop.id, "sample_perfect_tile", "loop");
  if (l < 0) return TVS_ERR_ARGUMENT;
  SchRV *o = xmalloc((size_t)n * sizeof *o);
  int rc = sch_sample_perfect_tile(sc, l, n, max_innermost_factor, decision, o);
  if (rc == 0 && !s->diag.nerr)
    for (int i = 0; i < n; i++) {
      if (rvs) rvs[i].id = api_rv_id(s, o[i]);
      if (factors) factors[i] = sch_expr_value(sc, o[i]);
    }
  free(o);
  return done(s, rc, "sample_perfect_tile");
}
