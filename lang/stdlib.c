/* stdlib.c - the operator library's templates, parsed and elaborated once
 * (see stdlib.h).  The modules live for the process: legalized modules point
 * into their heaps (ir_heap_depend). */
#include "lang/stdlib.h"

#include <stdio.h>
#include <string.h>

#include "ir/module.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "base/source.h"
#include "base/vec.h"

static bool loaded;
static IrModule **mods;
static SourceFile **srcs;
static int nmods, capmods, nsrcs, capsrcs;

static void load_all(void) {
  loaded = true;
  DiagCtx d;
  diag_init(&d, stderr);
  for (int i = 0; i < tvs_stdlib_count; i++) {
    const TvsStdlibSource *s = &tvs_stdlib_sources[i];
    SourceFile *src = src_from_string(s->file, s->text, strlen(s->text));
    VEC_PUSH(srcs, nsrcs, capsrcs, src);
    IrModule *m = tvs_load_module(src, &d);
    if (m) VEC_PUSH(mods, nmods, capmods, m);
  }
  /* a broken template is a build defect: say so once, keep the others */
  diag_flush(&d);
  diag_free(&d);
}

const TirFunc *tvs_stdlib_func(const char *name, IrHeap **heap) {
  if (!loaded) load_all();
  for (int i = 0; i < nmods; i++) {
    const IrGlobal *g = ir_module_lookup(mods[i], name);
    if (g && g->kind == IR_FUNC_TIR) {
      if (heap) *heap = mods[i]->heap;
      return g->tir;
    }
  }
  return NULL;
}

void tvs_stdlib_install(void) { rx_set_stdlib_provider(tvs_stdlib_func); }
