/* default_schedule.c - the graph pipeline's default CPU schedules (see
 * default_schedule.h): a rule per operator family, tried in order, each on a
 * one-function module with its errors kept out of the user's diagnostics. */
#include "sched/default_schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/host_cpu.h"
#include "base/source.h"
#include "base/vec.h"
#include "ir/relax_op.h"
#include "ir/transform.h"
#include "ir/visit.h"
#include "sched/default_schedule_internal.h"
#include "sched/schedule.h"

/* Work below this many iterations stays serial: a parallel region costs the
 * thread pool's wake-up (microseconds), more than a small loop takes. */
#define PARALLEL_MIN_WORK 32768
/* Most outputs a reduction is rfactor'ed for (its partials: outputs x lanes). */
#define RFACTOR_MAX_OUTPUTS 4096

const char *sch_default_script(const char *name) {
  for (int i = 0; i < tvs_default_schedule_count; i++) {
    const char *f = tvs_default_schedule_sources[i].file, *slash = strrchr(f, '/');
    if (!strcmp(slash ? slash + 1 : f, name)) return tvs_default_schedule_sources[i].text;
  }
  return NULL;
}

/* ------------------------------------------------------------ IR queries */

static bool is_f32(DType t) { return t.code == DT_FLOAT && t.bits == 32 && t.lanes == 1; }

/* The block's iter kinds as a string ("SSSSRRR"), at most cap-1 of them. */
static void iter_kinds(const TirBlock *b, char *buf, int cap) {
  int n = 0;
  for (int i = 0; i < b->niters && n < cap - 1; i++)
    buf[n++] = b->iters[i].type == TIR_ITER_SPATIAL ? 'S' : b->iters[i].type == TIR_ITER_REDUCE ? 'R' : 'O';
  buf[n] = 0;
}

static bool const_extent(const TirIterVar *iv, int64_t *v) { return tir_is_const_int(iv->dom.extent, v); }

/* --------------------------------------------------------------- the rules */

/* conv2d_nchw float32: the script default_schedule.h describes, chosen as
 * bench/conv2d_bench.c's default_schedule() does. */
static const char *conv2d_rule(const TirFunc *f, bool prepack, char *buf, size_t cap) {
  const TirBlock *b = sch_ds_find_block(f, "conv2d_nchw");
  char kinds[16];
  int64_t F;
  if (!b || b->nwrites != 1 || !is_f32(b->writes[0].buffer->dtype)) return NULL;
  iter_kinds(b, kinds, sizeof kinds);
  if (strcmp(kinds, "SSSSRRR") || !const_extent(&b->iters[1], &F)) return NULL;
  const TirBlock *pad = sch_ds_find_block(f, "pad_temp");
  if (!pad || pad->body->kind != TIR_S_STORE) return NULL;
  bool padded = pad->body->store.value->kind != TIR_LOAD;
  bool avx512 = host_cpu_has_avx512();
  int lanes = avx512 ? 16 : 8;
  if (F % (2 * lanes) && avx512 && F % lanes == 0)
    snprintf(buf, cap, "conv2d_nchw_avx512_f16.sched.tvs");
  else if (F % (2 * lanes) && F % 8 == 0)
    snprintf(buf, cap, "conv2d_nchw_avx512_f8.sched.tvs");
  else if (F % (2 * lanes))
    snprintf(buf, cap, "conv2d_nchw_generic.sched.tvs");
  else
    snprintf(buf, cap, "conv2d_nchw_%s%s%s.sched.tvs", avx512 ? "avx512" : "avx2",
             prepack && avx512 ? "_prepacked" : "", padded ? "" : "_nopad");
  return buf;
}

/* conv2d_NCHWc float32 with an output block of 16 on AVX-512 (the blocked
 * layout of the convert-layout stage): conv2d_NCHWc_avx512[_f16][_nopad].sched.tvs
 * (_f16: an odd number of output blocks, one per task). */
