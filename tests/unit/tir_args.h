/* tir_args.h - shared by the oracle tests (test_lower, test_codegen): the
 * DLPack dtype of a TIR dtype, evaluation of buffer shapes over bound
 * symbolic dims, and deterministic small input values of every dtype. */
#ifndef TVS_TESTS_TIR_ARGS_H
#define TVS_TESTS_TIR_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ir/tir.h"
#include "runtime/ndarray.h"

#ifndef MAX_ARGS
#define MAX_ARGS 32 /* parameters of one call */
#endif

static DLDataType dl_of(DType t) {
  DLDataType d = {kDLInt, t.bits, 1};
  switch (t.code) {
    case DT_UINT: d.code = kDLUInt; break;
    case DT_FLOAT: d.code = kDLFloat; break;
    case DT_BFLOAT: d.code = kDLBfloat; break;
    case DT_BOOL: d.code = kDLBool; d.bits = 8; break;
    default: break;
  }
  return d;
}

/* Values of symbolic dims / int scalar params. */
typedef struct Env {
  const TirVar *vars[MAX_ARGS * 4];
  int64_t vals[MAX_ARGS * 4];
  int n;
} Env;

static bool env_get(Env *env, const TirVar *v, int64_t *out) {
  for (int i = 0; i < env->n; i++)
    if (env->vars[i] == v) return *out = env->vals[i], true;
  return false;
}

static bool eval_shape(Env *env, const TirExpr *e, int64_t *out) {
  int64_t a, b;
  switch (e->kind) {
    case TIR_INT: *out = e->ival; return true;
    case TIR_VAR:
      if (env_get(env, e->var, out)) return true;
      if (env->n >= MAX_ARGS * 4) return false;
      env->vars[env->n] = e->var;
      env->vals[env->n++] = 7;
      *out = 7;
      return true;
    case TIR_CAST: return eval_shape(env, e->un.a, out);
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_FLOORDIV: case TIR_FLOORMOD:
      if (!eval_shape(env, e->bin.a, &a) || !eval_shape(env, e->bin.b, &b)) return false;
      if (e->kind == TIR_ADD) *out = a + b;
      else if (e->kind == TIR_SUB) *out = a - b;
      else if (e->kind == TIR_MUL) *out = a * b;
      else if (b == 0) return false;
      else if (e->kind == TIR_FLOORDIV) *out = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
      else *out = a - b * (a / b - ((a % b != 0) && ((a < 0) != (b < 0))));
      return true;
    default: return false;
  }
}

static uint64_t rng_state;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33);
}

/* Deterministic small values of every dtype (never 0 for ints: programs divide). */
static void fill(DLTensor *t, DType dt) {
  int64_t n = tvs_ndarray_numel(t);
  unsigned char *p = t->data;
  for (int64_t i = 0; i < n; i++) {
    uint32_t r = rnd();
    switch (dt.code) {
      case DT_FLOAT:
        if (dt.bits == 32) ((float *)p)[i] = (float)((int)(r % 2001) - 1000) / 250.0f;
        else if (dt.bits == 64) ((double *)p)[i] = (double)((int)(r % 2001) - 1000) / 250.0;
        else ((uint16_t *)p)[i] = (uint16_t)(((r & 1) << 15) | ((13 + (r >> 1) % 4) << 10) | ((r >> 4) & 0x3ff));
        break;
      case DT_BFLOAT:
        ((uint16_t *)p)[i] = (uint16_t)(((r & 1) << 15) | ((125 + (r >> 1) % 4) << 7) | ((r >> 4) & 0x7f));
        break;
      case DT_BOOL: p[i] = r & 1; break;
      default: {
        int64_t v = (int64_t)(r % 16) - 8;
        if (v >= 0) v++;
        if (dt.code == DT_UINT) v = (int64_t)(r % 16) + 1;
        memcpy(p + (size_t)i * (dt.bits / 8), &v, dt.bits / 8);
      }
    }
  }
}

#endif
