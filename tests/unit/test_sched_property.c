/* test_sched_property.c - random legal-or-refused schedule sequences.
 *
 * Over ten small kernels, applies seeded random sequences of 1-6 steps drawn
 * from every semantics-preserving schedule primitive (the loop, compute-location,
 * caching, reduction, blockize, scope/alignment, annotation, layout, reindex,
 * partition/merge/padding primitives, and the samplers feeding split,
 * annotate and compute_at; half the sequences of a kernel start with the
 * primitives that apply to few shapes, e.g. rolling_buffer after tiling)
 * and requires:
 *  - after every accepted step the printed module parses back to a
 *    structurally equal module (and the schedule's own verification, debug
 *    mask on, finds nothing wrong);
 *  - every refusal reports one error and leaves the schedule unchanged;
 *  - the result computes what the unscheduled function computes on the
 *    interpreter, and, for every NATIVE_EVERY-th sequence, compiled natively
 *    (lowering + LLVM JIT);
 *  - the printed trace replays on the original module to a structurally
 *    equal result.
 * Every primitive must be applied at least MIN_APPLIED times over the run.
 * Left out: bind/tensorize (targets), unsafe_set_dtype, annotate_buffer_access
 * and fuse_reduction_epilogue with a non-linear epilogue (they change the
 * numerics by design); merge only of nests without data dependencies (TVM's
 * merge checks none, so merging a producer with its consumer is the user's
 * responsibility).
 * TVS_PROP_SEQS (default 2000), TVS_PROP_SEED and TVS_PROP_NATIVE_EVERY
 * (default 5; 25 when TVS_TEST_QUICK is set; 0 = never) size and seed the run.
 * Regressions the random runs found are pinned as fixed cases below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/interp.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/visit.h"
#include "lang/elab.h"
#include "runtime/ndarray.h"
#include "sched/schedule.h"
#include "sched_harness.h"
/* White-box: the method table, to call split / annotate with ExprRV
 * arguments the way a script does (the C API takes plain integers). */
#include "sched/sched_internal.h"

/* ------------------------------------------------------------- kernels */

typedef struct Kernel {
  const char *name;  /* for messages */
  const char *text;  /* TVMScript source; the function is "main" */
} Kernel;

enum { K_MATMUL_BIAS = 6 }; /* the only kernel fuse_reduction_epilogue is drawn on */

static const Kernel kernels[] = {
    {"matmul",
     "@T.prim_func\n"
     "def main(A: T.Buffer((12, 8), \"float32\"), B: T.Buffer((8, 12), \"float32\"), C: T.Buffer((12, 12), \"float32\")):\n"
     "    for i, j, k in T.grid(12, 12, 8):\n"
     "        with T.block(\"C\"):\n"
     "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
     "            with T.init():\n"
     "                C[vi, vj] = T.float32(0)\n"
     "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"},
    {"matmul_relu",
     "@T.prim_func\n"
     "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((16, 12), \"float32\"), C: T.Buffer((8, 12), \"float32\")):\n"
     "    Y = T.alloc_buffer((8, 12), \"float32\")\n"
     "    for i, j, k in T.grid(8, 12, 16):\n"
     "        with T.block(\"Y\"):\n"
     "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
     "            with T.init():\n"
     "                Y[vi, vj] = T.float32(0)\n"
     "            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
     "    for i, j in T.grid(8, 12):\n"
     "        with T.block(\"R\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n"},
    {"conv2d",
     "@T.prim_func\n"
     "def main(I: T.Buffer((1, 2, 8, 8), \"float32\"), W: T.Buffer((4, 2, 3, 3), \"float32\"), O: T.Buffer((1, 4, 8, 8), \"float32\")):\n"
     "    pad = T.alloc_buffer((1, 2, 10, 10), \"float32\")\n"
     "    for n, c, h, w in T.grid(1, 2, 10, 10):\n"
     "        with T.block(\"pad\"):\n"
     "            vn, vc, vh, vw = T.axis.remap(\"SSSS\", [n, c, h, w])\n"
     "            pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 9 and 1 <= vw and vw < 9, I[vn, vc, vh - 1, vw - 1], T.float32(0))\n"
     "    for n, f, h, w, c, kh, kw in T.grid(1, 4, 8, 8, 2, 3, 3):\n"
     "        with T.block(\"conv\"):\n"
     "            vn, vf, vh, vw, vc, vkh, vkw = T.axis.remap(\"SSSSRRR\", [n, f, h, w, c, kh, kw])\n"
     "            with T.init():\n"
     "                O[vn, vf, vh, vw] = T.float32(0)\n"
     "            O[vn, vf, vh, vw] = O[vn, vf, vh, vw] + pad[vn, vc, vh + vkh, vw + vkw] * W[vf, vc, vkh, vkw]\n"},
    {"sum_epilogue",
     "@T.prim_func\n"
     "def main(A: T.Buffer((16, 12), \"float32\"), D: T.Buffer((16,), \"float32\")):\n"
     "    S = T.alloc_buffer((16,), \"float32\")\n"
     "    for i, k in T.grid(16, 12):\n"
     "        with T.block(\"S\"):\n"
     "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
     "            with T.init():\n"
     "                S[vi] = T.float32(0)\n"
     "            S[vi] = S[vi] + A[vi, vk]\n"
     "    for i in range(16):\n"
     "        with T.block(\"D\"):\n"
     "            vi = T.axis.spatial(16, i)\n"
     "            D[vi] = S[vi] * T.float32(0.5) + T.float32(1)\n"},
    {"softmax",
     "@T.prim_func\n"
     "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((8, 16), \"float32\")):\n"
     "    maxelem = T.alloc_buffer((8,), \"float32\")\n"
     "    expv = T.alloc_buffer((8, 16), \"float32\")\n"
     "    expsum = T.alloc_buffer((8,), \"float32\")\n"
     "    for i, k in T.grid(8, 16):\n"
     "        with T.block(\"maxelem\"):\n"
     "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
     "            with T.init():\n"
     "                maxelem[vi] = T.min_value(\"float32\")\n"
     "            maxelem[vi] = T.max(maxelem[vi], A[vi, vk])\n"
     "    for i, j in T.grid(8, 16):\n"
     "        with T.block(\"exp\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            expv[vi, vj] = T.exp(A[vi, vj] - maxelem[vi])\n"
     "    for i, k in T.grid(8, 16):\n"
     "        with T.block(\"expsum\"):\n"
     "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
     "            with T.init():\n"
     "                expsum[vi] = T.float32(0)\n"
     "            expsum[vi] = expsum[vi] + expv[vi, vk]\n"
     "    for i, j in T.grid(8, 16):\n"
     "        with T.block(\"norm\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            B[vi, vj] = expv[vi, vj] / expsum[vi]\n"},
    {"elementwise",
     "@T.prim_func\n"
     "def main(A: T.Buffer((16, 12), \"float32\"), D: T.Buffer((16, 12), \"float32\")):\n"
     "    B = T.alloc_buffer((16, 12), \"float32\")\n"
     "    C = T.alloc_buffer((16, 12), \"float32\")\n"
     "    for i, j in T.grid(16, 12):\n"
     "        with T.block(\"B\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            B[vi, vj] = A[vi, vj] + T.float32(1)\n"
     "    for i, j in T.grid(16, 12):\n"
     "        with T.block(\"C\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            C[vi, vj] = B[vi, vj] * T.float32(2)\n"
     "    for i, j in T.grid(16, 12):\n"
     "        with T.block(\"D\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            D[vi, vj] = T.max(C[vi, vj], T.float32(0)) - A[vi, vj]\n"},
    /* A matmul with a linear (bias-add) epilogue: fuse_reduction_epilogue keeps
     * its numerics (up to the order of the float additions). */
    {"matmul_bias",
     "@T.prim_func\n"
     "def main(A: T.Buffer((8, 6), \"float32\"), B: T.Buffer((12, 6), \"float32\"), C: T.Buffer((8, 12), \"float32\"), D: T.Buffer((8, 12), \"float32\")):\n"
     "    temp = T.alloc_buffer((8, 12), \"float32\")\n"
     "    for i, j, k in T.grid(8, 12, 6):\n"
     "        with T.block(\"multiply\"):\n"
     "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
     "            with T.init():\n"
     "                temp[vi, vj] = T.float32(0)\n"
     "            temp[vi, vj] = temp[vi, vj] + A[vi, vk] * B[vj, vk]\n"
     "    for i, j in T.grid(8, 12):\n"
     "        with T.block(\"add\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            D[vi, vj] = temp[vi, vj] + C[vi, vj]\n"},
    /* Two cascaded 3-wide max pools: overlapping windows for rolling_buffer,
     * integer index arithmetic for cache_index. */
    {"pool",
     "@T.prim_func\n"
     "def main(A: T.Buffer((20,), \"float32\"), C: T.Buffer((16,), \"float32\")):\n"
     "    B = T.alloc_buffer((18,), \"float32\")\n"
     "    for i, r in T.grid(18, 3):\n"
     "        with T.block(\"B\"):\n"
     "            vi, vr = T.axis.remap(\"SR\", [i, r])\n"
     "            with T.init():\n"
     "                B[vi] = T.float32(-100)\n"
     "            B[vi] = T.max(B[vi], A[vi + vr])\n"
     "    for i, r in T.grid(16, 3):\n"
     "        with T.block(\"C\"):\n"
     "            vi, vr = T.axis.remap(\"SR\", [i, r])\n"
     "            with T.init():\n"
     "                C[vi] = T.float32(-100)\n"
     "            C[vi] = T.max(C[vi], B[vi + vr])\n"},
    /* Two independent branches joined: nests merge can fuse legally. */
    {"branches",
     "@T.prim_func\n"
     "def main(A: T.Buffer((16, 12), \"float32\"), D: T.Buffer((16, 12), \"float32\")):\n"
     "    B = T.alloc_buffer((16, 12), \"float32\")\n"
     "    C = T.alloc_buffer((16, 12), \"float32\")\n"
     "    for i, j in T.grid(16, 12):\n"
     "        with T.block(\"B\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            B[vi, vj] = A[vi, vj] + T.float32(1)\n"
     "    for i, j in T.grid(16, 12):\n"
     "        with T.block(\"C\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            C[vi, vj] = A[vi, vj] * T.float32(2)\n"
     "    for i, j in T.grid(16, 12):\n"
     "        with T.block(\"D\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            D[vi, vj] = B[vi, vj] * C[vi, vj]\n"},
    /* An in-place update (Y read and written): cache_inplace. */
    {"axpy",
     "@T.prim_func\n"
     "def main(X: T.Buffer((16, 12), \"float32\"), Y: T.Buffer((16, 12), \"float32\")):\n"
     "    for i, j in T.grid(16, 12):\n"
     "        with T.block(\"axpy\"):\n"
     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     "            Y[vi, vj] = Y[vi, vj] + X[vi, vj] * T.float32(2)\n"},
    /* Fixed cases only (not drawn): a reduction over part of its reduce
     * iter's domain (the loop starts at 2, the init at vk == 0 never runs):
     * S accumulates onto its input like an update in place. */
    {"partial_sum",
     "@T.prim_func\n"
     "def main(A: T.Buffer((4, 6), \"float32\"), S: T.Buffer((4,), \"float32\")):\n"
     "    for i in range(4):\n"
     "        for k in range(2, 6):\n"
     "            with T.block(\"S\"):\n"
     "                vi = T.axis.spatial(4, i)\n"
     "                vk = T.axis.reduce(6, k)\n"
     "                with T.init():\n"
     "                    S[vi] = T.float32(0)\n"
     "                S[vi] = S[vi] + A[vi, vk]\n"},
};
enum { NKERNELS = (int)(sizeof kernels / sizeof kernels[0]), NDRAWN_KERNELS = NKERNELS - 1 };

