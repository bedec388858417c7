/* device_api.h - the GPU device APIs of the runtime: OpenCL (through the ICD
 * loader, runtime/opencl_device.c) and CUDA (the Driver API,
 * runtime/cuda_device.c), both opened with dlopen at run time so that
 * nothing links against a GPU library: without one, open() says so.
 *
 * One TvsDevice is one context on the first device of the platform with one
 * loaded program (OpenCL C source, or PTX), its buffers and its launches. */
#ifndef TVS_RUNTIME_DEVICE_API_H
#define TVS_RUNTIME_DEVICE_API_H

#include <stddef.h>
#include <stdint.h>

typedef struct TvsDevice TvsDevice;

typedef enum TvsKernelArgKind {
  TVS_KARG_PTR,  /* a device buffer from alloc() */
  TVS_KARG_I32,
  TVS_KARG_I64,
  TVS_KARG_F32,
  TVS_KARG_F64,
} TvsKernelArgKind;

typedef struct TvsKernelArg {
  TvsKernelArgKind kind;
  union {
    void *ptr;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
  };
} TvsKernelArg;

/* Every call returns 0, or -1 with a one-line reason in err[0..n). */
typedef struct TvsDeviceAPI {
  const char *name;    /* "opencl", "cuda" */
  int dl_device_type;  /* DLPack's kDLOpenCL (4) / kDLCUDA (2) */
  TvsDevice *(*open)(char *err, size_t n);
  void (*close)(TvsDevice *d);                 /* frees buffers still allocated too */
  const char *(*device_name)(TvsDevice *d);
  int (*load)(TvsDevice *d, const char *code, char *err, size_t n);  /* OpenCL C or PTX */
  void *(*alloc)(TvsDevice *d, size_t bytes, char *err, size_t n);
  void (*release)(TvsDevice *d, void *buf);
  int (*copy_to)(TvsDevice *d, void *dst, const void *src, size_t bytes, char *err, size_t n);
  int (*copy_from)(TvsDevice *d, void *dst, const void *src, size_t bytes, char *err, size_t n);
  int (*launch)(TvsDevice *d, const char *kernel, const TvsKernelArg *args, int nargs, const int64_t grid[3],
                const int64_t block[3], char *err, size_t n);
  int (*sync)(TvsDevice *d, char *err, size_t n);
} TvsDeviceAPI;

/* The API called name ("opencl", "cuda"), or NULL. */
const TvsDeviceAPI *tvs_device_api(const char *name);

const TvsDeviceAPI *tvs_opencl_api(void);
const TvsDeviceAPI *tvs_cuda_api(void);

#endif
