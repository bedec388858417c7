/* npu_coproc_sync.c - npu-coproc-sync (npu_lower.h), TVM's CoProcSync as
 * VTA uses it: the load, compute and store modules run concurrently, so
 * every read-after-write and write-after-read (or -write) between two of
 * them on the same scratchpad buffer needs a dependency token, pushed by the
 * producer when it ends and popped by the consumer before it starts.
 *
 * A buffer is one virtual thread's copy of a scratchpad (the granularity of
 * CoProcSync, which synchronises on whole buffers): an access to tiles
 * [lo, hi) of inp, wgt or acc touches the thread copies lo/slot ..
 * (hi-1)/slot.  Walking the stream in order, an instruction depends on the
 * latest conflicting instruction of each other module; it needs a token
 * only when an earlier instruction of its own module has not already waited
 * for that one or a later one (each module runs in order), so one token
 * covers a whole task's loads, GEMMs or stores.  Micro-op loads stay inside
 * the compute module and need none. */
#include <string.h>

#include "base/util.h"
#include "codegen/npu_lower.h"
#include "runtime/npy.h"

#define MAX_COPIES 8 /* thread copies of a buffer (vthreads <= 4) */

typedef struct Access {
  NpuMem mem;
  int64_t lo, hi; /* tiles [lo, hi) */
  bool write;
} Access;

/* [lo, hi) of a loop operand: base[u] + o*out + i*in over the loops. */
static void loop_range(const NpuProgram *p, const NpuLoopInsn *lp, int which, int64_t *lo, int64_t *hi) {
  int64_t mn = INT64_MAX, mx = INT64_MIN;
  for (int64_t u = lp->uop_bgn; u < lp->uop_end && u < p->nuops; u++) {
    int64_t b = which == 0 ? p->uops[u].dst : which == 1 ? p->uops[u].src : p->uops[u].wgt;
    mn = b < mn ? b : mn, mx = b > mx ? b : mx;
  }
  if (mn > mx) mn = mx = 0;
  int64_t out = which == 0 ? lp->dst_out : which == 1 ? lp->src_out : lp->wgt_out;
  int64_t in = which == 0 ? lp->dst_in : which == 1 ? lp->src_in : lp->wgt_in;
  int64_t span_o = (lp->iter_out - 1) * out, span_i = (lp->iter_in - 1) * in;
  *lo = mn + (span_o < 0 ? span_o : 0) + (span_i < 0 ? span_i : 0);
  *hi = mx + (span_o > 0 ? span_o : 0) + (span_i > 0 ? span_i : 0) + 1;
}

/* The scratchpad accesses of in (at most 3). */
static int accesses(const NpuProgram *p, const NpuInsn *in, Access *acc) {
  const NpuMemInsn *m = &in->mem;
  const NpuLoopInsn *lp = &in->loop;
  switch (in->op) {
  case NPU_LOAD: {
    if (m->mem == NPU_MEM_UOP) return 0;
    int64_t n = (m->y_pad0 + m->y_size + m->y_pad1) * (m->x_pad0 + m->x_size + m->x_pad1);
    acc[0] = (Access){m->mem == NPU_MEM_OUT ? NPU_MEM_ACC : m->mem, m->sram_base, m->sram_base + n, true};
    return 1;
  }
  case NPU_STORE:
    acc[0] = (Access){NPU_MEM_ACC, m->sram_base, m->sram_base + m->y_size * m->x_size, false};
    return 1;
  case NPU_GEMM:
  case NPU_ALU: {
    int n = 0;
    acc[n] = (Access){.mem = NPU_MEM_ACC, .write = true};
    loop_range(p, lp, 0, &acc[n].lo, &acc[n].hi), n++;
    if (in->op == NPU_GEMM && !lp->reset) {
      acc[n] = (Access){.mem = NPU_MEM_INP};
      loop_range(p, lp, 1, &acc[n].lo, &acc[n].hi), n++;
      acc[n] = (Access){.mem = NPU_MEM_WGT};
      loop_range(p, lp, 2, &acc[n].lo, &acc[n].hi), n++;
    } else if (in->op == NPU_ALU && !lp->use_imm) {
      acc[n] = (Access){.mem = NPU_MEM_ACC};
      loop_range(p, lp, 1, &acc[n].lo, &acc[n].hi), n++;
    }
    return n;
  }
  default:
    return 0;
  }
}

