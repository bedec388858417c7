/* npu_find_matmul.c - recognising the int8 matmul the NPU backend runs.
 *
 * The computation is read from the update store of the reduction block
 * (C[i, j] = C[i, j] + int32(A[i, k]) * int32(B[k, j]) or B[j, k]); loop
 * transformations keep that block body, so a scheduled function is
 * recognised too.  A loop bound to "vthread" gives the virtual threads. */
#include <string.h>

#include "codegen/npu.h"
#include "ir/visit.h"

typedef struct Finder {
  const TirFunc *f;
  int nstores;              /* stores anywhere in the function */
  const TirStmt *update;    /* the matmul's update store */
  int vthreads;
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

static bool pre_stmt(TirVisitor *v, const TirStmt *s) {
  Finder *fd = v->ctx;
  if (s->kind == TIR_S_STORE) {
    fd->nstores++;
    if (is_update(s)) fd->update = s;
  }
  if (s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING && s->loop.thread_tag &&
      !strncmp(s->loop.thread_tag, "vthread", 7) && s->loop.extent->kind == TIR_INT)
    fd->vthreads = (int)s->loop.extent->ival;
  return true;
}

static int param_of(const TirFunc *f, const TirBuffer *b) {
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map[i] == b) return i;
  return -1;
}

static bool same_var(const TirExpr *a, const TirExpr *b) {
  return a->kind == TIR_VAR && b->kind == TIR_VAR && a->var == b->var;
}

static bool static_dim(const TirBuffer *b, int i, int64_t *out) {
  if (b->shape[i]->kind != TIR_INT) return false;
  *out = b->shape[i]->ival;
  return *out > 0;
}

/* Reads the roles and sizes off the update store. */
static bool match_roles(const TirFunc *f, const TirStmt *s, NpuMatmul *mm) {
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
  mm->a_param = param_of(f, a->load.buf);
  mm->b_param = param_of(f, b->load.buf);
  mm->c_param = param_of(f, s->store.buf);
  if (mm->a_param < 0 || mm->b_param < 0 || mm->c_param < 0) return false;
  int64_t kb;
  return static_dim(a->load.buf, 0, &mm->m) && static_dim(a->load.buf, 1, &mm->k) &&
         static_dim(b->load.buf, mm->b_transposed ? 0 : 1, &mm->n) &&
         static_dim(b->load.buf, mm->b_transposed ? 1 : 0, &kb) && kb == mm->k;
}

bool cg_npu_find_matmul(const TirFunc *f, NpuMatmul *out, DiagCtx *d) {
  Finder fd = {f, 0, NULL, 1};
  TirVisitor v = {.pre_stmt = pre_stmt, .ctx = &fd};
  tir_visit_func(&v, f);
  memset(out, 0, sizeof *out);
  if (!fd.update || fd.nstores > 2 || !match_roles(f, fd.update, out)) {
    diag_error(d, f->span,
               "the npu target runs int8 matmuls: C[i, j] += int32(A[i, k]) * int32(B[k, j]) (or B[j, k]) "
               "with int8 A, B and an int32 C of static shapes, and nothing else in the function");
    return false;
  }
  int64_t cm, cn;
  const TirBuffer *c = f->buffer_map[out->c_param];
  if (!static_dim(c, 0, &cm) || !static_dim(c, 1, &cn) || cm != out->m || cn != out->n) {
    diag_error(d, f->span, "npu: the output's shape is not [%lld, %lld]", (long long)out->m, (long long)out->n);
    return false;
  }
  if (fd.vthreads < 1 || fd.vthreads > 4) {
    diag_error(d, f->span, "npu: %d virtual threads (the scratchpads are split 1 to 4 ways)", fd.vthreads);
    return false;
  }
  out->vthreads = fd.vthreads;
  return true;
}
