/* gpu_default_schedule.c - the graph pipeline's default schedules for GPU
 * targets (sch_gpu_default_schedule), TVM dlight's Fallback rule: in each
 * prim_func a graph function calls, the injective producers are inlined into
 * their consumers, then every remaining root-level loop nest becomes one
 * kernel: its leading spatial loops fused and split over blockIdx.x and
 * threadIdx.x (256 threads per block), its reduction loops serial inside
 * each thread -- except a long reduction along the innermost loops, which
 * gets dlight's Reduction rule (below: one block per output, its threads
 * sharing the reduction).  Correct for every operator; on top, a matmul
 * gets dlight's Matmul rule (below) and a direct conv2d TOPI's direct
 * template (gpu_conv2d_rule.c): shared-memory tiles and register tiles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/default_schedule.h"
#include "sched/default_schedule_internal.h"
#include "base/util.h"
#include "ir/transform.h"

#define GPU_THREADS 256
/* blocks a matmul grid should reach before its register tiles shrink: two per
 * SM of a large GPU (an H100 or H200 has 132) */
#define GPU_MIN_BLOCKS 256

/* The most threads a cross-thread reduction uses, and the least reduce
 * extent it is chosen for (below, one thread per output does as well). */
#define XTHREAD_MAX 256
#define XTHREAD_MIN_EXTENT 64
/* ... and the most outputs: beyond, one thread per output fills the device
 * (a ResNet-18 convolution's 200,704 outputs as blocks of 64 threads each
 * folding 9 products made the network 3x slower on an H200) */
#define XTHREAD_MAX_OUTPUTS 65536

/* dlight's Reduction rule: a nest whose innermost loops are all reduce loops
 * over at least XTHREAD_MIN_EXTENT elements, with at most XTHREAD_MAX_OUTPUTS
 * outputs, becomes one block per output
 * (its spatial loops fused over blockIdx.x) whose threads share the
 * reduction: the reduce loops fused and split by the largest power of two
 * up to XTHREAD_MAX dividing their extent, the outer part bound to
 * threadIdx.x (lower-cross-thread-reduction makes it a T.tvm_thread_allreduce:
 * warp shuffles on CUDA, a shared-memory tree on OpenCL).  Steps are undone
 * when one is refused. */
/* Whether b is `B[i] = B[i] OP x` (OP + * max min) with an init: the form
 * lower-cross-thread-reduction takes (not a tuple reduction, as the mean
 * and variance of layer_norm in one block). */
static bool simple_reducer(const TirBlock *b) {
  const TirStmt *s = b->body;
  if (!b->init || !s || s->kind != TIR_S_STORE) return false;
  const TirExpr *v = s->store.value;
  if (v->kind != TIR_ADD && v->kind != TIR_MUL && v->kind != TIR_MAX && v->kind != TIR_MIN) return false;
  const TirExpr *a = v->bin.a, *c = v->bin.b;
  return (a->kind == TIR_LOAD && a->load.buf == s->store.buf) || (c->kind == TIR_LOAD && c->load.buf == s->store.buf);
}

static bool bind_reduction(SchDsQuiet *q, const SchDsNest *n, int lead) {
  int64_t red = 1, e, outputs = 1;
  if (lead == n->nloops || !simple_reducer(n->block)) return false;
  for (int i = 0; i < lead; i++)
    if (tir_is_const_int(n->loops[i]->loop.extent, &e)) outputs *= e;
  if (outputs > XTHREAD_MAX_OUTPUTS) return false;
  for (int i = lead; i < n->nloops; i++) {
    if (sch_ds_loop_is_spatial(n, i) || !tir_is_const_int(n->loops[i]->loop.extent, &e) || e <= 0) return false;
    red *= e;
  }
  int64_t threads = XTHREAD_MAX;
  while (threads > 1 && red % threads) threads /= 2;
  if (red < XTHREAD_MIN_EXTENT || threads < 32) return false;
  int before = sch_num_versions(q->s);
  SchRV *loops = NULL;
  int nl = sch_get_loops(q->s, sch_get_block(q->s, n->block->name, NULL), &loops);
  bool ok = sch_ds_try_ok(q, nl) && nl == n->nloops;
  SchRV r = ok ? (nl - lead > 1 ? sch_fuse(q->s, loops + lead, nl - lead, true) : loops[lead]) : -1;
  /* a reduction to a scalar: one block, over a unit loop above the threads */
  SchRV outer = !ok ? -1 : lead == 0 ? (r >= 0 ? sch_add_unit_loop(q->s, r) : -1)
                         : lead > 1 ? sch_fuse(q->s, loops, lead, true) : loops[0];
  /* the threads outside, each reducing a contiguous share serially inside:
   * lower-cross-thread-reduction adds the partials of the serial loops under
   * the thread loop (a serial loop above it would have to carry them) */
  int64_t factors[2] = {threads, 0};
  SchRV parts[2];
  ok = ok && sch_ds_try_ok(q, r) && sch_ds_try_ok(q, outer) &&
       sch_ds_try_ok(q, sch_split(q->s, r, factors, 2, true, false, parts)) &&
       sch_ds_try_ok(q, sch_bind(q->s, parts[0], "threadIdx.x")) && sch_ds_try_ok(q, sch_bind(q->s, outer, "blockIdx.x"));
  if (!ok) sch_ds_undo_to(q, before);
  free(loops);
  return ok;
}

