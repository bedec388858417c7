/* features.c - the cost model's features of a candidate, from its loop nest
 * lowered to flat buffers (the stage before vectorize/unroll expand loops),
 * in the spirit of MetaSchedule's per-store features: for every buffer store
 * the arithmetic it does by kind, the loop kinds around it (parallel,
 * vectorized, unrolled extents), how each access moves with the innermost
 * loop (stride 0 = reuse, 1 = contiguous, larger = strided; strided under
 * a vectorized loop, its lanes gather), the stride of
 * the innermost loop that moves it (TVM's "stride"), and the bytes touched
 * under the innermost 1..5 loops (a cache-footprint proxy).  Unit loops
 * (extent 1, which split with preserve_unit_iters leaves) are not counted:
 * they run once, and seen as "the innermost loop" they would hide the loop
 * that really moves the accesses.  The
 * heaviest store's vector (most executions) plus totals is the candidate's
 * row, with the number of outermost loop nests (stages fused under one
 * loop, as compute_at leaves them, or each in its own nest: the heaviest
 * store alone cannot tell the two apart), and for an update the accumulator
 * chains in flight; counts are log2(1 + x) as TVM scales them. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "autotune/tune.h"
#include "ir/structural_equal.h"
#include "ir/transform.h"
#include "ir/visit.h"

#define MAX_DEPTH 24
#define MAX_ACC 8
#define UNKNOWN INT64_MIN

enum {
  F_FADD, F_FMUL, F_FDIV, F_FMINMAX, F_CALL, F_IARITH, F_CMP,
  F_PAR, F_VEC, F_UNROLL, F_NLOOPS, F_INNER,
  F_S0, F_S1, F_SN, F_MAXSTRIDE, F_MOVE_STRIDE,
  F_FOOT, /* 5 levels */
  F_REUSE = F_FOOT + 5, /* 5 levels */
  F_ALLOC = F_REUSE + 5, F_NALLOC, F_EXEC, F_OUTER_SERIAL, F_NSTORES, F_TOTAL_EXEC, F_NLOADS, F_LOCAL, F_NROOTS,
  F_CHAINS, F_GATHER,
  F_COUNT
};

typedef struct Loop {
  const TirVar *var;
  int64_t extent;
  TirForKind kind;
} Loop;

typedef struct Walk {
  Loop loops[MAX_DEPTH];
  int depth;
  float best[TUNE_NFEATURES];
  double best_exec, total_exec, alloc_bytes;
  int nstores, nallocs, nroots;
} Walk;

static float lg(double x) { return (float)log2(1.0 + (x > 0 ? x : 0)); }

/* The coefficient of var in an affine index, UNKNOWN when not affine. */
static int64_t coef(const TirExpr *e, const TirVar *var) {
  switch (e->kind) {
    case TIR_INT: return 0;
    case TIR_VAR: return e->var == var;
    case TIR_CAST: return coef(e->un.a, var);
    case TIR_ADD:
    case TIR_SUB: {
      int64_t a = coef(e->bin.a, var), b = coef(e->bin.b, var);
      if (a == UNKNOWN || b == UNKNOWN) return UNKNOWN;
      return e->kind == TIR_ADD ? a + b : a - b;
    }
    case TIR_MUL:
      if (e->bin.b->kind == TIR_INT) {
        int64_t a = coef(e->bin.a, var);
        return a == UNKNOWN ? a : a * e->bin.b->ival;
      }
      if (e->bin.a->kind == TIR_INT) {
        int64_t b = coef(e->bin.b, var);
        return b == UNKNOWN ? b : b * e->bin.a->ival;
      }
      return tir_expr_uses_var(e, var) ? UNKNOWN : 0;
    default: return tir_expr_uses_var(e, var) ? UNKNOWN : 0;
  }
}