/* ---------------------------------------------------------------- rng */

static uint64_t rng_state;

static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33);
}
static int rnd_below(int n) { return n <= 0 ? 0 : (int)(rnd() % (uint32_t)n); }
static const char *rnd_scope(void) {
  static const char *const scopes[] = {"global", "shared", "local"};
  return scopes[rnd_below(3)];
}

/* ------------------------------------------------- handles of the moment */

static bool collect_block(TirVisitor *v, const TirStmt *st) {
  if (st->kind == TIR_S_BLOCK && strcmp(st->block.name, "root")) pv_push((PtrVec *)v->ctx, (void *)st);
  return true;
}

static const TirFunc *main_func(const Schedule *s) { return ir_module_lookup(sch_mod(s), "main")->tir; }

/* The blocks (BLOCK statements) of the current version. */
static void blocks_of(const Schedule *s, PtrVec *out) {
  TirVisitor v = {0};
  v.pre_stmt = collect_block;
  v.ctx = out;
  tir_visit_func(&v, main_func(s));
}

/* A random block: its handle (or -1) and, in *blk, the block itself in the
 * current version (valid until the next primitive is applied). */
static SchRV random_block(Schedule *s, const TirBlock **blk) {
  PtrVec blocks = {0};
  blocks_of(s, &blocks);
  SchRV rv = -1;
  if (blk) *blk = NULL;
  /* (only blocks whose names are unique: get_block refuses the others) */
  PtrVec unique = {0};
  for (int i = 0; i < blocks.len; i++) {
    bool dup = false;
    for (int j = 0; j < blocks.len && !dup; j++)
      dup = j != i && !strcmp(((const TirStmt *)blocks.items[i])->block.name,
                              ((const TirStmt *)blocks.items[j])->block.name);
    if (!dup) pv_push(&unique, blocks.items[i]);
  }
  pv_free(&blocks);
  blocks = unique;
  if (blocks.len) {
    const TirStmt *st = blocks.items[rnd_below(blocks.len)];
    char *name = xstrdup(st->block.name);
    rv = sch_get_block(s, name, NULL);
    free(name);
    if (blk) *blk = &st->block;
  }
  pv_free(&blocks);
  return rv;
}

static bool is_param(const Schedule *s, const TirBuffer *buf) {
  const TirFunc *f = main_func(s);
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map[i] == buf) return true;
  return false;
}

/* A random (is_write, index) among the block's regions whose buffer is an
 * intermediate (not a function parameter); false if none. */
static bool random_intermediate(const Schedule *s, const TirBlock *b, bool *is_write, int *index) {
  int cand[32], n = 0;
  for (int i = 0; i < b->nreads && n < 32; i++)
    if (!is_param(s, b->reads[i].buffer)) cand[n++] = i;
  for (int i = 0; i < b->nwrites && n < 32; i++)
    if (!is_param(s, b->writes[i].buffer)) cand[n++] = 100 + i;
  if (!n) return false;
  int c = cand[rnd_below(n)];
  *is_write = c >= 100;
  *index = c % 100;
  return true;
}

static const TirBufferRegion *region_of(const TirBlock *b, bool is_write, int index) {
  if (is_write) return index < b->nwrites ? &b->writes[index] : NULL;
  return index < b->nreads ? &b->reads[index] : NULL;
}

/* ------------------------------------------------------- random index maps */

/* Appends a random bijection of the box [0, ext[0]) x ... (n dims; names
 * are the lambda's parameters) onto its image: a permutation of the axes,
 * optionally with one axis split by a divisor of its extent (the remainder
 * becoming the last axis) or two adjacent axes fused.  With pad_ok, a split
 * may also be non-dividing (the caller then gives a pad_value). */
static bool random_map_body(StrBuf *sb, int n, const int64_t *ext, char names[][16], bool pad_ok,
                            bool *padded) {
  if (n < 1 || n > 8) return false;
  char parts[10][48];
  int np = 0;
  int perm[8];
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = rnd_below(i + 1), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  int kind = rnd_below(3); /* 0 permute, 1 split, 2 fuse */
  int split_at = -1, fuse_at = -1;
  int64_t factor = 0;
  if (kind == 1) {
    int d = rnd_below(n);
    int64_t divs[16];
    int nd = 0;
    for (int64_t f = 2; f < ext[d] && nd < 16; f++)
      if (ext[d] % f == 0) divs[nd++] = f;
    if (pad_ok && rnd_below(3) == 0 && ext[d] > 3) {
      factor = ext[d] % 3 ? 3 : ext[d] % 5 ? 5 : 0;
      if (factor) *padded = true;
    }
    if (!factor && nd) factor = divs[rnd_below(nd)];
    if (factor) split_at = d;
  } else if (kind == 2 && n >= 2) {
    fuse_at = rnd_below(n - 1); /* fuses original axes fuse_at, fuse_at + 1 */
  }
  for (int k = 0; k < n; k++) {
    int d = perm[k];
    if (d == fuse_at + 1 && fuse_at >= 0) continue;
    if (d == split_at)
      snprintf(parts[np++], sizeof parts[0], "%s // %lld", names[d], (long long)factor);
    else if (d == fuse_at)
      snprintf(parts[np++], sizeof parts[0], "%s * %lld + %s", names[d], (long long)ext[d + 1],
               names[d + 1]);
    else
      snprintf(parts[np++], sizeof parts[0], "%s", names[d]);
  }
  if (split_at >= 0) snprintf(parts[np++], sizeof parts[0], "%s %% %lld", names[split_at], (long long)factor);
  sb_puts(sb, "lambda ");
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%s", i ? ", " : "", names[i]);
  sb_puts(sb, ": (");
  for (int k = 0; k < np; k++) sb_printf(sb, "%s%s", k ? ", " : "", parts[k]);
  sb_puts(sb, np == 1 ? ",)" : ")");
  return true;
}

/* A random bijective map over a buffer's (constant) shape. */
static bool random_buffer_map(StrBuf *sb, const TirBuffer *buf, bool pad_ok, bool *padded) {
  int64_t ext[8];
  char names[8][16];
  if (buf->ndim < 1 || buf->ndim > 8) return false;
  for (int d = 0; d < buf->ndim; d++) {
    if (!tir_is_const_int(buf->shape[d], &ext[d])) return false;
    snprintf(names[d], sizeof names[d], "a%d", d);
  }
  return random_map_body(sb, buf->ndim, ext, names, pad_ok, padded);
}

/* A random bijective map over a block's iter domain (all iters). */
static bool random_iter_map(StrBuf *sb, const TirBlock *b) {
  int64_t ext[8];
  char names[8][16];
  if (b->niters < 1 || b->niters > 8) return false;
  for (int d = 0; d < b->niters; d++) {
    if (!tir_is_const_int(b->iters[d].dom.extent, &ext[d])) return false;
    snprintf(names[d], sizeof names[d], "v%d", d);
  }
  bool padded = false;
  return random_map_body(sb, b->niters, ext, names, false, &padded);
}

/* For reindex_cache_*: a lambda of all block iters whose results are a
 * random bijective map of the iters the region's indices use (the others
 * are dropped), as the primitive requires. */
static bool random_reindex_map(StrBuf *sb, const TirBlock *b, const TirBufferRegion *reg) {
  int64_t ext[8];
  char names[8][16];
  int used[8], nu = 0;
  if (b->niters < 1 || b->niters > 8) return false;
  for (int i = 0; i < b->niters; i++) {
    bool u = false;
    for (int d = 0; d < reg->n; d++) u |= tir_expr_uses_var(reg->ranges[d].min, b->iters[i].var);
    if (!u) continue;
    if (!tir_is_const_int(b->iters[i].dom.extent, &ext[nu])) return false;
    snprintf(names[nu], sizeof names[nu], "v%d", i);
    used[nu++] = i;
  }
  if (!nu) return false;
  StrBuf body;
  sb_init(&body);
  bool padded = false;
  random_map_body(&body, nu, ext, names, false, &padded);
  /* Replace the lambda's parameter list by all the block iters. */
  const char *colon = strchr(body.data, ':');
  sb_puts(sb, "lambda ");
  for (int i = 0; i < b->niters; i++) sb_printf(sb, "%sv%d", i ? ", " : "", i);
  sb_puts(sb, colon);
  sb_free(&body);
  (void)used;
  return true;
}

/* ------------------------------------------------------ merge safety */

/* merge (like TVM's) checks no data dependencies: merging the nests of a
 * producer and a consumer can read data before it is written.  It keeps
 * semantics when the merged nests are pairwise independent and no block
 * between a nest and the place of the merged one (that of the last loop
 * given) depends on it or it on the block. */
typedef struct MergeWalk {
  const TirVar *vars[3]; /* the merged loops' vars */
  int n;
  int in_nest;           /* the nest being walked, or -1 */
  const TirStmt *nest_loop;
  PtrVec blocks;         /* BLOCK statements in program order */
  int nest_of[256];      /* per block: its nest or -1 */
} MergeWalk;

