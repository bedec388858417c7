/* fuzz_npy.c - libFuzzer target: the .npy reader, in memory and from a file.
 *
 * Any bytes must give an array or a message, never a crash, an over-read or
 * an allocation the header does not justify.  An accepted array must save and
 * parse back equal, and the file reader (bounded reads, runtime/npy.c) must
 * agree with the in-memory parser on every input. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long n_accepted, n_refused; /* inputs, for the replay's report */

/* The array saved to a .npy image and parsed again equals a. */
static void check_resave(const TvsNDArray *a) {
  unsigned char hdr[TVS_NPY_HEADER_MAX];
  size_t nbytes;
  char err[256];
  size_t hlen = tvs_npy_header(&a->t, hdr, &nbytes, err, sizeof err);
  if (!hlen) return; /* a dtype .npy cannot hold */
  unsigned char *img = malloc(hlen + nbytes + 1);
  memcpy(img, hdr, hlen);
  if (nbytes) memcpy(img + hlen, a->t.data, nbytes);
  TvsNDArray *b = tvs_npy_parse(img, hlen + nbytes, err, sizeof err);
  if (!b || b->t.ndim != a->t.ndim || memcmp(b->t.shape, a->t.shape, (size_t)a->t.ndim * sizeof(int64_t)) ||
      (nbytes && memcmp(b->t.data, a->t.data, nbytes))) {
    fprintf(stderr, "npy re-save differs: %s\n", b ? "data/shape" : err);
    abort();
  }
  tvs_ndarray_free(b);
  free(img);
}

/* The file reader on the same bytes accepts exactly what the parser accepts. */
static void check_file_reader(const uint8_t *data, size_t size, bool parsed) {
  int fd = memfd_create("fuzz.npy", 0);
  if (fd < 0) return;
  if (size && write(fd, data, size) != (ssize_t)size) {
    close(fd);
    return;
  }
  char path[64], err[512];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  TvsNDArray *a = tvs_npy_load(path, err, sizeof err);
  close(fd);
  if ((a != NULL) != parsed) {
    fprintf(stderr, "file reader and parser disagree: file %s (%s)\n", a ? "accepted" : "refused", a ? "" : err);
    abort();
  }
  tvs_ndarray_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  char err[256];
  TvsNDArray *a = tvs_npy_parse(data, size, err, sizeof err);
  if (a) check_resave(a);
  a ? n_accepted++ : n_refused++;
  check_file_reader(data, size, a != NULL);
  tvs_ndarray_free(a);
  return 0;
}

#ifndef TVS_LIBFUZZER
static void fuzz_report(void) { printf("%ld arrays accepted, %ld inputs refused\n", n_accepted, n_refused); }
#include "replay_main.h"
#endif
