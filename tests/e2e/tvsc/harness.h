/* harness.h - the glue between harness.c and the thunk gen_thunk.py writes
 * from a tvsc header: the thunk calls the direct entry with the arguments
 * harness.c prepared (indexed by parameter position in the metadata). */
#ifndef TVS_TESTS_E2E_TVSC_HARNESS_H
#define TVS_TESTS_E2E_TVSC_HARNESS_H

#include <stdint.h>

#include "runtime/tvs_runtime.h"

/* The value bound to symbolic dimension name (exits when unbound). */
int64_t harness_sym(const char *name);
/* Generated: calls the direct entry; data[i] = tensor i's data pointer,
 * scalars[i] = scalar i's value. */
int32_t harness_call_direct(void *const *data, const TVSValue *scalars);

#endif
