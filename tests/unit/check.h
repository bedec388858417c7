/* check.h - a minimal unit-test harness for the C unit tests under tests/unit.
 *
 * CHECK(cond) and CHECK_EQ_*(a, b) record failures without stopping;
 * TEST_MAIN() prints "N passed, M failed" and returns non-zero on failure. */
#ifndef TVS_TESTS_CHECK_H
#define TVS_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(c)                                                              \
  do {                                                                        \
    if (c) check_passed++;                                                    \
    else {                                                                    \
      check_failed++;                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);  \
    }                                                                         \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                                   \
  do {                                                                                       \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                          \
    if (check_a_ == check_b_) check_passed++;                                                \
    else {                                                                                   \
      check_failed++;                                                                        \
      fprintf(stderr, "%s:%d: CHECK_EQ_INT failed: %s == %s (%lld vs %lld)\n", __FILE__,     \
              __LINE__, #a, #b, check_a_, check_b_);                                         \
    }                                                                                        \
  } while (0)

#define CHECK_EQ_STR(a, b)                                                                   \
  do {                                                                                       \
    const char *check_a_ = (a), *check_b_ = (b);                                             \
    if (check_a_ && check_b_ && !strcmp(check_a_, check_b_)) check_passed++;                 \
    else {                                                                                   \
      check_failed++;                                                                        \
      fprintf(stderr, "%s:%d: CHECK_EQ_STR failed: %s == %s\n  got:      %s\n  expected: %s\n", \
              __FILE__, __LINE__, #a, #b, check_a_ ? check_a_ : "(null)",                    \
              check_b_ ? check_b_ : "(null)");                                               \
    }                                                                                        \
  } while (0)

#define TEST_MAIN_END()                                                 \
  do {                                                                  \
    printf("%d passed, %d failed\n", check_passed, check_failed);       \
    return check_failed ? 1 : 0;                                        \
  } while (0)

#endif
