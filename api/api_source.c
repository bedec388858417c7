/* api_source.c - the reference-counted holder of source texts and parsed
 * schedule statements that modules and schedules of the API point into. */
#include <stdlib.h>

#include "api/api_internal.h"
#include "base/vec.h"

ApiSrc *api_src_new(ApiSrc *parent) {
  ApiSrc *s = xcalloc(1, sizeof *s);
  s->refs = 1;
  s->parent = api_src_retain(parent);
  return s;
}

ApiSrc *api_src_retain(ApiSrc *s) {
  if (s) s->refs++;
  return s;
}

void api_src_release(ApiSrc *s) {
  while (s && --s->refs == 0) { /* iterative: long parent chains stay off the stack */
    ApiSrc *parent = s->parent;
    for (int i = 0; i < s->nasts; i++) ast_file_free(s->asts[i]);
    for (int i = 0; i < s->nfiles; i++) src_free(s->files[i]);
    free(s->asts);
    free(s->files);
    free(s);
    s = parent;
  }
}
