/* opencl_device.c - the OpenCL device API through the ICD loader
 * (libOpenCL.so.1, opened with dlopen: nothing links against it).  The first
 * platform's first device (a GPU if there is one; PoCL's CPU device in CI)
 * gets a context and an in-order queue; load() builds the program from
 * source, launch() sets the arguments and enqueues an NDRange of
 * grid * block work-items in work-groups of block. */
#define _GNU_SOURCE 1 /* RTLD_DEEPBIND */
#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/device_api.h"

/* The few OpenCL types used (cl.h is not needed to build). */
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_bitfield;
typedef void *cl_platform_id, *cl_device_id, *cl_context, *cl_command_queue, *cl_program, *cl_kernel, *cl_mem,
    *cl_event;

#define CL_DEVICE_TYPE_GPU (1u << 2)
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define CL_MEM_READ_WRITE 1u
#define CL_PROGRAM_BUILD_LOG 0x1183u
#define CL_DEVICE_NAME 0x102Bu

/* The entry points, resolved with dlsym. */
typedef struct ClFns {
  cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
  cl_int (*GetDeviceIDs)(cl_platform_id, cl_bitfield, cl_uint, cl_device_id *, cl_uint *);
  cl_int (*GetDeviceInfo)(cl_device_id, cl_uint, size_t, void *, size_t *);
  cl_context (*CreateContext)(const intptr_t *, cl_uint, const cl_device_id *, void *, void *, cl_int *);
  cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_bitfield, cl_int *);
  cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *, cl_int *);
  cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *, void *, void *);
  cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void *, size_t *);
  cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
  cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
  cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                                 const size_t *, cl_uint, const cl_event *, cl_event *);
  cl_int (*Finish)(cl_command_queue);
  cl_mem (*CreateBuffer)(cl_context, cl_bitfield, size_t, void *, cl_int *);
  cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void *, cl_uint,
                               const cl_event *, cl_event *);
  cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, cl_uint,
                              const cl_event *, cl_event *);
  cl_int (*ReleaseMemObject)(cl_mem);
  cl_int (*ReleaseKernel)(cl_kernel);
  cl_int (*ReleaseProgram)(cl_program);
  cl_int (*ReleaseCommandQueue)(cl_command_queue);
  cl_int (*ReleaseContext)(cl_context);
} ClFns;

typedef struct KernelEntry {
  char *name;
  cl_kernel k;
} KernelEntry;

struct TvsDevice {
  void *lib;
  ClFns cl;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  KernelEntry *kernels;
  int nkernels;
  char name[256];
};

static int load_fns(void *lib, ClFns *f, char *err, size_t n) {
  static const char *const names[] = {
      "clGetPlatformIDs", "clGetDeviceIDs", "clGetDeviceInfo", "clCreateContext", "clCreateCommandQueue",
      "clCreateProgramWithSource", "clBuildProgram", "clGetProgramBuildInfo", "clCreateKernel", "clSetKernelArg",
      "clEnqueueNDRangeKernel", "clFinish", "clCreateBuffer", "clEnqueueWriteBuffer", "clEnqueueReadBuffer",
      "clReleaseMemObject", "clReleaseKernel", "clReleaseProgram", "clReleaseCommandQueue", "clReleaseContext"};
  void **slots = (void **)f;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    slots[i] = dlsym(lib, names[i]);
    if (!slots[i]) {
      snprintf(err, n, "no OpenCL: libOpenCL.so.1 lacks %s", names[i]);
      return -1;
    }
  }
  return 0;
}

static void cl_close(TvsDevice *d) {
  if (!d) return;
  for (int i = 0; i < d->nkernels; i++) {
    d->cl.ReleaseKernel(d->kernels[i].k);
    free(d->kernels[i].name);
  }
  free(d->kernels);
  if (d->prog) d->cl.ReleaseProgram(d->prog);
  if (d->q) d->cl.ReleaseCommandQueue(d->q);
  if (d->ctx) d->cl.ReleaseContext(d->ctx);
  if (d->lib) dlclose(d->lib);
  free(d);
}

