/* npu_sim.c - the cycle-counting NPU simulator (docs/npu.md).
 *
 * The stream is split into the load, compute and store modules' queues (VTA's
 * fetch).  Each module has a clock; an instruction starts when its module is
 * free and the tokens it pops have been pushed, and the tokens it pushes
 * become available when it ends.  The simulator always executes the ready
 * instruction that starts earliest, so values flow in simulated-time order.
 * Every instruction is checked before it touches memory. */
#include "runtime/npu_isa.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/npy.h"

/* The token queues: load->compute, compute->load, compute->store, store->compute. */
enum { Q_L2C, Q_C2L, Q_C2S, Q_S2C, Q_COUNT };
static const char *queue_names[Q_COUNT] = {"load->compute", "compute->load", "compute->store",
                                           "store->compute"};

typedef struct TokQueue {
  int64_t *time;        /* when each pushed token becomes available */
  int64_t head, n, cap; /* tokens time[head..n) are in the queue */
} TokQueue;

typedef struct Sim {
  const NpuConfig *c;
  const NpuProgram *p;
  void *const *dram;
  NpuReport *r;
  char *err;
  size_t errlen;
  int8_t *inp, *wgt;
  int32_t *acc;
  NpuUop *uopc;                      /* the micro-op cache */
  int64_t cap[NPU_MEM_COUNT];        /* scratchpad sizes in tiles (out: acc's) */
  TokQueue q[Q_COUNT];
  int64_t *order[NPU_MOD_COUNT];     /* each module's instruction indices */
  int64_t count[NPU_MOD_COUNT], pc[NPU_MOD_COUNT];
  int64_t clock[NPU_MOD_COUNT];
} Sim;

int64_t npu_tile_bytes(const NpuConfig *c, NpuMem m) {
  switch (m) {
  case NPU_MEM_UOP: return 4;
  case NPU_MEM_WGT: return (int64_t)c->block_out * c->block_in;
  case NPU_MEM_INP: return (int64_t)c->batch * c->block_in;
  case NPU_MEM_ACC: return (int64_t)c->batch * c->block_out * 4;
  case NPU_MEM_OUT: return (int64_t)c->batch * c->block_out;
  default: return 0;
  }
}

/* The queue a dependency flag of module m uses, or -1 when m has no such neighbour. */
static int flag_queue(NpuModule m, int flag) {
  static const int table[NPU_MOD_COUNT][4] = {
      /* POP_PREV, POP_NEXT, PUSH_PREV, PUSH_NEXT */
      {-1, Q_C2L, -1, Q_L2C},
      {Q_L2C, Q_S2C, Q_C2L, Q_C2S},
      {Q_C2S, -1, Q_S2C, -1},
  };
  int bit = flag == NPU_POP_PREV ? 0 : flag == NPU_POP_NEXT ? 1 : flag == NPU_PUSH_PREV ? 2 : 3;
  return table[m][bit];
}

