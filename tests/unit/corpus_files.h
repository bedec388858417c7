/* corpus_files.h - the .tvs programs of tests/corpus in name order, for the
 * tests that run every corpus program (test_lower, test_codegen, test_verify). */
#ifndef TVS_TESTS_CORPUS_FILES_H
#define TVS_TESTS_CORPUS_FILES_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static int corpus_cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Fills names with the corpus's .tvs file names, sorted, and returns the
 * corpus directory (free both with corpus_files_free); NULL when the
 * directory cannot be read. */
static char *corpus_files(PtrVec *names) {
  const char *root = getenv("TVS_SOURCE_DIR");
  char *dir = xasprintf("%s/tests/corpus", root ? root : ".");
  DIR *dp = opendir(dir);
  if (!dp) {
    free(dir);
    return NULL;
  }
  struct dirent *de;
  while ((de = readdir(dp))) {
    size_t n = strlen(de->d_name);
    if (n > 4 && !strcmp(de->d_name + n - 4, ".tvs")) pv_push(names, xstrdup(de->d_name));
  }
  closedir(dp);
  qsort(names->items, (size_t)names->len, sizeof *names->items, corpus_cmp_names);
  return dir;
}

static void corpus_files_free(PtrVec *names, char *dir) {
  for (int i = 0; i < names->len; i++) free(names->items[i]);
  pv_free(names);
  free(dir);
}

#endif