static const char *conv2d_nchwc_rule(const TirFunc *f, char *buf, size_t cap) {
  const TirBlock *b = sch_ds_find_block(f, "conv2d_NCHWc");
  char kinds[16];
  int64_t OB, IC, FB;
  if (!b || b->nwrites != 1 || !is_f32(b->writes[0].buffer->dtype) || !host_cpu_has_avx512()) return NULL;
  iter_kinds(b, kinds, sizeof kinds);
  if (strcmp(kinds, "SSSSSRRR") || !const_extent(&b->iters[4], &OB) || OB != 16 || !const_extent(&b->iters[5], &IC) ||
      IC % 16 || !const_extent(&b->iters[1], &FB))
    return NULL;
  snprintf(buf, cap, "conv2d_NCHWc_avx512%s%s.sched.tvs", FB % 2 ? "_f16" : "",
           sch_ds_find_block(f, "data_pad") ? "" : "_nopad");
  return buf;
}

/* grouped and depthwise conv2d_nchw float32 (TOPI's group_conv2d_nchw with
 * its pad_temp stage): group_conv2d_nchw.sched.tvs. */
static const char *group_conv2d_rule(const TirFunc *f) {
  const TirBlock *b = sch_ds_find_block(f, "group_conv2d_nchw");
  char kinds[16];
  if (!b || b->nwrites != 1 || !is_f32(b->writes[0].buffer->dtype)) return NULL;
  iter_kinds(b, kinds, sizeof kinds);
  const TirBlock *pad = sch_ds_find_block(f, "pad_temp");
  if (strcmp(kinds, "SSSSRRR") || !pad || pad->body->kind != TIR_S_STORE) return NULL;
  return "group_conv2d_nchw.sched.tvs";
}

/* matmul (A[..., i, k] B[k, j]) or linear (A[..., i, k] B[j, k] + bias),
 * float32, with 2-d weights B: the leading spatial loops (batch and rows)
 * fuse into one row loop (*nfuse of them; the rule's prologue does it), at
 * least 16 rows in all (fewer: packing B on every call costs more than the
 * tile gains; the generic rule runs them as parallel dot products) and
 * columns a multiple of 64 (the tile; a predicated vector tail is slow). */
static const char *matmul_rule(const TirFunc *f, const char **block, int *nfuse) {
  static const char *const names[] = {"matmul", "T_linear"};
  for (int i = 0; i < 2; i++) {
    const TirBlock *b = sch_ds_find_block(f, names[i]);
    char kinds[16];
    if (!b || b->nwrites != 1 || !is_f32(b->writes[0].buffer->dtype) || b->niters < 3) continue;
    iter_kinds(b, kinds, sizeof kinds);
    int n = b->niters, wread = i == 0 ? 1 : 2;
    bool shape_ok = kinds[n - 1] == 'R' && b->nreads > wread && b->reads[wread].buffer->ndim == 2;
    for (int k = 0; k < n - 1; k++) shape_ok &= kinds[k] == 'S';
    int64_t M = 1, N, e;
    for (int k = 0; shape_ok && k < n - 2; k++) {
      shape_ok &= const_extent(&b->iters[k], &e);
      M *= e;
    }
    if (!const_extent(&b->iters[n - 2], &N) || N % 64) continue;
    if (shape_ok && M >= 16) {
      *block = names[i];
      *nfuse = n - 2;
      return i == 0 ? "matmul_nn.sched.tvs" : "matmul_nt.sched.tvs";
    }
    /* batched operands (B[b, k, j], as many batch dims as the output): the
     * batch loops fuse into one, each batch element tiled as above */
    bool batched = i == 0 && n >= 4 && kinds[n - 1] == 'R' && b->reads[1].buffer->ndim == n - 1 &&
                   b->reads[0].buffer->ndim == n - 1;
    for (int k = 0; batched && k < n - 1; k++) batched &= kinds[k] == 'S' && const_extent(&b->iters[k], &e);
    if (!batched) continue;
    *block = names[i];
    *nfuse = -(n - 3); /* negative: batch loops to fuse, for the batched script */
    return "matmul_batch_nn.sched.tvs";
  }
  return NULL;
}

