/* argcheck.c - argument checks for compiled packed functions.
 *
 * The success path only compares integers; messages are formatted on failure.
 * Each message names the function, the argument's index and parameter name,
 * what was found and what was expected. */
#include "runtime/ndarray.h"
#include "runtime/tvs_runtime.h"

#include <stdio.h>
#include <string.h>

/* "a DLTensor", "an int". */
static const char *article(const char *noun) {
  return strchr("aeiouAEIOU", noun[0]) ? "an" : "a";
}

static const char *device_name(int type) {
  switch (type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLVPI: return "vpi";
    case kDLROCM: return "rocm";
    case kDLExtDev: return "ext_dev";
    default: return NULL;
  }
}

static int dtype_eq(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

int tvs_check_num_args(const char *func, int num_args, int expected) {
  if (num_args == expected) return 0;
  tvs_set_last_error("%s: expected %d argument%s, got %d", func, expected, expected == 1 ? "" : "s",
                     num_args);
  return -1;
}

int tvs_check_scalar_arg(const char *func, const char *param, int index, int type_code,
                         int expect_code) {
  if (type_code == expect_code) return 0;
  const char *want = tvs_type_code_name(expect_code);
  tvs_set_last_error("%s: argument %d ('%s') must be %s %s, got %s", func, index, param,
                     article(want), want, tvs_type_code_name(type_code));
  return -1;
}

/* Everything after the type code; split out so the common path stays short. */
static int check_tensor(const char *func, const char *param, int index, const DLTensor *t,
                        DLDataType expect_dtype, int expect_ndim, const int64_t *expect_shape) {
  if (!t) {
    tvs_set_last_error("%s: argument %d ('%s') is a null DLTensor pointer", func, index, param);
    return -1;
  }
  if (!t->data) {
    tvs_set_last_error("%s: argument %d ('%s') has a null data pointer", func, index, param);
    return -1;
  }
  if (t->device.device_type != kDLCPU) {
    const char *dev = device_name(t->device.device_type);
    if (dev)
      tvs_set_last_error("%s: argument %d ('%s') is on device %s:%d, expected cpu", func, index,
                         param, dev, t->device.device_id);
    else
      tvs_set_last_error("%s: argument %d ('%s') is on device type %d, expected cpu", func, index,
                         param, (int)t->device.device_type);
    return -1;
  }
  if (!dtype_eq(t->dtype, expect_dtype)) {
    char got[32], want[32];
    tvs_set_last_error("%s: argument %d ('%s') has dtype %s, expected %s", func, index, param,
                       tvs_dtype_str(t->dtype, got), tvs_dtype_str(expect_dtype, want));
    return -1;
  }
  if (t->ndim != expect_ndim) {
    tvs_set_last_error("%s: argument %d ('%s') has %d dimension%s, expected %d", func, index, param,
                       t->ndim, t->ndim == 1 ? "" : "s", expect_ndim);
    return -1;
  }
  if (expect_ndim > 0 && !t->shape) {
    tvs_set_last_error("%s: argument %d ('%s') has a null shape pointer", func, index, param);
    return -1;
  }
  for (int i = 0; i < expect_ndim; i++) {
    if (t->shape[i] < 0) {
      tvs_set_last_error("%s: argument %d ('%s') has a negative shape[%d] (%lld)", func, index,
                         param, i, (long long)t->shape[i]);
      return -1;
    }
    if (expect_shape && expect_shape[i] >= 0 && t->shape[i] != expect_shape[i]) {
      tvs_set_last_error("%s: argument %d ('%s') shape[%d] is %lld, expected %lld", func, index,
                         param, i, (long long)t->shape[i], (long long)expect_shape[i]);
      return -1;
    }
  }
  if (t->strides) {
    int64_t expect = 1;
    for (int i = expect_ndim - 1; i >= 0; i--) {
      if (t->shape[i] != 1 && t->strides[i] != expect) {
        tvs_set_last_error("%s: argument %d ('%s') is not compact: strides[%d] is %lld, "
                           "expected %lld",
                           func, index, param, i, (long long)t->strides[i], (long long)expect);
        return -1;
      }
      expect *= t->shape[i];
    }
  }
  return 0;
}

int tvs_check_tensor_arg(const char *func, const char *param, int index, const TVSValue *v,
                         int type_code, DLDataType expect_dtype, int expect_ndim,
                         const int64_t *expect_shape) {
  if (type_code != TVS_TENSOR) {
    tvs_set_last_error("%s: argument %d ('%s') must be a DLTensor, got %s", func, index, param,
                       tvs_type_code_name(type_code));
    return -1;
  }
  return check_tensor(func, param, index, v->v_handle, expect_dtype, expect_ndim, expect_shape);
}

int tvs_bind_dim(const char *func, const char *sym_name, const char *param, int64_t value,
                 TVSDimSlot *slot) {
  if (!slot->param) {
    slot->value = value;
    slot->param = param ? param : "?";
    return 0;
  }
  if (slot->value == value) return 0;
  tvs_set_last_error("%s: inconsistent value for symbolic dimension '%s': %lld (argument '%s') vs "
                     "%lld (argument '%s')",
                     func, sym_name, (long long)value, param ? param : "?",
                     (long long)slot->value, slot->param);
  return -1;
}

#define MAX_SYMS 64

int tvs_check_args(const TVSFuncInfo *info, const TVSValue *args, const int *type_codes,
                   int num_args, int64_t *sym_values, int max_syms) {
  const char *func = info->name ? info->name : "?";
  if (tvs_check_num_args(func, num_args, info->num_params)) return -1;
  const char *sym_names[MAX_SYMS];
  TVSDimSlot slots[MAX_SYMS];
  int nsyms = 0;
  for (int a = 0; a < info->num_params; a++) {
    const TVSParamInfo *p = &info->params[a];
    const char *param = p->name ? p->name : "?";
    if (p->type_code != TVS_TENSOR) {
      if (tvs_check_scalar_arg(func, param, a, type_codes[a], p->type_code)) return -1;
      continue;
    }
    if (tvs_check_tensor_arg(func, param, a, &args[a], type_codes[a], p->dtype, p->ndim, p->shape))
      return -1;
    if (!p->sym_dims) continue;
    const DLTensor *t = args[a].v_handle;
    for (int d = 0; d < p->ndim; d++) {
      const char *sym = p->sym_dims[d];
      if (!sym) continue;
      int s = 0;
      while (s < nsyms && strcmp(sym_names[s], sym)) s++;
      if (s == nsyms) {
        if (nsyms == MAX_SYMS) {
          tvs_set_last_error("%s: more than %d symbolic dimensions", func, MAX_SYMS);
          return -1;
        }
        sym_names[s] = sym;
        slots[s] = (TVSDimSlot)TVS_DIM_SLOT_INIT;
        nsyms++;
      }
      if (tvs_bind_dim(func, sym, param, t->shape[d], &slots[s])) return -1;
    }
  }
  if (sym_values)
    for (int s = 0; s < nsyms && s < max_syms; s++) sym_values[s] = slots[s].value;
  return nsyms;
}
