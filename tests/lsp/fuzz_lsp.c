/* fuzz_lsp.c - libFuzzer target over the language server's message handling:
 * the input is the byte stream a client sends (framing included), after an
 * `initialize` the target supplies, so that every request reaches its feature.
 * Any input must be answered without a crash, hang or leak.  Built with clang
 * -fsanitize=fuzzer when TVS_FUZZ=ON; otherwise a replay main runs the seeds
 * (tests/lsp/fuzz_seeds). */
#define _GNU_SOURCE /* memfd_create */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/util.h"
#include "lsp/lsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}";
  if (size > 1 << 20) return 0;
  int fd = memfd_create("lsp-fuzz", 0);
  if (fd < 0) return 0;
  dprintf(fd, "Content-Length: %zu\r\n\r\n%s", strlen(init), init);
  if (write(fd, data, size) != (ssize_t)size) abort();
  lseek(fd, 0, SEEK_SET);
  FILE *out = fopen("/dev/null", "w");
  lsp_serve(fd, out, NULL);
  fclose(out);
  close(fd);
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
    size_t cap = 1 << 20;
    uint8_t *buf = xmalloc(cap);
    size_t len = fread(buf, 1, cap, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    n++;
  }
  printf("%d inputs replayed\n", n);
  return 0;
}
#endif
