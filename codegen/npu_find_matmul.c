/* npu_find_matmul.c - recognising the int8 matmul the NPU backend runs.
 *
 * The computation is read from the update store of the reduction block
 * (C[i, j] = C[i, j] + int32(A[i, k]) * int32(B[k, j]) or B[j, k]); loop
 * transformations keep that block body, so a scheduled function is
 * recognised too, and so is one tensorized with npu_gemm_1x16x16_nn/nt
 * (stdlib/intrin/npu_gemm.tvs): its body is the same update on views of the
 * params.  Cache stages into the scratchpad scopes (cache_read/cache_write
 * into npu.inp, npu.wgt, npu.acc) are read the same way, as views of the
 * DRAM buffers: the backend's DMA is what moves them.  A loop bound to
 * "vthread" gives the virtual threads.  A cache stage moved into the
 * matmul's loop nest (compute_at / reverse_compute_at under split loops)
 * gives the DMA tile: the region its own loops copy (npu_schedule_tile.c). */
#include <string.h>

#include "codegen/npu.h"
#include "ir/visit.h"

#define MAX_DEPTH NPU_MAX_COPY_LOOPS

typedef struct Finder {
  const TirFunc *f;
  const TirStmt *loops[MAX_DEPTH]; /* the loops around the statement visited */
  int nloops;
  const TirStmt *realize;   /* the innermost block realize around it */
  const TirStmt *update_loops[MAX_DEPTH];
  int nupdate_loops;
  NpuCopyStage copies[NPU_MAX_COPIES]; /* the npu.* cache stages */
  int ncopies;
  int nstores;              /* stores anywhere in the function */
  const TirStmt *stores[NPU_MAX_STORES]; /* the first ones */
  const TirStmt *update;    /* the matmul's update store */
  int vthreads;
  IrPtrMap views;           /* match_buffer view -> the buffer it aliases */
} Finder;

/* e without its int32 cast of an int8 load, or NULL. */
static const TirExpr *int8_load(const TirExpr *e) {
  if (e->kind != TIR_CAST || !dt_eq(e->dtype, dt_int32)) return NULL;
  const TirExpr *l = e->un.a;
  return l->kind == TIR_LOAD && dt_eq(l->dtype, dt_int8) && l->load.n == 2 ? l : NULL;
}

static bool is_update(const TirStmt *s) {
  if (s->store.n != 2 || !dt_eq(s->store.buf->dtype, dt_int32)) return false;
  const TirExpr *v = s->store.value;
  if (v->kind != TIR_ADD) return false;
  const TirExpr *acc = v->bin.a, *mul = v->bin.b;
  if (acc->kind != TIR_LOAD) acc = v->bin.b, mul = v->bin.a;
  if (acc->kind != TIR_LOAD || acc->load.buf != s->store.buf || mul->kind != TIR_MUL) return false;
  return int8_load(mul->bin.a) && int8_load(mul->bin.b);
}

static bool is_npu_scope(const TirBuffer *b) { return b->scope && !strncmp(b->scope, "npu.", 4); }

/* A cache stage of an npu.* scope (cache_read/cache_write/set_scope):
 * dst[v...] = src[v...] with one of them in npu.inp/npu.wgt/npu.acc.  The
 * DMA loads and stores are the backend's, so the copy is read as a view of
 * the DRAM buffer: *view the scratchpad buffer, *dram the other. */
static bool is_npu_copy(const TirStmt *s, const TirBuffer **view, const TirBuffer **dram) {
  const TirExpr *v = s->store.value;
  if (v->kind != TIR_LOAD || v->load.n != s->store.n || v->load.buf == s->store.buf) return false;
  for (int i = 0; i < s->store.n; i++)
    if (v->load.idx[i]->kind != TIR_VAR || s->store.idx[i]->kind != TIR_VAR || v->load.idx[i]->var != s->store.idx[i]->var)
      return false;
  if (is_npu_scope(s->store.buf)) *view = s->store.buf, *dram = v->load.buf;
  else if (is_npu_scope(v->load.buf)) *view = v->load.buf, *dram = s->store.buf;
  else return false;
  return true;
}

/* Records an npu.* copy store with the loops around it and, per index, the
 * loops its block binding uses. */