static bool merge_pre(TirVisitor *v, const TirStmt *st) {
  MergeWalk *w = v->ctx;
  if (st->kind == TIR_S_FOR && w->in_nest < 0)
    for (int i = 0; i < w->n; i++)
      if (st->loop.var == w->vars[i]) w->in_nest = i, w->nest_loop = st;
  if (st->kind == TIR_S_BLOCK && strcmp(st->block.name, "root") && w->blocks.len < 256) {
    w->nest_of[w->blocks.len] = w->in_nest;
    pv_push(&w->blocks, (void *)st);
  }
  return true;
}
static void merge_post(TirVisitor *v, const TirStmt *st) {
  MergeWalk *w = v->ctx;
  if (st == w->nest_loop) w->in_nest = -1, w->nest_loop = NULL;
}

static bool touches(const TirBufferRegion *r, int n, const TirBuffer *buf) {
  for (int i = 0; i < n; i++)
    if (r[i].buffer == buf) return true;
  return false;
}
/* A data dependency (RAW, WAR or WAW) between two blocks. */
static bool conflict(const TirBlock *a, const TirBlock *b) {
  for (int i = 0; i < a->nwrites; i++)
    if (touches(b->reads, b->nreads, a->writes[i].buffer) || touches(b->writes, b->nwrites, a->writes[i].buffer))
      return true;
  for (int i = 0; i < b->nwrites; i++)
    if (touches(a->reads, a->nreads, b->writes[i].buffer)) return true;
  return false;
}

static bool merge_is_safe(Schedule *s, const SchRV *loops, int n) {
  MergeWalk w = {0};
  w.n = n;
  w.in_nest = -1;
  for (int i = 0; i < n; i++) w.vars[i] = s->rvs[loops[i]].key;
  TirVisitor v = {0};
  v.pre_stmt = merge_pre;
  v.post_stmt = merge_post;
  v.ctx = &w;
  tir_visit_func(&v, main_func(s));
  int first[3] = {-1, -1, -1};
  for (int k = 0; k < w.blocks.len; k++)
    if (w.nest_of[k] >= 0 && first[w.nest_of[k]] < 0) first[w.nest_of[k]] = k;
  bool ok = true;
  for (int i = 0; i < n; i++)
    if (first[i] < 0) ok = false;
  /* The merged nest takes the place of the last loop given (not the last in
   * program order): each other nest moves from its place to there. */
  int place = first[n - 1];
  for (int a = 0; ok && a < w.blocks.len; a++) {
    const TirBlock *ba = &((const TirStmt *)w.blocks.items[a])->block;
    for (int b = 0; ok && b < w.blocks.len; b++) {
      const TirBlock *bb = &((const TirStmt *)w.blocks.items[b])->block;
      int na = w.nest_of[a], nb = w.nest_of[b];
      if (na < 0) continue;
      /* merged nests: independent of each other */
      if (nb >= 0 && nb != na && conflict(ba, bb)) ok = false;
      /* a block that a merged nest moves past (forward or back) */
      int lo = first[na] < place ? first[na] : place, hi = first[na] < place ? place : first[na];
      if (nb < 0 && b > lo && b < hi && conflict(ba, bb)) ok = false;
    }
  }
  pv_free(&w.blocks);
  return ok;
}

/* ----------------------------------------------------------- primitives */

enum {
  P_SPLIT, P_FUSE, P_REORDER, P_PARALLEL, P_VECTORIZE, P_UNROLL, P_COMPUTE_AT,
  P_REVERSE_COMPUTE_AT, P_COMPUTE_INLINE, P_REVERSE_COMPUTE_INLINE, P_DECOMPOSE_REDUCTION,
  P_CACHE_READ, P_CACHE_WRITE,
  P_ADD_UNIT_LOOP, P_RFACTOR, P_BLOCKIZE, P_SET_SCOPE, P_STORAGE_ALIGN, P_ANNOTATE,
  P_UNANNOTATE, P_REINDEX, P_REINDEX_CACHE_READ, P_REINDEX_CACHE_WRITE, P_TRANSFORM_LAYOUT,
  P_TRANSFORM_BLOCK_LAYOUT, P_SET_AXIS_SEPARATOR, P_LOOP_PARTITION, P_MERGE, P_PAD_EINSUM,
  P_DECOMPOSE_PADDING, P_CACHE_INPLACE, P_CACHE_INDEX, P_READ_AT, P_WRITE_AT, P_ROLLING_BUFFER,
  P_REORDER_BLOCK_ITER_VAR, P_SAMPLE_PERFECT_TILE, P_SAMPLE_CATEGORICAL,
  P_SAMPLE_COMPUTE_LOCATION, P_FUSE_REDUCTION_EPILOGUE,
  /* Drawn only as the second half of a sampler step / a tiling step. */
  P_SPLIT_RV, P_ANNOTATE_RV, P_COMPUTE_AT_SAMPLED,
  /* Macro: split a block's loop (P_TILE_SPLIT), then (reverse_)compute_at a
   * producer (consumer) to the outer piece (P_TILE_AT), each a checked step. */
  P_TILE_COMPUTE_AT, P_TILE_SPLIT, P_TILE_AT,
  NPRIMS
};
enum { NDRAWN = P_FUSE_REDUCTION_EPILOGUE + 1 };

static const char *const prim_names[NPRIMS] = {
    "split", "fuse", "reorder", "parallel", "vectorize", "unroll", "compute_at",
    "reverse_compute_at", "compute_inline", "reverse_compute_inline", "decompose_reduction",
    "cache_read", "cache_write",
    "add_unit_loop", "rfactor", "blockize", "set_scope", "storage_align", "annotate",
    "unannotate", "reindex", "reindex_cache_read", "reindex_cache_write", "transform_layout",
    "transform_block_layout", "set_axis_separator", "loop_partition", "merge", "pad_einsum",
    "decompose_padding", "cache_inplace", "cache_index", "read_at", "write_at", "rolling_buffer",
    "reorder_block_iter_var", "sample_perfect_tile", "sample_categorical",
    "sample_compute_location", "fuse_reduction_epilogue",
    "split (ExprRV factors)", "annotate (ExprRV value)", "compute_at (sampled)",
    "(tile + compute_at)", "split (tile)", "(reverse_)compute_at (tile)"};

/* Applied at least this many times each over a default run (2000 sequences). */
enum { MIN_APPLIED = 5 };

typedef struct Stats {
  int seqs, applied, refused, native_runs, roundtrips;
  int per_prim[NPRIMS][2]; /* [prim][0 = applied, 1 = refused] */
} Stats;

/* One sequence in progress. */
typedef struct Seq {
  Schedule *s;
  DiagCtx *d;
  int kernel;
  uint64_t seed;
  Stats *st;
  bool failed;  /* a failure was reported (the trace printed once) */
  /* A step may ask for a follow-up step with arguments of its own. */
  int next;            /* the follow-up primitive, or -1 */
  SchRV pend_loop, pend_block, pend_rv[3];
  int pend_n;
} Seq;

static void print_failure(Seq *q, const char *what) {
  if (q->failed) return;
  q->failed = true;
  StrBuf sb;
  sb_init(&sb);
  sch_trace_print(q->s, &sb, true);
  fprintf(stderr, "property failure (%s) on kernel %s, sequence seed %llu; trace:\n%s\n", what,
          kernels[q->kernel].name, (unsigned long long)q->seed, sb.data ? sb.data : "");
  sb_free(&sb);
  for (int i = 0; i < q->d->len; i++) fprintf(stderr, "  diag: %s\n", q->d->items[i].msg);
}

/* Calls a traced method through its table entry (as a script does), so that
 * ExprRV arguments stay ExprRVs in the trace; the args are consumed.
 * Returns the method's status; *res (may be NULL) receives its result. */
static int call_method(Schedule *s, const char *name, SchVal *args, int nargs, SchVal *res) {
  const SchMethod *m = sch_method_lookup(name);
  TVS_ASSERT(m && m->nparams == nargs);
  SchVal r = sch_val_none();
  int rc = m->apply(s, args, &r);
  for (int i = 0; i < nargs; i++) sch_val_free(&args[i]);
  if (res) *res = r;
  else sch_val_free(&r);
  return rc;
}

static int step(Seq *q, int prim);

/* Applies one random instance of prim; 0 applied, -1 refused (one error),
 * -2 nothing to draw (no block, loop or buffer fits). */
