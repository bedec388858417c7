/* fuzz_frontend.c - libFuzzer target: lexer + parser + elaboration + printer.
 *
 * Any input must give diagnostics or a module, never a crash, hang or leak.
 * When a module comes out, printing it and re-elaborating the text must also
 * succeed (the round-trip invariant).  Built with clang -fsanitize=fuzzer when
 * TVS_FUZZ=ON; otherwise compiled with a replay main that runs the seed corpus. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "lang/elab.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The invariant: parse(print(m)) is structurally equal to m (free vars mapped at
 * first use, as TVM's map_free_vars), and printing it again gives the same text. */
static void check_round_trip(const IrModule *m, const IrModule *m2, const StrBuf *printed) {
  SEqualOptions so = {.map_free_vars = true};
  char *diff = NULL;
  if (!seq_module(m, m2, &so, &diff)) {
    fprintf(stderr, "round trip failed: printed module differs: %s\n%s\n", diff ? diff : "", printed->data);
    abort();
  }
  PrintOptions opt = print_options_default();
  StrBuf again;
  sb_init(&again);
  print_module(&again, m2, &opt);
  if (again.len != printed->len || memcmp(again.data, printed->data, again.len) != 0) {
    fprintf(stderr, "round trip failed: reprinting differs:\n%s\n---\n%s\n", printed->data, again.data);
    abort();
  }
  sb_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  SourceFile *src = src_from_string("fuzz.tvs", (const char *)data, size);
  DiagCtx d;
  diag_init(&d, NULL);
  IrModule *m = tvs_load_module(src, &d);
  if (m) {
    PrintOptions opt = print_options_default();
    StrBuf sb;
    sb_init(&sb);
    print_module(&sb, m, &opt);
    SourceFile *again = src_from_string("printed.tvs", sb.data, sb.len);
    DiagCtx d2;
    diag_init(&d2, NULL);
    IrModule *m2 = tvs_load_module(again, &d2);
    if (!m2) {
      fprintf(stderr, "round trip failed: printed module does not elaborate:\n%s\n", sb.data);
      for (int i = 0; i < d2.len; i++) diag_render(&d2.items[i], stderr, DIAG_FORMAT_TEXT, false);
      abort();
    }
    check_round_trip(m, m2, &sb);
    ir_module_free(m2);
    diag_free(&d2);
    src_free(again);
    sb_free(&sb);
    ir_module_free(m);
  }
  diag_free(&d);
  src_free(src);
  return 0;
}

#ifndef TVS_LIBFUZZER
/* Replay mode: run each file given on the command line through the target. */
int main(int argc, char **argv) {
  int n = 0;
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "cannot open %s\n", argv[i]);
      return 1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = xmalloc(cap);
    len = fread(buf, 1, cap, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    n++;
  }
  printf("replayed %d inputs without a crash\n", n);
  return 0;
}
#endif