static void record_copy(Finder *fd, const TirStmt *s, const TirBuffer *view) {
  if (fd->ncopies == NPU_MAX_COPIES || s->store.n > 2) return;
  NpuCopyStage *c = &fd->copies[fd->ncopies++];
  memset(c, 0, sizeof *c);
  c->scope = view->scope;
  c->ndim = s->store.n;
  for (int d = 0; d < s->store.n; d++) {
    const TirExpr *bind = s->store.idx[d];
    const TirBlock *bk = fd->realize ? &fd->realize->realize.block->block : NULL;
    for (int i = 0; bk && i < bk->niters && i < fd->realize->realize.n; i++)
      if (bind->kind == TIR_VAR && bk->iters[i].var == bind->var) bind = fd->realize->realize.values[i];
    for (int l = 0; l < fd->nloops; l++)
      if (tir_expr_uses_var(bind, fd->loops[l]->loop.var)) c->loop_mask[d] |= 1ull << l;
  }
  c->nloops = fd->nloops;
  memcpy(c->loops, fd->loops, (size_t)fd->nloops * sizeof *fd->loops);
}

static void post_stmt(TirVisitor *v, const TirStmt *s) {
  Finder *fd = v->ctx;
  if (s->kind == TIR_S_FOR && fd->nloops > 0) fd->nloops--;
}

static bool pre_stmt(TirVisitor *v, const TirStmt *s) {
  Finder *fd = v->ctx;
  const TirBuffer *view, *dram;
  if (s->kind == TIR_S_FOR) {
    if (fd->nloops == MAX_DEPTH) return false;
    fd->loops[fd->nloops++] = s;
  }
  if (s->kind == TIR_S_BLOCK_REALIZE) fd->realize = s;
  if (s->kind == TIR_S_BLOCK) /* tensorize binds the intrinsic's operands as views */
    for (int i = 0; i < s->block.nmatches; i++)
      ir_ptrmap_put(&fd->views, s->block.matches[i].buffer, s->block.matches[i].source.buffer);
  if (s->kind == TIR_S_STORE && is_npu_copy(s, &view, &dram)) {
    ir_ptrmap_put(&fd->views, view, (void *)dram);
    record_copy(fd, s, view);
    return true;
  }
  if (s->kind == TIR_S_STORE) {
    if (fd->nstores < NPU_MAX_STORES) fd->stores[fd->nstores] = s;
    fd->nstores++;
    if (is_update(s)) {
      fd->update = s;
      fd->nupdate_loops = fd->nloops;
      memcpy(fd->update_loops, fd->loops, (size_t)fd->nloops * sizeof *fd->loops);
    }
  }
  if (s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING && s->loop.thread_tag &&
      !strncmp(s->loop.thread_tag, "vthread", 7) && s->loop.extent->kind == TIR_INT)
    fd->vthreads = (int)s->loop.extent->ival;
  return true;
}

/* The param holding b, through match_buffer views. */
static int param_of(const Finder *fd, const TirBuffer *b) {
  const TirFunc *f = fd->f;
  for (int depth = 0; depth < 8 && ir_ptrmap_has(&fd->views, b); depth++) b = ir_ptrmap_get(&fd->views, b);
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map[i] == b) return i;
  return -1;
}

/* The same index: one var, or one constant (a tensorized body's row 0). */
static bool same_var(const TirExpr *a, const TirExpr *b) {
  if (a->kind == TIR_INT && b->kind == TIR_INT) return a->ival == b->ival;
  return a->kind == TIR_VAR && b->kind == TIR_VAR && a->var == b->var;
}

static bool static_dim(const TirBuffer *b, int i, int64_t *out) {
  if (b->shape[i]->kind != TIR_INT) return false;
  *out = b->shape[i]->ival;
  return *out > 0;
}

/* Reads the roles and sizes off the update store (sizes from the params). */
static bool match_roles(const Finder *fd, const TirStmt *s, NpuMatmul *mm) {
  const TirFunc *f = fd->f;
  const TirExpr *v = s->store.value, *mul = v->bin.b->kind == TIR_MUL ? v->bin.b : v->bin.a;
  const TirExpr *a = int8_load(mul->bin.a), *b = int8_load(mul->bin.b);
  const TirExpr *const *ci = (const TirExpr *const *)s->store.idx;
  if (!same_var(a->load.idx[0], ci[0])) { /* B[..] * A[..] */
    const TirExpr *t = a;
    a = b, b = t;
  }
  if (!same_var(a->load.idx[0], ci[0])) return false;
  const TirExpr *k = a->load.idx[1];
  if (same_var(b->load.idx[0], k) && same_var(b->load.idx[1], ci[1])) mm->b_transposed = false;
  else if (same_var(b->load.idx[1], k) && same_var(b->load.idx[0], ci[1])) mm->b_transposed = true;
  else return false;
  mm->a_param = param_of(fd, a->load.buf);
  mm->b_param = param_of(fd, b->load.buf);
  mm->out_param = param_of(fd, s->store.buf);
  if (mm->a_param < 0 || mm->b_param < 0) return false;
  const TirBuffer *pa = f->buffer_map[mm->a_param], *pb = f->buffer_map[mm->b_param];
  int64_t kb;
  return pa->ndim == 2 && pb->ndim == 2 && dt_eq(pa->dtype, dt_int8) && dt_eq(pb->dtype, dt_int8) &&
         static_dim(pa, 0, &mm->m) && static_dim(pa, 1, &mm->k) && static_dim(pb, mm->b_transposed ? 0 : 1, &mm->n) &&
         static_dim(pb, mm->b_transposed ? 1 : 0, &kb) && kb == mm->k;
}