const char *sch_default_rule(const TirFunc *f) {
  static char buf[96];
  const char *block;
  int nfuse;
  const char *r = conv2d_rule(f, false, buf, sizeof buf);
  if (!r) r = group_conv2d_rule(f);
  if (!r) r = matmul_rule(f, &block, &nfuse);
  return r ? r : "generic";
}

/* Runs an embedded script (after `prologue`, may be NULL) on *m; 0 or -1. */
static int run_script(IrModule **m, const char *name, const char *prologue) {
  const char *text = sch_default_script(name);
  if (!text) return -1;
  char *full = xmalloc(strlen(text) + (prologue ? strlen(prologue) : 0) + 1);
  strcpy(full, prologue ? prologue : "");
  strcat(full, text);
  SourceFile *src = src_from_string(name, full, strlen(full));
  free(full);
  DiagCtx quiet;
  diag_init(&quiet, NULL);
  int rc = sch_eval_text(src, m, &quiet, NULL);
  if (quiet.nerr) rc = -1;
  diag_free(&quiet);
  src_free(src);
  return rc;
}

/* The blocks that follow main_block in f (pre-order): its fused epilogue. */
static int epilogue_blocks(const TirFunc *f, const char *main_block, const char **out) {
  const char *names[SCH_DS_MAX_BLOCKS];
  int n = 0, k = 0;
  sch_ds_collect_blocks(f->body, names, &n, SCH_DS_MAX_BLOCKS);
  bool after = false;
  for (int i = 0; i < n; i++) {
    if (after) out[k++] = names[i];
    after |= !strcmp(names[i], main_block);
  }
  return k;
}

/* Folds the blocks that followed the main block in the function as fused
 * (orig: the epilogue, e.g. bias and activation) into the tile's write-back,
 * one at a time in data-flow order; those that do not fold stay for the
 * generic rule. */
static void inline_epilogue(IrModule **m, const TirFunc *orig, const char *main_block) {
  const char *names[SCH_DS_MAX_BLOCKS];
  int n = epilogue_blocks(orig, main_block, names);
  SchDsQuiet q;
  sch_ds_quiet_open(&q, *m);
  for (int i = 0; i < n; i++) {
    SchRV b = sch_get_block(q.s, names[i], NULL);
    if (!sch_ds_try_ok(&q, b) || !sch_ds_try_ok(&q, sch_reverse_compute_inline(q.s, b))) break;
  }
  sch_ds_quiet_close(&q, m);
}

/* ------------------------------------------------------ the generic rule */

/* A reduction whose innermost loop is a long reduce loop (a sum or max along
 * the contiguous axis: mean, norms, softmax's sums, a reduction to a scalar)
 * runs one scalar accumulator per output, which LLVM does not vectorize when
 * it is a float (that would reassociate).  As MetaSchedule's AddRFactor, the loop is split by the
 * vector width and rfactor'ed on the inner part: `lanes` partial results
 * accumulate in a vector, and a short write-back block folds them.  Only
 * while the partials stay small (few outputs); the schedule is left as it
 * was when a step is refused.  The leading spatial loops (shared with the
 * write-back) are made parallel when the work pays for threads. */