static int apply_prim(Seq *q, int prim) {
  Schedule *s = q->s;
  const TirBlock *blk = NULL;
  SchRV b = random_block(s, &blk);
  if (b < 0) return -2;
  SchRV *loops = NULL;
  int nl = sch_get_loops(s, b, &loops);
  if (nl < 0) return -2;
  SchRV lp = nl ? loops[rnd_below(nl)] : -1;
  int rc = -2;
  switch (prim) {
    case P_SPLIT: {
      if (!nl) break;
      int n = 2 + rnd_below(2);
      int64_t f[3];
      static const int64_t choices[] = {1, 2, 3, 4, 5, 8};
      int none_at = rnd_below(n + 1); /* n: all given */
      for (int i = 0; i < n; i++) f[i] = i == none_at ? 0 : choices[rnd_below(6)];
      SchRV out[3];
      rc = sch_split(s, lp, f, n, rnd_below(2), false, out);
      break;
    }
    case P_FUSE: { /* of adjacent loops */
      if (nl < 2) break;
      int at = rnd_below(nl - 1);
      int cnt = 2 + rnd_below(nl - at - 1 > 2 ? 2 : nl - at - 1);
      rc = sch_fuse(s, loops + at, cnt, rnd_below(2)) < 0 ? -1 : 0;
      break;
    }
    case P_REORDER: { /* a permutation of a sub-chain */
      if (nl < 2) break;
      int at = rnd_below(nl - 1);
      int cnt = 2 + rnd_below(nl - at - 1);
      SchRV perm[16];
      for (int i = 0; i < cnt; i++) perm[i] = loops[at + i];
      for (int i = cnt - 1; i > 0; i--) {
        int j = rnd_below(i + 1);
        SchRV t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
      }
      rc = sch_reorder(s, perm, cnt);
      break;
    }
    case P_PARALLEL: if (nl) rc = sch_parallel(s, lp); break;
    case P_VECTORIZE: if (nl) rc = sch_vectorize(s, lp); break;
    case P_UNROLL: if (nl) rc = sch_unroll(s, lp); break;
    case P_COMPUTE_AT:
    case P_REVERSE_COMPUTE_AT: { /* to a loop of another block */
      SchRV other = random_block(s, NULL);
      SchRV *ol = NULL;
      int no = other >= 0 ? sch_get_loops(s, other, &ol) : -1;
      if (no > 0) {
        SchRV l = ol[rnd_below(no)];
        bool keep = rnd_below(2);
        int index = rnd_below(4) ? -1 : -2;
        rc = prim == P_COMPUTE_AT ? sch_compute_at(s, b, l, keep, index)
                                  : sch_reverse_compute_at(s, b, l, keep, index);
      }
      free(ol);
      break;
    }
    case P_COMPUTE_INLINE: rc = sch_compute_inline(s, b); break;
    case P_REVERSE_COMPUTE_INLINE: rc = sch_reverse_compute_inline(s, b); break;
    case P_DECOMPOSE_REDUCTION: if (nl) rc = sch_decompose_reduction(s, b, lp) < 0 ? -1 : 0; break;
    case P_CACHE_READ: rc = sch_cache_read(s, b, rnd_below(3), rnd_scope()) < 0 ? -1 : 0; break;
    case P_CACHE_WRITE: rc = sch_cache_write(s, b, rnd_below(2), rnd_scope()) < 0 ? -1 : 0; break;

    case P_ADD_UNIT_LOOP:
      rc = sch_add_unit_loop(s, nl && rnd_below(2) ? lp : b) < 0 ? -1 : 0;
      break;
    case P_RFACTOR: {
      if (!nl) break;
      int nd = blk->nwrites ? blk->writes[0].buffer->ndim : 0;
      int axis = rnd_below(5) ? rnd_below(nd + 1) : -(nd + 1) + rnd_below(nd + 1);
      rc = sch_rfactor(s, lp, axis) < 0 ? -1 : 0;
      break;
    }
    case P_BLOCKIZE:
      if (nl) rc = sch_blockize(s, lp, rnd_below(2)) < 0 ? -1 : 0;
      break;
    case P_SET_SCOPE: {
      static const char *const scopes[] = {"shared", "local", "global"};
      rc = sch_set_scope(s, b, rnd_below(blk->nwrites > 1 ? blk->nwrites : 1), scopes[rnd_below(3)]);
      break;
    }
    case P_STORAGE_ALIGN: {
      static const int factors[] = {1, 2, 4, 8, 16, 32};
      int nd = blk->nwrites ? blk->writes[0].buffer->ndim : 1;
      int axis = -nd + rnd_below(2 * nd);
      int factor = factors[rnd_below(6)];
      rc = sch_storage_align(s, b, rnd_below(blk->nwrites > 1 ? blk->nwrites : 1), axis, factor,
                             rnd_below(factor < 4 ? factor : 4));
      break;
    }
    case P_ANNOTATE:
    case P_UNANNOTATE: {
      static const char *const keys[] = {"k_int", "k_str", "k_float", "pragma_auto_unroll_max_step",
                                         "pragma_unroll_explicit"};
      int k = rnd_below(5);
      SchRV target = nl && rnd_below(2) ? lp : b;
      if (prim == P_UNANNOTATE) {
        rc = sch_unannotate(s, target, keys[k]);
        break;
      }
      IrValue v = {0};
      switch (k) {
        case 1: v.kind = IRV_STR, v.s = rnd_below(2) ? "x" : "y"; break;
        case 2: v.kind = IRV_FLOAT, v.f = 0.5 * rnd_below(4); break;
        case 3: v.kind = IRV_INT, v.i = 16 << rnd_below(3); break;
        case 4: v.kind = IRV_INT, v.i = rnd_below(2); break;
        default: v.kind = IRV_INT, v.i = rnd_below(100); break;
      }
      rc = sch_annotate(s, target, keys[k], &v);
      break;
    }
    case P_REINDEX: {
      bool w = rnd_below(2);
      int n = w ? blk->nwrites : blk->nreads;
      rc = sch_reindex(s, b, w, rnd_below(n > 0 ? n : 1)) < 0 ? -1 : 0;
      break;
    }
    case P_REINDEX_CACHE_READ:
    case P_REINDEX_CACHE_WRITE: {
      bool w = prim == P_REINDEX_CACHE_WRITE;
      int n = w ? blk->nwrites : blk->nreads;
      if (!n) break;
      int idx = rnd_below(n);
      StrBuf map;
      sb_init(&map);
      if (random_reindex_map(&map, blk, region_of(blk, w, idx))) {
        SchRV r = w ? sch_reindex_cache_write(s, b, idx, rnd_scope(), map.data)
                    : sch_reindex_cache_read(s, b, idx, rnd_scope(), map.data);
        rc = r < 0 ? -1 : 0;
      }
      sb_free(&map);
      break;
    }
    case P_TRANSFORM_LAYOUT: { /* intermediates only: parameters would change the signature */
      bool w;
      int idx;
      if (!random_intermediate(s, blk, &w, &idx)) break;
      StrBuf map;
      sb_init(&map);
      bool padded = false;
      if (random_buffer_map(&map, region_of(blk, w, idx)->buffer, true, &padded))
        rc = sch_transform_layout(s, b, w, idx, map.data, padded ? "0.0" : NULL, false);
      sb_free(&map);
      break;
    }
    case P_TRANSFORM_BLOCK_LAYOUT: {
      StrBuf map;
      sb_init(&map);
      if (random_iter_map(&map, blk)) rc = sch_transform_block_layout(s, b, map.data);
      sb_free(&map);
      break;
    }
    case P_SET_AXIS_SEPARATOR: {
      bool w;
      int idx;
      if (!random_intermediate(s, blk, &w, &idx)) break;
      int nd = region_of(blk, w, idx)->buffer->ndim;
      if (nd < 2) break;
      int64_t sep = 1 + rnd_below(nd - 1);
      rc = sch_set_axis_separator(s, b, w, idx, &sep, 1);
      break;
    }
    case P_LOOP_PARTITION: {
      if (!nl) break;
      int n = 2 + rnd_below(2);
      int64_t f[3];
      static const int64_t choices[] = {1, 2, 3, 4, 5, 8};
      int none_at = rnd_below(n + 1);
      for (int i = 0; i < n; i++) f[i] = i == none_at ? 0 : choices[rnd_below(6)];
      SchRV out[4];
      rc = sch_loop_partition(s, lp, f, n, rnd_below(2), out) < 0 ? -1 : 0;
      break;
    }
    case P_MERGE: { /* loops at one depth of two or three blocks' nests */
      int n = 2 + (rnd_below(4) == 0);
      SchRV ml[3];
      int depth = nl ? rnd_below(nl) : 0, got = 0;
      if (!nl) break;
      ml[got++] = loops[depth];
      for (int i = 1; i < n; i++) {
        const TirBlock *ob = NULL;
        SchRV o = -1;
        for (int tries = 0; tries < 4; tries++) { /* mostly another block's nest */
          o = random_block(s, &ob);
          if (ob != blk) break;
        }
        SchRV *ol = NULL;
        int no = o >= 0 ? sch_get_loops(s, o, &ol) : -1;
        if (no > depth) ml[got++] = ol[depth];
        free(ol);
      }
      if (got == n && merge_is_safe(s, ml, n)) rc = sch_merge(s, ml, n) < 0 ? -1 : 0;
      break;
    }
    case P_PAD_EINSUM: {
      if (!blk->niters || blk->niters > 8) break;
      static const int64_t pads[] = {1, 1, 2, 4, 5, 7, 16};
      int64_t p[8];
      for (int i = 0; i < blk->niters; i++) p[i] = pads[rnd_below(7)];
      rc = sch_pad_einsum(s, b, p, blk->niters);
      break;
    }
    case P_DECOMPOSE_PADDING:
      if (nl) rc = sch_decompose_padding(s, b, lp) < 0 ? -1 : 0;
      break;
    case P_CACHE_INPLACE: { /* mostly a read buffer the block also writes */
      SchRV out[2];
      int idx = rnd_below(blk->nreads > 1 ? blk->nreads : 1);
      for (int i = 0; i < blk->nreads && rnd_below(4); i++)
        if (touches(blk->writes, blk->nwrites, blk->reads[i].buffer)) idx = i;
      rc = sch_cache_inplace(s, b, idx, rnd_scope(), out);
      break;
    }
    case P_CACHE_INDEX: {
      SchRV *out = NULL;
      rc = sch_cache_index(s, b, rnd_below(4) ? "global" : "local", rnd_below(3), &out) < 0 ? -1 : 0;
      free(out);
      break;
    }
    case P_READ_AT:
      if (nl) rc = sch_read_at(s, lp, b, rnd_below(blk->nreads > 1 ? blk->nreads : 1), rnd_scope()) < 0 ? -1 : 0;
      break;
    case P_WRITE_AT:
      if (nl) rc = sch_write_at(s, lp, b, rnd_below(blk->nwrites > 1 ? blk->nwrites : 1), rnd_scope()) < 0 ? -1 : 0;
      break;
    case P_ROLLING_BUFFER: /* mostly a block writing an intermediate */
      for (int tries = 0; tries < 3 && blk->nwrites && is_param(s, blk->writes[0].buffer); tries++) {
        const TirBlock *other = NULL;
        SchRV o = random_block(s, &other);
        if (o >= 0) b = o, blk = other;
      }
      rc = sch_rolling_buffer(s, b, rnd_below(blk->nwrites > 1 ? blk->nwrites : 1));
      break;
    case P_REORDER_BLOCK_ITER_VAR: {
      int n = blk->niters;
      if (n < 1 || n > 8) break;
      int64_t perm[8];
      for (int i = 0; i < n; i++) perm[i] = i;
      for (int i = n - 1; i > 0; i--) {
        int j = rnd_below(i + 1);
        int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
      }
      rc = sch_reorder_block_iter_var(s, b, perm, n);
      break;
    }
    case P_SAMPLE_PERFECT_TILE: { /* then split by the sampled ExprRVs */
      if (!nl) break;
      int n = 2 + rnd_below(2);
      static const int maxes[] = {-1, 4, 16};
      rc = sch_sample_perfect_tile(s, lp, n, maxes[rnd_below(3)], NULL, q->pend_rv);
      if (rc == 0) q->next = P_SPLIT_RV, q->pend_loop = lp, q->pend_n = n;
      break;
    }
    case P_SAMPLE_CATEGORICAL: { /* then annotate a block or loop with the sampled value */
      static const int64_t cands[] = {0, 16, 64, 512};
      static const double probs[] = {0.25, 0.25, 0.25, 0.25};
      int64_t dec = rnd_below(4);
      SchRV v = sch_sample_categorical(s, cands, probs, 4, rnd_below(2) ? &dec : NULL);
      rc = v < 0 ? -1 : 0;
      if (v >= 0) q->next = P_ANNOTATE_RV, q->pend_rv[0] = v, q->pend_loop = nl && rnd_below(2) ? lp : b;
      break;
    }
    case P_SAMPLE_COMPUTE_LOCATION: { /* then compute_at there */
      SchRV l = sch_sample_compute_location(s, b, NULL);
      rc = l < 0 ? -1 : 0;
      if (l >= 0) q->next = P_COMPUTE_AT_SAMPLED, q->pend_loop = l, q->pend_block = b;
      break;
    }
    case P_FUSE_REDUCTION_EPILOGUE: {
      /* Only the linear epilogue: TVM documents that folding a non-linear
       * one (relu, the matmul_relu kernel) changes the numerics. */
      if (q->kernel != K_MATMUL_BIAS) break;
      SchRV e = random_block(s, NULL);
      if (e >= 0) rc = sch_fuse_reduction_epilogue(s, b, e);
      break;
    }
    case P_TILE_COMPUTE_AT: { /* split one of the block's loops; the next step moves a neighbour */
      if (!nl) break;
      SchRV *nb = NULL;
      bool producer = rnd_below(2);
      int nn = producer ? sch_get_producers(s, b, &nb) : sch_get_consumers(s, b, &nb);
      if (nn > 0) {
        q->next = P_TILE_SPLIT;
        q->pend_loop = rnd_below(2) ? loops[0] : lp; /* often the outermost */
        q->pend_block = nb[rnd_below(nn)];
        q->pend_n = producer;
      }
      free(nb);
      rc = -3;
      break;
    }
    default: break;
  }
  free(loops);
  return rc == -2 || rc == -3 ? rc : rc == 0 ? 0 : -1;
}

