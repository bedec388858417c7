/* fuzz_onnx.c - libFuzzer target: the ONNX importer (protobuf-c reader, graph
 * checks, converters) and the elaboration of the text it produces.
 *
 * Any bytes must give an error or a module, never a crash, hang or leak.  When
 * the importer succeeds its text is elaborated too; that may report errors (the
 * importer leaves most shape checks of an ill-formed model, say a Gemm of
 * mismatched sizes, to the operators' own checks), but must not crash; a parse
 * error, which only an importer bug can cause, aborts.  Built with clang -fsanitize=fuzzer
 * when TVS_FUZZ=ON; otherwise a replay main runs the files it is given (the
 * ctest replays ONNX's node-test models). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "frontend/onnx/onnx_import.h"
#include "lang/elab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 20) return 0;
  DiagCtx d;
  diag_init(&d, NULL);
  OnnxImport imp;
  /* a path in a directory with no external data files: such references fail cleanly */
  if (onnx_import_bytes(data, size, "/nonexistent-fuzz-dir/fuzz.onnx", &imp, &d) == 0) {
    SourceFile *src = src_from_string("imported.tvs", imp.text, strlen(imp.text));
    DiagCtx d2;
    diag_init(&d2, NULL);
    IrModule *m = tvs_load_module(src, &d2);
    bool syntax = false;
    /* the parser's messages (parser/driver.c), not the operators' checks */
    for (int i = 0; i < d2.len; i++) {
      const char *msg = d2.items[i].msg;
      syntax |= strstr(msg, "unmatched") || strstr(msg, "unexpected") || strstr(msg, "undefined") ||
                !strncmp(msg, "expected ':'", 12) || !strncmp(msg, "expected an expression", 22);
    }
    if (syntax) {
      fprintf(stderr, "the importer's text does not elaborate:\n%s\n", imp.text);
      for (int i = 0; i < d2.len; i++) diag_render(&d2.items[i], stderr, DIAG_FORMAT_TEXT, false);
      abort();
    }
    ir_module_free(m);
    diag_free(&d2);
    src_free(src);
    onnx_import_free(&imp);
  }
  diag_free(&d);
  return 0;
}

#ifndef TVS_LIBFUZZER
/* Replay mode: each file named on the command line (or listed, one path a
 * line, in a file given as @LIST) goes through the target. */
static int replay(const char *path, int *n) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  size_t cap = 1 << 20;
  uint8_t *buf = xmalloc(cap);
  size_t len = fread(buf, 1, cap, f);
  fclose(f);
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  ++*n;
  return 0;
}

int main(int argc, char **argv) {
  int n = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] != '@') {
      if (replay(argv[i], &n)) return 1;
      continue;
    }
    FILE *list = fopen(argv[i] + 1, "r");
    char line[4096];
    while (list && fgets(line, sizeof line, list)) {
      line[strcspn(line, "\n")] = 0;
      if (line[0] && replay(line, &n)) return 1;
    }
    if (list) fclose(list);
  }
  printf("replayed %d inputs without a crash\n", n);
  return 0;
}
#endif
