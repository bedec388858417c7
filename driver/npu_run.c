/* npu_run.c - the npu target in the driver: the stream of a prim_func (an
 * int8 matmul or conv2d), the host side of a run (tensors packed into DRAM
 * tiles, zero-padded to the GEMM block, and the result unpacked), and the
 * check against the interpreter, which stays the oracle. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "driver/npu.h"
#include "runtime/ndarray.h"

void drv_npu_options_default(DrvNpuOptions *o) {
  npu_config_default(&o->cfg);
  o->vthreads = 0;
}

static int build_conv(const TirFunc *f, const DrvNpuOptions *o, NpuStage upto, NpuLowered *l, DrvNpuKernelInfo *k,
                      DiagCtx *d) {
  k->conv = true;
  k->ct.vthreads = o->vthreads ? o->vthreads : k->cv.vthreads;
  cg_npu_choose_conv_tiling(&o->cfg, &k->cv, &k->ct);
  char err[512];
  if (cg_npu_conv2d_lower(&o->cfg, &k->cv, &k->ct, l, err, sizeof err) || cg_npu_lower_to(l, upto, err, sizeof err)) {
    diag_error(d, f->span, "%s", err);
    return -1;
  }
  return 0;
}

static int build_matmul(const TirFunc *f, const DrvNpuOptions *o, NpuStage upto, NpuLowered *l, DrvNpuKernelInfo *k,
                        DiagCtx *d) {
  k->t.vthreads = o->vthreads ? o->vthreads : k->mm.vthreads;
  char err[512];
  if (cg_npu_check_schedule_tiles(&o->cfg, &k->mm, err, sizeof err)) {
    diag_error(d, f->span, "%s", err);
    return -1;
  }
  cg_npu_choose_tiling(&o->cfg, &k->mm, &k->t);
  if (cg_npu_matmul_lower(&o->cfg, &k->mm, &k->t, l, err, sizeof err) || cg_npu_lower_to(l, upto, err, sizeof err)) {
    diag_error(d, f->span, "%s", err);
    return -1;
  }
  return 0;
}

bool drv_npu_is_kernel(const IrModule *m, const char *fname) {
  const IrGlobal *g = ir_module_lookup(m, fname);
  if (!g || !g->tir) return false;
  NpuConv2d cv;
  if (cg_npu_find_conv2d(g->tir, &cv)) return true;
  DiagCtx quiet;
  diag_init(&quiet, NULL);
  NpuMatmul mm;
  bool ok = cg_npu_find_matmul(g->tir, &mm, &quiet);
  diag_free(&quiet);
  return ok;
}

int drv_npu_lower(const IrModule *m, const char *fname, const DrvNpuOptions *o, NpuStage upto, NpuLowered *l,
                  DrvNpuKernelInfo *info, DiagCtx *d) {
  cg_npu_lowered_init(l, 1);
  const IrGlobal *g = ir_module_lookup(m, fname);
  if (!g || !g->tir) {
    diag_error(d, span_none, "npu: no prim_func '%s'", fname);
    return -1;
  }
  DrvNpuKernelInfo k;
  memset(&k, 0, sizeof k);
  int rc;
  if (cg_npu_find_conv2d(g->tir, &k.cv)) rc = build_conv(g->tir, o, upto, l, &k, d);
  else if (!cg_npu_find_matmul(g->tir, &k.mm, d)) rc = -1;
  else rc = build_matmul(g->tir, o, upto, l, &k, d);
  if (rc == 0 && info) *info = k;
  return rc;
}

int drv_npu_build(const IrModule *m, const char *fname, const DrvNpuOptions *o, NpuProgram *p,
                  DrvNpuKernelInfo *info, DiagCtx *d) {
  NpuLowered l;
  int rc = drv_npu_lower(m, fname, o, NPU_STAGE_ISA, &l, info, d);
  if (rc == 0) cg_npu_lowered_take(&l, p);
  else npu_program_init(p), cg_npu_lowered_free(&l);
  return rc;
}

/* DRAM images: A (inp tiles), B (wgt tiles), C (acc or out tiles). */
typedef struct Dram { int8_t *a, *b; void *c; } Dram;