static bool rfactor_nest(SchDsQuiet *q, const SchDsNest *n, int lanes, int lead) {
  int last = n->nloops - 1;
  int64_t ext, spatial = 1, work = 1;
  if (lead == n->nloops || sch_ds_loop_is_spatial(n, last)) return false;
  /* LLVM vectorizes an integer reduction itself (integer + is associative) */
  if (n->block->nwrites != 1 || !dt_is_float(n->block->writes[0].buffer->dtype)) return false;
  if (!tir_is_const_int(n->loops[last]->loop.extent, &ext) || ext % lanes || ext < 4 * lanes) return false;
  for (int i = 0; i < n->nloops; i++) {
    int64_t e;
    if (!tir_is_const_int(n->loops[i]->loop.extent, &e) || e <= 0) return false;
    if (i < lead) spatial *= e;
    work *= e;
  }
  if (spatial > RFACTOR_MAX_OUTPUTS) return false;
  SchRV *loops = NULL, *rfl = NULL;
  int before = sch_num_versions(q->s);
  int nl = sch_get_loops(q->s, sch_get_block(q->s, n->block->name, NULL), &loops);
  int64_t factors[2] = {0, lanes};
  SchRV parts[2], rf = -1;
  bool ok = sch_ds_try_ok(q, nl) && nl == n->nloops &&
            sch_ds_try_ok(q, sch_split(q->s, loops[last], factors, 2, true, false, parts)) &&
            sch_ds_try_ok(q, rf = sch_rfactor(q->s, parts[1], -1));
  int nrf = ok ? sch_get_loops(q->s, rf, &rfl) : -1;
  ok = ok && sch_ds_try_ok(q, nrf) && nrf == n->nloops + 1 && sch_ds_try_ok(q, sch_vectorize(q->s, rfl[nrf - 1])) &&
       sch_ds_try_ok(q, sch_decompose_reduction(q->s, rf, rfl[lead]));
  if (!ok) sch_ds_undo_to(q, before);
  if (ok && lead > 0 && work >= PARALLEL_MIN_WORK) {
    SchRV outer = lead > 1 ? sch_fuse(q->s, rfl, lead, true) : rfl[0];
    if (sch_ds_try_ok(q, outer)) sch_ds_try_ok(q, sch_parallel(q->s, outer));
  }
  free(loops);
  free(rfl);
  return ok;
}

/* Parallel over the leading spatial loops of one nest, vectorized along its
 * innermost loop when that is spatial with a constant multiple of the lanes;
 * a reduction along its innermost loop rfactor'ed when that pays. */
static void schedule_nest(SchDsQuiet *q, const SchDsNest *n, int lanes) {
  int lead = 0;
  while (lead < n->nloops && sch_ds_loop_is_spatial(n, lead)) lead++;
  if (rfactor_nest(q, n, lanes, lead)) return;
  if (lead == 0) return;
  int64_t work = 1, ext;
  bool known = true;
  for (int i = 0; i < n->nloops; i++) {
    if (tir_is_const_int(n->loops[i]->loop.extent, &ext)) work *= ext > 0 ? ext : 1;
    else known = false;
  }
  SchRV *loops = NULL;
  int nl = sch_get_loops(q->s, sch_get_block(q->s, n->block->name, NULL), &loops);
  if (!sch_ds_try_ok(q, nl) || nl != n->nloops) {
    free(loops);
    return;
  }
  int par_end = lead; /* loops [0, par_end) fuse into the parallel loop */
  int64_t inner;
  if (lead == n->nloops && lead >= 1 && tir_is_const_int(n->loops[lead - 1]->loop.extent, &inner) &&
      inner % lanes == 0 && inner >= lanes) {
    int64_t factors[2] = {0, lanes};
    SchRV parts[2];
    if (sch_ds_try_ok(q, sch_split(q->s, loops[lead - 1], factors, 2, true, false, parts))) {
      if (sch_ds_try_ok(q, sch_vectorize(q->s, parts[1]))) loops[lead - 1] = parts[0];
    }
  }
  if (known && work < PARALLEL_MIN_WORK) {
    free(loops);
    return;
  }
  SchRV outer = par_end > 1 ? sch_fuse(q->s, loops, par_end, true) : loops[0];
  if (sch_ds_try_ok(q, outer)) sch_ds_try_ok(q, sch_parallel(q->s, outer));
  free(loops);
}

/* Each root-level nest of the only function of *m that no rule touched,
 * after inlining the producers among only[0..nonly) (NULL: all; after a
 * family rule only its epilogue's, since its staging blocks must stay). */
