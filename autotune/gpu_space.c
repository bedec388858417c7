/* gpu_space.c - the design space `tvs tune --target cuda|opencl` generates
 * when no --space script is given: for a prim_func whose one block is a
 * matmul-like reduction (two spatial iters and one reduce iter, under exactly
 * three loops), the space of bench/gpu/matmul_gpu_space.sch.tvs -- rows and
 * columns each split into block / virtual thread / thread / register tiles
 * (sampled perfect tiles), K into a shared-memory step, both operands staged
 * in shared memory by cooperative fetches over the block's threads, the
 * outputs accumulated in registers, the inner loops unrolled.  MetaSchedule's
 * SSSRRSRS GPU tiling without its second reduction level.  Candidates that
 * break a device limit are refused when lowered; the search goes on. */
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

char *tune_gpu_space(const IrModule *m, const char *func, char *why, size_t whylen) {
  int fi = ir_module_index(m, func);
  const TirFunc *f = fi >= 0 && m->funcs[fi].kind == IR_FUNC_TIR ? m->funcs[fi].tir : NULL;
  const char *names[SCH_DS_MAX_BLOCKS];
  int n = 0;
  if (f) sch_ds_collect_blocks(f->body, names, &n, SCH_DS_MAX_BLOCKS);
  const char *block = NULL;
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], "root")) {
      if (block) return snprintf(why, whylen, "'%s' has more than one block", func), NULL;
      block = names[i];
    }
  const TirBlock *b = block ? sch_ds_find_block(f, block) : NULL;
  bool ssr = b && b->niters == 3 && b->iters[0].type == TIR_ITER_SPATIAL && b->iters[1].type == TIR_ITER_SPATIAL &&
             b->iters[2].type == TIR_ITER_REDUCE && b->nreads == 2 && b->nwrites == 1;
  if (!ssr || loops_above(f->body, block, 0) != 3)
    return snprintf(why, whylen, "'%s' is not one matmul-like block (two spatial iters and a reduction under "
                    "three loops, two inputs)", func), NULL;
  return xasprintf(space_template, block);
}