/* Binds one root-level nest: true when it is now a kernel. */
static bool bind_nest(SchDsQuiet *q, const SchDsNest *n) {
  int lead = 0;
  while (lead < n->nloops && sch_ds_loop_is_spatial(n, lead)) lead++;
  if (bind_reduction(q, n, lead)) return true;
  SchRV block = sch_get_block(q->s, n->block->name, NULL);
  if (!sch_ds_try_ok(q, block)) return false;
  SchRV *loops = NULL;
  int nl = sch_get_loops(q->s, block, &loops);
  bool ok = sch_ds_try_ok(q, nl) && nl == n->nloops;
  SchRV outer = -1;
  if (ok && lead == 0) /* a reduction to a scalar: one thread */
    outer = sch_add_unit_loop(q->s, nl > 0 ? loops[0] : block);
  else if (ok)
    outer = lead > 1 ? sch_fuse(q->s, loops, lead, true) : loops[0];
  free(loops);
  if (!ok || !sch_ds_try_ok(q, outer)) return false;
  int64_t work = 0;
  for (int i = 0; i < lead; i++) {
    int64_t e;
    if (!tir_is_const_int(n->loops[i]->loop.extent, &e)) {
      work = -1;
      break;
    }
    work = i ? work * e : e;
  }
  int64_t threads = work > 0 && work < GPU_THREADS ? work : GPU_THREADS;
  if (lead == 0) threads = 1;
  int64_t factors[2] = {0, threads};
  SchRV parts[2];
  return sch_ds_try_ok(q, sch_split(q->s, outer, factors, 2, true, false, parts)) &&
         sch_ds_try_ok(q, sch_bind(q->s, parts[0], "blockIdx.x")) &&
         sch_ds_try_ok(q, sch_bind(q->s, parts[1], "threadIdx.x"));
}

/* The largest of the candidates (descending) dividing n, or 0. */
static int64_t divisor_of(int64_t n, const int64_t *cand, int ncand) {
  for (int i = 0; i < ncand; i++)
    if (n % cand[i] == 0) return cand[i];
  return 0;
}

/* The extent of the contiguous (last) side of a read's tile: the tile size
 * of the iter that indexes the buffer's last dimension (0: none of them). */
static int64_t last_side(const TirBufferRegion *r, const TirBlock *b, int lead, const int64_t tile[3]) {
  const TirExpr *e = r->n ? r->ranges[r->n - 1].min : NULL;
  for (int i = 0; e && e->kind == TIR_VAR && i < 3; i++)
    if (e->var == b->iters[lead + i].var) return tile[i];
  return 0;
}

/* dlight's Matmul rule: a root nest of three loops over a matmul-like block
 * (spatial, spatial, reduce; two inputs, one output; float32 and constant
 * sizes), or of four with a leading batch loop (bound to blockIdx.z), gets
 * stdlib/schedules/matmul_gpu.sched.tvs with tiles that divide the sizes:
 * 16 x 16 threads of 4 x 4 registers where they allow.  False (the schedule
 * unchanged) when the sizes give no such tiles or a step is refused; the
 * nest then takes the fallback. */