/* Arithmetic of an expression by kind (loads' indices included). */
static void count_ops(const TirExpr *e, float *f, const TirExpr **acc, int *nacc) {
  bool fl = dt_is_float(e->dtype);
  switch (e->kind) {
    case TIR_ADD: case TIR_SUB: f[fl ? F_FADD : F_IARITH] += 1; break;
    case TIR_MUL: f[fl ? F_FMUL : F_IARITH] += 1; break;
    case TIR_DIV: case TIR_MOD: case TIR_FLOORDIV: case TIR_FLOORMOD: f[fl ? F_FDIV : F_IARITH] += 1; break;
    case TIR_MIN: case TIR_MAX: f[fl ? F_FMINMAX : F_IARITH] += 1; break;
    case TIR_EQ: case TIR_NE: case TIR_LT: case TIR_LE: case TIR_GT: case TIR_GE: case TIR_SELECT:
      f[F_CMP] += 1;
      break;
    case TIR_CALL: f[F_CALL] += 1; break;
    case TIR_LOAD:
      if (*nacc < MAX_ACC) acc[(*nacc)++] = e;
      break;
    default: break;
  }
  switch (e->kind) {
    case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: return;
    case TIR_NOT: case TIR_CAST: count_ops(e->un.a, f, acc, nacc); return;
    case TIR_SELECT:
      count_ops(e->sel.cond, f, acc, nacc);
      count_ops(e->sel.t, f, acc, nacc);
      count_ops(e->sel.f, f, acc, nacc);
      return;
    case TIR_LOAD:
      for (int i = 0; i < e->load.n; i++) count_ops(e->load.idx[i], f, acc, nacc);
      return;
    case TIR_CALL:
      for (int i = 0; i < e->call.n; i++) count_ops(e->call.args[i], f, acc, nacc);
      return;
    case TIR_RAMP: count_ops(e->ramp.base, f, acc, nacc); return;
    case TIR_BROADCAST: count_ops(e->bcast.value, f, acc, nacc); return;
    case TIR_LET:
      count_ops(e->let.value, f, acc, nacc);
      count_ops(e->let.body, f, acc, nacc);
      return;
    default:
      count_ops(e->bin.a, f, acc, nacc);
      count_ops(e->bin.b, f, acc, nacc);
      return;
  }
}

/* Strides and footprints of one access (its flat index idx, element size). */
static void access_features(const Walk *w, const TirExpr *idx, size_t bytes, float *f) {
  if (w->depth > 0) {
    int64_t c = coef(idx, w->loops[w->depth - 1].var);
    if (c == 0) f[F_S0] += 1;
    else if (c == 1 || c == -1) f[F_S1] += 1;
    else f[F_SN] += 1;
    double s = c == UNKNOWN ? 1e6 : fabs((double)c);
    if (lg(s) > f[F_MAXSTRIDE]) f[F_MAXSTRIDE] = lg(s);
    /* lanes of a vector loop that each load or store their own distant
     * element: a gather (or scatter) where other vector loops load one
     * contiguous vector */
    if (c != 0 && c != 1 && c != -1 && w->loops[w->depth - 1].kind == TIR_FOR_VECTORIZED)
      f[F_GATHER] += (float)w->loops[w->depth - 1].extent;
  }
  for (int k = w->depth - 1; k >= 0; k--) {
    int64_t c = coef(idx, w->loops[k].var);
    if (c == 0) continue;
    double s = c == UNKNOWN ? 1e6 : fabs((double)c);
    if (lg(s) > f[F_MOVE_STRIDE]) f[F_MOVE_STRIDE] = lg(s);
    break;
  }
  double touched = (double)bytes, reuse = 1;
  for (int l = 0; l < 5; l++) {
    int k = w->depth - 1 - l;
    if (k >= 0) {
      if (tir_expr_uses_var(idx, w->loops[k].var)) touched *= (double)w->loops[k].extent;
      else reuse *= (double)w->loops[k].extent;
    }
    f[F_FOOT + l] += (float)touched;
    f[F_REUSE + l] += (float)reuse;
  }
}