static void generic_rule(IrModule **m, int lanes, const char *const *only, int nonly) {
  sch_ds_inline_producers(m, only, nonly);
  const TirFunc *f = (*m)->funcs[0].tir;
  const TirStmt *root = f->body;
  if (!root || root->kind != TIR_S_BLOCK_REALIZE) return;
  const TirStmt *body = root->realize.block->block.body;
  const TirStmt *const *items = body->kind == TIR_S_SEQ ? (const TirStmt *const *)body->seq.stmts : &body;
  int nitems = body->kind == TIR_S_SEQ ? body->seq.n : 1;
  SchDsQuiet q;
  sch_ds_quiet_open(&q, *m);
  for (int i = 0; i < nitems; i++) {
    SchDsNest n;
    if (items[i]->kind == TIR_S_FOR && !sch_ds_has_scheduled_loop(items[i]) && sch_ds_perfect_nest(items[i], &n))
      schedule_nest(&q, &n, lanes);
  }
  sch_ds_quiet_close(&q, m);
}

/* ------------------------------------------- weights packed ahead of time */

/* A conv2d whose weights are constants of the model gets the prepacked
 * script: its weight parameter takes the packed layout [F/16, KH, KW, C, 16]
 * and the graph passes the constant packed once, here (what TVM does by
 * rewriting a layout-free weight's layout and folding the rewrite into the
 * constant), instead of packing it on every call. */
typedef struct PackedWeight {
  const char *func; /* the prim_func */
  int param;        /* its weight parameter (= the call_tir argument) */
} PackedWeight;

typedef struct PackedWeights {
  PackedWeight *items;
  int n, cap;
} PackedWeights;

static void packed_weights_add(PackedWeights *pw, const char *func, int param) {
  PackedWeight w = {func, param};
  VEC_PUSH(pw->items, pw->n, pw->cap, w);
}

/* The call_tir's argument tuple when e calls prim_func name, else NULL. */
static const RxExpr *call_tir_args(const RxExpr *e, const char *name) {
  if (!e || e->kind != RX_CALL || !e->call.op || e->call.op->id != RX_OP_CALL_TIR || e->call.n < 2) return NULL;
  const RxExpr *callee = e->call.args[0], *args = e->call.args[1];
  if (callee->kind != RX_GLOBAL_VAR || strcmp(callee->gvar.name, name) || args->kind != RX_TUPLE) return NULL;
  return args;
}

/* Counts f's calls of name whose argument idx is / is not a float32 constant. */
static void count_const_args(const RxExpr *body, const char *name, int idx, int *nconst, int *nother) {
  if (!body || body->kind != RX_SEQ) return;
  for (int b = 0; b < body->seq.nblocks; b++)
    for (int i = 0; i < body->seq.blocks[b].n; i++) {
      const RxExpr *args = call_tir_args(body->seq.blocks[b].bindings[i].value, name);
      if (!args) continue;
      const RxExpr *w = idx < args->tuple.n ? args->tuple.fields[idx] : NULL;
      if (w && w->kind == RX_CONST && is_f32(w->cnst.dtype) && w->cnst.ndim == 4) (*nconst)++;
      else (*nother)++;
    }
}

/* The weight parameter of a conv2d prim_func whose every call passes a
 * constant there, when the prepacked script would apply; else -1. */
static int prepackable_weight(const IrModule *m, const char *name, const TirFunc *f) {
  char buf[96];
  const char *script = conv2d_rule(f, true, buf, sizeof buf);
  if (!script || !strstr(script, "_prepacked")) return -1;
  const TirBlock *b = sch_ds_find_block(f, "conv2d_nchw");
  if (b->nreads < 2) return -1;
  int p = -1;
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map[i] && f->buffer_map[i]->data == b->reads[1].buffer->data) p = i;
  if (p < 0) return -1;
  int nconst = 0, nother = 0;
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_RELAX) count_const_args(m->funcs[i].rx->body, name, p, &nconst, &nother);
  return nconst > 0 && nother == 0 ? p : -1;
}

