/* npu_isa_text.c - the text form of an NPU instruction stream: what
 * `tvs show --stage npu-isa` prints and what tests write by hand.
 *
 *   buffer A inp 64                  # a DRAM buffer: name, tile kind, tiles
 *   uop dst=0 src=0 wgt=0            # the next micro-op of the DRAM uop table
 *   0: LOAD.uop sram=0 dram=0 x=1    # instructions, the "N:" index optional
 *   1: LOAD.inp sram=0 dram=A+0 y=1 x=4 stride=4 pad=0,0,0,0 push_next
 *   2: GEMM uop=0:1 iter=1,4 dst=0,0 src=0,1 wgt=0,1 pop_prev push_next
 *   3: ALU.shr imm=2 uop=0:1 iter=1,1 dst=0,0 src=0,0
 *   4: STORE.acc sram=0 dram=C+0 y=1 x=1 stride=1 pop_prev
 *
 * GEMM.reset zeroes the accumulator; an ALU without imm= takes the src tile. */
#include "runtime/npu_isa.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/npy.h"

static const char *alu_names[] = {"min", "max", "add", "shr", "mul"};
static const char *flag_names[] = {"pop_prev", "pop_next", "push_prev", "push_next"};

static void print_mem(FILE *out, const NpuInsn *in, const NpuProgram *p) {
  const NpuMemInsn *m = &in->mem;
  fprintf(out, "%s.%s sram=%lld ", in->op == NPU_LOAD ? "LOAD" : "STORE", npu_mem_name(m->mem),
          (long long)m->sram_base);
  if (m->mem == NPU_MEM_UOP) fprintf(out, "dram=%lld", (long long)m->dram_base);
  else if (p && m->dram >= 0 && m->dram < p->nbufs)
    fprintf(out, "dram=%s+%lld", p->bufs[m->dram].name, (long long)m->dram_base);
  else fprintf(out, "dram=?%d+%lld", m->dram, (long long)m->dram_base);
  if (m->mem == NPU_MEM_UOP) fprintf(out, " x=%lld", (long long)m->x_size);
  else fprintf(out, " y=%lld x=%lld stride=%lld", (long long)m->y_size, (long long)m->x_size,
               (long long)m->x_stride);
  if (m->y_pad0 || m->y_pad1 || m->x_pad0 || m->x_pad1)
    fprintf(out, " pad=%lld,%lld,%lld,%lld", (long long)m->y_pad0, (long long)m->y_pad1,
            (long long)m->x_pad0, (long long)m->x_pad1);
}

static void print_loop(FILE *out, const NpuInsn *in) {
  const NpuLoopInsn *l = &in->loop;
  if (in->op == NPU_GEMM) fprintf(out, "GEMM%s", l->reset ? ".reset" : "");
  else fprintf(out, "ALU.%s", alu_names[l->alu]);
  if (in->op == NPU_ALU && l->use_imm) fprintf(out, " imm=%d", (int)l->imm);
  fprintf(out, " uop=%lld:%lld iter=%lld,%lld dst=%lld,%lld src=%lld,%lld", (long long)l->uop_bgn,
          (long long)l->uop_end, (long long)l->iter_out, (long long)l->iter_in, (long long)l->dst_out,
          (long long)l->dst_in, (long long)l->src_out, (long long)l->src_in);
  if (in->op == NPU_GEMM) fprintf(out, " wgt=%lld,%lld", (long long)l->wgt_out, (long long)l->wgt_in);
}

void npu_insn_print(FILE *out, const NpuInsn *in, const NpuProgram *p) {
  if (in->op == NPU_LOAD || in->op == NPU_STORE) print_mem(out, in, p);
  else if (in->op == NPU_GEMM || in->op == NPU_ALU) print_loop(out, in);
  else fprintf(out, "FINISH");
  for (int k = 0; k < 4; k++)
    if (in->deps & (1 << k)) fprintf(out, " %s", flag_names[k]);
}

