/* npu_schedule_tile.c - the DMA tile a schedule gives the NPU backend.
 *
 * As in TVM's VTA schedules, the user splits the matmul's loops and moves
 * the cache stages into the scratchpad scopes under the outer ones:
 *
 *     io, ii = sch.split(i, factors=[None, 32])   ... reorder(io, jo, ko, ...)
 *     Al = sch.cache_read(b, 0, "npu.inp"); sch.compute_at(Al, ko)
 *
 * The stage then copies one tile per iteration of the loops it shares with
 * the matmul: its tile is the extent of its own loops, per index.  npu.inp
 * gives rows x reduction, npu.wgt reduction x columns (or columns x
 * reduction for B[j, k]), npu.acc rows x columns.  A stage left at the root
 * copies everything once and gives no tile: the backend chooses. */
#include <string.h>

#include "codegen/npu.h"
#include "runtime/npy.h"

static bool encloses_update(const TirStmt *loop, const TirStmt *const *ul, int nul) {
  for (int i = 0; i < nul; i++)
    if (ul[i] == loop) return true;
  return false;
}

/* The tile of one stage: ext[d] per index; false when it gives none. */
static bool stage_tile(const NpuCopyStage *c, const TirStmt *const *ul, int nul, int64_t ext[2]) {
  bool shared = false;
  ext[0] = ext[1] = 1;
  for (int l = 0; l < c->nloops; l++) {
    if (encloses_update(c->loops[l], ul, nul)) {
      shared = true;
      continue;
    }
    const TirExpr *e = c->loops[l]->loop.extent;
    for (int d = 0; d < c->ndim; d++)
      if (c->loop_mask[d] >> l & 1) {
        if (e->kind != TIR_INT) return false;
        ext[d] *= e->ival;
      }
  }
  return shared && c->ndim == 2;
}

static bool set_dim(int64_t *field, int64_t v, const char *what, const char *scope, DiagCtx *d, Span span) {
  if (*field && *field != v) {
    diag_error(d, span, "npu: the schedule's %s stage copies %lld %s a tile, another npu.* stage %lld", scope,
               (long long)v, what, (long long)*field);
    return false;
  }
  *field = v;
  return true;
}

bool cg_npu_schedule_tiles(const NpuCopyStage *cs, int n, const TirStmt *const *update_loops, int nupdate_loops,
                           NpuMatmul *mm, DiagCtx *d, Span span) {
  for (int i = 0; i < n; i++) {
    int64_t ext[2];
    if (!cs[i].scope || !stage_tile(&cs[i], update_loops, nupdate_loops, ext)) continue;
    const char *sc = cs[i].scope;
    bool ok = true;
    if (!strcmp(sc, "npu.inp")) {
      ok = set_dim(&mm->tile_rows, ext[0], "rows", sc, d, span) && set_dim(&mm->tile_red, ext[1], "reduction elements", sc, d, span);
    } else if (!strcmp(sc, "npu.wgt")) {
      int r = mm->b_transposed ? 1 : 0;
      ok = set_dim(&mm->tile_red, ext[r], "reduction elements", sc, d, span) &&
           set_dim(&mm->tile_cols, ext[1 - r], "columns", sc, d, span);
    } else if (!strcmp(sc, "npu.acc")) {
      ok = set_dim(&mm->tile_rows, ext[0], "rows", sc, d, span) && set_dim(&mm->tile_cols, ext[1], "columns", sc, d, span);
    }
    if (!ok) return false;
  }
  return true;
}

static int check_dim(int64_t tile, int64_t whole, int block, const char *what, char *err, size_t errlen) {
  if (!tile || tile >= whole || tile % block == 0) return 0;
  tvs_set_err(err, errlen, "npu: the schedule's tile has %lld %s; the GEMM block takes multiples of %d", (long long)tile,
              what, block);
  return -1;
}

int cg_npu_check_schedule_tiles(const NpuConfig *c, const NpuMatmul *mm, char *err, size_t errlen) {
  return check_dim(mm->tile_rows, mm->m, c->batch, "rows", err, errlen) ||
                 check_dim(mm->tile_cols, mm->n, c->block_out, "columns", err, errlen) ||
                 check_dim(mm->tile_red, mm->k, c->block_in, "reduction elements", err, errlen)
             ? -1
             : 0;
}