/* The first GPU of any platform, else the first device of the first. */
static int pick_device(TvsDevice *d, char *err, size_t n) {
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (d->cl.GetPlatformIDs(16, plats, &np) != 0 || np == 0) {
    snprintf(err, n, "no OpenCL platform (is an ICD such as pocl-opencl-icd installed?)");
    return -1;
  }
  for (int want_gpu = 1; want_gpu >= 0; want_gpu--)
    for (cl_uint i = 0; i < np; i++) {
      cl_uint nd = 0;
      if (d->cl.GetDeviceIDs(plats[i], want_gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, 1, &d->dev, &nd) == 0 &&
          nd > 0)
        return 0;
    }
  snprintf(err, n, "no OpenCL device on %u platform(s)", (unsigned)np);
  return -1;
}

/* The ICDs (PoCL) bring their own LLVM, which must not bind to the LLVM 14
 * this process links: each vendor library named in /etc/OpenCL/vendors is
 * loaded first with RTLD_DEEPBIND, so that when the ICD loader opens it, it
 * is already resolved against its own dependencies.  (The sanitizers reject
 * RTLD_DEEPBIND; their builds skip this.) */
static void preload_icds(void) {
#if !defined(__SANITIZE_ADDRESS__) && !defined(TVS_SANITIZE)
  static bool done;
  if (done) return;
  done = true;
  const char *dir = getenv("OCL_ICD_VENDORS");
  if (!dir || !*dir) dir = "/etc/OpenCL/vendors";
  DIR *dd = opendir(dir);
  if (!dd) return;
  for (struct dirent *e; (e = readdir(dd));) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".icd")) continue;
    char path[4096], lib[1024] = "";
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fgets(lib, sizeof lib, f)) {
      lib[strcspn(lib, "\r\n")] = 0;
      if (lib[0]) dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND); /* kept for the process */
    }
    fclose(f);
  }
  closedir(dd);
#endif
}

static TvsDevice *cl_open(char *err, size_t n) {
  TvsDevice *d = calloc(1, sizeof *d);
  if (!d) return NULL;
#if defined(__SANITIZE_ADDRESS__) || defined(TVS_SANITIZE)
  snprintf(err, n, "no OpenCL in sanitizer builds (the ICD's own LLVM needs RTLD_DEEPBIND, which ASan rejects)");
  cl_close(d);
  return NULL;
#endif
  preload_icds();
  d->lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!d->lib) {
    snprintf(err, n, "no OpenCL: libOpenCL.so.1 cannot be loaded (install ocl-icd-libopencl1 and an ICD)");
    cl_close(d);
    return NULL;
  }
  cl_int rc = 0;
  if (load_fns(d->lib, &d->cl, err, n) || pick_device(d, err, n)) {
    cl_close(d);
    return NULL;
  }
  d->ctx = d->cl.CreateContext(NULL, 1, &d->dev, NULL, NULL, &rc);
  if (d->ctx) d->q = d->cl.CreateCommandQueue(d->ctx, d->dev, 0, &rc);
  if (!d->ctx || !d->q) {
    snprintf(err, n, "OpenCL: cannot create a context and queue (error %d)", (int)rc);
    cl_close(d);
    return NULL;
  }
  if (d->cl.GetDeviceInfo(d->dev, CL_DEVICE_NAME, sizeof d->name - 1, d->name, NULL) != 0) strcpy(d->name, "?");
  return d;
}

static const char *cl_device_name(TvsDevice *d) { return d->name; }

static int cl_load(TvsDevice *d, const char *code, char *err, size_t n) {
  cl_int rc = 0;
  size_t len = strlen(code);
  d->prog = d->cl.CreateProgramWithSource(d->ctx, 1, &code, &len, &rc);
  if (!d->prog) {
    snprintf(err, n, "OpenCL: cannot create the program (error %d)", (int)rc);
    return -1;
  }
  if (d->cl.BuildProgram(d->prog, 1, &d->dev, "", NULL, NULL) == 0) return 0;
  char log[2048] = "";
  d->cl.GetProgramBuildInfo(d->prog, d->dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
  char *nl = strchr(log, '\n');
  if (nl && nl[1]) *strchr(nl + 1, '\n') = 0; /* two lines of the build log */
  snprintf(err, n, "OpenCL: the program does not build: %s", log);
  return -1;
}

static void *cl_alloc(TvsDevice *d, size_t bytes, char *err, size_t n) {
  cl_int rc = 0;
  cl_mem m = d->cl.CreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &rc);
  if (!m) snprintf(err, n, "OpenCL: cannot allocate %zu bytes (error %d)", bytes, (int)rc);
  return m;
}