/* Independent accumulators an update runs through (an update of a location
 * it also reads: S[i] = S[i] + A[i, k]).  Each depends on its last value, so
 * a reduction's speed is the number of chains in flight over the add's
 * latency until bandwidth caps it (on the mean + bias + ReLU of bench/tune:
 * 1, 2, 4 and 8 rows at a time run at 1.2, 2.4, 4.8 and 7.2 GFLOP/s).  In
 * flight means within what an out-of-order core sees at once: the
 * innermost loops' dynamic updates up to CHAIN_WINDOW instructions (a
 * vectorized loop is one instruction over its lanes), and the distinct
 * locations (lanes) among them.  0 for a plain store. */
#define CHAIN_WINDOW 64.0
static double accumulator_chains(const Walk *w, const TirStmt *s, const TirExpr *const *acc, int nacc) {
  if (s->store.n != 1) return 0;
  bool accumulates = false;
  for (int i = 0; i < nacc && !accumulates; i++)
    accumulates = acc[i]->load.buf == s->store.buf && acc[i]->load.n == 1 &&
                  tir_expr_identical(acc[i]->load.idx[0], s->store.idx[0]);
  if (!accumulates) return 0;
  double instr = 1, chains = 1;
  for (int k = w->depth - 1; k >= 0; k--) {
    const Loop *L = &w->loops[k];
    bool spatial = coef(s->store.idx[0], L->var) != 0;
    double n = (double)L->extent;
    if (L->kind == TIR_FOR_VECTORIZED) {
      if (spatial) chains *= n;
      continue;
    }
    double f = fmin(n, floor(CHAIN_WINDOW / instr));
    if (f < 1) break;
    instr *= f;
    if (spatial) chains *= f;
    if (f < n) break;
  }
  return chains;
}

static void store_features(Walk *w, const TirStmt *s) {
  float f[TUNE_NFEATURES] = {0};
  const TirExpr *acc[MAX_ACC];
  int nacc = 0;
  count_ops(s->store.value, f, acc, &nacc);
  for (int i = 0; i < s->store.n; i++) count_ops(s->store.idx[i], f, acc, &nacc);
  double exec = 1, par = 1, vec = 1, unr = 1, outer_serial = 1;
  bool seen_par = false;
  for (int i = 0; i < w->depth; i++) {
    const Loop *L = &w->loops[i];
    exec *= (double)L->extent;
    if (L->kind == TIR_FOR_PARALLEL) par *= (double)L->extent, seen_par = true;
    if (L->kind == TIR_FOR_VECTORIZED) vec *= (double)L->extent;
    if (L->kind == TIR_FOR_UNROLLED) unr *= (double)L->extent;
    if (!seen_par && L->kind == TIR_FOR_SERIAL) outer_serial *= (double)L->extent;
  }
  for (int k = F_FADD; k <= F_CMP; k++) f[k] = lg(f[k] * exec);
  f[F_PAR] = lg(par);
  f[F_VEC] = lg(vec);
  f[F_UNROLL] = lg(unr);
  f[F_NLOOPS] = (float)w->depth;
  f[F_INNER] = lg(w->depth ? (double)w->loops[w->depth - 1].extent : 1);
  if (s->store.n == 1) access_features(w, s->store.idx[0], dt_bytes(s->store.buf->dtype), f);
  for (int i = 0; i < nacc; i++)
    if (acc[i]->load.n == 1) access_features(w, acc[i]->load.idx[0], dt_bytes(acc[i]->load.buf->dtype), f);
  for (int l = 0; l < 5; l++) f[F_FOOT + l] = lg(f[F_FOOT + l]), f[F_REUSE + l] = lg(f[F_REUSE + l]);
  f[F_EXEC] = lg(exec);
  f[F_OUTER_SERIAL] = lg(outer_serial);
  f[F_NLOADS] = (float)nacc;
  f[F_LOCAL] = s->store.buf->scope && strcmp(s->store.buf->scope, "global") != 0;
  f[F_CHAINS] = lg(accumulator_chains(w, s, acc, nacc));
  f[F_GATHER] = lg(f[F_GATHER]);
  w->nstores++;
  w->total_exec += exec;
  if (exec > w->best_exec) {
    w->best_exec = exec;
    memcpy(w->best, f, sizeof f);
  }
}

static void walk_stmt(Walk *w, const TirStmt *s);

