/* test_c_api.c - the public C API (include/tvs/) on bad input: every entry
 * point returns a status and a message (no exit, no abort), handles stay
 * usable after a failure, and nothing leaks (the sanitizer build runs this). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvs/tvs.h"

static int failures;

#define EXPECT(cond)                                                              \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "%s:%d: FAIL: %s (last error: %s)\n", __FILE__, __LINE__, #cond, tvs_last_error()); \
      failures++;                                                                 \
    }                                                                             \
  } while (0)

static const char *good =
    "@T.prim_func\n"
    "def add(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "    for i in range(8):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(8, i)\n"
    "            B[vi] = A[vi] + T.float32(1)\n";

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

static void test_parse_errors(void) {
  TvsIRModule *m = NULL;
  EXPECT(tvs_irmod_parse(NULL, "x", 1, &m) == TVS_ERR_ARGUMENT && m == NULL);
  EXPECT(tvs_irmod_parse("@T.prim_func\ndef f(:\n", "bad.py", 10, &m) == TVS_ERR_PARSE && m == NULL);
  EXPECT(contains(tvs_last_error(), "bad.py:11:")); /* first_line shifts the line numbers */
  EXPECT(tvs_irmod_parse("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = zz\n", "u.tvs", 1, &m) ==
         TVS_ERR_PARSE);
  EXPECT(contains(tvs_last_error(), "u.tvs:3:") && contains(tvs_last_error(), "zz"));
  EXPECT(tvs_irmod_parse_file("/nonexistent/x.tvs", &m) == TVS_ERR_IO);
  EXPECT(contains(tvs_last_error(), "/nonexistent/x.tvs"));
  tvs_irmod_release(NULL); /* NULL-safe */
}

static void test_schedule_errors(TvsIRModule *m) {
  TvsSchedule *s = NULL;
  EXPECT(tvs_sched_create(NULL, &s) == TVS_ERR_ARGUMENT);
  EXPECT(tvs_sched_create(m, &s) == TVS_OK);
  char *out = NULL;
  EXPECT(tvs_sched_exec(s, "b = sch.get_block(\"B\")\nl, = sch.get_loops(b)", &out) == TVS_OK);
  tvs_string_free(out);
  EXPECT(tvs_sched_var_kind(s, "b") == TVS_VALUE_BLOCK && tvs_sched_var_kind(s, "l") == TVS_VALUE_LOOP);
  EXPECT(tvs_sched_var_kind(s, "nope") == TVS_VALUE_NONE);
  EXPECT(tvs_sched_exec(s, "sch.split(l, factors=[2, 3])", NULL) == TVS_ERR_SCHEDULE);
  EXPECT(contains(tvs_last_error(), "error: split: factors [2, 3] multiply to 6"));
  EXPECT(tvs_sched_exec(s, "sch.vectorize(b)", NULL) == TVS_ERR_SCHEDULE); /* a block for a loop */
  EXPECT(tvs_sched_exec(s, "sch.split(", NULL) == TVS_ERR_SCHEDULE);      /* does not parse */
  EXPECT(tvs_sched_exec(s, "sch.nosuch(l)", NULL) == TVS_ERR_SCHEDULE);
  EXPECT(contains(tvs_last_error(), "no method 'nosuch'"));
  EXPECT(tvs_sched_trace_len(s) == 2); /* the failures changed nothing */
  EXPECT(tvs_sched_exec(s, "o, i = sch.split(l, factors=[None, 4])", NULL) == TVS_OK);
  EXPECT(tvs_sched_trace_len(s) == 3);
  EXPECT(tvs_sched_undo(s) == TVS_OK && tvs_sched_trace_len(s) == 2);
  EXPECT(tvs_sched_work_on(s, "nope") == TVS_ERR_SCHEDULE);
  EXPECT(tvs_sched_method_signature("nosuch", &out) == TVS_ERR_ARGUMENT);
  EXPECT(tvs_sched_method_signature("split", &out) == TVS_OK && contains(out, "factors"));
  tvs_string_free(out);
  EXPECT(tvs_sched_method_name(0) != NULL && tvs_sched_method_name(100000) == NULL);
  tvs_sched_release(s);
}