static void cl_release(TvsDevice *d, void *buf) {
  if (buf) d->cl.ReleaseMemObject(buf);
}

static int cl_copy_to(TvsDevice *d, void *dst, const void *src, size_t bytes, char *err, size_t n) {
  if (!bytes) return 0;
  cl_int rc = d->cl.EnqueueWriteBuffer(d->q, dst, 1, 0, bytes, src, 0, NULL, NULL);
  if (rc) snprintf(err, n, "OpenCL: host-to-device copy failed (error %d)", (int)rc);
  return rc ? -1 : 0;
}

static int cl_copy_from(TvsDevice *d, void *dst, const void *src, size_t bytes, char *err, size_t n) {
  if (!bytes) return 0;
  cl_int rc = d->cl.EnqueueReadBuffer(d->q, (cl_mem)src, 1, 0, bytes, dst, 0, NULL, NULL);
  if (rc) snprintf(err, n, "OpenCL: device-to-host copy failed (error %d)", (int)rc);
  return rc ? -1 : 0;
}

static cl_kernel kernel_named(TvsDevice *d, const char *name, char *err, size_t n) {
  for (int i = 0; i < d->nkernels; i++)
    if (!strcmp(d->kernels[i].name, name)) return d->kernels[i].k;
  cl_int rc = 0;
  cl_kernel k = d->prog ? d->cl.CreateKernel(d->prog, name, &rc) : NULL;
  if (!k) {
    snprintf(err, n, "OpenCL: no kernel '%s' in the program (error %d)", name, (int)rc);
    return NULL;
  }
  KernelEntry *ks = realloc(d->kernels, (size_t)(d->nkernels + 1) * sizeof *ks);
  if (!ks) {
    d->cl.ReleaseKernel(k);
    snprintf(err, n, "out of memory");
    return NULL;
  }
  d->kernels = ks;
  ks[d->nkernels].name = strdup(name);
  ks[d->nkernels++].k = k;
  return k;
}

static int cl_launch(TvsDevice *d, const char *kernel, const TvsKernelArg *args, int nargs, const int64_t grid[3],
                     const int64_t block[3], char *err, size_t n) {
  cl_kernel k = kernel_named(d, kernel, err, n);
  if (!k) return -1;
  for (int i = 0; i < nargs; i++) {
    const TvsKernelArg *a = &args[i];
    size_t sz = a->kind == TVS_KARG_PTR ? sizeof(cl_mem)
                : a->kind == TVS_KARG_I32 ? 4 : a->kind == TVS_KARG_F32 ? 4 : 8;
    cl_int rc = d->cl.SetKernelArg(k, (cl_uint)i, sz, &a->ptr);
    if (rc) {
      snprintf(err, n, "OpenCL: kernel '%s' argument %d rejected (error %d)", kernel, i, (int)rc);
      return -1;
    }
  }
  size_t global[3], local[3];
  for (int i = 0; i < 3; i++) {
    local[i] = (size_t)block[i];
    global[i] = (size_t)(grid[i] * block[i]);
  }
  cl_int rc = d->cl.EnqueueNDRangeKernel(d->q, k, 3, NULL, global, local, 0, NULL, NULL);
  if (rc) {
    snprintf(err, n, "OpenCL: launch of '%s' failed (error %d)", kernel, (int)rc);
    return -1;
  }
  return 0;
}

static int cl_sync(TvsDevice *d, char *err, size_t n) {
  cl_int rc = d->cl.Finish(d->q);
  if (rc) snprintf(err, n, "OpenCL: clFinish failed (error %d)", (int)rc);
  return rc ? -1 : 0;
}

const TvsDeviceAPI *tvs_opencl_api(void) {
  static const TvsDeviceAPI api = {"opencl", 4, cl_open, cl_close, cl_device_name, cl_load, cl_alloc,
                                   cl_release, cl_copy_to, cl_copy_from, cl_launch, cl_sync};
  return &api;
}

const TvsDeviceAPI *tvs_device_api(const char *name) {
  if (!strcmp(name, "opencl")) return tvs_opencl_api();
  if (!strcmp(name, "cuda")) return tvs_cuda_api();
  return NULL;
}
