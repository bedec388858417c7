/* harness.c - calls one function of a tvsc-compiled .so from C, through the
 * direct entry (linked by its header prototype, via the generated thunk
 * harness_call_direct) or the packed entry (tvs_module_load), on .npy inputs.
 * usage: harness direct|packed K.so FUNC OUTDIR [NAME=FILE.npy|NAME=NUMBER ...]
 * Outputs are a graph function's last num_outputs params (metadata), or for
 * a prim_func the tensors given no input; they are allocated zeroed (shapes
 * from the metadata with symbolic dims bound from the inputs), passed by the
 * caller (destination passing) and written as OUTDIR/NAME.npy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/npy.h"
#include "runtime/tvs_runtime.h"
#include "tests/e2e/tvsc/harness.h"

static const char *sym_names[64];
static int64_t sym_values[64];
static int nsyms;

int64_t harness_sym(const char *name) {
  for (int i = 0; i < nsyms; i++)
    if (!strcmp(sym_names[i], name)) return sym_values[i];
  fprintf(stderr, "harness: symbolic dim '%s' is not bound\n", name);
  exit(3);
}

static const char *find_input(int argc, char **argv, const char *name) {
  size_t n = strlen(name);
  for (int i = 5; i < argc; i++)
    if (!strncmp(argv[i], name, n) && argv[i][n] == '=') return argv[i] + n + 1;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fputs("usage: harness direct|packed K.so FUNC OUTDIR [NAME=VALUE ...]\n", stderr);
    return 2;
  }
  int direct = !strcmp(argv[1], "direct");
  TVSModule *mod = tvs_module_load(argv[2]);
  const TVSFuncInfo *info = mod ? tvs_module_func_info(mod, argv[3]) : NULL;
  if (!info) {
    fprintf(stderr, "harness: %s\n", mod ? "no such function" : tvs_get_last_error());
    return 1;
  }
  int n = info->num_params;
  if (info->num_outputs < 0 || info->num_outputs > n) {
    fprintf(stderr, "harness: bad num_outputs %d\n", info->num_outputs);
    return 1;
  }
  TVSValue vals[64];
  int codes[64];
  TvsNDArray *arrays[64] = {0};
  void *data[64] = {0};
  char err[256];
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++) {
      const TVSParamInfo *p = &info->params[i];
      const char *v = find_input(argc, argv, p->name);
      if (p->type_code != TVS_TENSOR) {
        if (pass) continue;
        if (!v) return fprintf(stderr, "harness: scalar '%s' needs a value\n", p->name), 1;
        codes[i] = p->type_code;
        if (p->type_code == TVS_FLOAT) vals[i].v_float64 = strtod(v, NULL);
        else vals[i].v_int64 = strtoll(v, NULL, 0);
        continue;
      }
      int is_out = info->num_outputs > 0 ? i >= n - info->num_outputs : v == NULL;
      if (is_out && v) return fprintf(stderr, "harness: '%s' is an output, not an input\n", p->name), 1;
      if (!is_out && !v) return fprintf(stderr, "harness: input '%s' needs a value\n", p->name), 1;
      if ((pass == 0) != (v != NULL)) continue;
      if (v) {
        arrays[i] = tvs_npy_load(v, err, sizeof err);
        if (!arrays[i]) return fprintf(stderr, "harness: %s: %s\n", v, err), 1;
        for (int d = 0; d < p->ndim; d++)
          if (p->shape[d] < 0 && p->sym_dims && p->sym_dims[d]) {
            sym_names[nsyms] = p->sym_dims[d];
            sym_values[nsyms++] = arrays[i]->t.shape[d];
          }
      } else {
        int64_t shape[8];
        for (int d = 0; d < p->ndim; d++)
          shape[d] = p->shape[d] >= 0 ? p->shape[d] : harness_sym(p->sym_dims[d]);
        arrays[i] = tvs_ndarray_empty(p->ndim, shape, p->dtype);
      }
      codes[i] = TVS_TENSOR;
      vals[i].v_handle = &arrays[i]->t;
      data[i] = (char *)arrays[i]->t.data + arrays[i]->t.byte_offset;
    }
  int rc;
  if (direct) {
    rc = harness_call_direct(data, vals);
  } else {
    TVSFunction *f = tvs_module_get_function(mod, argv[3]);
    TVSValue ret;
    int rcode;
    rc = tvs_func_call(f, vals, codes, n, &ret, &rcode);
    tvs_func_release(f);
  }
  if (rc != 0) return fprintf(stderr, "harness: %s entry failed: %s\n", argv[1], tvs_get_last_error()), 1;
  for (int i = 0; i < n; i++) {
    int is_out = info->num_outputs > 0 ? i >= n - info->num_outputs : !find_input(argc, argv, info->params[i].name);
    if (info->params[i].type_code != TVS_TENSOR || !is_out) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", argv[4], info->params[i].name);
    if (tvs_npy_save(path, &arrays[i]->t, err, sizeof err)) return fprintf(stderr, "harness: %s\n", err), 1;
  }
  for (int i = 0; i < n; i++) tvs_ndarray_free(arrays[i]);
  tvs_module_free(mod);
  return 0;
}
