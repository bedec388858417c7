/* text_diff.h - unified diffs of two texts, as `diff -u` prints them. */
#ifndef TVS_BASE_TEXT_DIFF_H
#define TVS_BASE_TEXT_DIFF_H

#include <stdbool.h>

#include "base/util.h"

/* Appends a unified diff of a -> b (3 lines of context, headed by name_a and
 * name_b; red and green lines with color) to out; returns the number of
 * changed lines (0: identical, nothing appended). */
int text_unified_diff(StrBuf *out, const char *a, const char *b, const char *name_a, const char *name_b,
                      bool color);

#endif