/* Formats "instruction N (line L) `TEXT`: " + msg into the error buffer. */
static int sim_fail(Sim *s, int64_t idx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int sim_fail(Sim *s, int64_t idx, const char *fmt, ...) {
  char msg[512], *text = NULL;
  size_t tlen = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  FILE *f = open_memstream(&text, &tlen);
  if (f) {
    npu_insn_print(f, &s->p->insns[idx], s->p);
    fclose(f);
  }
  int line = s->p->insns[idx].line;
  char where[48] = "";
  if (line > 0) snprintf(where, sizeof where, " (line %d)", line);
  tvs_set_err(s->err, s->errlen, "npu: instruction %lld%s `%s`: %s", (long long)idx, where,
              text ? text : "?", msg);
  free(text);
  return -1;
}

/* ---- checks ----------------------------------------------------------------- */

static int check_flags(Sim *s, int64_t idx) {
  const NpuInsn *in = &s->p->insns[idx];
  NpuModule m = npu_insn_module(in);
  static const int flags[4] = {NPU_POP_PREV, NPU_POP_NEXT, NPU_PUSH_PREV, NPU_PUSH_NEXT};
  static const char *fnames[4] = {"pop_prev", "pop_next", "push_prev", "push_next"};
  for (int k = 0; k < 4; k++)
    if ((in->deps & flags[k]) && flag_queue(m, flags[k]) < 0)
      return sim_fail(s, idx, "%s on the %s module, which has no %s neighbour", fnames[k],
                      npu_module_name(m), k % 2 ? "next" : "previous");
  return 0;
}

/* Sizes, strides and factors stay below 2^24 and bases below 2^40, so that
 * no product of them overflows. */
#define NPU_FIELD_MAX (1LL << 24)
#define NPU_BASE_MAX (1LL << 40)

static bool fields_in_range(const NpuInsn *in) {
  const NpuMemInsn *m = &in->mem;
  const NpuLoopInsn *l = &in->loop;
  int64_t small[] = {m->y_size, m->x_size, m->x_stride, m->y_pad0, m->y_pad1, m->x_pad0, m->x_pad1, l->iter_out,
                     l->iter_in, l->dst_out, l->dst_in, l->src_out, l->src_in, l->wgt_out, l->wgt_in};
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
    if (small[i] > NPU_FIELD_MAX || small[i] < -NPU_FIELD_MAX) return false;
  int64_t big[] = {m->sram_base, m->dram_base, l->uop_bgn, l->uop_end};
  for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
    if (big[i] > NPU_BASE_MAX || big[i] < -NPU_BASE_MAX) return false;
  return true;
}

static int check_mem(Sim *s, int64_t idx) {
  const NpuInsn *in = &s->p->insns[idx];
  const NpuMemInsn *mi = &in->mem;
  if (!fields_in_range(in)) return sim_fail(s, idx, "a field is out of range (sizes 2^24, bases 2^40)");
  if (mi->y_size < 1 || mi->x_size < 1 || mi->x_stride < 0 || mi->sram_base < 0 || mi->dram_base < 0 ||
      mi->y_pad0 < 0 || mi->y_pad1 < 0 || mi->x_pad0 < 0 || mi->x_pad1 < 0)
    return sim_fail(s, idx, "sizes must be positive and bases, strides and pads non-negative");
  bool pad = mi->y_pad0 || mi->y_pad1 || mi->x_pad0 || mi->x_pad1;
  if (in->op == NPU_STORE && (mi->mem == NPU_MEM_UOP || mi->mem == NPU_MEM_INP || mi->mem == NPU_MEM_WGT))
    return sim_fail(s, idx, "a STORE moves acc or out tiles, not %s", npu_mem_name(mi->mem));
  if (in->op == NPU_LOAD && mi->mem == NPU_MEM_OUT)
    return sim_fail(s, idx, "out tiles cannot be loaded");
  if (pad && (in->op == NPU_STORE || mi->mem == NPU_MEM_UOP))
    return sim_fail(s, idx, "only LOAD of inp, wgt or acc pads");
  int64_t dram_tiles;
  if (mi->mem == NPU_MEM_UOP) {
    dram_tiles = s->p->nuops;
  } else {
    if (mi->dram < 0 || mi->dram >= s->p->nbufs) return sim_fail(s, idx, "no DRAM buffer %d", mi->dram);
    const NpuBufDecl *b = &s->p->bufs[mi->dram];
    if (b->mem != mi->mem)
      return sim_fail(s, idx, "DRAM buffer '%s' holds %s tiles, not %s", b->name, npu_mem_name(b->mem),
                      npu_mem_name(mi->mem));
    dram_tiles = b->ntiles;
  }
  int64_t last = mi->dram_base + (mi->y_size - 1) * mi->x_stride + mi->x_size;
  if (last > dram_tiles)
    return sim_fail(s, idx, "DRAM tiles [%lld, %lld) overrun the %lld-tile buffer",
                    (long long)mi->dram_base, (long long)last, (long long)dram_tiles);
  int64_t rows = mi->y_pad0 + mi->y_size + mi->y_pad1, cols = mi->x_pad0 + mi->x_size + mi->x_pad1;
  int64_t send = mi->sram_base + rows * cols;
  if (send > s->cap[mi->mem])
    return sim_fail(s, idx, "scratchpad tiles [%lld, %lld) overflow the %s scratchpad (%lld tiles)",
                    (long long)mi->sram_base, (long long)send, npu_mem_name(mi->mem == NPU_MEM_OUT ? NPU_MEM_ACC : mi->mem),
                    (long long)s->cap[mi->mem]);
  return 0;
}

/* Smallest and largest of base + o*fo + i*fi over the loop's corners. */
static void index_range(int64_t base, int64_t fo, int64_t fi, const NpuLoopInsn *l, int64_t *lo, int64_t *hi) {
  int64_t a = base + (fo < 0 ? fo * (l->iter_out - 1) : 0) + (fi < 0 ? fi * (l->iter_in - 1) : 0);
  int64_t b = base + (fo > 0 ? fo * (l->iter_out - 1) : 0) + (fi > 0 ? fi * (l->iter_in - 1) : 0);
  *lo = a;
  *hi = b;
}

static int check_operand(Sim *s, int64_t idx, int64_t u, const char *what, int64_t base, int64_t fo,
                         int64_t fi, NpuMem mem) {
  int64_t lo, hi;
  index_range(base, fo, fi, &s->p->insns[idx].loop, &lo, &hi);
  if (lo < 0 || hi >= s->cap[mem])
    return sim_fail(s, idx, "micro-op %lld: %s tile %lld is outside the %s scratchpad (%lld tiles)",
                    (long long)u, what, (long long)(lo < 0 ? lo : hi), npu_mem_name(mem),
                    (long long)s->cap[mem]);
  return 0;
}

static int check_loop(Sim *s, int64_t idx) {
  const NpuInsn *in = &s->p->insns[idx];
  const NpuLoopInsn *l = &in->loop;
  if (!fields_in_range(in)) return sim_fail(s, idx, "a field is out of range (sizes 2^24, bases 2^40)");
  if (l->iter_out < 1 || l->iter_in < 1) return sim_fail(s, idx, "loop extents must be positive");
  if (l->uop_bgn < 0 || l->uop_end < l->uop_bgn || l->uop_end > s->cap[NPU_MEM_UOP])
    return sim_fail(s, idx, "micro-ops [%lld, %lld) are outside the micro-op cache (%lld)",
                    (long long)l->uop_bgn, (long long)l->uop_end, (long long)s->cap[NPU_MEM_UOP]);
  if ((double)l->iter_out * (double)l->iter_in * (double)(l->uop_end - l->uop_bgn) > 1e15)
    return sim_fail(s, idx, "more than 10^15 micro-op executions");
  bool gemm = in->op == NPU_GEMM;
  for (int64_t u = l->uop_bgn; u < l->uop_end; u++) {
    const NpuUop *uop = &s->uopc[u];
    if (check_operand(s, idx, u, "dst", uop->dst, l->dst_out, l->dst_in, NPU_MEM_ACC)) return -1;
    if (gemm && !l->reset && check_operand(s, idx, u, "src", uop->src, l->src_out, l->src_in, NPU_MEM_INP))
      return -1;
    if (gemm && !l->reset && check_operand(s, idx, u, "wgt", uop->wgt, l->wgt_out, l->wgt_in, NPU_MEM_WGT))
      return -1;
    if (!gemm && !l->use_imm && check_operand(s, idx, u, "src", uop->src, l->src_out, l->src_in, NPU_MEM_ACC))
      return -1;
  }
  return 0;
}

/* ---- execution -------------------------------------------------------------- */

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static void dma_copy(Sim *s, const NpuMemInsn *mi, bool store) {
  int64_t tb = npu_tile_bytes(s->c, mi->mem);
  uint8_t *sram = mi->mem == NPU_MEM_INP ? (uint8_t *)s->inp
                  : mi->mem == NPU_MEM_WGT ? (uint8_t *)s->wgt
                  : mi->mem == NPU_MEM_UOP ? (uint8_t *)s->uopc : (uint8_t *)s->acc;
  int64_t stb = mi->mem == NPU_MEM_UOP ? (int64_t)sizeof(NpuUop) : mi->mem == NPU_MEM_OUT ? tb * 4 : tb;
  const uint8_t *uops = (const uint8_t *)s->p->uops;
  uint8_t *dram = mi->mem == NPU_MEM_UOP ? (uint8_t *)uops : (uint8_t *)s->dram[mi->dram];
  if (mi->mem == NPU_MEM_UOP) tb = (int64_t)sizeof(NpuUop);
  int64_t cols = mi->x_pad0 + mi->x_size + mi->x_pad1, rows = mi->y_pad0 + mi->y_size + mi->y_pad1;
  if (!store) memset(sram + mi->sram_base * stb, 0, (size_t)(rows * cols * stb));
  for (int64_t y = 0; y < mi->y_size; y++) {
    for (int64_t x = 0; x < mi->x_size; x++) {
      uint8_t *sp = sram + (mi->sram_base + (mi->y_pad0 + y) * cols + mi->x_pad0 + x) * stb;
      uint8_t *dp = dram + (mi->dram_base + y * mi->x_stride + x) * tb;
      if (!store) memcpy(sp, dp, (size_t)tb);
      else if (mi->mem == NPU_MEM_ACC) memcpy(dp, sp, (size_t)tb);
      else
        for (int64_t e = 0; e < tb; e++) ((int8_t *)dp)[e] = (int8_t)((int32_t *)sp)[e];
    }
  }
}

static int64_t exec_mem(Sim *s, const NpuInsn *in) {
  const NpuMemInsn *mi = &in->mem;
  int64_t tb = npu_tile_bytes(s->c, mi->mem);
  int64_t rows = mi->y_pad0 + mi->y_size + mi->y_pad1, cols = mi->x_pad0 + mi->x_size + mi->x_pad1;
  int64_t dram_bytes = mi->y_size * mi->x_size * tb;
  if (in->op == NPU_STORE) s->r->dram_write_bytes += dram_bytes;
  else s->r->dram_read_bytes += dram_bytes;
  if (s->c->functional || mi->mem == NPU_MEM_UOP) dma_copy(s, mi, in->op == NPU_STORE);
  /* Padding tiles are written at the DMA's rate too. */
  return s->c->dma_latency + ceil_div(rows * cols * tb, s->c->dma_bytes_per_cycle);
}

static void gemm_tile(Sim *s, const NpuLoopInsn *l, int64_t dst, int64_t src, int64_t wgt) {
  int B = s->c->batch, BI = s->c->block_in, BO = s->c->block_out;
  int32_t *a = s->acc + dst * B * BO;
  if (l->reset) {
    memset(a, 0, sizeof(int32_t) * (size_t)(B * BO));
    return;
  }
  const int8_t *x = s->inp + src * B * BI, *w = s->wgt + wgt * BO * BI;
  for (int b = 0; b < B; b++)
    for (int o = 0; o < BO; o++) {
      int32_t sum = 0;
      for (int i = 0; i < BI; i++) sum += (int32_t)x[b * BI + i] * (int32_t)w[o * BI + i];
      a[b * BO + o] = (int32_t)((uint32_t)a[b * BO + o] + (uint32_t)sum);
    }
}

static int32_t alu_apply(NpuAluOp op, int32_t a, int32_t b) {
  switch (op) {
  case NPU_ALU_MIN: return a < b ? a : b;
  case NPU_ALU_MAX: return a > b ? a : b;
  case NPU_ALU_ADD: return (int32_t)((uint32_t)a + (uint32_t)b);
  case NPU_ALU_MUL: return (int32_t)((uint32_t)a * (uint32_t)b);
  case NPU_ALU_SHR:
    if (b >= 32) return a < 0 ? -1 : 0;
    if (b >= 0) return a >> b;
    return b <= -32 ? 0 : (int32_t)((uint32_t)a << -b);
  }
  return a;
}

static void alu_tile(Sim *s, const NpuLoopInsn *l, int64_t dst, int64_t src) {
  int64_t n = (int64_t)s->c->batch * s->c->block_out;
  int32_t *d = s->acc + dst * n, *x = s->acc + src * n;
  for (int64_t e = 0; e < n; e++) d[e] = alu_apply(l->alu, d[e], l->use_imm ? l->imm : x[e]);
}

static int64_t exec_loop(Sim *s, const NpuInsn *in) {
  const NpuLoopInsn *l = &in->loop;
  int64_t cycles = l->iter_out * l->iter_in * (l->uop_end - l->uop_bgn);
  if (in->op == NPU_GEMM && !l->reset) s->r->gemm_cycles += cycles;
  if (in->op == NPU_ALU) s->r->alu_cycles += cycles;
  if (!s->c->functional) return cycles;
  for (int64_t o = 0; o < l->iter_out; o++)
    for (int64_t i = 0; i < l->iter_in; i++)
      for (int64_t u = l->uop_bgn; u < l->uop_end; u++) {
        const NpuUop *uop = &s->uopc[u];
        int64_t dst = uop->dst + o * l->dst_out + i * l->dst_in;
        int64_t src = uop->src + o * l->src_out + i * l->src_in;
        if (in->op == NPU_GEMM) gemm_tile(s, l, dst, src, uop->wgt + o * l->wgt_out + i * l->wgt_in);
        else alu_tile(s, l, dst, src);
      }
  return cycles;
}

/* ---- the schedule of modules ---------------------------------------------------- */

static void queue_push(TokQueue *q, int64_t t) {
  if (q->n >= q->cap) {
    q->cap = q->cap ? 2 * q->cap : 64;
    q->time = realloc(q->time, (size_t)q->cap * sizeof *q->time);
    if (!q->time) abort();
  }
  q->time[q->n++] = t;
}

/* When module m's next instruction could start, or -1 if a token it pops is missing. */
static int64_t ready_time(Sim *s, NpuModule m, int *missing) {
  const NpuInsn *in = &s->p->insns[s->order[m][s->pc[m]]];
  int64_t t = s->clock[m];
  for (int flag = NPU_POP_PREV; flag <= NPU_POP_NEXT; flag <<= 1) {
    if (!(in->deps & flag)) continue;
    TokQueue *q = &s->q[flag_queue(m, flag)];
    if (q->head >= q->n) {
      *missing = flag_queue(m, flag);
      return -1;
    }
    if (q->time[q->head] > t) t = q->time[q->head];
  }
  return t;
}

static int step(Sim *s, NpuModule m, int64_t start) {
  int64_t idx = s->order[m][s->pc[m]++];
  const NpuInsn *in = &s->p->insns[idx];
  for (int flag = NPU_POP_PREV; flag <= NPU_POP_NEXT; flag <<= 1)
    if (in->deps & flag) s->q[flag_queue(m, flag)].head++;
  s->r->stall[m] += start - s->clock[m];
  int64_t dur = 0;
  if (in->op == NPU_LOAD || in->op == NPU_STORE) {
    if (check_mem(s, idx)) return -1;
    dur = exec_mem(s, in);
  } else if (in->op == NPU_GEMM || in->op == NPU_ALU) {
    if (check_loop(s, idx)) return -1;
    dur = exec_loop(s, in);
  }
  s->r->busy[m] += dur;
  s->r->ninsns[m]++;
  s->clock[m] = start + dur;
  for (int flag = NPU_PUSH_PREV; flag <= NPU_PUSH_NEXT; flag <<= 1)
    if (in->deps & flag) queue_push(&s->q[flag_queue(m, flag)], s->clock[m]);
  return 0;
}

static int report_deadlock(Sim *s, const int *missing) {
  char msg[1024];
  size_t len = 0;
  int64_t first = -1;
  for (int m = 0; m < NPU_MOD_COUNT; m++) {
    if (s->pc[m] >= s->count[m]) continue;
    int64_t idx = s->order[m][s->pc[m]];
    if (first < 0 || idx < first) first = idx;
    len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s waits at instruction %lld for a %s token",
                            len ? "; " : "", npu_module_name((NpuModule)m), (long long)idx,
                            queue_names[missing[m]]);
    if (len >= sizeof msg) break;
  }
  return sim_fail(s, first, "deadlock: every unfinished module waits for a token that is never pushed (%s)", msg);
}

