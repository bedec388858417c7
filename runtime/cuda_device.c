/* cuda_device.c - the CUDA device API through the Driver API, opened with
 * dlopen("libcuda.so.1") (never linked: the build and the tests run where
 * there is no driver, and open() then says "no CUDA driver").  One context
 * on device 0; load() loads a PTX module (the driver JIT-compiles it for the
 * device), launch() is cuLaunchKernel with the arguments by address. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/device_api.h"

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef unsigned long long CUdeviceptr;

typedef struct CuFns {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*CtxCreate)(CUcontext *, unsigned, CUdevice);
  CUresult (*CtxDestroy)(CUcontext);
  CUresult (*CtxSynchronize)(void);
  CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           CUstream, void **, void **);
  CUresult (*GetErrorString)(CUresult, const char **);
} CuFns;

struct TvsDevice {
  void *lib;
  CuFns cu;
  CUcontext ctx;
  CUmodule mod;
  char name[256];
};

static const char *cu_err(TvsDevice *d, CUresult r) {
  const char *s = NULL;
  if (d->cu.GetErrorString && d->cu.GetErrorString(r, &s) == 0 && s) return s;
  return "unknown CUDA error";
}

static int load_fns(TvsDevice *d, char *err, size_t n) {
  static const char *const names[] = {
      "cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName", "cuCtxCreate_v2", "cuCtxDestroy_v2",
      "cuCtxSynchronize", "cuModuleLoadDataEx", "cuModuleUnload", "cuModuleGetFunction", "cuMemAlloc_v2",
      "cuMemFree_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuLaunchKernel", "cuGetErrorString"};
  void **slots = (void **)&d->cu;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    slots[i] = dlsym(d->lib, names[i]);
    if (!slots[i]) {
      snprintf(err, n, "no CUDA driver: libcuda.so.1 lacks %s", names[i]);
      return -1;
    }
  }
  return 0;
}

static void cu_close(TvsDevice *d) {
  if (!d) return;
  if (d->mod) d->cu.ModuleUnload(d->mod);
  if (d->ctx) d->cu.CtxDestroy(d->ctx);
  if (d->lib) dlclose(d->lib);
  free(d);
}

static TvsDevice *cu_open(char *err, size_t n) {
  TvsDevice *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!d->lib) {
    snprintf(err, n, "no CUDA driver: libcuda.so.1 cannot be loaded (this machine has no NVIDIA driver)");
    cu_close(d);
    return NULL;
  }
  if (load_fns(d, err, n)) {
    cu_close(d);
    return NULL;
  }
  int count = 0;
  CUresult r = d->cu.Init(0);
  if (r == 0) r = d->cu.DeviceGetCount(&count);
  if (r != 0 || count == 0) {
    snprintf(err, n, "no CUDA device: %s", r ? cu_err(d, r) : "the driver reports none");
    cu_close(d);
    return NULL;
  }
  CUdevice dev;
  r = d->cu.DeviceGet(&dev, 0);
  if (r == 0) r = d->cu.CtxCreate(&d->ctx, 0, dev);
  if (r != 0) {
    snprintf(err, n, "CUDA: cannot create a context on device 0: %s", cu_err(d, r));
    cu_close(d);
    return NULL;
  }
  if (d->cu.DeviceGetName(d->name, (int)sizeof d->name - 1, dev) != 0) strcpy(d->name, "?");
  return d;
}

static const char *cu_device_name(TvsDevice *d) { return d->name; }

/* The driver JIT-compiles the PTX for the device; its error log says why
 * a module does not load (CU_JIT_ERROR_LOG_BUFFER = 5, its size = 6). */
static int cu_load(TvsDevice *d, const char *code, char *err, size_t n) {
  char log[1024] = "";
  int opts[2] = {5, 6};
  void *vals[2] = {log, (void *)(uintptr_t)(sizeof log - 1)};
  CUresult r = d->cu.ModuleLoadDataEx(&d->mod, code, 2, opts, vals);
  if (r) {
    for (char *p = log; *p; p++)
      if (*p == '\n') *p = ' ';
    snprintf(err, n, "CUDA: cannot load the PTX module: %s%s%s", cu_err(d, r), log[0] ? ": " : "", log);
  }
  return r ? -1 : 0;
}

static void *cu_alloc(TvsDevice *d, size_t bytes, char *err, size_t n) {
  CUdeviceptr p = 0;
  CUresult r = d->cu.MemAlloc(&p, bytes ? bytes : 1);
  if (r) {
    snprintf(err, n, "CUDA: cannot allocate %zu bytes: %s", bytes, cu_err(d, r));
    return NULL;
  }
  return (void *)(uintptr_t)p;
}

static void cu_release(TvsDevice *d, void *buf) {
  if (buf) d->cu.MemFree((CUdeviceptr)(uintptr_t)buf);
}

static int cu_copy_to(TvsDevice *d, void *dst, const void *src, size_t bytes, char *err, size_t n) {
  CUresult r = bytes ? d->cu.MemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes) : 0;
  if (r) snprintf(err, n, "CUDA: host-to-device copy failed: %s", cu_err(d, r));
  return r ? -1 : 0;
}

static int cu_copy_from(TvsDevice *d, void *dst, const void *src, size_t bytes, char *err, size_t n) {
  CUresult r = bytes ? d->cu.MemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes) : 0;
  if (r) snprintf(err, n, "CUDA: device-to-host copy failed: %s", cu_err(d, r));
  return r ? -1 : 0;
}

static int cu_launch(TvsDevice *d, const char *kernel, const TvsKernelArg *args, int nargs, const int64_t grid[3],
                     const int64_t block[3], char *err, size_t n) {
  CUfunction fn;
  CUresult r = d->mod ? d->cu.ModuleGetFunction(&fn, d->mod, kernel) : 1;
  if (r) {
    snprintf(err, n, "CUDA: no kernel '%s' in the module", kernel);
    return -1;
  }
  void *ptrs[64];
  if (nargs > 64) {
    snprintf(err, n, "CUDA: kernel '%s' has more than 64 arguments", kernel);
    return -1;
  }
  for (int i = 0; i < nargs; i++) ptrs[i] = (void *)&args[i].ptr;
  r = d->cu.LaunchKernel(fn, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2], (unsigned)block[0],
                         (unsigned)block[1], (unsigned)block[2], 0, NULL, ptrs, NULL);
  if (r) snprintf(err, n, "CUDA: launch of '%s' failed: %s", kernel, cu_err(d, r));
  return r ? -1 : 0;
}

static int cu_sync(TvsDevice *d, char *err, size_t n) {
  CUresult r = d->cu.CtxSynchronize();
  if (r) snprintf(err, n, "CUDA: kernel failed: %s", cu_err(d, r));
  return r ? -1 : 0;
}

const TvsDeviceAPI *tvs_cuda_api(void) {
  static const TvsDeviceAPI api = {"cuda", 2, cu_open, cu_close, cu_device_name, cu_load, cu_alloc,
                                   cu_release, cu_copy_to, cu_copy_from, cu_launch, cu_sync};
  return &api;
}