/* One epilogue operation with an immediate: *x its other operand. */
static bool alu_step(const TirExpr *e, NpuAluStep *st, const TirExpr **x) {
  const TirExpr *a = NULL, *b = NULL;
  if (e->kind == TIR_MAX || e->kind == TIR_MIN || e->kind == TIR_ADD || e->kind == TIR_MUL) {
    a = e->bin.a, b = e->bin.b;
    if (a->kind == TIR_INT) a = e->bin.b, b = e->bin.a; /* all four commute */
    st->op = e->kind == TIR_MAX ? NPU_ALU_MAX : e->kind == TIR_MIN ? NPU_ALU_MIN : e->kind == TIR_ADD ? NPU_ALU_ADD
                                                                                                     : NPU_ALU_MUL;
  } else if (e->kind == TIR_CALL && e->call.op->id == TIR_OP_SHIFT_RIGHT && e->call.n == 2) {
    a = e->call.args[0], b = e->call.args[1];
    st->op = NPU_ALU_SHR;
  }
  if (!a || b->kind != TIR_INT || b->ival < INT32_MIN || b->ival > INT32_MAX) return false;
  st->imm = (int32_t)b->ival;
  *x = a;
  return true;
}

/* One element-wise stage D[v...] = [T.Cast("int8",)] ops(C[v...]): its steps
 * appended to steps[*nsteps..]. */
static bool match_stage(const TirStmt *s, const TirBuffer *c, NpuAluStep *steps, int *nsteps, bool *out_int8) {
  const TirExpr *e = s->store.value;
  *out_int8 = dt_eq(s->store.buf->dtype, dt_int8);
  if (*out_int8) {
    if (e->kind != TIR_CAST) return false;
    e = e->un.a;
  } else if (!dt_eq(s->store.buf->dtype, dt_int32)) {
    return false;
  }
  NpuAluStep rev[NPU_MAX_ALU_STEPS];
  int n = 0;
  while (e->kind != TIR_LOAD) {
    if (n == NPU_MAX_ALU_STEPS || !alu_step(e, &rev[n], &e)) return false;
    n++;
  }
  if (e->load.buf != c || e->load.n != s->store.n || *nsteps + n > NPU_MAX_ALU_STEPS) return false;
  for (int i = 0; i < s->store.n; i++)
    if (s->store.idx[i]->kind != TIR_VAR || !same_var(e->load.idx[i], s->store.idx[i])) return false;
  for (int i = 0; i < n; i++) steps[(*nsteps)++] = rev[n - 1 - i]; /* innermost first */
  return true;
}

const TirBuffer *cg_npu_match_epilogue(const TirStmt *const *stores, int n, const TirBuffer *c, NpuAluStep *steps,
                                       int *nsteps, bool *out_int8) {
  *nsteps = 0;
  *out_int8 = false;
  for (int used = 0; used < n; used++) {
    if (*out_int8) return NULL; /* narrowing must be the last stage */
    const TirStmt *next = NULL;
    for (int i = 0; i < n && !next; i++)
      if (stores[i]->store.value->kind != TIR_INT && stores[i]->store.buf != c) {
        int k = *nsteps;
        bool i8;
        if (match_stage(stores[i], c, steps, &k, &i8)) next = stores[i], *nsteps = k, *out_int8 = i8;
      }
    if (!next) return NULL;
    c = next->store.buf;
  }
  return c;
}

/* After the update: C is the output (2 stores: init, update), or an
 * intermediate read by a chain of element-wise stages (fusion's relu, cast,
 * requantization) ending in a param. */