/* The second halves: arguments from the step before (q->pend_*). */
static int apply_followup(Seq *q, int prim) {
  Schedule *s = q->s;
  switch (prim) {
    case P_SPLIT_RV: {
      SchVal args[4] = {sch_val_rv(q->pend_loop), sch_val_rv_list(q->pend_rv, q->pend_n),
                        sch_val_bool(rnd_below(2)), sch_val_bool(false)};
      return call_method(s, "split", args, 4, NULL) ? -1 : 0;
    }
    case P_ANNOTATE_RV: {
      SchVal args[3] = {sch_val_rv(q->pend_loop), sch_val_str("pragma_auto_unroll_max_step"),
                        sch_val_rv(q->pend_rv[0])};
      return call_method(s, "annotate", args, 3, NULL) ? -1 : 0;
    }
    case P_COMPUTE_AT_SAMPLED:
      return sch_compute_at(s, q->pend_block, q->pend_loop, rnd_below(2), -1) ? -1 : 0;
    case P_TILE_SPLIT: {
      static const int64_t choices[] = {2, 3, 4, 8};
      int64_t f[2] = {0, choices[rnd_below(4)]};
      SchRV out[2];
      if (sch_split(s, q->pend_loop, f, 2, true, false, out)) return -1;
      q->next = P_TILE_AT;
      q->pend_loop = out[0];
      return 0;
    }
    case P_TILE_AT:
      return (q->pend_n ? sch_compute_at(s, q->pend_block, q->pend_loop, false, -1)
                        : sch_reverse_compute_at(s, q->pend_block, q->pend_loop, false, -1))
                 ? -1
                 : 0;
    default: return -2;
  }
}

/* The printed module parses back to a structurally equal module. */
static bool round_trips(const IrModule *m, char **why) {
  StrBuf sb;
  sb_init(&sb);
  PrintOptions opt = print_options_default();
  print_module(&sb, m, &opt);
  SourceFile *src = src_from_string("<printed>", sb.data, sb.len);
  DiagCtx d;
  diag_init(&d, NULL);
  IrModule *back = tvs_load_module(src, &d);
  bool ok = back && seq_module(back, m, NULL, why);
  if (!back) {
    StrBuf msg;
    sb_init(&msg);
    sb_printf(&msg, "the printed module does not parse: %s\n%s", d.len ? d.items[0].msg : "?", sb.data);
    *why = sb_take(&msg);
  }
  ir_module_free(back);
  diag_free(&d);
  src_free(src);
  sb_free(&sb);
  return ok;
}

/* One checked step: prim applied (or refused) with random arguments, then
 * the follow-up steps it asked for. */
static int step(Seq *q, int prim) {
  Schedule *s = q->s;
  if (q->failed) return -2; /* one failure per sequence is enough */
  const IrModule *before = sch_mod(s);
  IrModule *copy = ir_module_copy(before);
  int nv = sch_num_versions(s);
  int nerr = q->d->nerr;
  q->next = -1;
  int r = prim >= P_SPLIT_RV && prim != P_TILE_COMPUTE_AT ? apply_followup(q, prim) : apply_prim(q, prim);
  Stats *st = q->st;
  if (r == 0) {
    st->applied++;
    st->per_prim[prim][0]++;
    CHECK_EQ_INT(q->d->nerr, nerr);
    if (q->d->nerr != nerr) print_failure(q, "an applied step reported an error");
    /* Round trip of the printed IR after every step that changed it. */
    if (sch_mod(s) != before) {
      char *why = NULL;
      bool ok = round_trips(sch_mod(s), &why);
      st->roundtrips++;
      CHECK(ok);
      if (!ok) {
        print_failure(q, "printed IR does not round-trip");
        fprintf(stderr, "  after %s: %s\n", prim_names[prim], why ? why : "?");
      }
      free(why);
    }
  } else if (r == -1) {
    st->refused++;
    st->per_prim[prim][1]++;
    /* A refusal reports one error and leaves the schedule as it was. */
    bool ok = q->d->nerr == nerr + 1 && sch_num_versions(s) == nv && sch_mod(s) == before &&
              seq_module(copy, sch_mod(s), NULL, NULL);
    CHECK(ok);
    if (!ok) print_failure(q, "refusal changed the schedule or reported no single error");
  }
  ir_module_free(copy);
  if (q->next >= 0 && r != -1) {
    int next = q->next;
    step(q, next);
  }
  return r;
}

/* Draws a primitive: the core ones and the newer ones alike, plus now and
 * then a tiling step (split + compute_at) that sets up the primitives
 * needing tiles shared by producer and consumer (rolling_buffer, read_at...). */
static int draw_prim(void) {
  int x = rnd_below(NDRAWN + 4);
  return x < NDRAWN ? x : P_TILE_COMPUTE_AT;
}

/* Per kernel, steps that start half its sequences: the primitives that
 * apply to few shapes (rolling_buffer after tiling, merge of independent
 * nests, fuse_reduction_epilogue, decompose_padding, cache_inplace...). */
typedef struct Favourite {
  int prims[3];
  int n;
} Favourite;

static const Favourite favourites[] = {
    {{P_PAD_EINSUM}, 1},                               /* matmul */
    {{P_TILE_COMPUTE_AT, P_COMPUTE_INLINE}, 2},        /* matmul_relu */
    {{P_DECOMPOSE_PADDING}, 1},                        /* conv2d */
    {{P_RFACTOR}, 1},                                  /* sum_epilogue */
    {{P_TILE_COMPUTE_AT}, 1},                          /* softmax */
    {{P_REVERSE_COMPUTE_INLINE, P_MERGE}, 2},          /* elementwise */
    {{P_FUSE_REDUCTION_EPILOGUE}, 1},                  /* matmul_bias */
    {{P_TILE_COMPUTE_AT, P_ROLLING_BUFFER}, 2},        /* pool */
    {{P_MERGE}, 1},                                    /* branches */
    {{P_CACHE_INPLACE}, 1},                            /* axpy */
};

_Static_assert(sizeof favourites / sizeof favourites[0] == NDRAWN_KERNELS, "one entry per drawn kernel");

/* Compiled natively (lowering + LLVM JIT) on the same inputs as run();
 * its diagnostics (e.g. vectorize falling back to a scalar loop) are shown
 * only when the results differ. */
static bool run_native_check(const IrModule *m, const float *ref, int nref) {
  const TirFunc *f = ir_module_lookup(m, "main")->tir;
  TvsNDArray *arr[8] = {0};
  int total = 0;
  for (int i = 0; i < f->nparams && i < 8; i++) {
    const TirBuffer *b = f->buffer_map[i];
    int64_t shape[8];
    for (int d = 0; d < b->ndim; d++) shape[d] = b->shape[d]->ival;
    DLDataType dt = {kDLFloat, 32, 1};
    arr[i] = tvs_ndarray_empty(b->ndim, shape, dt);
    int64_t cnt = tvs_ndarray_numel(&arr[i]->t);
    float *p = arr[i]->t.data;
    for (int64_t k = 0; k < cnt; k++) p[k] = (float)((k * 7 + i * 3) % 11) / 4.0f - 1.0f;
    total += (int)cnt;
  }
  DiagCtx d;
  diag_init(&d, NULL);
  bool ok = run_native(m, "main", arr, f->nparams, &d) == 0 && total == nref;
  for (int i = 0, at = 0; ok && i < f->nparams; i++) {
    const float *p = arr[i]->t.data;
    int64_t cnt = tvs_ndarray_numel(&arr[i]->t);
    for (int64_t k = 0; k < cnt && ok; k++, at++)
      ok = fabsf(ref[at] - p[k]) <= 1e-4f * (1 + fabsf(ref[at]));
  }
  if (!ok)
    for (int i = 0; i < d.len; i++) fprintf(stderr, "  native: %s\n", d.items[i].msg);
  diag_free(&d);
  for (int i = 0; i < f->nparams && i < 8; i++) tvs_ndarray_free(arr[i]);
  return ok;
}

