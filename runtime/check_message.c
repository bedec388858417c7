/* check_message.c - the messages of the checks --bounds-check compiles in.
 *
 * Generated code calls these only on its failure path, so the fast path of
 * a check is one comparison.  The wording matches the reference
 * interpreter's (ir/interp_expr.c) for the same fault on the flattened IR. */
#include "runtime/tvs_runtime.h"

#include <stdio.h>

static __thread char tls_msg[512];

const char *tvs_out_of_bounds_message(const char *access, const char *buffer, int64_t index,
                                      int64_t extent) {
  snprintf(tls_msg, sizeof tls_msg, "out-of-bounds %s buffer '%s': index [%lld] outside shape (%lld,)",
           access ? access : "access to", buffer ? buffer : "?", (long long)index, (long long)extent);
  return tls_msg;
}

const char *tvs_division_by_zero_message(void) { return "division by zero"; }