static bool match_output(const Finder *fd, NpuMatmul *mm) {
  if (mm->out_param >= 0) return fd->nstores <= 2 && dt_eq(fd->f->buffer_map[mm->out_param]->dtype, dt_int32);
  if (fd->nstores < 3 || fd->nstores > NPU_MAX_STORES) return false;
  const TirBuffer *c = fd->update->store.buf;
  const TirStmt *rest[NPU_MAX_STORES];
  int nrest = 0;
  for (int i = 0; i < fd->nstores; i++)
    if (fd->stores[i]->store.buf != c) rest[nrest++] = fd->stores[i];
  int64_t cm, cn;
  if (c->ndim != 2 || !static_dim(c, 0, &cm) || !static_dim(c, 1, &cn) || cm != mm->m || cn != mm->n) return false;
  const TirBuffer *out = cg_npu_match_epilogue(rest, nrest, c, mm->alu, &mm->nalu, &mm->out_int8);
  mm->out_param = out ? param_of(fd, out) : -1;
  return mm->out_param >= 0;
}

/* The npu.* scope b passes through on its way to its param, or NULL. */
static const char *npu_scope_of(const Finder *fd, const TirBuffer *b) {
  const char *scope = NULL;
  for (int depth = 0; depth < 8 && b; depth++) {
    if (is_npu_scope(b)) scope = b->scope;
    b = ir_ptrmap_has(&fd->views, b) ? ir_ptrmap_get(&fd->views, b) : NULL;
  }
  return scope;
}

/* Each operand staged in a scratchpad must be in its own: the GEMM reads
 * inputs from npu.inp, weights from npu.wgt, accumulates in npu.acc. */
static bool check_scopes(const Finder *fd, DiagCtx *d) {
  const TirExpr *v = fd->update->store.value, *mul = v->bin.b->kind == TIR_MUL ? v->bin.b : v->bin.a;
  const TirExpr *x = mul->bin.a->un.a, *w = mul->bin.b->un.a;
  if (!same_var(x->load.idx[0], fd->update->store.idx[0])) x = mul->bin.b->un.a, w = mul->bin.a->un.a;
  const TirBuffer *bufs[3] = {x->load.buf, w->load.buf, fd->update->store.buf};
  static const char *want[3] = {"npu.inp", "npu.wgt", "npu.acc"}, *role[3] = {"input", "weight", "accumulator"};
  for (int i = 0; i < 3; i++) {
    const char *sc = npu_scope_of(fd, bufs[i]);
    if (sc && strcmp(sc, want[i])) {
      diag_error(d, fd->f->span, "npu: the GEMM's %s operand is staged in scope %s; it belongs in %s", role[i], sc,
                 want[i]);
      return false;
    }
  }
  return true;
}

bool cg_npu_find_matmul(const TirFunc *f, NpuMatmul *out, DiagCtx *d) {
  const TirStmt *stepped = tir_find_stepped_loop(f->body);
  if (stepped) { /* the tile schedule reads loop extents as trip counts */
    memset(out, 0, sizeof *out);
    diag_error(d, stepped->span, "npu: loop '%s' has a step; the npu target takes loops with step 1",
               stepped->loop.var->name);
    return false;
  }
  Finder fd = {.f = f, .vthreads = 1};
  TirVisitor v = {.pre_stmt = pre_stmt, .post_stmt = post_stmt, .ctx = &fd};
  tir_visit_func(&v, f);
  memset(out, 0, sizeof *out);
  bool found = fd.update && match_roles(&fd, fd.update, out) && match_output(&fd, out);
  if (found && !check_scopes(&fd, d)) {
    ir_ptrmap_free(&fd.views);
    return false;
  }
  ir_ptrmap_free(&fd.views);
  if (!found) {
    diag_error(d, f->span,
               "the npu target runs int8 matmuls: C[i, j] += int32(A[i, k]) * int32(B[k, j]) (or B[j, k]) "
               "with int8 A, B and an int32 C of static shapes, optionally followed by D[i, j] = "
               "[T.Cast(\"int8\", ...)] of shift_right/min/max/add/mul with constants of C[i, j], and nothing else; "
               "and int8 conv2d_nchw (OIHW weights, int32 output, no dilation)");
    return false;
  }
  int64_t cm, cn;
  const TirBuffer *c = f->buffer_map[out->out_param];
  if (c->ndim != 2 || !static_dim(c, 0, &cm) || !static_dim(c, 1, &cn) || cm != out->m || cn != out->n) {
    diag_error(d, f->span, "npu: the output's shape is not [%lld, %lld]", (long long)out->m, (long long)out->n);
    return false;
  }
  if (fd.vthreads < 1 || fd.vthreads > 4) {
    diag_error(d, f->span, "npu: %d virtual threads (the scratchpads are split 1 to 4 ways)", fd.vthreads);
    return false;
  }
  out->vthreads = fd.vthreads;
  return cg_npu_schedule_tiles(fd.copies, fd.ncopies, fd.update_loops, fd.nupdate_loops, out, d, f->span);
}
