/* mutate.c - decision vectors: hashing, JSON, and the search's mutations
 * (MetaSchedule's MutateTileSize, MutateUnroll / categorical changes and
 * MutateComputeLocation).
 *
 * A tile mutation moves one prime factor of one position to another, so the
 * product (the loop's extent) is kept and the decision stays a perfect tile;
 * the innermost factor stays within the space's max_innermost_factor. */
#include <stdio.h>
#include <string.h>

#include "autotune/tune.h"

#define MAX_INNER 64

uint64_t tune_decisions_hash(const TuneDecisions *d) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < d->n; i++)
    for (int k = 0; k < d->len[i]; k++) {
      h ^= (uint64_t)d->v[i][k] + 0x9e3779b97f4a7c15ull * (uint64_t)(i * 8 + k + 1);
      h *= 1099511628211ull;
    }
  return h;
}

int tune_decisions_role(const TuneDecisions *d, TuneRole r) {
  for (int i = 0; i < d->n; i++)
    if (d->role[i] == r) return i;
  return -1;
}

void tune_decisions_json(const TuneDecisions *d, char *buf, size_t cap) {
  size_t o = 0;
  o += (size_t)snprintf(buf + o, cap - o, "[");
  for (int i = 0; i < d->n && o < cap; i++) {
    o += (size_t)snprintf(buf + o, cap - o, i ? ", [" : "[");
    for (int k = 0; k < d->len[i] && o < cap; k++)
      o += (size_t)snprintf(buf + o, cap - o, k ? ", %lld" : "%lld", (long long)d->v[i][k]);
    if (o < cap) o += (size_t)snprintf(buf + o, cap - o, "]");
  }
  if (o < cap) snprintf(buf + o, cap - o, "]");
}

static uint64_t next_rand(uint64_t *s) {
  uint64_t x = *s ? *s : 0x2545f4914f6cdd1dull;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return x;
}

static int64_t smallest_prime_factor(int64_t v) {
  for (int64_t p = 2; p * p <= v; p++)
    if (v % p == 0) return p;
  return v;
}

/* Moves a prime factor of position src to dst; false when not allowed. */
static bool move_factor(int64_t *v, int len, int src, int dst, uint64_t *rng) {
  if (src == dst || v[src] <= 1) return false;
  /* A random prime factor of v[src]: peel a random number of smallest ones. */
  int64_t rest = v[src], p = smallest_prime_factor(rest);
  int skip = (int)(next_rand(rng) % 3);
  while (skip-- > 0 && rest / p > 1) {
    rest /= p;
    p = smallest_prime_factor(rest);
  }
  if (dst == len - 1 && v[dst] * p > MAX_INNER) return false;
  v[src] /= p;
  v[dst] *= p;
  return true;
}

bool tune_mutate(const TuneDecisions *d, uint64_t *rng, TuneDecisions *out) {
  *out = *d;
  if (d->n == 0) return false;
  for (int attempt = 0; attempt < 16; attempt++) {
    int i = (int)(next_rand(rng) % (uint64_t)d->n);
    if (d->tile[i]) {
      int len = d->len[i];
      if (len < 2) continue;
      int src = (int)(next_rand(rng) % (uint64_t)len), dst = (int)(next_rand(rng) % (uint64_t)len);
      if (move_factor(out->v[i], len, src, dst, rng)) return true;
    } else if (d->loc[i] && d->ncand[i] > 1) {
      /* another location: a mark or a consumer loop (repaired to the
       * nearest legal one before it when the space replays it) */
      int64_t cur = d->v[i][0] + 2, nv = (int64_t)(next_rand(rng) % (uint64_t)(d->ncand[i] - 1));
      out->v[i][0] = (nv >= cur ? nv + 1 : nv) - 2;
      return true;
    } else if (d->ncand[i] > 1) {
      int64_t nv = (int64_t)(next_rand(rng) % (uint64_t)(d->ncand[i] - 1));
      out->v[i][0] = nv >= d->v[i][0] ? nv + 1 : nv;
      return true;
    }
  }
  return false;
}
