/* fuzz_interp.c - libFuzzer target: the reference interpreter.
 *
 * The input is a .tvs program; each prim_func that elaborates runs on the
 * interpreter with deterministic arguments.  The interpreter must finish with
 * results or an error (out-of-bounds access, division by zero, a bad
 * argument), never crash.  Steps are bounded before running: only functions
 * whose loops have constant extents, whose statement executions (the product
 * of enclosing extents, summed) stay under STEP_LIMIT, that have no while loop,
 * and whose buffers are small run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/interp.h"
#include "lang/elab.h"
#include "runtime/ndarray.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long n_ran, n_failed, n_skipped; /* functions, for the replay's report */

#define STEP_LIMIT 200000
#define ELEM_LIMIT 65536

static bool small_shape(TirExpr *const *shape, int n, int64_t *out) {
  int64_t count = 1;
  for (int i = 0; i < n; i++) {
    if (shape[i]->kind != TIR_INT || shape[i]->ival < 0 || shape[i]->ival > ELEM_LIMIT) return false;
    if (out) out[i] = shape[i]->ival;
    count *= shape[i]->ival;
    if (count > ELEM_LIMIT) return false;
  }
  return true;
}

/* Statement executions of s when run `times` times; -1 when unbounded or too many. */
static int64_t steps(const TirStmt *s, int64_t times) {
  if (!s) return 0;
  if (times > STEP_LIMIT) return -1;
  int64_t a, b;
  switch (s->kind) {
    case TIR_S_FOR:
      if (s->loop.extent->kind != TIR_INT || s->loop.extent->ival < 0 || s->loop.extent->ival > STEP_LIMIT) return -1;
      a = steps(s->loop.body, times * (s->loop.extent->ival ? s->loop.extent->ival : 1));
      return a < 0 ? -1 : times + a;
    case TIR_S_SEQ: {
      int64_t total = times;
      for (int i = 0; i < s->seq.n; i++) {
        if ((a = steps(s->seq.stmts[i], times)) < 0 || (total += a) > STEP_LIMIT) return -1;
      }
      return total;
    }
    case TIR_S_IF:
      a = steps(s->ifs.then_s, times), b = steps(s->ifs.else_s, times);
      return a < 0 || b < 0 ? -1 : times + a + b;
    case TIR_S_WHILE: return -1;
    case TIR_S_LET: a = steps(s->let.body, times); break;
    case TIR_S_ASSERT: a = steps(s->assrt.body, times); break;
    case TIR_S_BLOCK_REALIZE: a = steps(s->realize.block, times); break;
    case TIR_S_BLOCK:
      for (int i = 0; i < s->block.nallocs; i++)
        if (!small_shape(s->block.allocs[i]->shape, s->block.allocs[i]->ndim, NULL)) return -1;
      a = steps(s->block.init, times), b = steps(s->block.body, times);
      return a < 0 || b < 0 ? -1 : times + a + b;
    case TIR_S_ALLOCATE:
      if (!small_shape(s->alloc.extents, s->alloc.n, NULL)) return -1;
      a = steps(s->alloc.body, times);
      break;
    case TIR_S_DECL_BUFFER: a = steps(s->decl.body, times); break;
    case TIR_S_ATTR: a = steps(s->attr.body, times); break;
    default: return times;
  }
  return a < 0 || a + times > STEP_LIMIT ? -1 : a + times;
}

static DLDataType dl_of(DType t) {
  static const uint8_t code[] = {kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLBool, kDLInt};
  DLDataType d = {code[t.code < 7 ? t.code : 0], t.bits, t.lanes};
  if (t.code == DT_BOOL) d.bits = 8; /* bool is stored as one byte */
  return d;
}

/* Runs f if its run is bounded and its arguments can be made. */
static void run_func(const IrModule *m, const IrGlobal *g) {
  const TirFunc *f = g->tir;
  int64_t n = steps(f->body, 1);
  if (n < 0 || f->nparams > 8) {
    n_skipped++;
    return;
  }
  InterpArg args[8];
  TvsNDArray *arrays[8] = {0};
  memset(args, 0, sizeof args);
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map[i];
    int64_t shape[8];
    if (!b) {
      args[i].i = 3, args[i].f = 0.5; /* scalar params: a small value */
      continue;
    }
    if (b->ndim > 8 || !small_shape(b->shape, b->ndim, shape)) {
      n_skipped++;
      goto done;
    }
    arrays[i] = tvs_ndarray_empty(b->ndim, shape, dl_of(b->dtype));
    if (!arrays[i]) goto done;
    size_t bytes = (size_t)tvs_ndarray_numel(&arrays[i]->t) * ((b->dtype.bits * b->dtype.lanes + 7) / 8);
    for (size_t k = 0; k < bytes; k++) ((unsigned char *)arrays[i]->t.data)[k] = (unsigned char)(k * 7 % 5);
    args[i].tensor = &arrays[i]->t;
  }
  DiagCtx d;
  diag_init(&d, NULL);
  int rc = interp_run_tir(m, g->name, args, f->nparams, &d);
  rc == 0 ? n_ran++ : n_failed++;
  if (rc != 0 && d.nerr == 0) {
    fprintf(stderr, "interp_run_tir(%s) failed without an error\n", g->name);
    abort();
  }
  diag_free(&d);
done:
  for (int i = 0; i < f->nparams; i++) tvs_ndarray_free(arrays[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 14) return 0;
  SourceFile *src = src_from_string("fuzz_interp.tvs", (const char *)data, size);
  DiagCtx d;
  diag_init(&d, NULL);
  IrModule *m = tvs_load_module(src, &d);
  for (int i = 0; m && i < m->nfuncs && i < 4; i++)
    if (m->funcs[i].kind == IR_FUNC_TIR) run_func(m, &m->funcs[i]);
  ir_module_free(m);
  diag_free(&d);
  src_free(src);
  return 0;
}

#ifndef TVS_LIBFUZZER
static void fuzz_report(void) {
  printf("%ld functions ran, %ld stopped with an error, %ld skipped (unbounded or large)\n", n_ran, n_failed,
         n_skipped);
}
#include "replay_main.h"
#endif