static void run_sequence(IrModule *const *mods, float *const *ref, const int *nref, uint64_t seed,
                         bool native, Stats *st) {
  rng_state = seed * 2654435761ULL + 1;
  int kernel = rnd_below(NDRAWN_KERNELS);
  const IrModule *orig = mods[kernel];
  DiagCtx d;
  diag_init(&d, NULL);
  Seq q = {0};
  q.s = sch_new(orig, &d);
  q.d = &d;
  q.kernel = kernel;
  q.seed = seed;
  q.st = st;
  q.next = -1;
  sch_seed(q.s, (int64_t)(seed % 1000003) + 1);
  sch_set_debug_mask(q.s, -1);
  /* Half the sequences on a kernel with favourite primitives (the ones
   * applying to few shapes only) start with them. */
  const Favourite *fav = &favourites[kernel];
  if (fav->n && rnd_below(2))
    for (int i = 0; i < fav->n; i++) step(&q, fav->prims[i]);
  int len = 1 + rnd_below(6);
  for (int i = 0; i < len; i++) step(&q, draw_prim());
  Schedule *s = q.s;
  /* Same results as the unscheduled function. */
  int n = 0;
  float *got = run(sch_mod(s), "main", &n);
  bool eq = close_results(ref[kernel], nref[kernel], got, n);
  CHECK(eq);
  if (!eq) print_failure(&q, "interpreter results differ");
  free(got);
  if (native) {
    st->native_runs++;
    bool ok = run_native_check(sch_mod(s), ref[kernel], nref[kernel]);
    CHECK(ok);
    if (!ok) print_failure(&q, "native results differ");
  }
  /* The printed trace replays to a structurally equal module. */
  StrBuf tr;
  sb_init(&tr);
  sch_trace_print(s, &tr, true);
  DiagCtx rd;
  diag_init(&rd, stderr);
  IrModule *re = sch_trace_replay(orig, tr.data, &rd);
  char *diff = NULL;
  bool req = re && seq_module(re, sch_mod(s), NULL, &diff);
  CHECK(req);
  if (!req) {
    print_failure(&q, "trace replay differs");
    if (diff) fprintf(stderr, "  %s\n", diff);
  }
  free(diff);
  ir_module_free(re);
  diag_free(&rd);
  sb_free(&tr);
  sch_free(s);
  diag_free(&d);
  st->seqs++;
}

/* ------------------------------------------------------- fixed cases */

/* Regressions the random sequences found, minimised: a schedule script on
 * one of the kernels that must apply (results equal on the interpreter and
 * natively, the trace replays, the printed IR round-trips) or, when error
 * is given, whose last statement is refused with a message containing it. */
typedef struct FixedCase {
  const char *kernel;
  const char *script;
  const char *error; /* NULL: applies */
} FixedCase;