static int run_modules(Sim *s) {
  for (;;) {
    int best = -1, missing[NPU_MOD_COUNT] = {0};
    int64_t best_t = 0;
    bool left = false;
    for (int m = 0; m < NPU_MOD_COUNT; m++) {
      if (s->pc[m] >= s->count[m]) continue;
      left = true;
      int64_t t = ready_time(s, (NpuModule)m, &missing[m]);
      if (t >= 0 && (best < 0 || t < best_t)) best = m, best_t = t;
    }
    if (!left) return 0;
    if (best < 0) return report_deadlock(s, missing);
    if (step(s, (NpuModule)best, best_t)) return -1;
  }
}

static int finish(Sim *s) {
  for (int q = 0; q < Q_COUNT; q++)
    if (s->q[q].head < s->q[q].n) {
      tvs_set_err(s->err, s->errlen,
                  "npu: the %s token queue holds %lld token(s) at the end: a push without its pop",
                  queue_names[q], (long long)(s->q[q].n - s->q[q].head));
      return -1;
    }
  for (int m = 0; m < NPU_MOD_COUNT; m++)
    if (s->clock[m] > s->r->total_cycles) s->r->total_cycles = s->clock[m];
  return 0;
}

static int sim_setup(Sim *s) {
  const NpuConfig *c = s->c;
  for (int m = 0; m < NPU_MEM_COUNT; m++) {
    int64_t bytes = m == NPU_MEM_UOP ? c->uop_buff_bytes : m == NPU_MEM_WGT ? c->wgt_buff_bytes
                    : m == NPU_MEM_INP ? c->inp_buff_bytes : c->acc_buff_bytes;
    s->cap[m] = bytes / npu_tile_bytes(c, m == NPU_MEM_OUT ? NPU_MEM_ACC : (NpuMem)m);
  }
  if (c->functional) {
    s->inp = calloc((size_t)(s->cap[NPU_MEM_INP] * npu_tile_bytes(c, NPU_MEM_INP)) + 1, 1);
    s->wgt = calloc((size_t)(s->cap[NPU_MEM_WGT] * npu_tile_bytes(c, NPU_MEM_WGT)) + 1, 1);
    s->acc = calloc((size_t)(s->cap[NPU_MEM_ACC] * npu_tile_bytes(c, NPU_MEM_ACC)) + 1, 1);
    if (!s->inp || !s->wgt || !s->acc) abort();
  }
  s->uopc = calloc((size_t)s->cap[NPU_MEM_UOP] + 1, sizeof(NpuUop));
  for (int m = 0; m < NPU_MOD_COUNT; m++) s->order[m] = malloc((size_t)(s->p->ninsns + 1) * sizeof(int64_t));
  if (!s->uopc || !s->order[0] || !s->order[1] || !s->order[2]) abort();
  for (int64_t i = 0; i < s->p->ninsns; i++) {
    NpuModule m = npu_insn_module(&s->p->insns[i]);
    s->order[m][s->count[m]++] = i;
    if (check_flags(s, i)) return -1;
  }
  return 0;
}

