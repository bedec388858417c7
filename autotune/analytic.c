/* analytic.c - the analytic candidate: one point of the generated space
 * chosen by a model of the machine instead of by chance, measured in the
 * search's first batch so that evolution starts next to a good point.
 *
 * The model is the analytical one of BLIS (Low et al., "Analytical
 * modeling is enough for high-performance BLIS", 2016), read onto the
 * space's SSRSRS tiles (S3 the register tile, R1 the micro-kernel's
 * reduction, S2 the micro-tiles swept per write-cache block):
 *   nr  the vector loop's S3: two vector registers wide
 *   mr  the row loop's S3: as many rows as the registers hold accumulators
 *       for, keeping nr/lanes registers for the B row and one for A's
 *       broadcast (6 on AVX2, 14 on AVX-512, as library kernels use)
 *   kc  the reduction's R1: all of it while a B micro-panel (kc x nr)
 *       fills at most a quarter of L2
 *   j2  micro-panels per S2 sweep: their B block (j2 nr x kc) in half of L2
 *   i2  rows per S2 sweep: the write cache (i2 mr x j2 nr) in half of L1
 *   j1  columns per S0 tile: its packed B (j1 j2 nr x kc) within L2
 * S0 takes what is left, the row loop's part moved out only when the
 * threads need more tasks.  The write cache sits under S1, the reused
 * operand is packed in panels, the register tile's rows are unrolled, and a
 * power-of-two row extent is padded when that gives a taller register tile.
 * Nothing here is measured: the search measures the candidate and takes it
 * or leaves it like any other. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "autotune/tune.h"
#include "base/host_cpu.h"

TuneHostModel tune_host_model(int threads) {
  TuneHostModel hm;
  memset(&hm, 0, sizeof hm);
  bool avx512 = host_cpu_has_avx512();
  hm.lanes = avx512 ? 16 : 8;
  hm.vregs = avx512 ? 32 : 16;
  long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  hm.l1 = l1 > 0 ? l1 : 32 * 1024; /* sysconf says 0 where the C library cannot tell */
  hm.l2 = l2 > 0 ? l2 : 512 * 1024;
  hm.threads = threads > 0 ? threads : 1;
  return hm;
}

/* The largest divisor of n that is at most cap (1 at least). */
static int64_t divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = cap < n ? cap : n; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* The smallest divisor of n that is at least want (n at most). */
static int64_t divisor_at_least(int64_t n, int64_t want) {
  for (int64_t d = want > 1 ? want : 1; d < n; d++)
    if (n % d == 0) return d;
  return n;
}

/* The register tile's width: a multiple of the lanes up to two vectors,
 * else the largest divisor up to two vectors. */
static int64_t tile_width(int64_t extent, int lanes) {
  for (int64_t w = 2 * lanes; w >= lanes; w -= lanes)
    if (extent % w == 0) return w;
  return divisor_at_most(extent, 2 * lanes);
}

/* The register tile's height for a row extent and a width. */
static int64_t tile_height(int64_t extent, int64_t nr, const TuneHostModel *hm) {
  int64_t nv = (nr + hm->lanes - 1) / hm->lanes;
  int64_t rows = (hm->vregs - nv - 1) / nv;
  return divisor_at_most(extent, rows > 1 ? rows : 1);
}

/* The generated space's decisions with base's up to the pad choice (the
 * unroll depth), pad set, and the rest sampled: the layout of the tiles that
 * pad leaves. */
static int layout_with_pad(const IrModule *m, const char *func, const TuneDecisions *base, int pad_at, int pad,
                           TuneDecisions *out) {
  TuneDecisions in = *base;
  in.n = pad_at + 1;
  in.v[pad_at][0] = pad;
  TuneCandidate c;
  DiagCtx d;
  diag_init(&d, NULL);
  int rc = tune_space_generate(m, func, &in, 1, &c, &d);
  diag_free(&d);
  if (rc == 0) *out = c.dec;
  tune_candidate_free(&c);
  return rc;
}

