/* gpu_space.c - the design space `tvs tune --target cuda|opencl` generates
 * when no --space script is given: for a prim_func whose one block is a
 * matmul-like reduction (two spatial iters and one reduce iter, under exactly
 * three loops), the space of bench/gpu/matmul_gpu_space.sch.tvs -- rows and
 * columns each split into block / virtual thread / thread / register tiles
 * (sampled perfect tiles), K into a shared-memory step, both operands staged
 * in shared memory by cooperative fetches over the block's threads, the
 * outputs accumulated in registers, the inner loops unrolled.  MetaSchedule's
 * SSSRRSRS GPU tiling without its second reduction level.  Candidates that
 * break a device limit are refused when lowered; the search goes on.
 *
 * Any other function gets the space of the GPU default schedule (TVM dlight's
 * Fallback, sched/gpu_default_schedule.c) with its one constant sampled, as
 * MetaSchedule's AutoBind rule does: producers inlined, then each root loop
 * nest fused over its leading spatial loops and split over blockIdx.x and
 * threadIdx.x with a sampled number of threads per block. */
#include <stdio.h>
#include <string.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "sched/default_schedule_internal.h"

/* The loops directly above the block named name, when the body is the root
 * block over a chain of loops ending at it; -1 otherwise. */
static int loops_above(const TirStmt *s, const char *name, int depth) {
  while (s) {
    if (s->kind == TIR_S_FOR) {
      depth++;
      s = s->loop.body;
    } else if (s->kind == TIR_S_BLOCK_REALIZE) {
      const TirBlock *b = &s->realize.block->block;
      if (!strcmp(b->name, name)) return depth;
      s = b->body;
      depth = 0;
    } else {
      return -1;
    }
  }
  return -1;
}

static const char space_template[] =
    "b = sch.get_block(\"%s\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "fi = sch.sample_perfect_tile(i, n=4, max_innermost_factor=8)\n"
    "fj = sch.sample_perfect_tile(j, n=4, max_innermost_factor=8)\n"
    "fk = sch.sample_perfect_tile(k, n=2, max_innermost_factor=16)\n"
    "by, vy, ty, ri = sch.split(i, factors=fi)\n"
    "bx, vx, tx, rj = sch.split(j, factors=fj)\n"
    "ko, ki = sch.split(k, factors=fk)\n"
    "sch.reorder(by, bx, vy, vx, ty, tx, ko, ki, ri, rj)\n"
    "sch.bind(by, \"blockIdx.y\")\n"
    "sch.bind(bx, \"blockIdx.x\")\n"
    "sch.bind(vy, \"vthread.y\")\n"
    "sch.bind(vx, \"vthread.x\")\n"
    "sch.bind(ty, \"threadIdx.y\")\n"
    "sch.bind(tx, \"threadIdx.x\")\n"
    "CL = sch.cache_write(b, 0, \"local\")\n"
    "sch.reverse_compute_at(CL, tx)\n"
    "As = sch.cache_read(b, 0, \"shared\")\n"
    "Bs = sch.cache_read(b, 1, \"shared\")\n"
    "sch.compute_at(As, ko, preserve_unit_loops=True)\n"
    "sch.compute_at(Bs, ko, preserve_unit_loops=True)\n"
    "va = sch.sample_categorical(candidates=[1, 2, 4], probs=[0.34, 0.33, 0.33])\n"
    "a0, a1 = sch.get_loops(As)[-2:]\n"
    "ao, aty, atx, av = sch.split(sch.fuse(a0, a1), factors=[None, fi[2], fj[2], va])\n"
    "sch.bind(aty, \"threadIdx.y\")\n"
    "sch.bind(atx, \"threadIdx.x\")\n"
    "sch.vectorize(av)\n"
    "vb = sch.sample_categorical(candidates=[1, 2, 4], probs=[0.34, 0.33, 0.33])\n"
    "b0, b1 = sch.get_loops(Bs)[-2:]\n"
    "bo, bty, btx, bv = sch.split(sch.fuse(b0, b1), factors=[None, fi[2], fj[2], vb])\n"
    "sch.bind(bty, \"threadIdx.y\")\n"
    "sch.bind(btx, \"threadIdx.x\")\n"
    "sch.vectorize(bv)\n"
    "sch.decompose_reduction(b, ko)\n"
    "sch.unroll(ki)\n"
    "sch.unroll(ri)\n"
    "sch.unroll(rj)\n";

static const int64_t bind_threads[] = {32, 64, 128, 256, 512, 1024};

