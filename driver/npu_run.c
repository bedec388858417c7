/* npu_run.c - the npu target in the driver: the stream of a prim_func, the
 * host side of a run (tensors packed into DRAM tiles, zero-padded to the
 * GEMM block, and the result unpacked), and the check against the
 * interpreter, which stays the oracle. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "driver/npu.h"
#include "runtime/ndarray.h"

void drv_npu_options_default(DrvNpuOptions *o) {
  npu_config_default(&o->cfg);
  o->vthreads = 0;
}

int drv_npu_build(const IrModule *m, const char *fname, const DrvNpuOptions *o, NpuProgram *p, NpuMatmul *mm_out,
                  NpuTiling *t_out, DiagCtx *d) {
  npu_program_init(p);
  const IrGlobal *g = ir_module_lookup(m, fname);
  if (!g || !g->tir) {
    diag_error(d, span_none, "npu: no prim_func '%s'", fname);
    return -1;
  }
  NpuMatmul mm;
  if (!cg_npu_find_matmul(g->tir, &mm, d)) return -1;
  NpuTiling t = {.vthreads = o->vthreads ? o->vthreads : mm.vthreads};
  cg_npu_choose_tiling(&o->cfg, &mm, &t);
  char err[512];
  if (cg_npu_matmul_program(&o->cfg, &mm, &t, p, err, sizeof err)) {
    diag_error(d, g->tir->span, "%s", err);
    return -1;
  }
  if (mm_out) *mm_out = mm;
  if (t_out) *t_out = t;
  return 0;
}

/* DRAM images of A (inp tiles), B (wgt tiles) and C (acc or out tiles). */
typedef struct Dram { int8_t *a, *b; void *c; } Dram;

static void pack(const NpuConfig *c, const NpuMatmul *mm, const DLTensor *A, const DLTensor *B, Dram *dr) {
  int64_t bt = c->batch, bi = c->block_in, bo = c->block_out;
  int64_t mt = (mm->m + bt - 1) / bt, nt = (mm->n + bo - 1) / bo, kt = (mm->k + bi - 1) / bi;
  dr->a = xcalloc((size_t)(mt * kt * bt * bi), 1);
  dr->b = xcalloc((size_t)(nt * kt * bo * bi), 1);
  dr->c = xcalloc((size_t)(mt * nt * bt * bo), mm->out_int8 ? 1 : sizeof(int32_t));
  const int8_t *a = A->data, *b = B->data;
  for (int64_t i = 0; i < mm->m; i++)
    for (int64_t k = 0; k < mm->k; k++) /* tile (i / bt, k / bi), element [i % bt][k % bi] */
      dr->a[((i / bt) * kt + k / bi) * bt * bi + (i % bt) * bi + k % bi] = a[i * mm->k + k];
  for (int64_t j = 0; j < mm->n; j++)
    for (int64_t k = 0; k < mm->k; k++) /* tile (j / bo, k / bi), element [j % bo][k % bi] */
      dr->b[((j / bo) * kt + k / bi) * bo * bi + (j % bo) * bi + k % bi] =
          mm->b_transposed ? b[j * mm->k + k] : b[k * mm->n + j];
}

static void unpack(const NpuConfig *c, const NpuMatmul *mm, const Dram *dr, DLTensor *C) {
  int64_t bt = c->batch, bo = c->block_out, nt = (mm->n + bo - 1) / bo;
  for (int64_t i = 0; i < mm->m; i++)
    for (int64_t j = 0; j < mm->n; j++) {
      int64_t src = ((i / bt) * nt + j / bo) * bt * bo + (i % bt) * bo + j % bo;
      if (mm->out_int8) ((int8_t *)C->data)[i * mm->n + j] = ((const int8_t *)dr->c)[src];
      else ((int32_t *)C->data)[i * mm->n + j] = ((const int32_t *)dr->c)[src];
    }
}

/* The interpreter on the same inputs; counts the output elements that differ. */
static int check_interp(const IrModule *m, const char *fname, const NpuMatmul *mm, InterpArg *args, int nargs,
                        int64_t *mismatches, DiagCtx *d) {
  DLTensor *c = args[mm->out_param].tensor;
  TvsNDArray *ref = tvs_ndarray_empty(c->ndim, c->shape, c->dtype);
  InterpArg *copy = xcalloc((size_t)nargs, sizeof *copy);
  memcpy(copy, args, (size_t)nargs * sizeof *copy);
  copy[mm->out_param].tensor = &ref->t;
  int rc = interp_run_tir(m, fname, copy, nargs, d);
  if (rc == 0) {
    size_t esize = mm->out_int8 ? 1 : 4;
    const char *x = c->data, *y = ref->t.data;
    *mismatches = 0;
    for (int64_t i = 0; i < mm->m * mm->n; i++) *mismatches += memcmp(x + (size_t)i * esize, y + (size_t)i * esize, esize) != 0;
  }
  free(copy);
  tvs_ndarray_free(ref);
  return rc;
}

int drv_npu_run(const IrModule *m, const char *fname, const DrvNpuOptions *o, InterpArg *args, int nargs,
                NpuReport *r, int64_t *mismatches, DiagCtx *d, char *err, size_t errlen) {
  NpuProgram p;
  NpuMatmul mm;
  if (drv_npu_build(m, fname, o, &p, &mm, NULL, d)) {
    npu_program_free(&p);
    return -1;
  }
  const DLTensor *A = args[mm.a_param].tensor, *B = args[mm.b_param].tensor;
  DLTensor *C = args[mm.out_param].tensor;
  if (!A || !B || !C || A->strides || B->strides || C->strides) {
    snprintf(err, errlen, "npu: the matmul's operands must be compact tensors");
    npu_program_free(&p);
    return -1;
  }
  Dram dr;
  pack(&o->cfg, &mm, A, B, &dr);
  void *data[3] = {dr.a, dr.b, dr.c};
  int rc = npu_sim_run(&o->cfg, &p, data, r, err, errlen);
  if (rc == 0 && o->cfg.functional) {
    unpack(&o->cfg, &mm, &dr, C);
    rc = check_interp(m, fname, &mm, args, nargs, mismatches, d);
  }
  free(dr.a), free(dr.b), free(dr.c);
  npu_program_free(&p);
  return rc;
}
