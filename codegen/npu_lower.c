/* npu_lower.c - the staged form of an NPU stream (npu_lower.h): its
 * container, the pipeline of the stages after npu-inject-dma, and the
 * printing of each stage. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "codegen/npu_lower.h"

static const char *const stage_names[NPU_STAGE_COUNT] = {"npu-inject-dma", "npu-inject-vthread", "npu-coproc-sync",
                                                         "npu-isa"};

const char *cg_npu_stage_name(NpuStage s) { return s < NPU_STAGE_COUNT ? stage_names[s] : "?"; }

int cg_npu_stage_lookup(const char *name) {
  for (int s = 0; name && s < NPU_STAGE_COUNT; s++)
    if (!strcmp(name, stage_names[s])) return s;
  return -1;
}

void cg_npu_lowered_init(NpuLowered *l, int vthreads) {
  memset(l, 0, sizeof *l);
  npu_program_init(&l->p);
  l->vthreads = vthreads;
  l->stage = NPU_STAGE_INJECT_DMA;
}

void cg_npu_lowered_free(NpuLowered *l) {
  npu_program_free(&l->p);
  free(l->tags);
  l->tags = NULL;
}

NpuInsn *cg_npu_lowered_add(NpuLowered *l, NpuOpcode op, int task_vt, int acc_vt) {
  if (l->p.ninsns == l->cap_tags) {
    l->cap_tags = l->cap_tags ? 2 * l->cap_tags : 64;
    l->tags = xrealloc(l->tags, (size_t)l->cap_tags * sizeof *l->tags);
  }
  l->tags[l->p.ninsns] = (NpuVthreadTag){(int8_t)task_vt, (int8_t)acc_vt};
  return npu_program_add_insn(&l->p, op);
}

int cg_npu_lower_to(NpuLowered *l, NpuStage upto, char *err, size_t errlen) {
  if (l->stage < NPU_STAGE_INJECT_VTHREAD && upto >= NPU_STAGE_INJECT_VTHREAD) cg_npu_inject_vthread(l);
  if (l->stage < NPU_STAGE_COPROC_SYNC && upto >= NPU_STAGE_COPROC_SYNC && cg_npu_coproc_sync(l, err, errlen))
    return -1;
  /* npu-isa only prints the tokens as flags: they are flags already. */
  if (upto > l->stage) l->stage = upto;
  return 0;
}

void cg_npu_lowered_take(NpuLowered *l, NpuProgram *p) {
  *p = l->p;
  npu_program_init(&l->p);
  cg_npu_lowered_free(l);
}

/* ---- printing ---------------------------------------------------------------- */

static void print_tag(FILE *out, NpuVthreadTag t) {
  if (t.task >= 0 && t.acc >= 0) fprintf(out, "  # vthread %d, acc vthread %d", t.task, t.acc);
  else if (t.task >= 0) fprintf(out, "  # vthread %d", t.task);
  else if (t.acc >= 0) fprintf(out, "  # acc vthread %d", t.acc);
}

/* The token statements of one instruction: pops before it, pushes after. */
static void print_deps(FILE *out, const NpuInsn *in, bool pops) {
  NpuModule m = npu_insn_module(in);
  int prev = pops ? NPU_POP_PREV : NPU_PUSH_PREV, next = pops ? NPU_POP_NEXT : NPU_PUSH_NEXT;
  const char *what = pops ? "coproc_dep_pop" : "coproc_dep_push";
  /* A token names the producer first: a pop from the previous module is
   * the previous module's push to this one. */
  if (in->deps & prev) {
    NpuModule o = (NpuModule)(m - 1);
    fprintf(out, "      %s(%s, %s)\n", what, npu_module_name(pops ? o : m), npu_module_name(pops ? m : o));
  }
  if (in->deps & next) {
    NpuModule o = (NpuModule)(m + 1);
    fprintf(out, "      %s(%s, %s)\n", what, npu_module_name(pops ? o : m), npu_module_name(pops ? m : o));
  }
}

void cg_npu_lowered_print(FILE *out, const NpuLowered *l) {
  if (l->stage == NPU_STAGE_ISA) {
    npu_program_print(out, &l->p);
    return;
  }
  const NpuProgram *p = &l->p;
  fprintf(out, "# %s: %d buffers, %lld micro-ops, %lld instructions, %d virtual thread%s\n",
          cg_npu_stage_name(l->stage), p->nbufs, (long long)p->nuops, (long long)p->ninsns, l->vthreads,
          l->vthreads > 1 ? "s" : "");
  for (int b = 0; b < p->nbufs; b++)
    fprintf(out, "buffer %s %s %lld\n", p->bufs[b].name, npu_mem_name(p->bufs[b].mem), (long long)p->bufs[b].ntiles);
  for (int64_t u = 0; u < p->nuops; u++)
    fprintf(out, "uop dst=%lld src=%lld wgt=%lld\n", (long long)p->uops[u].dst, (long long)p->uops[u].src,
            (long long)p->uops[u].wgt);
  bool sync = l->stage >= NPU_STAGE_COPROC_SYNC;
  for (int64_t i = 0; i < p->ninsns; i++) {
    NpuInsn in = p->insns[i];
    if (sync) print_deps(out, &in, true);
    in.deps = 0;
    fprintf(out, "%4lld: ", (long long)i);
    npu_insn_print(out, &in, p);
    print_tag(out, l->tags[i]);
    fputc('\n', out);
    if (sync) print_deps(out, &p->insns[i], false);
  }
}

int cg_npu_lowered_finish(NpuLowered *l, int rc, NpuProgram *p, char *err, size_t errlen) {
  if (rc || cg_npu_lower_to(l, NPU_STAGE_ISA, err, errlen)) {
    cg_npu_lowered_free(l);
    return -1;
  }
  npu_program_free(p);
  cg_npu_lowered_take(l, p);
  return 0;
}