static const FixedCase fixed_cases[] = {
    /* read_at relaxed a guarded access (inlined padding) past the buffer:
     * the copy loaded I[-1]; the region is now clipped to the buffer. */
    {"conv2d",
     "sch.compute_inline(sch.get_block(\"pad\"))\n"
     "n, f, h, w, c, kh, kw = sch.get_loops(sch.get_block(\"conv\"))\n"
     "sch.read_at(w, sch.get_block(\"conv\"), 0, \"shared\")\n",
     NULL},
    {"matmul",
     "sch.pad_einsum(sch.get_block(\"C\"), [1, 5, 16])\n"
     "i, j = sch.get_loops(sch.get_block(\"B_pad\"))\n"
     "sch.read_at(i, sch.get_block(\"B_pad\"), 0, \"shared\")\n",
     NULL},
    /* pad_einsum padded loops shared with other blocks (their bindings left
     * their domains). */
    {"matmul_bias",
     "i, j, k = sch.get_loops(sch.get_block(\"multiply\"))\n"
     "sch.reverse_compute_at(sch.get_block(\"add\"), i)\n"
     "sch.pad_einsum(sch.get_block(\"multiply\"), [16, 2, 2])\n",
     "only a block alone in its loop nest can be padded"},
    /* pad_einsum of a block writing part of its output (a loop_partition
     * piece): the copy back overwrote the rest. */
    {"elementwise",
     "i, j = sch.get_loops(sch.get_block(\"B\"))\n"
     "sch.loop_partition(i, [8, 5, None])\n"
     "sch.pad_einsum(sch.get_block(\"B_i2\"), [1, 7])\n",
     "does not write all of buffer 'B'"},
    /* fuse_reduction_epilogue stored the epilogue's output at the
     * (transformed) indices of the reduction buffer. */
    {"matmul_bias",
     "sch.transform_layout(sch.get_block(\"add\"), (\"read\", 0), lambda a0, a1: (a1, a0 // 2, a0 % 2))\n"
     "sch.fuse_reduction_epilogue(sch.get_block(\"multiply\"), sch.get_block(\"add\"))\n",
     NULL},
    /* transform_layout with padding gave a reduction's init and update
     * nests the same loop vars. */
    {"matmul_bias",
     "i, j, k = sch.get_loops(sch.get_block(\"multiply\"))\n"
     "sch.blockize(i)\n"
     "sch.transform_layout(sch.get_block(\"multiply_init\"), (\"write\", 0), lambda a0, a1: (a1, a0 // 3, a0 % 3), pad_value=0.0)\n",
     NULL},
    /* transform_layout left an outer block's region unsimplified (`0 // 6`). */
    {"matmul_bias",
     "i, j = sch.get_loops(sch.get_block(\"add\"))\n"
     "sch.blockize(j)\n"
     "sch.transform_layout(sch.get_block(\"add\"), (\"read\", 0), lambda a0, a1: (a1 // 6, a0, a1 % 6))\n",
     NULL},
    /* transform_layout of a buffer other regions index through
     * (`A[index_var_0[vi, vr]]` after cache_index). */
    {"pool",
     "sch.cache_index(sch.get_block(\"B\"), \"global\", 0)\n"
     "sch.transform_layout(sch.get_block(\"B\"), (\"read\", 1), lambda a0, a1: (a0 * 3 + a1,))\n",
     NULL},
    /* reindex_cache_read's copy lacked the predicate of a non-dividing split. */
    {"pool",
     "i, r = sch.get_loops(sch.get_block(\"C\"))\n"
     "ro, ri = sch.split(r, [None, 4])\n"
     "sch.compute_at(sch.get_block(\"B\"), ro)\n"
     "sch.reindex_cache_read(sch.get_block(\"C\"), 0, \"local\", lambda v0, v1: (v1, v0 // 4, v0 % 4))\n",
     NULL},
    /* ... also when the conjunct is over loops around the copy. */
    {"matmul",
     "i, j, k = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.read_at(k, sch.get_block(\"C\"), 0, \"shared\")\n"
     "i2, j2, k2 = sch.get_loops(sch.get_block(\"A_shared\"))\n"
     "sch.split(k2, [5, 4, 1], preserve_unit_iters=False)\n"
     "sch.reindex_cache_read(sch.get_block(\"C\"), 0, \"global\", lambda v0, v1, v2: (v2 // 2, v0, v2 % 2))\n",
     NULL},
    /* reindex_cache_read sized the cache from the iters' extents although
     * a loop_partition piece's iter starts past 0. */
    {"softmax",
     "i, k = sch.get_loops(sch.get_block(\"expsum\"))\n"
     "sch.decompose_reduction(sch.get_block(\"expsum\"), i)\n"
     "i, k = sch.get_loops(sch.get_block(\"expsum_update\"))\n"
     "sch.loop_partition(i, [None, 2, 3])\n"
     "sch.reindex_cache_read(sch.get_block(\"expsum_update_i2\"), 1, \"shared\", lambda v0, v1: (v1, v0))\n",
     NULL},
    /* reindex of a guarded access copied I[-1] (the padding's condition is
     * not on the copy). */
    {"conv2d", "sch.reindex(sch.get_block(\"pad\"), (\"read\", 0))\n", "a guarded access"},
    /* reindex of a block inside an outer block run per row copied the whole
     * domain; the (compact, as TVM's) write-back there indexes D by the
     * outer block's iter, which reindex refuses. */
    {"elementwise",
     "i, j = sch.get_loops(sch.get_block(\"D\"))\n"
     "sch.blockize(j)\n"
     "sch.cache_write(sch.get_block(\"D\"), 0, \"global\")\n"
     "sch.reindex(sch.get_block(\"D_global\"), (\"write\", 0))\n",
     "which is not a block iter"},
    /* cache_write inside that outer block wrote the whole cache back. */
    {"elementwise",
     "i, j = sch.get_loops(sch.get_block(\"D\"))\n"
     "sch.blockize(j)\n"
     "sch.cache_write(sch.get_block(\"D\"), 0, \"global\")\n",
     NULL},
    /* decompose_reduction / blockize gave a non-constant init (after
     * fuse_reduction_epilogue) no read region. */
    {"matmul_bias",
     "sch.fuse_reduction_epilogue(sch.get_block(\"multiply\"), sch.get_block(\"add\"))\n"
     "i, j, k = sch.get_loops(sch.get_block(\"multiply\"))\n"
     "sch.decompose_reduction(sch.get_block(\"multiply\"), j)\n",
     NULL},
    {"matmul_bias",
     "sch.fuse_reduction_epilogue(sch.get_block(\"multiply\"), sch.get_block(\"add\"))\n"
     "i, j, k = sch.get_loops(sch.get_block(\"multiply\"))\n"
     "sch.blockize(i)\n",
     NULL},
    /* blockize's outer init kept a predicate over the reduce loops it does
     * not copy. */
    {"pool",
     "i, r = sch.get_loops(sch.get_block(\"B\"))\n"
     "sch.split(r, [None, 4])\n"
     "sch.blockize(i)\n",
     NULL},
    /* rolling_buffer on a block writing a whole row per instance (a read_at
     * copy) skipped whole instances. */
    {"pool",
     "i, r = sch.get_loops(sch.get_block(\"B\"))\n"
     "sch.read_at(i, sch.get_block(\"B\"), 0, \"shared\")\n"
     "sch.rolling_buffer(sch.get_block(\"A_shared\"), 0)\n",
     "in the rolling dimension 0 (one element per block instance)"},
    /* decompose_reduction / blockize of a block whose iter rolling_buffer
     * made opaque (its init used the dropped iter). */
    {"pool",
     "i, r = sch.get_loops(sch.get_block(\"C\"))\n"
     "io, ii = sch.split(i, [None, 8])\n"
     "sch.compute_at(sch.get_block(\"B\"), io)\n"
     "sch.rolling_buffer(sch.get_block(\"B\"), 0)\n"
     "io, ax0, ax1 = sch.get_loops(sch.get_block(\"B\"))\n"
     "sch.decompose_reduction(sch.get_block(\"B\"), ax1)\n",
     "is not a reduction block"},
    {"pool",
     "i, r = sch.get_loops(sch.get_block(\"C\"))\n"
     "io, ii = sch.split(i, [None, 8])\n"
     "sch.compute_at(sch.get_block(\"B\"), io)\n"
     "sch.rolling_buffer(sch.get_block(\"B\"), 0)\n"
     "io, ii, r = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.blockize(ii)\n",
     "it is not a reduction block"},
    /* loop_partition of a reduction's loop: every piece re-ran the init. */
    {"matmul",
     "i, j, k = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.loop_partition(k, [None, 4, 3])\n",
     "every piece would start the reduction over"},
    /* decompose_reduction / blockize of a reduction over a loop not starting
     * where the reduce iter does (the block's init never runs). */
    {"partial_sum",
     "i, k = sch.get_loops(sch.get_block(\"S\"))\n"
     "sch.decompose_reduction(sch.get_block(\"S\"), k)\n",
     "does not start at the start of its domain"},
    {"partial_sum",
     "i, k = sch.get_loops(sch.get_block(\"S\"))\n"
     "sch.blockize(k)\n",
     "does not start at the start of its domain"},
    /* loop_partition's opaque blocks had empty regions, so a later
     * cache_read was placed before their writes. */
    {"branches",
     "i, j = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.loop_partition(i, [8, 5])\n"
     "sch.reindex_cache_read(sch.get_block(\"D\"), 1, \"local\", lambda v0, v1: (v0 * 12 + v1,))\n",
     NULL},
    /* ... and their union regions unsimplified (`T.min(0 // 2, 2 // 2)`). */
    {"sum_epilogue",
     "sch.transform_layout(sch.get_block(\"D\"), (\"read\", 0), lambda a0: (a0 // 2, a0 % 2))\n"
     "i, = sch.get_loops(sch.get_block(\"D\"))\n"
     "sch.loop_partition(i, [2, 4])\n",
     NULL},
    /* loop_partition widened a leaf block's write region to the piece: a
     * write_at copied what was not written yet. */
    {"elementwise",
     "i, j = sch.get_loops(sch.get_block(\"B\"))\n"
     "sch.loop_partition(j, [1, None, 8])\n"
     "j1, = sch.get_loops(sch.get_block(\"B_j1\"))\n"
     "sch.write_at(j1, sch.get_block(\"B_j1\"), 0, \"global\")\n",
     NULL},
    {"matmul_bias",
     "i, j = sch.get_loops(sch.get_block(\"add\"))\n"
     "sch.loop_partition(j, [None, 5])\n"
     "j1, = sch.get_loops(sch.get_block(\"add_j1\"))\n"
     "sch.write_at(j1, sch.get_block(\"add_j1\"), 0, \"global\")\n",
     NULL},
    /* write_at's copy block used loops around its scope block directly. */
    {"conv2d",
     "n, c, h, w = sch.get_loops(sch.get_block(\"pad\"))\n"
     "sch.loop_partition(w, [None, 2])\n"
     "w0, = sch.get_loops(sch.get_block(\"pad_w0\"))\n"
     "sch.write_at(w0, sch.get_block(\"pad_w0\"), 0, \"local\")\n",
     NULL},
    /* split appends its predicate to blocks nested in opaque ones (a
     * loop_partition piece) too. */
    {"elementwise",
     "i, j = sch.get_loops(sch.get_block(\"B\"))\n"
     "sch.loop_partition(j, [5, None])\n"
     "sch.split(i, [None, 5])\n",
     NULL},
    /* reverse_compute_inline into a producer over a larger (padded) domain
     * stored out of bounds; the producer gets the consumer's bounds. */
    {"matmul_relu",
     "sch.reorder_block_iter_var(sch.get_block(\"R\"), [1, 0])\n"
     "sch.pad_einsum(sch.get_block(\"R\"), [1, 16])\n"
     "sch.reverse_compute_inline(sch.get_block(\"C_pad\"))\n",
     NULL},
    /* An update in place (Y = Y + 2X) through a write cache lost Y's old
     * contents: refused (cache_inplace is the primitive for it). */
    {"axpy",
     "i, j = sch.get_loops(sch.get_block(\"axpy\"))\n"
     "sch.write_at(i, sch.get_block(\"axpy\"), 0, \"local\")\n",
     "updates buffer 'Y' in place"},
    {"axpy", "sch.cache_write(sch.get_block(\"axpy\"), 0, \"shared\")\n", "updates buffer 'Y' in place"},
    {"axpy", "sch.reindex(sch.get_block(\"axpy\"), (\"write\", 0))\n", "updates buffer 'Y' in place"},
    {"axpy", "sch.reindex(sch.get_block(\"axpy\"), (\"read\", 0))\n", "updates buffer 'Y' in place"},
    {"axpy",
     "sch.reindex_cache_write(sch.get_block(\"axpy\"), 0, \"local\", lambda v0, v1: (v1, v0))\n",
     "updates buffer 'Y' in place"},
    /* cache_inplace's copies ran outside the block's predicate. */
    {"axpy",
     "i, j = sch.get_loops(sch.get_block(\"axpy\"))\n"
     "sch.split(i, [None, 3])\n"
     "sch.cache_inplace(sch.get_block(\"axpy\"), 0, \"local\")\n",
     NULL},
    /* cache_index of a block in its scope's init replaced the scope body. */
    {"matmul_bias",
     "i, j, k = sch.get_loops(sch.get_block(\"multiply\"))\n"
     "sch.blockize(i, preserve_unit_iters=False)\n"
     "sch.cache_index(sch.get_block(\"multiply_init\"), \"local\", 0)\n",
     NULL},
    /* decompose_padding rebuilt a loop holding a consumer moved in by
     * reverse_compute_at, dropping the consumer. */
    {"conv2d",
     "sch.add_unit_loop(sch.get_block(\"pad\"))\n"
     "n, c, h, w, u = sch.get_loops(sch.get_block(\"pad\"))\n"
     "no, ni = sch.split(n, [None, 2])\n"
     "sch.reverse_compute_at(sch.get_block(\"conv\"), no)\n"
     "sch.decompose_padding(sch.get_block(\"pad\"), no)\n",
     NULL},
    /* blockize divided an iter narrowed by loop_partition to [3, 11) into an
     * outer iter over [0, 8) bound to values from 3. */
    {"elementwise",
     "sch.reindex(sch.get_block(\"B\"), (\"read\", 0))\n"
     "i, j = sch.get_loops(sch.get_block(\"A_reindex_reindex\"))\n"
     "sch.loop_partition(i, [None, 8, 5])\n"
     "i1, j = sch.get_loops(sch.get_block(\"A_reindex_reindex_ax01\"))\n"
     "sch.blockize(j, preserve_unit_iters=False)\n",
     "starts at 3, not at 0"},
    /* compute_at moved an opaque block (a loop_partition piece's common
     * block) away from the loop var its inner blocks are bound to. */
    {"matmul_relu",
     "i, j, k = sch.get_loops(sch.get_block(\"Y\"))\n"
     "sch.loop_partition(j, [3, None])\n"
     "i, j = sch.get_loops(sch.get_block(\"R\"))\n"
     "io, ii = sch.split(i, [None, 8])\n"
     "sch.compute_at(sch.get_block(\"Y_j_common\"), io)\n",
     "uses the var of its loop 'i' directly"},
    /* reindex_cache_write of a block holding blocks (blockize's outer one)
     * left the inner init writing the old buffer. */
    {"matmul",
     "i, j, k = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.blockize(k, preserve_unit_iters=False)\n"
     "sch.reindex_cache_write(sch.get_block(\"C_o\"), 0, \"shared\", lambda v0, v1, v2: (v0, v1))\n",
     "is not a leaf block"},
    /* A write cache inside the reduction loop (the reduce loop outermost
     * after transform_block_layout) lost the partial sums between steps. */
    {"matmul",
     "sch.transform_block_layout(sch.get_block(\"C\"), lambda v0, v1, v2: (v2, v1, v0))\n"
     "k, j, i = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.loop_partition(i, [1, None, 1])\n"
     "i1, = sch.get_loops(sch.get_block(\"C_ax21\"))\n"
     "sch.write_at(i1, sch.get_block(\"C_ax21\"), 0, \"local\")\n",
     "over a loop around it; the write cache would not carry the partial results"},
    {"matmul",
     "sch.transform_block_layout(sch.get_block(\"C\"), lambda v0, v1, v2: (v2, v1, v0))\n"
     "k, j, i = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.loop_partition(i, [1, None, 1])\n"
     "sch.cache_write(sch.get_block(\"C_ax21\"), 0, \"local\")\n",
     "outside its scope block"},
    /* fuse_reduction_epilogue made the reduction read the bias before the
     * read_at copy between the two blocks wrote it. */
    {"matmul_bias",
     "i, j = sch.get_loops(sch.get_block(\"add\"))\n"
     "sch.read_at(i, sch.get_block(\"add\"), 1, \"shared\")\n"
     "sch.fuse_reduction_epilogue(sch.get_block(\"multiply\"), sch.get_block(\"add\"))\n",
     "between the reduction 'multiply' and the epilogue"},
    /* cache_index gave an index block's iters the extents of the loops in
     * their positions, which a fused binding overran. */
    {"pool",
     "i, r = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.reorder(r, i)\n"
     "r, i = sch.get_loops(sch.get_block(\"C\"))\n"
     "ro, ri = sch.split(r, [None, 8])\n"
     "sch.compute_at(sch.get_block(\"B\"), ro)\n"
     "ro, ri, i = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.fuse(ri, i, preserve_unit_iters=False)\n"
     "sch.cache_index(sch.get_block(\"C\"), \"global\", 0)\n",
     NULL},
    /* read_at of a buffer indexed through a load (after cache_index): the
     * copy indexed through the load without reading that buffer. */
    {"pool",
     "sch.cache_index(sch.get_block(\"B\"), \"global\", 0)\n"
     "i, r = sch.get_loops(sch.get_block(\"B\"))\n"
     "sch.read_at(i, sch.get_block(\"B\"), 0, \"local\")\n",
     NULL},
    /* rolling_buffer took the tiles of a block under a predicate (a unit
     * loop split by 5) for 5 wide and skipped elements never computed. */
    {"sum_epilogue",
     "i, = sch.get_loops(sch.get_block(\"D\"))\n"
     "sch.compute_at(sch.get_block(\"S\"), i, preserve_unit_loops=True)\n"
     "i, ax0, ax1 = sch.get_loops(sch.get_block(\"S\"))\n"
     "sch.split(ax0, [None, 5])\n"
     "sch.rolling_buffer(sch.get_block(\"S\"), 0)\n",
     "has a predicate"},
    /* compute_inline of a loop_partition piece rewrote the readers outside
     * its scope with an expression reading a cache allocated in the piece
     * (and the other piece writes the buffer too). */
    {"elementwise",
     "i, j = sch.get_loops(sch.get_block(\"C\"))\n"
     "sch.loop_partition(j, [1, None])\n"
     "j0, = sch.get_loops(sch.get_block(\"C_j0\"))\n"
     "sch.read_at(j0, sch.get_block(\"C_j0\"), 0, \"shared\")\n"
     "sch.compute_inline(sch.get_block(\"C_j0\"))\n",
     "is not the only writer of buffer 'C'"},
    /* sample_perfect_tile of a loop with a symbolic extent (after
     * compute_at; rows of 12 in tiles of 5) records the decision [-1, 1],
     * which the replay refused. */
    {"matmul_bias",
     "i, j = sch.get_loops(sch.get_block(\"add\"))\n"
     "f = sch.fuse(i, j)\n"
     "fo, fi = sch.split(f, [None, 5])\n"
     "sch.compute_at(sch.get_block(\"multiply\"), fo)\n"
     "fo, ax0, ax1, ax2 = sch.get_loops(sch.get_block(\"multiply\"))\n"
     "v = sch.sample_perfect_tile(ax0, n=2)\n"
     "sch.split(ax0, factors=v, preserve_unit_iters=False)\n",
     NULL},
    /* cache_index's index stage looped from 0 over a loop starting past 0
     * (a loop_partition piece). */
    {"pool",
     "i, r = sch.get_loops(sch.get_block(\"B\"))\n"
     "sch.loop_partition(i, [5, None])\n"
     "sch.cache_index(sch.get_block(\"B_i1\"), \"local\", 0)\n",
     NULL},
    /* decompose_padding rebuilt an innermost loop holding a write_at copy
     * beside the padding block, dropping the copy. */
    {"branches",
     "sch.pad_einsum(sch.get_block(\"B\"), [4, 7])\n"
     "i0, i1 = sch.get_loops(sch.get_block(\"A_pad\"))\n"
     "sch.write_at(i1, sch.get_block(\"A_pad\"), 0, \"shared\")\n"
     "sch.decompose_padding(sch.get_block(\"A_pad\"), i0)\n",
     "is not alone in its innermost loop 'i1'"},
    /* decompose_reduction hoisted the init above loops visiting an output
     * point several times (compute_at under a tile smaller than the region
     * it needs), which then accumulated twice. */
    {"pool",
     "i, r = sch.get_loops(sch.get_block(\"C\"))\n"
     "io, ii = sch.split(i, [None, 4])\n"
     "sch.compute_at(sch.get_block(\"B\"), io)\n"
     "sch.decompose_reduction(sch.get_block(\"B\"), io)\n",
     "visit some values of iter 'vi' of block 'B' more than once"},
    {"pool", /* (tiles that do not overlap are fine) */
     "i, r = sch.get_loops(sch.get_block(\"B\"))\n"
     "io, ii = sch.split(i, [None, 6])\n"
     "sch.decompose_reduction(sch.get_block(\"B\"), io)\n",
     NULL},
    /* reverse_compute_at under a loop whose producer writes a fused loop's
     * rows piecewise (`v0 // 12`, `v0 % 12`): the consumer read whole rows
     * produced in earlier iterations, which the lowering does not keep. */
    {"elementwise",
     "sch.transform_block_layout(sch.get_block(\"C\"), lambda v0, v1: (v0 * 12 + v1,))\n"
     "f, = sch.get_loops(sch.get_block(\"C\"))\n"
     "fo, fi = sch.split(f, [None, 8])\n"
     "sch.reverse_compute_at(sch.get_block(\"D\"), fo)\n",
     "cannot be told exactly"},
    /* write_at's copy ran outside the block's predicate and, natively, copied
     * a cache allocated anew in each iteration. */
    {"matmul_relu",
     "i, j, k = sch.get_loops(sch.get_block(\"Y\"))\n"
     "io, ii = sch.split(i, [None, 8])\n"
     "sch.reverse_compute_at(sch.get_block(\"R\"), io)\n"
     "io, ii, j, k = sch.get_loops(sch.get_block(\"Y\"))\n"
     "ioo, ioi = sch.split(io, [None, 8])\n"
     "ioo, ioi, ii, j, k = sch.get_loops(sch.get_block(\"Y\"))\n"
     "sch.write_at(j, sch.get_block(\"Y\"), 0, \"local\")\n",
     NULL},
    /* Lowering: a reduction's buffer was allocated inside the reduce loop
     * once a consumer was moved under it (native results differed). */
    {"matmul_bias",
     "i, j, k = sch.get_loops(sch.get_block(\"multiply\"))\n"
     "sch.reverse_compute_at(sch.get_block(\"add\"), k)\n",
     NULL},
};