/* w [F, C, KH, KW] as [F/16, KH, KW, C, 16]. */
static RxExpr *pack_const(IrHeap *h, const RxExpr *w) {
  const int64_t *s = w->cnst.shape;
  int64_t F = s[0], C = s[1], KH = s[2], KW = s[3];
  int64_t shape[5] = {F / 16, KH, KW, C, 16};
  const float *src = w->cnst.data;
  float *dst = xmalloc((size_t)(F * C * KH * KW) * sizeof *dst);
  for (int64_t f = 0; f < F; f++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t y = 0; y < KH; y++)
        for (int64_t x = 0; x < KW; x++)
          dst[(((f / 16 * KH + y) * KW + x) * C + c) * 16 + f % 16] = src[((f * C + c) * KH + y) * KW + x];
  RxExpr *e = rx_const(h, w->cnst.dtype, shape, 5, dst);
  free(dst);
  return e;
}

/* One binding's value with its packed weights, or the value itself. */
static RxExpr *repack_value(IrHeap *h, RxExpr *v, const PackedWeights *pw) {
  for (int k = 0; k < pw->n; k++) {
    const RxExpr *args = call_tir_args(v, pw->items[k].func);
    if (!args) continue;
    RxExpr **fields = ir_memdup(h, args->tuple.fields, (size_t)args->tuple.n * sizeof *fields);
    fields[pw->items[k].param] = pack_const(h, args->tuple.fields[pw->items[k].param]);
    RxExpr *nargs = ir_memdup(h, args, sizeof *nargs);
    nargs->tuple.fields = fields;
    RxExpr **cargs = ir_memdup(h, v->call.args, (size_t)v->call.n * sizeof *cargs);
    cargs[1] = nargs;
    RxExpr *nv = ir_memdup(h, v, sizeof *nv);
    nv->call.args = cargs;
    return nv;
  }
  return v;
}

static RxFunc *repack_calls(IrHeap *h, RxFunc *f, const PackedWeights *pw) {
  const RxExpr *body = f->body;
  if (!body || body->kind != RX_SEQ) return f;
  RxBlock *blocks = ir_memdup(h, body->seq.blocks, (size_t)body->seq.nblocks * sizeof *blocks);
  for (int b = 0; b < body->seq.nblocks; b++) {
    RxBinding *bs = ir_memdup(h, blocks[b].bindings, (size_t)blocks[b].n * sizeof *bs);
    for (int i = 0; i < blocks[b].n; i++) bs[i].value = repack_value(h, bs[i].value, pw);
    blocks[b].bindings = bs;
  }
  RxExpr *nb = ir_memdup(h, body, sizeof *nb);
  nb->seq.blocks = blocks;
  RxFunc *nf = ir_memdup(h, f, sizeof *nf);
  nf->body = nb;
  return nf;
}

/* ------------------------------------------------------------- the stage */

/* One function: the family rule, then the generic one on what is left.
 * The result lives in out's heap (or one it depends on). */