/* Fills the decisions of layout d by the model; the tile it chose in what. */
static void fill(TuneDecisions *d, const TuneHostModel *hm, char *what, size_t whatlen) {
  int ri = tune_decisions_role(d, TUNE_ROLE_TILE_ROW), vi = tune_decisions_role(d, TUNE_ROLE_TILE_VECTOR);
  int64_t J = d->extent[vi], I = d->extent[ri];
  int64_t nr = tile_width(J, hm->lanes), mr = tile_height(I, nr, hm);
  /* the reduction: innermost loops whole while the B micro-panel fits */
  int64_t kc_max = hm->l2 / 4 / (nr * 4), kc = 1, K = 1;
  for (int i = d->n - 1; i >= 0; i--) {
    if (d->role[i] != TUNE_ROLE_TILE_REDUCE) continue;
    int64_t e = d->extent[i], r1 = divisor_at_most(e, kc_max / kc);
    if (kc * e > kc_max && kc > 1) r1 = 1; /* an outer loop stays outside once one is split */
    d->v[i][0] = e / r1, d->v[i][1] = r1;
    kc *= r1, K *= e;
  }
  int64_t j2 = divisor_at_most(J / nr, hm->l2 / 2 / (nr * kc * 4));
  int64_t i2 = divisor_at_most(I / mr, hm->l1 / 2 / (mr * j2 * nr * 4));
  int64_t j1 = divisor_at_most(J / (nr * j2), hm->l2 / (j2 * nr * K * 4));
  int64_t j0 = J / (nr * j2 * j1), rest_i = I / (mr * i2);
  int64_t tasks = j0;
  for (int i = 0; i < d->n; i++)
    if (d->role[i] == TUNE_ROLE_TILE_SPATIAL) {
      d->v[i][0] = d->extent[i], d->v[i][1] = d->v[i][2] = d->v[i][3] = 1;
      tasks *= d->extent[i];
    }
  /* the row loop's S0 only as large as the threads need (each S0 tile of
   * rows packs B again) */
  int64_t i0 = tasks >= hm->threads ? 1 : divisor_at_least(rest_i, (hm->threads + tasks - 1) / tasks);
  int64_t iv[4] = {i0, rest_i / i0, i2, mr}, jv[4] = {j0, j1, j2, nr};
  memcpy(d->v[ri], iv, sizeof iv);
  memcpy(d->v[vi], jv, sizeof jv);
  int64_t unroll = TUNE_NUNROLL - 1; /* the smallest depth that unrolls the tile's rows */
  for (int k = TUNE_NUNROLL - 1; k >= 0; k--)
    if (tune_unroll_steps[k] >= mr) unroll = k;
  for (int i = 0; i < d->n; i++) {
    switch (d->role[i]) {
    case TUNE_ROLE_UNROLL: d->v[i][0] = unroll; break;
    case TUNE_ROLE_LOCATION: d->v[i][0] = -1; break; /* at the root */
    case TUNE_ROLE_CACHE_LEVEL: d->v[i][0] = 1; break;
    case TUNE_ROLE_PACK: d->v[i][0] = 2; break;
    default: break;
    }
  }
  snprintf(what, whatlen, "register tile %lld x %lld, reduction tile %lld, write cache %lld x %lld, %lld S0 task%s",
           (long long)mr, (long long)nr, (long long)kc, (long long)(i2 * mr), (long long)(j2 * nr),
           (long long)(i0 * tasks), i0 * tasks == 1 ? "" : "s");
}

int tune_analytic_candidate(const IrModule *m, const char *func, const TuneHostModel *hm, TuneDecisions *out,
                            char *what, size_t whatlen) {
  TuneCandidate probe;
  DiagCtx d;
  diag_init(&d, NULL);
  int rc = tune_space_generate(m, func, NULL, 1, &probe, &d);
  diag_free(&d);
  if (rc) return -1;
  TuneDecisions layout = probe.dec;
  tune_candidate_free(&probe);
  if (tune_decisions_role(&layout, TUNE_ROLE_TILE_ROW) < 0 || tune_decisions_role(&layout, TUNE_ROLE_TILE_VECTOR) < 0 ||
      tune_decisions_role(&layout, TUNE_ROLE_TILE_REDUCE) < 0)
    return -1;
  int pad_at = tune_decisions_role(&layout, TUNE_ROLE_PAD);
  if (pad_at >= 0) { /* the padded layout when it gives a taller register tile */
    TuneDecisions plain, padded;
    if (layout_with_pad(m, func, &layout, pad_at, 0, &plain) || layout_with_pad(m, func, &layout, pad_at, 1, &padded))
      return -1;
    int64_t h[2];
    const TuneDecisions *l[2] = {&plain, &padded};
    for (int k = 0; k < 2; k++) {
      int ri = tune_decisions_role(l[k], TUNE_ROLE_TILE_ROW), vi = tune_decisions_role(l[k], TUNE_ROLE_TILE_VECTOR);
      h[k] = ri < 0 || vi < 0 ? 0 : tile_height(l[k]->extent[ri], tile_width(l[k]->extent[vi], hm->lanes), hm);
    }
    layout = h[1] > h[0] ? padded : plain;
    if (tune_decisions_role(&layout, TUNE_ROLE_TILE_ROW) < 0 || tune_decisions_role(&layout, TUNE_ROLE_TILE_VECTOR) < 0) return -1;
  }
  fill(&layout, hm, what, whatlen);
  *out = layout;
  return 0;
}