/* The kernel named name (or -1). */
static int kernel_index(const char *name) {
  for (int k = 0; k < NKERNELS; k++)
    if (!strcmp(kernels[k].name, name)) return k;
  return -1;
}

static void run_fixed_case(const FixedCase *fc, IrModule *const *mods, float *const *ref, const int *nref) {
  int k = kernel_index(fc->kernel);
  TVS_ASSERT(k >= 0);
  IrModule *m = ir_module_copy(mods[k]);
  DiagCtx d;
  diag_init(&d, NULL);
  char *text = xasprintf("%s%s", fc->script, fc->error ? "" : "print(sch.trace)\n");
  SourceFile *src = src_from_string("<fixed>", text, strlen(text));
  free(text);
  StrBuf out;
  sb_init(&out);
  int rc = sch_eval_text(src, &m, &d, &out);
  bool ok;
  if (fc->error) {
    ok = rc != 0 && d.nerr == 1 && d.len && strstr(d.items[d.len - 1].msg, fc->error);
  } else {
    ok = rc == 0 && d.nerr == 0;
    int n = 0;
    float *got = ok ? run(m, "main", &n) : NULL;
    ok = ok && close_results(ref[k], nref[k], got, n) && run_native_check(m, ref[k], nref[k]);
    free(got);
    const char *tr = out.data ? strstr(out.data, "# from tvm import tir") : NULL;
    IrModule *re = tr ? sch_trace_replay(mods[k], tr, &d) : NULL;
    ok = ok && re && seq_module(re, m, NULL, NULL);
    ir_module_free(re);
    char *why = NULL;
    ok = ok && round_trips(m, &why);
    free(why);
  }
  CHECK(ok);
  if (!ok) {
    fprintf(stderr, "fixed case on %s failed (expected %s):\n%s", fc->kernel,
            fc->error ? fc->error : "to apply", fc->script);
    for (int i = 0; i < d.len; i++) fprintf(stderr, "  diag: %s\n", d.items[i].msg);
  }
  sb_free(&out);
  src_free(src);
  diag_free(&d);
  ir_module_free(m);
}

int main(void) {
  const char *env = getenv("TVS_PROP_SEQS");
  int nseqs = env ? atoi(env) : 2000;
  env = getenv("TVS_PROP_SEED");
  uint64_t base = env ? strtoull(env, NULL, 10) : 20240601u;
  env = getenv("TVS_PROP_NATIVE_EVERY");
  int native_every = env ? atoi(env) : getenv("TVS_TEST_QUICK") ? 25 : 5;
  IrModule *mods[NKERNELS];
  SourceFile *ksrcs[NKERNELS];
  float *ref[NKERNELS];
  int nref[NKERNELS];
  for (int k = 0; k < NKERNELS; k++) {
    ksrcs[k] = src_from_string(kernels[k].name, kernels[k].text, strlen(kernels[k].text));
    DiagCtx d;
    diag_init(&d, stderr);
    mods[k] = tvs_load_module(ksrcs[k], &d);
    diag_flush(&d);
    diag_free(&d);
    CHECK(mods[k] != NULL);
    if (!mods[k]) TEST_MAIN_END();
    nref[k] = 0;
    ref[k] = run(mods[k], "main", &nref[k]);
    CHECK(ref[k] != NULL);
    /* The reference compiles natively to the same results. */
    CHECK(run_native_check(mods[k], ref[k], nref[k]));
  }
  for (size_t i = 0; i < sizeof fixed_cases / sizeof fixed_cases[0]; i++)
    run_fixed_case(&fixed_cases[i], mods, ref, nref);
  Stats st;
  memset(&st, 0, sizeof st);
  for (int i = 0; i < nseqs; i++)
    run_sequence(mods, ref, nref, base + (uint64_t)i, native_every > 0 && i % native_every == 0, &st);
  printf("%d sequences over %d kernels (%d also run natively): %d steps applied, %d refused, "
         "%d printed-IR round trips\n",
         st.seqs, NDRAWN_KERNELS, st.native_runs, st.applied, st.refused, st.roundtrips);
  for (int p = 0; p < NPRIMS; p++)
    if (p != P_TILE_COMPUTE_AT) /* (a macro: counted as its two steps) */
      printf("  %-28s %5d applied %5d refused\n", prim_names[p], st.per_prim[p][0], st.per_prim[p][1]);
  /* Every primitive was exercised (scaled down for shorter runs). */
  int min_applied = nseqs >= 2000 ? MIN_APPLIED : nseqs >= 500 ? 1 : 0;
  for (int p = 0; p < NPRIMS; p++) {
    if (p == P_TILE_COMPUTE_AT) continue; /* a macro: its steps count as P_TILE_* */
    CHECK(st.per_prim[p][0] >= min_applied);
    if (st.per_prim[p][0] < min_applied)
      fprintf(stderr, "primitive %s applied only %d times\n", prim_names[p], st.per_prim[p][0]);
  }
  for (int k = 0; k < NKERNELS; k++) {
    free(ref[k]);
    ir_module_free(mods[k]);
    src_free(ksrcs[k]);
  }
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