static void pack_matmul(const NpuConfig *c, const NpuMatmul *mm, const DLTensor *A, const DLTensor *B, Dram *dr) {
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

static void unpack_matmul(const NpuConfig *c, const NpuMatmul *mm, const Dram *dr, DLTensor *C) {
  int64_t bt = c->batch, bo = c->block_out, nt = (mm->n + bo - 1) / bo;
  for (int64_t i = 0; i < mm->m; i++)
    for (int64_t j = 0; j < mm->n; j++) {
      int64_t src = ((i / bt) * nt + j / bo) * bt * bo + (i % bt) * bo + j % bo;
      if (mm->out_int8) ((int8_t *)C->data)[i * mm->n + j] = ((const int8_t *)dr->c)[src];
      else ((int32_t *)C->data)[i * mm->n + j] = ((const int32_t *)dr->c)[src];
    }
}

/* VTA's layouts: inp [n][c/16][h][w] x 16 channels, wgt [o/16][c/16][ky][kx]
 * x 16 x 16, acc [n][o/16][oy][ox] x 16 channels. */
static void pack_conv(const NpuConfig *c, const NpuConv2d *cv, const DLTensor *A, const DLTensor *W, Dram *dr) {
  int64_t bi = c->block_in, bo = c->block_out, cb = (cv->c + bi - 1) / bi, ob = (cv->o + bo - 1) / bo;
  int64_t taps = cv->kh * cv->kw, hw = cv->h * cv->w;
  dr->a = xcalloc((size_t)(cv->n * cb * hw * bi), 1);
  dr->b = xcalloc((size_t)(ob * cb * taps * bo * bi), 1);
  dr->c = xcalloc((size_t)(cv->n * ob * cv->oh * cv->ow * bo), cv->out_int8 ? 1 : sizeof(int32_t));
  const int8_t *a = A->data, *w = W->data;
  for (int64_t n = 0; n < cv->n; n++)
    for (int64_t ch = 0; ch < cv->c; ch++)
      for (int64_t p = 0; p < hw; p++)
        dr->a[((n * cb + ch / bi) * hw + p) * bi + ch % bi] = a[(n * cv->c + ch) * hw + p];
  for (int64_t o = 0; o < cv->o; o++)
    for (int64_t ch = 0; ch < cv->c; ch++)
      for (int64_t t = 0; t < taps; t++)
        dr->b[(((o / bo) * cb + ch / bi) * taps + t) * bo * bi + (o % bo) * bi + ch % bi] = w[(o * cv->c + ch) * taps + t];
}

static void unpack_conv(const NpuConfig *c, const NpuConv2d *cv, const Dram *dr, DLTensor *C) {
  int64_t bo = c->block_out, ob = (cv->o + bo - 1) / bo, ohw = cv->oh * cv->ow;
  for (int64_t n = 0; n < cv->n; n++)
    for (int64_t o = 0; o < cv->o; o++)
      for (int64_t p = 0; p < ohw; p++) {
        int64_t dst = (n * cv->o + o) * ohw + p, src = ((n * ob + o / bo) * ohw + p) * bo + o % bo;
        if (cv->out_int8) ((int8_t *)C->data)[dst] = ((const int8_t *)dr->c)[src];
        else ((int32_t *)C->data)[dst] = ((const int32_t *)dr->c)[src];
      }
}

/* The interpreter on the same inputs; counts the output elements that differ. */
static int check_interp(const IrModule *m, const char *fname, int out_param, InterpArg *args, int nargs,
                        int64_t *mismatches, DiagCtx *d) {
  DLTensor *c = args[out_param].tensor;
  TvsNDArray *ref = tvs_ndarray_empty(c->ndim, c->shape, c->dtype);
  InterpArg *copy = xcalloc((size_t)nargs, sizeof *copy);
  memcpy(copy, args, (size_t)nargs * sizeof *copy);
  copy[out_param].tensor = &ref->t;
  int rc = interp_run_tir(m, fname, copy, nargs, d);
  if (rc == 0) {
    size_t esize = (size_t)(c->dtype.bits / 8);
    int64_t n = tvs_ndarray_numel(c);
    const char *x = c->data, *y = ref->t.data;
    *mismatches = 0;
    for (int64_t i = 0; i < n; i++) *mismatches += memcmp(x + (size_t)i * esize, y + (size_t)i * esize, esize) != 0;
  }
  free(copy);
  tvs_ndarray_free(ref);
  return rc;
}

int drv_npu_run(const IrModule *m, const char *fname, const DrvNpuOptions *o, InterpArg *args, int nargs,
                NpuReport *r, int64_t *mismatches, DiagCtx *d, char *err, size_t errlen) {
  NpuProgram p;
  DrvNpuKernelInfo k;
  if (drv_npu_build(m, fname, o, &p, &k, d)) {
    npu_program_free(&p);
    return -1;
  }
  int ia = k.conv ? k.cv.a_param : k.mm.a_param, ib = k.conv ? k.cv.w_param : k.mm.b_param;
  int io = k.conv ? k.cv.out_param : k.mm.out_param;
  const DLTensor *A = args[ia].tensor, *B = args[ib].tensor;
  DLTensor *C = args[io].tensor;
  if (!A || !B || !C || A->strides || B->strides || C->strides) {
    snprintf(err, errlen, "npu: the kernel's operands must be compact tensors");
    npu_program_free(&p);
    return -1;
  }
  Dram dr;
  if (k.conv) pack_conv(&o->cfg, &k.cv, A, B, &dr);
  else pack_matmul(&o->cfg, &k.mm, A, B, &dr);
  void *data[3] = {dr.a, dr.b, dr.c};
  int rc = npu_sim_run(&o->cfg, &p, data, r, err, errlen);
  if (rc == 0 && o->cfg.functional) {
    if (k.conv) unpack_conv(&o->cfg, &k.cv, &dr, C);
    else unpack_matmul(&o->cfg, &k.mm, &dr, C);
    rc = check_interp(m, fname, io, args, nargs, mismatches, d);
  }
  free(dr.a), free(dr.b), free(dr.c);
  npu_program_free(&p);
  return rc;
}