/* The binding of one root nest of the inlined function (nest index k). */
static void bind_nest_script(StrBuf *sb, const SchDsNest *n, int k) {
  int lead = 0;
  while (lead < n->nloops && sch_ds_loop_is_spatial(n, lead)) lead++;
  sb_printf(sb, "b%d = sch.get_block(\"%s\")\n", k, n->block->name);
  for (int i = 0; i < n->nloops; i++) sb_printf(sb, "%sl%d_%d", i ? ", " : "", k, i);
  if (n->nloops) sb_printf(sb, " = sch.get_loops(b%d)\n", k);
  if (lead == 0) { /* a reduction to a scalar: one thread, as the fallback */
    sb_printf(sb, "f%d = sch.add_unit_loop(%s%d%s)\n", k, n->nloops ? "l" : "b", k, n->nloops ? "_0" : "");
    sb_printf(sb, "bx%d, tx%d = sch.split(f%d, factors=[None, 1])\n", k, k, k);
  } else {
    if (lead > 1) {
      sb_printf(sb, "f%d = sch.fuse(", k);
      for (int i = 0; i < lead; i++) sb_printf(sb, "%sl%d_%d", i ? ", " : "", k, i);
      sb_puts(sb, ")\n");
    } else {
      sb_printf(sb, "f%d = l%d_0\n", k, k);
    }
    int64_t work = 1, e;
    for (int i = 0; i < lead && work > 0; i++) work = tir_is_const_int(n->loops[i]->loop.extent, &e) ? work * e : -1;
    int nc = 0;
    while (nc < 6 && (work < 0 || bind_threads[nc] <= work)) nc++;
    if (nc == 0) { /* fewer outputs than a warp: one block of all of them */
      sb_printf(sb, "bx%d, tx%d = sch.split(f%d, factors=[None, %lld])\n", k, k, k, (long long)work);
    } else {
      sb_printf(sb, "t%d = sch.sample_categorical(candidates=[", k);
      for (int i = 0; i < nc; i++) sb_printf(sb, "%s%lld", i ? ", " : "", (long long)bind_threads[i]);
      sb_puts(sb, "], probs=[");
      for (int i = 0; i < nc; i++) sb_printf(sb, "%s%.4f", i ? ", " : "", 1.0 / nc);
      sb_printf(sb, "])\nbx%d, tx%d = sch.split(f%d, factors=[None, t%d])\n", k, k, k, k);
    }
  }
  sb_printf(sb, "sch.bind(bx%d, \"blockIdx.x\")\nsch.bind(tx%d, \"threadIdx.x\")\n", k, k);
}

/* The AutoBind space of prim_func fi of m as script text, or NULL (why). */
static char *fallback_space(const IrModule *m, int fi, char *why, size_t whylen) {
  IrModule *one = ir_module_derive(m);
  ir_module_add_tir(one, m->funcs[fi].name, m->funcs[fi].tir);
  const char *before[SCH_DS_MAX_BLOCKS], *after[SCH_DS_MAX_BLOCKS];
  int nb = 0, na = 0;
  sch_ds_collect_blocks(m->funcs[fi].tir->body, before, &nb, SCH_DS_MAX_BLOCKS);
  sch_ds_inline_producers(&one, NULL, 0);
  const TirFunc *f = one->funcs[0].tir;
  sch_ds_collect_blocks(f->body, after, &na, SCH_DS_MAX_BLOCKS);
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < nb; i++)
    if (!sch_ds_among(before[i], after, na)) sb_printf(&sb, "sch.compute_inline(sch.get_block(\"%s\"))\n", before[i]);
  const TirStmt *body = f->body && f->body->kind == TIR_S_BLOCK_REALIZE ? f->body->realize.block->block.body : NULL;
  const TirStmt *const *items = body && body->kind == TIR_S_SEQ ? (const TirStmt *const *)body->seq.stmts : &body;
  int nitems = !body ? 0 : body->kind == TIR_S_SEQ ? body->seq.n : 1;
  bool ok = nitems > 0;
  for (int i = 0; i < nitems && ok; i++) {
    SchDsNest n;
    ok = items[i]->kind == TIR_S_FOR && sch_ds_perfect_nest(items[i], &n) && !sch_ds_has_scheduled_loop(items[i]);
    if (ok) bind_nest_script(&sb, &n, i);
  }
  ir_module_free(one);
  if (!ok) {
    sb_free(&sb);
    snprintf(why, whylen, "'%s' has a loop nest the GPU fallback does not bind (not a perfect nest, or "
             "already scheduled)", m->funcs[fi].name);
    return NULL;
  }
  return sb_take(&sb);
}

char *tune_gpu_space(const IrModule *m, const char *func, char *why, size_t whylen) {
  int fi = ir_module_index(m, func);
  const TirFunc *f = fi >= 0 && m->funcs[fi].kind == IR_FUNC_TIR ? m->funcs[fi].tir : NULL;
  const char *names[SCH_DS_MAX_BLOCKS];
  int n = 0;
  if (f) sch_ds_collect_blocks(f->body, names, &n, SCH_DS_MAX_BLOCKS);
  if (!f) return snprintf(why, whylen, "no prim_func '%s'", func), NULL;
  const char *block = NULL;
  int nblocks = 0;
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], "root")) block = names[i], nblocks++;
  const TirBlock *b = nblocks == 1 ? sch_ds_find_block(f, block) : NULL;
  bool ssr = b && b->niters == 3 && b->iters[0].type == TIR_ITER_SPATIAL && b->iters[1].type == TIR_ITER_SPATIAL &&
             b->iters[2].type == TIR_ITER_REDUCE && b->nreads == 2 && b->nwrites == 1;
  if (ssr && loops_above(f->body, block, 0) == 3) return xasprintf(space_template, block);
  return fallback_space(m, fi, why, whylen);
}
