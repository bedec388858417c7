/* test_sched_property.c - random legal-or-refused schedule sequences.
 *
 * Over six small kernels, applies seeded random sequences of 1-6 primitives
 * and requires: every result computes what the unscheduled function computes
 * (interpreter), every refusal leaves the schedule unchanged, and the printed
 * trace replays on the original module to a structurally equal result.
 * TVS_PROP_SEQS (default 2000) and TVS_PROP_SEED size and seed the run. */
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

/* ------------------------------------------------------------- kernels */

typedef struct Kernel {
  const char *name;  /* for messages */
  const char *text;  /* TVMScript source; the function is "main" */
} Kernel;

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
};
enum { NKERNELS = (int)(sizeof kernels / sizeof kernels[0]) };

/* ---------------------------------------------------------------- rng */

static uint64_t rng_state;

static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33);
}
static int rnd_below(int n) { return n <= 0 ? 0 : (int)(rnd() % (uint32_t)n); }

/* ------------------------------------------------------------ oracle */

/* Runs main on deterministic inputs; returns all params' contents (malloc'd). */
static float *run(const IrModule *m, int *n) {
  const IrGlobal *g = ir_module_lookup(m, "main");
  if (!g || g->kind != IR_FUNC_TIR) return NULL;
  const TirFunc *f = g->tir;
  InterpArg args[8];
  TvsNDArray *arr[8] = {0};
  memset(args, 0, sizeof args);
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
    args[i].tensor = &arr[i]->t;
    total += (int)cnt;
  }
  DiagCtx d;
  diag_init(&d, stderr);
  float *out = NULL;
  if (interp_run_tir(m, "main", args, f->nparams, &d) == 0) {
    out = xmalloc((size_t)total * sizeof *out);
    int at = 0;
    for (int i = 0; i < f->nparams; i++) {
      int64_t cnt = tvs_ndarray_numel(&arr[i]->t);
      memcpy(out + at, arr[i]->t.data, (size_t)cnt * sizeof(float));
      at += (int)cnt;
    }
    *n = total;
  }
  diag_flush(&d);
  diag_free(&d);
  for (int i = 0; i < f->nparams && i < 8; i++) tvs_ndarray_free(arr[i]);
  return out;
}

static bool same(const float *ra, int na, const float *rb, int nb) {
  if (!ra || !rb || na != nb) return false;
  for (int i = 0; i < na; i++)
    if (fabsf(ra[i] - rb[i]) > 1e-4f * (1 + fabsf(ra[i]))) return false;
  return true;
}

/* ------------------------------------------------- handles of the moment */

static bool collect_block(TirVisitor *v, const TirStmt *st) {
  if (st->kind == TIR_S_BLOCK && strcmp(st->block.name, "root")) pv_push((PtrVec *)v->ctx, (void *)st->block.name);
  return true;
}

/* The names of the blocks of the current version (pointers into it). */
static void block_names(const Schedule *s, PtrVec *out) {
  const IrGlobal *g = ir_module_lookup(sch_mod(s), "main");
  TirVisitor v = {0};
  v.pre_stmt = collect_block;
  v.ctx = out;
  tir_visit_func(&v, g->tir);
}

/* A random block handle (or -1). */
static SchRV random_block(Schedule *s) {
  PtrVec names = {0};
  block_names(s, &names);
  SchRV rv = -1;
  if (names.len) {
    char *name = xstrdup(names.items[rnd_below(names.len)]);
    rv = sch_get_block(s, name, NULL);
    free(name);
  }
  pv_free(&names);
  return rv;
}

/* ----------------------------------------------------------- sequences */

typedef struct Stats {
  int seqs, applied, refused;
  int per_prim[16][2]; /* [prim][0 = applied, 1 = refused] */
} Stats;

static const char *const prim_names[] = {
    "split", "fuse", "reorder", "parallel", "vectorize", "unroll", "compute_at",
    "reverse_compute_at", "compute_inline", "reverse_compute_inline", "decompose_reduction",
    "cache_read", "cache_write"};
enum { NPRIMS = (int)(sizeof prim_names / sizeof prim_names[0]) };