void npu_program_print(FILE *out, const NpuProgram *p) {
  fprintf(out, "# npu-isa: %d buffers, %lld micro-ops, %lld instructions\n", p->nbufs,
          (long long)p->nuops, (long long)p->ninsns);
  for (int b = 0; b < p->nbufs; b++)
    fprintf(out, "buffer %s %s %lld\n", p->bufs[b].name, npu_mem_name(p->bufs[b].mem),
            (long long)p->bufs[b].ntiles);
  for (int64_t u = 0; u < p->nuops; u++)
    fprintf(out, "uop dst=%lld src=%lld wgt=%lld\n", (long long)p->uops[u].dst,
            (long long)p->uops[u].src, (long long)p->uops[u].wgt);
  for (int64_t i = 0; i < p->ninsns; i++) {
    fprintf(out, "%4lld: ", (long long)i);
    npu_insn_print(out, &p->insns[i], p);
    fputc('\n', out);
  }
}

/* ---- parser ------------------------------------------------------------------ */

typedef struct Parser {
  NpuProgram *p;
  const char *name;
  int line;
  const char *line_start;
  char *err;
  size_t errlen;
} Parser;

typedef struct Tok { const char *s; size_t n; } Tok;

static int perr(Parser *ps, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int perr(Parser *ps, const char *at, const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tvs_set_err(ps->err, ps->errlen, "%s:%d:%d: error: %s", ps->name, ps->line, (int)(at - ps->line_start) + 1,
              msg);
  return -1;
}

static bool tok_is(Tok t, const char *s) { return t.n == strlen(s) && !strncmp(t.s, s, t.n); }

/* Reads a comma-separated list of n integers from t; returns false on junk. */
static bool parse_ints(Tok t, char sep, int64_t *v, int n) {
  const char *s = t.s, *end = t.s + t.n;
  for (int k = 0; k < n; k++) {
    char buf[32];
    const char *e = s;
    while (e < end && *e != sep) e++;
    if (e == s || (size_t)(e - s) >= sizeof buf) return false;
    memcpy(buf, s, (size_t)(e - s));
    buf[e - s] = '\0';
    char *stop;
    v[k] = strtoll(buf, &stop, 10);
    if (*stop || v[k] > (1LL << 40) || v[k] < -(1LL << 40)) return false;
    if (k + 1 < n && e >= end) return false;
    s = e + 1;
  }
  return s >= end + 1 || (n == 0 && t.n == 0);
}

static int parse_mem_or_kind(Parser *ps, Tok t, NpuMem *mem) {
  for (int m = 0; m < NPU_MEM_COUNT; m++)
    if (tok_is(t, npu_mem_name((NpuMem)m))) {
      *mem = (NpuMem)m;
      return 0;
    }
  return perr(ps, t.s, "unknown memory '%.*s' (uop, wgt, inp, acc, out)", (int)t.n, t.s);
}

static int parse_dram(Parser *ps, NpuInsn *in, Tok v) {
  if (in->mem.mem == NPU_MEM_UOP) {
    if (!parse_ints(v, ',', &in->mem.dram_base, 1)) return perr(ps, v.s, "dram= of a uop load takes an index");
    return 0;
  }
  size_t nlen = 0;
  while (nlen < v.n && v.s[nlen] != '+') nlen++;
  in->mem.dram = -1;
  for (int b = 0; b < ps->p->nbufs; b++)
    if (strlen(ps->p->bufs[b].name) == nlen && !strncmp(ps->p->bufs[b].name, v.s, nlen)) in->mem.dram = b;
  if (in->mem.dram < 0) return perr(ps, v.s, "no buffer '%.*s' declared", (int)nlen, v.s);
  in->mem.dram_base = 0;
  if (nlen < v.n && !parse_ints((Tok){v.s + nlen + 1, v.n - nlen - 1}, ',', &in->mem.dram_base, 1))
    return perr(ps, v.s, "dram= takes NAME or NAME+OFFSET");
  return 0;
}

/* One key=value operand of instruction in. */
static int parse_field(Parser *ps, NpuInsn *in, Tok key, Tok v) {
  NpuMemInsn *m = &in->mem;
  NpuLoopInsn *l = &in->loop;
  bool mem = in->op == NPU_LOAD || in->op == NPU_STORE, loop = in->op == NPU_GEMM || in->op == NPU_ALU;
  int64_t pair[4];
  bool ok = true;
  if (mem && tok_is(key, "dram")) return parse_dram(ps, in, v);
  else if (mem && tok_is(key, "sram")) ok = parse_ints(v, ',', &m->sram_base, 1);
  else if (mem && tok_is(key, "y")) ok = parse_ints(v, ',', &m->y_size, 1);
  else if (mem && tok_is(key, "x")) ok = parse_ints(v, ',', &m->x_size, 1);
  else if (mem && tok_is(key, "stride")) ok = parse_ints(v, ',', &m->x_stride, 1);
  else if (mem && tok_is(key, "pad") && (ok = parse_ints(v, ',', pair, 4)))
    m->y_pad0 = pair[0], m->y_pad1 = pair[1], m->x_pad0 = pair[2], m->x_pad1 = pair[3];
  else if (loop && tok_is(key, "uop") && (ok = parse_ints(v, ':', pair, 2))) l->uop_bgn = pair[0], l->uop_end = pair[1];
  else if (loop && tok_is(key, "iter") && (ok = parse_ints(v, ',', pair, 2))) l->iter_out = pair[0], l->iter_in = pair[1];
  else if (loop && tok_is(key, "dst") && (ok = parse_ints(v, ',', pair, 2))) l->dst_out = pair[0], l->dst_in = pair[1];
  else if (loop && tok_is(key, "src") && (ok = parse_ints(v, ',', pair, 2))) l->src_out = pair[0], l->src_in = pair[1];
  else if (in->op == NPU_GEMM && tok_is(key, "wgt") && (ok = parse_ints(v, ',', pair, 2)))
    l->wgt_out = pair[0], l->wgt_in = pair[1];
  else if (in->op == NPU_ALU && tok_is(key, "imm") && (ok = parse_ints(v, ',', pair, 1))) {
    if (pair[0] < INT32_MIN || pair[0] > INT32_MAX) return perr(ps, v.s, "imm= is out of the int32 range");
    l->use_imm = true, l->imm = (int32_t)pair[0];
  } else if (ok)
    return perr(ps, key.s, "unknown operand '%.*s' here", (int)key.n, key.s);
  if (!ok) return perr(ps, v.s, "bad value '%.*s' for %.*s=", (int)v.n, v.s, (int)key.n, key.s);
  return 0;
}

static int parse_opcode(Parser *ps, Tok t, NpuInsn *in) {
  size_t dot = 0;
  while (dot < t.n && t.s[dot] != '.') dot++;
  Tok head = {t.s, dot}, sub = {t.s + dot + 1, dot < t.n ? t.n - dot - 1 : 0};
  if (tok_is(head, "LOAD") || tok_is(head, "STORE")) {
    in->op = tok_is(head, "LOAD") ? NPU_LOAD : NPU_STORE;
    return parse_mem_or_kind(ps, sub, &in->mem.mem);
  }
  if (tok_is(head, "GEMM") && (dot == t.n || tok_is(sub, "reset"))) {
    in->op = NPU_GEMM;
    in->loop.reset = dot < t.n;
    return 0;
  }
  if (tok_is(head, "ALU"))
    for (int a = 0; a < 5; a++)
      if (tok_is(sub, alu_names[a])) {
        in->op = NPU_ALU, in->loop.alu = (NpuAluOp)a;
        return 0;
      }
  if (tok_is(t, "FINISH")) {
    in->op = NPU_FINISH;
    return 0;
  }
  return perr(ps, t.s, "unknown instruction '%.*s' (LOAD.M, STORE.M, GEMM, GEMM.reset, ALU.OP, FINISH)",
              (int)t.n, t.s);
}

/* Splits the line [s, e) into tokens; returns their count (at most cap). */
static int split(const char *s, const char *e, Tok *toks, int cap) {
  int n = 0;
  while (s < e) {
    while (s < e && isspace((unsigned char)*s)) s++;
    if (s >= e || *s == '#') break;
    const char *b = s;
    while (s < e && !isspace((unsigned char)*s) && *s != '#') s++;
    if (n < cap) toks[n] = (Tok){b, (size_t)(s - b)};
    n++;
  }
  return n;
}

static int parse_insn(Parser *ps, Tok *toks, int n) {
  NpuInsn tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.loop.iter_out = tmp.loop.iter_in = tmp.mem.y_size = tmp.mem.x_size = 1;
  if (parse_opcode(ps, toks[0], &tmp)) return -1;
  for (int k = 1; k < n; k++) {
    int f = -1;
    for (int j = 0; j < 4; j++)
      if (tok_is(toks[k], flag_names[j])) f = j;
    if (f >= 0) {
      tmp.deps |= 1 << f;
      continue;
    }
    const char *eq = memchr(toks[k].s, '=', toks[k].n);
    if (!eq) return perr(ps, toks[k].s, "expected KEY=VALUE or a dependency flag, not '%.*s'", (int)toks[k].n, toks[k].s);
    Tok key = {toks[k].s, (size_t)(eq - toks[k].s)}, val = {eq + 1, toks[k].n - key.n - 1};
    if (parse_field(ps, &tmp, key, val)) return -1;
  }
  tmp.line = ps->line;
  NpuInsn *in = npu_program_add_insn(ps->p, tmp.op);
  *in = tmp;
  return 0;
}

static int parse_decl(Parser *ps, Tok *t, int n) {
  if (tok_is(t[0], "buffer")) {
    NpuMem mem = NPU_MEM_INP; /* set by parse_mem_or_kind; -O3 cannot see that */
    int64_t nt;
    if (n != 4) return perr(ps, t[0].s, "expected: buffer NAME KIND TILES");
    if (t[1].n >= sizeof ps->p->bufs[0].name) return perr(ps, t[1].s, "buffer name too long");
    if (parse_mem_or_kind(ps, t[2], &mem)) return -1;
    if (mem == NPU_MEM_UOP) return perr(ps, t[2].s, "micro-ops live in the uop table, not a buffer");
    if (!parse_ints(t[3], ',', &nt, 1) || nt < 0) return perr(ps, t[3].s, "bad tile count");
    char name[32];
    memcpy(name, t[1].s, t[1].n);
    name[t[1].n] = '\0';
    npu_program_add_buf(ps->p, name, mem, nt);
    return 0;
  }
  int64_t v[3] = {0, 0, 0};
  static const char *keys[3] = {"dst", "src", "wgt"};
  for (int k = 1; k < n; k++) {
    const char *eq = memchr(t[k].s, '=', t[k].n);
    int which = -1;
    for (int j = 0; j < 3 && eq; j++)
      if ((size_t)(eq - t[k].s) == strlen(keys[j]) && !strncmp(t[k].s, keys[j], strlen(keys[j]))) which = j;
    if (which < 0 || !parse_ints((Tok){eq + 1, t[k].n - (size_t)(eq + 1 - t[k].s)}, ',', &v[which], 1))
      return perr(ps, t[k].s, "expected dst=N, src=N or wgt=N");
  }
  npu_program_add_uop(ps->p, v[0], v[1], v[2]);
  return 0;
}

int npu_program_parse(NpuProgram *p, const char *name, const char *text, char *err, size_t errlen) {
  Parser ps = {p, name, 0, text, err, errlen};
  for (const char *s = text; *s;) {
    const char *e = strchr(s, '\n');
    if (!e) e = s + strlen(s);
    ps.line++, ps.line_start = s;
    Tok toks[24];
    int n = split(s, e, toks, 24);
    if (n > 24) return perr(&ps, s, "too many operands");
    int first = 0;
    if (n > 0 && toks[0].n > 1 && toks[0].s[toks[0].n - 1] == ':') first = 1; /* "N:" index */
    if (n > first) {
      int rc = tok_is(toks[first], "buffer") || tok_is(toks[first], "uop") ? parse_decl(&ps, toks + first, n - first)
                                                                          : parse_insn(&ps, toks + first, n - first);
      if (rc) return -1;
    }
    s = *e ? e + 1 : e;
  }
  return 0;
}