static bool matmul_rule(IrModule **m, const SchDsNest *n) {
  const TirBlock *b = n->block;
  int lead = n->nloops - 3; /* a batch loop */
  int64_t M, N, K, batch = 1;
  if ((lead != 0 && lead != 1) || b->niters != n->nloops || b->nreads != 2 || b->nwrites != 1 ||
      !dt_is_float(b->writes[0].buffer->dtype) || (lead && (!tir_is_const_int(n->loops[0]->loop.extent, &batch) ||
                                                            !sch_ds_loop_is_spatial(n, 0))))
    return false;
  for (int i = 0; i < 3; i++)
    if (b->iters[lead + i].type != (i < 2 ? TIR_ITER_SPATIAL : TIR_ITER_REDUCE) ||
        sch_ds_loop_is_spatial(n, lead + i) != (i < 2))
      return false;
  if (!tir_is_const_int(n->loops[lead]->loop.extent, &M) || !tir_is_const_int(n->loops[lead + 1]->loop.extent, &N) ||
      !tir_is_const_int(n->loops[lead + 2]->loop.extent, &K))
    return false;
  static const int64_t thr[] = {16, 8}, reg[] = {4, 2, 1}, step[] = {8, 4, 2, 1};
  int64_t ty = divisor_of(M, thr, 2), tx = divisor_of(N, thr, 2);
  if (!ty || !tx) return false;
  int64_t ri = divisor_of(M / ty, reg, 3), rj = divisor_of(N / tx, reg, 3), ki = divisor_of(K, step, 4);
  /* fewer registers per thread where 64 x 64 tiles leave the device idle (a
   * transformer's 128-row matmuls gave 32 blocks to 132 SMs): halving a
   * power-of-two tile keeps it a divisor */
  while (batch * (M / (ty * ri)) * (N / (tx * rj)) < GPU_MIN_BLOCKS && (ri > 1 || rj > 1)) {
    if (rj >= ri) rj /= 2;
    else ri /= 2;
  }
  /* vector fetches along each tile's contiguous side (its last dimension's
   * tile: A's k step or rows, B's columns or k step), split off before the
   * rest is fused over the threads so that the lanes' index needs no division */
  static const int64_t vec[] = {4, 2, 1};
  const int64_t tile[3] = {ty * ri, tx * rj, ki};
  int64_t sa = last_side(&b->reads[0], b, lead, tile), sb = last_side(&b->reads[1], b, lead, tile);
  int64_t va = sa ? divisor_of(sa, vec, 3) : 1, vb = sb ? divisor_of(sb, vec, 3) : 1;
  char prologue[640];
  snprintf(prologue, sizeof prologue,
           "block = sch.get_block(\"%s\")\n%sfi = [%lld, 1, %lld, %lld]\nfj = [%lld, 1, %lld, %lld]\nfk = [%lld, %lld]\n"
           "va = %lld\nvb = %lld\n", b->name, lead ? "sch.bind(sch.get_loops(block)[0], \"blockIdx.z\")\n" : "",
           (long long)(M / (ty * ri)), (long long)ty, (long long)ri, (long long)(N / (tx * rj)), (long long)tx,
           (long long)rj, (long long)(K / ki), (long long)ki, (long long)va, (long long)vb);
  return sch_gpu_try_script(m, "matmul_gpu.sched.tvs", prologue);
}

/* The root-level loop nests of the only function of *m. */
static int root_items(const IrModule *m, const TirStmt *const **items) {
  const TirStmt *root = m->funcs[0].tir->body;
  if (!root || root->kind != TIR_S_BLOCK_REALIZE) return -1;
  const TirStmt *body = root->realize.block->block.body;
  *items = body->kind == TIR_S_SEQ ? (const TirStmt *const *)body->seq.stmts
                                   : (const TirStmt *const *)&root->realize.block->block.body;
  return body->kind == TIR_S_SEQ ? body->seq.n : 1;
}

/* Schedules the only function of *m; false when a nest stays unbound. */
static bool fallback_rule(IrModule **m) {
  /* the conv2d rule before pad_temp is inlined into the conv (it inlines
   * the other producers itself and keeps its shared-memory stages) */
  if (!sch_gpu_conv2d_rule(m)) sch_ds_inline_producers(m, NULL, 0);
  const TirStmt *const *items;
  int nitems = root_items(*m, &items);
  for (int i = 0; i < nitems; i++) { /* a matmul first: its epilogue nests are bound after */
    SchDsNest n;
    if (items[i]->kind == TIR_S_FOR && sch_ds_perfect_nest(items[i], &n) && matmul_rule(m, &n)) break;
  }
  if ((nitems = root_items(*m, &items)) < 0) return false;
  SchDsQuiet q;
  sch_ds_quiet_open(&q, *m);
  bool all = true;
  for (int i = 0; i < nitems; i++) {
    SchDsNest n;
    if (items[i]->kind == TIR_S_FOR && sch_ds_has_scheduled_loop(items[i])) continue; /* the matmul rule's */
    if (items[i]->kind != TIR_S_FOR || !sch_ds_perfect_nest(items[i], &n) || !bind_nest(&q, &n)) all = false;
  }
  sch_ds_quiet_close(&q, m);
  return all;
}

IrModule *sch_gpu_default_schedule(const IrModule *m, DiagCtx *diag, bool *changed) {
  if (changed) *changed = false;
  bool *called = xcalloc((size_t)m->nfuncs + 1, sizeof *called);
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_RELAX) ir_module_mark_refs(m, m->funcs[i].rx->body, called);
  IrModule *out = ir_module_derive(m);
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_RELAX) {
      ir_module_add_relax(out, g->name, g->rx);
      continue;
    }
    if (!called[i] || sch_ds_is_scheduled(g->tir)) {
      ir_module_add_tir(out, g->name, g->tir);
      continue;
    }
    IrModule *one = ir_module_derive(m);
    ir_module_add_tir(one, g->name, g->tir);
    if (!fallback_rule(&one))
      diag_warning(diag, g->tir->span, "default-schedule (GPU): prim_func '%s' has a loop nest that could not be bound "
                   "to GPU threads; it will not lower for a GPU target", g->name);
    ir_heap_depend(out->heap, one->heap);
    TirFunc *nf = ir_memdup(out->heap, one->funcs[0].tir, sizeof *nf);
    nf->attrs = irv_dict_set(out->heap, nf->attrs, "tir.is_scheduled", irv_bool(out->heap, true));
    ir_module_add_tir(out, g->name, nf);
    ir_module_free(one);
    if (changed) *changed = true;
  }
  free(called);
  return out;
}

void sch_gpu_default_schedule_install(void) { rx_set_default_scheduler(sch_gpu_default_schedule); }