/* Per thread copy of each buffer: the last writer and reader of each module. */
typedef struct SyncState {
  int64_t last_write[NPU_MEM_COUNT][MAX_COPIES][NPU_MOD_COUNT];
  int64_t last_read[NPU_MEM_COUNT][MAX_COPIES][NPU_MOD_COUNT];
  int64_t waited[NPU_MOD_COUNT][NPU_MOD_COUNT]; /* [from][to]: latest `from` insn `to` has waited for */
} SyncState;

/* The thread copies [c0, c1] an access touches; -1 when out of range. */
static int copies(const NpuLowered *l, const Access *a, int *c0, int *c1) {
  int64_t slot = l->slot[a->mem] > 0 ? l->slot[a->mem] : INT64_MAX;
  int64_t lo = a->lo / slot, hi = (a->hi - 1) / slot;
  if (lo < 0 || hi >= MAX_COPIES) return -1;
  *c0 = (int)lo, *c1 = (int)hi;
  return 0;
}

/* Inserts the tokens instruction i (module me) needs; records its accesses. */
static int sync_insn(NpuLowered *l, SyncState *st, int64_t i, char *err, size_t errlen) {
  NpuInsn *in = &l->p.insns[i];
  NpuModule me = npu_insn_module(in);
  Access acc[3];
  int n = accesses(&l->p, in, acc), c0, c1;
  int64_t dep[NPU_MOD_COUNT] = {-1, -1, -1};
  for (int k = 0; k < n; k++) {
    if (copies(l, &acc[k], &c0, &c1)) {
      tvs_set_err(err, errlen, "npu-coproc-sync: instruction %lld touches %s tiles [%lld, %lld) beyond %d thread copies",
                  (long long)i, npu_mem_name(acc[k].mem), (long long)acc[k].lo, (long long)acc[k].hi, MAX_COPIES);
      return -1;
    }
    for (int c = c0; c <= c1; c++)
      for (int m = 0; m < NPU_MOD_COUNT; m++) {
        int64_t x = st->last_write[acc[k].mem][c][m];
        if (acc[k].write && st->last_read[acc[k].mem][c][m] > x) x = st->last_read[acc[k].mem][c][m];
        if (m != (int)me && x > dep[m]) dep[m] = x;
      }
  }
  for (int m = 0; m < NPU_MOD_COUNT; m++) {
    if (dep[m] <= st->waited[m][me]) continue;
    if (m != (int)me - 1 && m != (int)me + 1) {
      tvs_set_err(err, errlen, "npu-coproc-sync: instruction %lld (%s) depends on instruction %lld (%s), but no token "
                  "queue joins the two modules", (long long)i, npu_module_name(me), (long long)dep[m],
                  npu_module_name((NpuModule)m));
      return -1;
    }
    l->p.insns[dep[m]].deps |= m < (int)me ? NPU_PUSH_NEXT : NPU_PUSH_PREV;
    in->deps |= m < (int)me ? NPU_POP_PREV : NPU_POP_NEXT;
    st->waited[m][me] = dep[m];
  }
  for (int k = 0; k < n; k++) {
    if (copies(l, &acc[k], &c0, &c1)) continue; /* refused above, when the dependencies were read */
    for (int c = c0; c <= c1; c++) (acc[k].write ? st->last_write : st->last_read)[acc[k].mem][c][me] = i;
  }
  return 0;
}

int cg_npu_coproc_sync(NpuLowered *l, char *err, size_t errlen) {
  SyncState st;
  memset(&st, 0xff, sizeof st); /* every index -1 */
  for (int64_t i = 0; i < l->p.ninsns; i++) l->p.insns[i].deps = 0;
  for (int64_t i = 0; i < l->p.ninsns; i++)
    if (sync_insn(l, &st, i, err, errlen)) return -1;
  return 0;
}