static TirFunc *schedule_func(const IrModule *m, int fi, bool prepack, IrModule *out) {
  IrModule *one = ir_module_derive(m);
  ir_module_add_tir(one, m->funcs[fi].name, m->funcs[fi].tir);
  const TirFunc *f = m->funcs[fi].tir;
  char buf[96];
  const char *block = NULL, *script = conv2d_rule(f, prepack, buf, sizeof buf), *conv = "conv2d_nchw";
  if (!script && (script = group_conv2d_rule(f))) conv = "group_conv2d_nchw";
  if (!script && (script = conv2d_nchwc_rule(f, buf, sizeof buf))) conv = "conv2d_NCHWc";
  int nfuse = 0;
  if (script) {
    if (run_script(&one, script, NULL) == 0) inline_epilogue(&one, f, conv);
  } else if ((script = matmul_rule(f, &block, &nfuse))) {
    /* bind `block`; fuse batch and row loops into the one row loop the script tiles */
    char prologue[512];
    int len = snprintf(prologue, sizeof prologue, "block = sch.get_block(\"%s\")\n", block);
    int nloops = nfuse > 0 ? nfuse + 2 : -nfuse + 3, nf = nfuse > 0 ? nfuse : -nfuse;
    nfuse = nf;
    if (nfuse > 1) {
      for (int k = 0; k < nloops; k++) len += snprintf(prologue + len, sizeof prologue - (size_t)len, "%sl%d", k ? ", " : "", k);
      len += snprintf(prologue + len, sizeof prologue - (size_t)len, " = sch.get_loops(block)\nsch.fuse(");
      for (int k = 0; k < nfuse; k++) len += snprintf(prologue + len, sizeof prologue - (size_t)len, "%sl%d", k ? ", " : "", k);
      snprintf(prologue + len, sizeof prologue - (size_t)len, ")\n");
    }
    if (run_script(&one, script, prologue) == 0) inline_epilogue(&one, f, block);
  }
  const char *epi[SCH_DS_MAX_BLOCKS];
  int nepi = script ? epilogue_blocks(f, block ? block : conv, epi) : 0;
  generic_rule(&one, host_cpu_has_avx512() ? 16 : 8, script ? epi : NULL, nepi);
  ir_heap_depend(out->heap, one->heap);
  TirFunc *nf = ir_memdup(out->heap, one->funcs[0].tir, sizeof *nf);
  nf->attrs = irv_dict_set(out->heap, nf->attrs, "tir.is_scheduled", irv_bool(out->heap, true));
  ir_module_free(one);
  return nf;
}

IrModule *sch_default_schedule(const IrModule *m, DiagCtx *diag, bool *changed) {
  (void)diag; /* a rule that fails leaves its function as it was: nothing to report */
  if (changed) *changed = false;
  bool *called = xcalloc((size_t)m->nfuncs + 1, sizeof *called);
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_RELAX) ir_module_mark_refs(m, m->funcs[i].rx->body, called);
  IrModule *out = ir_module_derive(m);
  PackedWeights pw = {0};
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_RELAX || !called[i] || sch_ds_is_scheduled(g->tir)) {
      if (g->kind == IR_FUNC_TIR) ir_module_add_tir(out, g->name, g->tir);
      continue;
    }
    int wp = prepackable_weight(m, g->name, g->tir);
    TirFunc *nf = schedule_func(m, i, wp >= 0, out);
    if (wp >= 0 && nf->buffer_map[wp] && nf->buffer_map[wp]->ndim == 5) packed_weights_add(&pw, g->name, wp);
    ir_module_add_tir(out, g->name, nf);
    if (changed) *changed = true;
  }
  /* the graph functions, their prepacked weights repacked (in source order) */
  IrModule *res = ir_module_derive(out);
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_RELAX) ir_module_add_relax(res, g->name, pw.n ? repack_calls(res->heap, g->rx, &pw) : g->rx);
    else ir_module_add_tir(res, g->name, ir_module_lookup(out, g->name)->tir);
  }
  ir_module_free(out);
  free(pw.items);
  free(called);
  return res;
}

IrModule *sch_default_schedule_one(const IrModule *m, const char *func) {
  int fi = -1;
  for (int i = 0; i < m->nfuncs && fi < 0; i++)
    if (m->funcs[i].kind == IR_FUNC_TIR && !strcmp(m->funcs[i].name, func)) fi = i;
  if (fi < 0 || sch_ds_is_scheduled(m->funcs[fi].tir)) return NULL;
  IrModule *out = ir_module_derive(m);
  TirFunc *nf = schedule_func(m, fi, false, out);
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_RELAX) ir_module_add_relax(out, g->name, g->rx);
    else ir_module_add_tir(out, g->name, i == fi ? nf : g->tir);
  }
  return out;
}

void sch_default_schedule_install(void) { rx_set_default_scheduler(sch_default_schedule); }