int npu_sim_run(const NpuConfig *c, const NpuProgram *p, void *const *data, NpuReport *r, char *err,
                size_t errlen) {
  Sim s;
  memset(&s, 0, sizeof s);
  memset(r, 0, sizeof *r);
  s.c = c, s.p = p, s.dram = data, s.r = r, s.err = err, s.errlen = errlen;
  if (c->functional && p->nbufs > 0 && !data) {
    tvs_set_err(err, errlen, "npu: no DRAM data for a functional run");
    return -1;
  }
  int rc = sim_setup(&s);
  if (rc == 0) rc = run_modules(&s);
  if (rc == 0) rc = finish(&s);
  free(s.inp), free(s.wgt), free(s.acc), free(s.uopc);
  for (int m = 0; m < NPU_MOD_COUNT; m++) free(s.order[m]);
  for (int q = 0; q < Q_COUNT; q++) free(s.q[q].time);
  return rc;
}

double npu_report_utilisation(const NpuReport *r) {
  return r->total_cycles ? 100.0 * (double)r->gemm_cycles / (double)r->total_cycles : 0.0;
}

void npu_report_print(FILE *out, const NpuReport *r) {
  fprintf(out, "npu: %lld cycles, GEMM utilisation %.1f%% (%lld GEMM cycles, %lld ALU cycles)\n",
          (long long)r->total_cycles, npu_report_utilisation(r), (long long)r->gemm_cycles,
          (long long)r->alu_cycles);
  fprintf(out, "npu: DMA %lld bytes read, %lld bytes written\n", (long long)r->dram_read_bytes,
          (long long)r->dram_write_bytes);
  for (int m = 0; m < NPU_MOD_COUNT; m++)
    fprintf(out, "npu:   %-7s %6lld instructions, %10lld busy, %10lld stalled on tokens\n",
            npu_module_name((NpuModule)m), (long long)r->ninsns[m], (long long)r->busy[m],
            (long long)r->stall[m]);
}
