/* replay_main.h - the main of a fuzz target built without libFuzzer: runs each
 * file named on the command line (or listed, one per line, in @LIST) through
 * LLVMFuzzerTestOneInput once, so the seeds replay under plain ctest. */
#ifndef TVS_TESTS_FUZZ_REPLAY_MAIN_H
#define TVS_TESTS_FUZZ_REPLAY_MAIN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Each target defines it: prints what the replay exercised (so a test can
 * tell that the seeds reach the code, not only that nothing crashed). */
static void fuzz_report(void);

static int replay_one(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return -1;
  }
  size_t cap = 1 << 20, len;
  uint8_t *buf = malloc(cap);
  len = buf ? fread(buf, 1, cap, f) : 0;
  fclose(f);
  LLVMFuzzerTestOneInput(buf ? buf : (const uint8_t *)"", len);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int n = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] != '@') {
      if (replay_one(argv[i])) return 1;
      n++;
      continue;
    }
    FILE *list = fopen(argv[i] + 1, "r");
    char line[4096];
    while (list && fgets(line, sizeof line, list)) {
      line[strcspn(line, "\n")] = '\0';
      if (line[0] && replay_one(line)) return 1;
      n += line[0] != '\0';
    }
    if (list) fclose(list);
  }
  printf("replayed %d inputs without a crash\n", n);
  fuzz_report();
  return 0;
}

#endif