static void walk_for(Walk *w, const TirStmt *s) {
  if (s->loop.extent->kind == TIR_INT && s->loop.extent->ival == 1) {
    walk_stmt(w, s->loop.body);
    return;
  }
  if (w->depth == 0) w->nroots++;
  if (w->depth < MAX_DEPTH) {
    Loop *L = &w->loops[w->depth];
    L->var = s->loop.var;
    L->extent = s->loop.extent->kind == TIR_INT ? s->loop.extent->ival : 16;
    L->kind = s->loop.kind;
  }
  w->depth++;
  walk_stmt(w, s->loop.body);
  w->depth--;
}

static void walk_stmt(Walk *w, const TirStmt *s) {
  if (!s) return;
  switch (s->kind) {
    case TIR_S_STORE: if (w->depth <= MAX_DEPTH) store_features(w, s); return;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) walk_stmt(w, s->seq.stmts[i]);
      return;
    case TIR_S_FOR: walk_for(w, s); return;
    case TIR_S_IF: walk_stmt(w, s->ifs.then_s); walk_stmt(w, s->ifs.else_s); return;
    case TIR_S_LET: walk_stmt(w, s->let.body); return;
    case TIR_S_ASSERT: walk_stmt(w, s->assrt.body); return;
    case TIR_S_WHILE: walk_stmt(w, s->loop_while.body); return;
    case TIR_S_BLOCK_REALIZE: walk_stmt(w, s->realize.block); return;
    case TIR_S_BLOCK: walk_stmt(w, s->block.init); walk_stmt(w, s->block.body); return;
    case TIR_S_ALLOCATE: {
      double n = dt_bytes(s->alloc.dtype);
      for (int i = 0; i < s->alloc.n; i++) n *= s->alloc.extents[i]->kind == TIR_INT ? (double)s->alloc.extents[i]->ival : 1;
      w->alloc_bytes += n;
      w->nallocs++;
      walk_stmt(w, s->alloc.body);
      return;
    }
    case TIR_S_DECL_BUFFER: walk_stmt(w, s->decl.body); return;
    case TIR_S_ATTR: walk_stmt(w, s->attr.body); return;
    default: return;
  }
}

int tune_features(const IrModule *m, const char *func, float *out) {
  memset(out, 0, TUNE_NFEATURES * sizeof *out);
  DiagCtx d;
  diag_init(&d, NULL);
  IrModule *low = tir_lower(m, tir_pipeline_index("flatten-buffer"), &d, NULL, NULL);
  diag_free(&d);
  const IrGlobal *g = low ? ir_module_lookup(low, func) : NULL;
  if (!g || g->kind != IR_FUNC_TIR) {
    if (low) ir_module_free(low);
    return -1;
  }
  Walk w;
  memset(&w, 0, sizeof w);
  w.best_exec = -1;
  walk_stmt(&w, g->tir->body);
  memcpy(out, w.best, sizeof w.best);
  out[F_ALLOC] = lg(w.alloc_bytes);
  out[F_NALLOC] = (float)w.nallocs;
  out[F_NSTORES] = (float)w.nstores;
  out[F_TOTAL_EXEC] = lg(w.total_exec);
  out[F_NROOTS] = (float)w.nroots;
  ir_module_free(low);
  return 0;
}

static const char *const names[] = {
  "fadd", "fmul", "fdiv", "fminmax", "call", "iarith", "cmp",
  "parallel", "vectorized", "unrolled", "nloops", "inner_extent",
  "stride0", "stride1", "strideN", "max_stride", "move_stride",
  "foot0", "foot1", "foot2", "foot3", "foot4",
  "reuse0", "reuse1", "reuse2", "reuse3", "reuse4",
  "alloc_bytes", "nallocs", "exec", "outer_serial", "nstores", "total_exec", "nloads", "local_store", "nroots",
  "chains", "gathered_lanes",
};

_Static_assert(sizeof names / sizeof *names == F_COUNT, "a name for every feature");

const char *tune_feature_name(int i) { return i >= 0 && i < F_COUNT ? names[i] : NULL; }

_Static_assert(F_COUNT <= TUNE_NFEATURES, "feature slots");