static void test_build_and_call_errors(TvsIRModule *m) {
  TvsExecutable *e = NULL;
  EXPECT(tvs_build(m, "cuda", NULL, &e) == TVS_ERR_ARGUMENT && contains(tvs_last_error(), "cuda"));
  EXPECT(tvs_build(m, "llvm -bogus", NULL, &e) == TVS_ERR_ARGUMENT);
  EXPECT(tvs_build(m, "llvm", NULL, &e) == TVS_OK);
  TvsFunction *f = NULL;
  EXPECT(tvs_executable_get_function(e, "nope", &f) == TVS_ERR_ARGUMENT && f == NULL);
  EXPECT(tvs_executable_get_function(e, "add", &f) == TVS_OK);
  EXPECT(tvs_function_num_params(f) == 2);
  float a[8] = {0}, b[8] = {0};
  int64_t shape[1] = {8}, bad_shape[1] = {7};
  DLTensor ta = {a, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor tb = {b, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor tbad = {b, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, bad_shape, NULL, 0};
  DLTensor tint = {b, {kDLCPU, 0}, 1, {kDLInt, 32, 1}, shape, NULL, 0};
  TvsArg args[2] = {{TVS_ARG_TENSOR, &ta, 0, 0}, {TVS_ARG_TENSOR, &tb, 0, 0}};
  EXPECT(tvs_function_call(f, args, 2) == TVS_OK && b[3] == 1.0f);
  EXPECT(tvs_function_call(f, args, 1) == TVS_ERR_RUN);
  args[1].tensor = &tbad;
  EXPECT(tvs_function_call(f, args, 2) == TVS_ERR_RUN && contains(tvs_last_error(), "shape"));
  args[1].tensor = &tint;
  EXPECT(tvs_function_call(f, args, 2) == TVS_ERR_RUN && contains(tvs_last_error(), "float32"));
  args[1].tensor = NULL;
  EXPECT(tvs_function_call(f, args, 2) == TVS_ERR_ARGUMENT);
  args[1].type = 99;
  EXPECT(tvs_function_call(f, args, 2) == TVS_ERR_ARGUMENT);
  args[1].type = TVS_ARG_TENSOR;
  args[1].tensor = &tb;
  double res[2];
  EXPECT(tvs_function_time(f, args, 2, 5, 2, 0, res) == TVS_OK && res[0] > 0);
  EXPECT(tvs_function_param(f, 5, NULL, NULL, NULL, NULL, NULL, NULL) == TVS_ERR_ARGUMENT);
  tvs_function_release(f);
  tvs_executable_release(e);
  EXPECT(tvs_export_library(m, "llvm", "/tmp/x.txt") == TVS_ERR_ARGUMENT);
  EXPECT(tvs_executable_load("/nonexistent/x.so", &e) == TVS_ERR_IO);
}

int main(void) {
  test_parse_errors();
  TvsIRModule *m = NULL;
  EXPECT(tvs_irmod_parse(good, "good.tvs", 1, &m) == TVS_OK);
  if (!m) return 1;
  char *out = NULL;
  EXPECT(tvs_irmod_show_stage(m, "nope", &out) == TVS_ERR_ARGUMENT && contains(tvs_last_error(), "nope"));
  EXPECT(tvs_irmod_show_stage(m, "lower-init-block", &out) == TVS_OK);
  tvs_string_free(out);
  EXPECT(tvs_irmod_func_script(m, "nope", &out) == TVS_ERR_ARGUMENT);
  const char *names[1] = {"nope"};
  TvsIRModule *sel = NULL;
  EXPECT(tvs_irmod_select(m, names, 1, &sel) == TVS_ERR_ARGUMENT && sel == NULL);
  EXPECT(tvs_irmod_num_funcs(m) == 1 && tvs_irmod_func_name(m, 1) == NULL && tvs_irmod_func_kind(m, -1) == -1);
  /* BindParams: a prim_func has no graph parameters; NULL arrays are refused */
  float w = 1;
  int64_t one = 1;
  DLTensor t = {&w, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &one, NULL, 0};
  const DLTensor *vals[1] = {&t};
  const char *pname[1] = {"A"};
  EXPECT(tvs_irmod_bind_params(m, tvs_irmod_func_name(m, 0), pname, vals, 1, &sel) == TVS_ERR_ARGUMENT &&
         contains(tvs_last_error(), "prim_func") && sel == NULL);
  EXPECT(tvs_irmod_bind_params(m, NULL, pname, NULL, 1, &sel) == TVS_ERR_ARGUMENT && sel == NULL);
  EXPECT(tvs_irmod_bind_params(m, "nope", pname, vals, 1, &sel) == TVS_ERR_ARGUMENT &&
         contains(tvs_last_error(), "nope"));
  test_schedule_errors(m);
  test_build_and_call_errors(m);
  tvs_irmod_release(m);
  printf("test_c_api: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