/* Applies one random primitive; returns 1 applied, 0 refused, -1 nothing to do. */
static int random_step(Schedule *s, int prim) {
  SchRV b = random_block(s);
  if (b < 0) return -1;
  SchRV *loops = NULL;
  int nl = sch_get_loops(s, b, &loops);
  if (nl < 0) return -1;
  int rc = -2;
  switch (prim) {
    case 0: { /* split */
      if (!nl) break;
      int n = 2 + rnd_below(2);
      int64_t f[3];
      static const int64_t choices[] = {1, 2, 3, 4, 5, 8};
      int none_at = rnd_below(n + 1); /* n: all given */
      for (int i = 0; i < n; i++) f[i] = i == none_at ? 0 : choices[rnd_below(6)];
      SchRV out[3];
      rc = sch_split(s, loops[rnd_below(nl)], f, n, rnd_below(2), false, out);
      break;
    }
    case 1: { /* fuse of adjacent loops */
      if (nl < 2) break;
      int at = rnd_below(nl - 1);
      int cnt = 2 + rnd_below(nl - at - 1 > 2 ? 2 : nl - at - 1);
      rc = sch_fuse(s, loops + at, cnt, rnd_below(2)) < 0 ? -1 : 0;
      break;
    }
    case 2: { /* reorder a permutation of a sub-chain */
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
    case 3: if (nl) rc = sch_parallel(s, loops[rnd_below(nl)]); break;
    case 4: if (nl) rc = sch_vectorize(s, loops[rnd_below(nl)]); break;
    case 5: if (nl) rc = sch_unroll(s, loops[rnd_below(nl)]); break;
    case 6:
    case 7: { /* (reverse_)compute_at to a loop of another block */
      SchRV other = random_block(s);
      SchRV *ol = NULL;
      int no = other >= 0 ? sch_get_loops(s, other, &ol) : -1;
      if (no > 0) {
        SchRV l = ol[rnd_below(no)];
        bool keep = rnd_below(2);
        rc = prim == 6 ? sch_compute_at(s, b, l, keep, -1) : sch_reverse_compute_at(s, b, l, keep, -1);
      }
      free(ol);
      break;
    }
    case 8: rc = sch_compute_inline(s, b); break;
    case 9: rc = sch_reverse_compute_inline(s, b); break;
    case 10: if (nl) rc = sch_decompose_reduction(s, b, loops[rnd_below(nl)]) < 0 ? -1 : 0; break;

    case 11: {
      static const char *const scopes[] = {"global", "shared", "local"};
      rc = sch_cache_read(s, b, rnd_below(3), scopes[rnd_below(3)]) < 0 ? -1 : 0;
      break;
    }
    case 12: {
      static const char *const scopes[] = {"global", "shared", "local"};
      rc = sch_cache_write(s, b, rnd_below(2), scopes[rnd_below(3)]) < 0 ? -1 : 0;
      break;
    }

    default: break;
  }
  free(loops);
  if (rc == -2) return -1;
  return rc == 0 ? 1 : 0;
}

static void print_failure(const char *what, int kernel, uint64_t seed, const Schedule *s) {
  StrBuf sb;
  sb_init(&sb);
  sch_trace_print(s, &sb, true);
  fprintf(stderr, "property failure (%s) on kernel %s, sequence seed %llu; trace:\n%s\n", what,
          kernels[kernel].name, (unsigned long long)seed, sb.data ? sb.data : "");
  sb_free(&sb);
}

static void run_sequence(IrModule *const *mods, float *const *ref, const int *nref, uint64_t seed,
                         Stats *st) {
  rng_state = seed * 2654435761ULL + 1;
  int kernel = rnd_below(NKERNELS);
  const IrModule *orig = mods[kernel];
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(orig, &d);
  int len = 1 + rnd_below(6);
  for (int step = 0; step < len; step++) {
    int prim = rnd_below(NPRIMS);
    const IrModule *before = sch_mod(s);
    IrModule *copy = ir_module_copy(before);
    int nv = sch_num_versions(s);
    int nerr = d.nerr;
    int r = random_step(s, prim);
    if (r == 1) {
      st->applied++;
      st->per_prim[prim][0]++;
      CHECK_EQ_INT(d.nerr, nerr);
    } else if (r == 0) {
      st->refused++;
      st->per_prim[prim][1]++;
      /* A refusal reports one error and leaves the schedule as it was. */
      bool ok = d.nerr == nerr + 1 && sch_num_versions(s) == nv && sch_mod(s) == before &&
                seq_module(copy, sch_mod(s), NULL, NULL);
      CHECK(ok);
      if (!ok) print_failure("refusal changed the schedule", kernel, seed, s);
    }
    ir_module_free(copy);
  }
  /* Same results as the unscheduled function. */
  int n = 0;
  float *got = run(sch_mod(s), &n);
  bool eq = same(ref[kernel], nref[kernel], got, n);
  CHECK(eq);
  if (!eq) print_failure("results differ", kernel, seed, s);
  free(got);
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
    print_failure("trace replay differs", kernel, seed, s);
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

int main(void) {
  const char *env = getenv("TVS_PROP_SEQS");
  int nseqs = env ? atoi(env) : 2000;
  env = getenv("TVS_PROP_SEED");
  uint64_t base = env ? strtoull(env, NULL, 10) : 20240601u;
  IrModule *mods[NKERNELS];
  SourceFile *srcs[NKERNELS];
  float *ref[NKERNELS];
  int nref[NKERNELS];
  for (int k = 0; k < NKERNELS; k++) {
    srcs[k] = src_from_string(kernels[k].name, kernels[k].text, strlen(kernels[k].text));
    DiagCtx d;
    diag_init(&d, stderr);
    mods[k] = tvs_load_module(srcs[k], &d);
    diag_flush(&d);
    diag_free(&d);
    CHECK(mods[k] != NULL);
    if (!mods[k]) TEST_MAIN_END();
    nref[k] = 0;
    ref[k] = run(mods[k], &nref[k]);
    CHECK(ref[k] != NULL);
  }
  Stats st;
  memset(&st, 0, sizeof st);
  for (int i = 0; i < nseqs; i++) run_sequence(mods, ref, nref, base + (uint64_t)i, &st);
  printf("%d sequences over %d kernels: %d primitives applied, %d refused\n", st.seqs, NKERNELS,
         st.applied, st.refused);
  for (int p = 0; p < NPRIMS; p++)
    printf("  %-24s %5d applied %5d refused\n", prim_names[p], st.per_prim[p][0], st.per_prim[p][1]);
  for (int k = 0; k < NKERNELS; k++) {
    free(ref[k]);
    ir_module_free(mods[k]);
    src_free(srcs[k]);
  }
  TEST_MAIN_END();
}
