/* test_npy.c - .npy reading/writing and host tensors (runtime/npy.h, runtime/ndarray.h).
 *
 * Round trips every dtype through a file, parses hand-made headers (v1-v3,
 * any key order, whitespace) and checks that each kind of malformed input is
 * rejected with its message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "runtime/npy.h"

/* Builds a .npy image: magic, version, header length, header text, data. */
static unsigned char *make_npy(int major, const char *hdr, const void *data, size_t dlen,
                               size_t *len) {
  size_t hl = strlen(hdr), pre = major == 1 ? 10 : 12;
  unsigned char *b = malloc(pre + hl + dlen + 1);
  memcpy(b, "\x93NUMPY", 6);
  b[6] = (unsigned char)major;
  b[7] = 0;
  b[8] = (unsigned char)(hl & 0xff);
  b[9] = (unsigned char)(hl >> 8);
  if (major != 1) b[10] = b[11] = 0;
  memcpy(b + pre, hdr, hl);
  if (dlen) memcpy(b + pre + hl, data, dlen);
  *len = pre + hl + dlen;
  return b;
}

/* Parses an image expected to fail; returns whether err contains `want`. */
static int fails_with(int major, const char *hdr, const void *data, size_t dlen, const char *want) {
  size_t len;
  unsigned char *b = make_npy(major, hdr, data, dlen, &len);
  char err[256] = "";
  TvsNDArray *a = tvs_npy_parse(b, len, err, sizeof err);
  free(b);
  if (a) {
    tvs_ndarray_free(a);
    fprintf(stderr, "  expected failure '%s' but parse succeeded\n", want);
    return 0;
  }
  if (!strstr(err, want)) {
    fprintf(stderr, "  expected '%s' in: %s\n", want, err);
    return 0;
  }
  return 1;
}

static void test_dtype_names(void) {
  DLDataType t;
  char buf[32];
  CHECK(tvs_dtype_parse("float32", &t) && t.code == kDLFloat && t.bits == 32 && t.lanes == 1);
  CHECK(tvs_dtype_parse("bool", &t) && t.code == kDLBool && t.bits == 8);
  CHECK(tvs_dtype_parse("uint16", &t) && t.code == kDLUInt && t.bits == 16);
  CHECK(tvs_dtype_parse("bfloat16", &t) && t.code == kDLBfloat && t.bits == 16);
  CHECK(tvs_dtype_parse("int8x4", &t) && t.lanes == 4);
  CHECK(!tvs_dtype_parse("int7", &t));
  CHECK(!tvs_dtype_parse("float", &t));
  CHECK(!tvs_dtype_parse("bfloat32", &t));
  CHECK_EQ_STR(tvs_dtype_str((DLDataType){kDLBool, 8, 1}, buf), "bool");
  CHECK_EQ_STR(tvs_dtype_str((DLDataType){kDLFloat, 16, 1}, buf), "float16");
  CHECK_EQ_STR(tvs_dtype_str((DLDataType){kDLInt, 64, 1}, buf), "int64");
  CHECK_EQ_INT(tvs_dtype_bytes((DLDataType){kDLBool, 8, 1}), 1);
  CHECK_EQ_INT(tvs_dtype_bytes((DLDataType){kDLFloat, 64, 1}), 8);
}

static void test_ndarray(void) {
  int64_t shape[3] = {2, 3, 5};
  TvsNDArray *a = tvs_ndarray_empty(3, shape, (DLDataType){kDLFloat, 32, 1});
  CHECK(a != NULL);
  CHECK(((uintptr_t)a->t.data % TVS_ALLOC_ALIGN) == 0);
  CHECK_EQ_INT(tvs_ndarray_numel(&a->t), 30);
  CHECK_EQ_INT(tvs_ndarray_nbytes(&a->t), 120);
  int zero = 1;
  for (int i = 0; i < 30; i++) zero &= ((float *)a->t.data)[i] == 0.0f;
  CHECK(zero);
  tvs_ndarray_free(a);
  int64_t bad[2] = {-1, 4};
  CHECK(tvs_ndarray_empty(2, bad, (DLDataType){kDLFloat, 32, 1}) == NULL);
  int64_t huge[2] = {INT64_MAX / 2, 16};
  CHECK(tvs_ndarray_empty(2, huge, (DLDataType){kDLFloat, 32, 1}) == NULL);
  CHECK(tvs_ndarray_empty(9, shape, (DLDataType){kDLFloat, 32, 1}) == NULL);
  TvsNDArray *s = tvs_ndarray_empty(0, NULL, (DLDataType){kDLInt, 32, 1});
  CHECK(s != NULL && tvs_ndarray_numel(&s->t) == 1);
  tvs_ndarray_free(s);
}

static void test_round_trip(const char *dir) {
  static const char *dtypes[] = {"bool", "int8", "int16", "int32", "int64", "uint8",
                                 "uint16", "uint32", "uint64", "float16", "float32", "float64"};
  static const int64_t shapes[3][3] = {{0}, {7}, {2, 3, 4}};
  static const int ndims[3] = {0, 1, 3};
  int ok_all = 1;
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
    for (int s = 0; s < 3; s++) {
      DLDataType dt;
      CHECK(tvs_dtype_parse(dtypes[d], &dt));
      TvsNDArray *a = tvs_ndarray_empty(ndims[s], shapes[s], dt);
      size_t nb = tvs_ndarray_nbytes(&a->t);
      unsigned char *p = a->t.data;
      for (size_t i = 0; i < nb; i++) p[i] = (unsigned char)(i * 37 + d);
      if (dt.code == kDLBool)
        for (size_t i = 0; i < nb; i++) p[i] &= 1;
      char path[512], err[256] = "";
      snprintf(path, sizeof path, "%s/rt_%s_%d.npy", dir, dtypes[d], s);
      int rc = tvs_npy_save(path, &a->t, err, sizeof err);
      TvsNDArray *b = rc == 0 ? tvs_npy_load(path, err, sizeof err) : NULL;
      int ok = rc == 0 && b && b->t.ndim == a->t.ndim && b->t.dtype.code == dt.code &&
               b->t.dtype.bits == dt.bits && memcmp(b->t.data, a->t.data, nb) == 0;
      for (int k = 0; ok && k < ndims[s]; k++) ok = b->t.shape[k] == shapes[s][k];
      if (!ok) fprintf(stderr, "  round trip %s shape#%d failed: %s\n", dtypes[d], s, err);
      ok_all &= ok;
      /* header: v1.0, data 64-byte aligned, header ends in '\n' */
      FILE *f = fopen(path, "rb");
      unsigned char hdr[12] = {0};
      size_t got = f ? fread(hdr, 1, sizeof hdr, f) : 0;
      size_t hlen = (size_t)hdr[8] | (size_t)hdr[9] << 8;
      int last = -1;
      if (f && fseek(f, (long)(10 + hlen - 1), SEEK_SET) == 0) last = fgetc(f);
      if (f) fclose(f);
      ok_all &= got == 12 && hdr[6] == 1 && (10 + hlen) % 64 == 0 && last == '\n';
      unlink(path);
      tvs_ndarray_free(a);
      tvs_ndarray_free(b);
    }
  }
  CHECK(ok_all);
}

static void test_headers(void) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  size_t len;
  char err[256] = "";
  /* any key order, odd whitespace, double quotes, no trailing comma */
  unsigned char *b = make_npy(1, "{ \"shape\" :(2,3),'fortran_order':False , 'descr':'<f4'}   \n",
                              data, sizeof data, &len);
  TvsNDArray *a = tvs_npy_parse(b, len, err, sizeof err);
  free(b);
  CHECK(a && a->t.ndim == 2 && a->t.shape[0] == 2 && a->t.shape[1] == 3);
  CHECK(a && ((float *)a->t.data)[5] == 6.0f);
  tvs_ndarray_free(a);
  /* version 2.0 and 3.0 headers (4-byte length) */
  b = make_npy(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }\n", data,
               sizeof data, &len);
  a = tvs_npy_parse(b, len, err, sizeof err);
  free(b);
  CHECK(a && a->t.ndim == 1 && a->t.shape[0] == 6);
  tvs_ndarray_free(a);
  b = make_npy(3, "{'descr': '=f4', 'fortran_order': False, 'shape': (3, 2), }\n", data,
               sizeof data, &len);
  a = tvs_npy_parse(b, len, err, sizeof err);
  free(b);
  CHECK(a && a->t.ndim == 2 && a->t.shape[0] == 3);
  tvs_ndarray_free(a);
  /* 0-d, a zero-size array, '|u1' and '>u1' (byte order does not matter for one byte) */
  b = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", data, 4, &len);
  a = tvs_npy_parse(b, len, err, sizeof err);
  free(b);
  CHECK(a && a->t.ndim == 0 && ((float *)a->t.data)[0] == 1.0f);
  tvs_ndarray_free(a);
  b = make_npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (0, 5), }\n", NULL, 0, &len);
  a = tvs_npy_parse(b, len, err, sizeof err);
  free(b);
  CHECK(a && a->t.ndim == 2 && tvs_ndarray_numel(&a->t) == 0);
  tvs_ndarray_free(a);
  b = make_npy(1, "{'descr': '>u1', 'fortran_order': False, 'shape': (4,), }\n", data, 4, &len);
  a = tvs_npy_parse(b, len, err, sizeof err);
  free(b);
  CHECK(a && a->t.dtype.code == kDLUInt && a->t.dtype.bits == 8);
  tvs_ndarray_free(a);
  /* bool bytes are canonicalized to 0/1 */
  unsigned char bools[3] = {0, 1, 7};
  b = make_npy(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n", bools, 3, &len);
  a = tvs_npy_parse(b, len, err, sizeof err);
  free(b);
  CHECK(a && a->t.dtype.code == kDLBool && ((unsigned char *)a->t.data)[2] == 1);
  tvs_ndarray_free(a);
}

static void test_malformed(void) {
  float data[8] = {0};
  const char *good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  size_t len;
  char err[256] = "";
  /* bad magic */
  unsigned char *b = make_npy(1, good, data, 8, &len);
  b[1] = 'X';
  CHECK(tvs_npy_parse(b, len, err, sizeof err) == NULL && strstr(err, "bad magic"));
  /* truncated header: header length runs past the end */
  CHECK(tvs_npy_parse(b, 5, err, sizeof err) == NULL && strstr(err, "bad magic"));
  b[1] = 'N';
  CHECK(tvs_npy_parse(b, 20, err, sizeof err) == NULL && strstr(err, "truncated .npy header"));
  CHECK(tvs_npy_parse(b, 9, err, sizeof err) == NULL && strstr(err, "truncated .npy header"));
  /* unsupported version */
  b[6] = 4;
  CHECK(tvs_npy_parse(b, len, err, sizeof err) == NULL && strstr(err, "version 4.0"));
  free(b);
  /* truncated data */
  CHECK(fails_with(1, good, data, 7, "truncated .npy data: expected 8 bytes, found 7"));
  CHECK(fails_with(1, good, data, 9, "unexpected bytes after"));
  /* bad dicts */
  CHECK(fails_with(1, "['descr']\n", data, 8, "expected a '{' dict"));
  CHECK(fails_with(1, "{'descr' '<f4'}\n", data, 8, "expected ':'"));
  CHECK(fails_with(1, "{'descr': '<f4', 'fortran_order': False}\n", data, 8, "missing key 'shape'"));
  CHECK(fails_with(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)\n", data, 8,
                   "expected ',' or '}'"));
  CHECK(fails_with(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", data,
                   8, "unexpected key 'x'"));
  CHECK(fails_with(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,)}\n", data, 8,
                   "must be True or False"));
  CHECK(fails_with(1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}\n", data, 8,
                   "'shape' is not a tuple"));
  CHECK(fails_with(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}\n", data, 8,
                   "non-negative integers"));
  CHECK(fails_with(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk\n", data, 8,
                   "unexpected text after the dict"));
  /* fortran order, big-endian, object, structured, unknown dtypes */
  CHECK(fails_with(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}\n", data, 8,
                   "Fortran-order"));
  CHECK(fails_with(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}\n", data, 8,
                   "big-endian"));
  CHECK(fails_with(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,)}\n", data, 8,
                   "object arrays"));
  CHECK(fails_with(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}\n", data,
                   8, "structured"));
  CHECK(fails_with(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}\n", data, 8,
                   "unsupported .npy dtype descr '<c8'"));
  CHECK(fails_with(1, "{'descr': '<i3', 'fortran_order': False, 'shape': (2,)}\n", data, 8,
                   "unsupported .npy dtype descr"));
  /* shape overflow: the product, and a single huge dimension */
  CHECK(fails_with(1,
                   "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, "
                   "4294967296)}\n",
                   data, 8, "overflows"));
  CHECK(fails_with(1,
                   "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}\n",
                   data, 8, "overflows"));
  CHECK(fails_with(1,
                   "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}\n",
                   data, 8, "too large"));
  CHECK(fails_with(1,
                   "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1)}\n",
                   data, 4, "more than 8 dimensions"));
  /* files that do not exist */
  TvsNDArray *a = tvs_npy_load("/nonexistent/dir/x.npy", err, sizeof err);
  CHECK(a == NULL && strstr(err, "cannot open '/nonexistent/dir/x.npy'"));
}

static void test_save_errors(const char *dir) {
  char err[256] = "", path[512];
  int64_t shape[1] = {4};
  TvsNDArray *a = tvs_ndarray_empty(1, shape, (DLDataType){kDLBfloat, 16, 1});
  snprintf(path, sizeof path, "%s/bf16.npy", dir);
  CHECK(tvs_npy_save(path, &a->t, err, sizeof err) == -1 && strstr(err, "bfloat16"));
  CHECK(access(path, F_OK) != 0);
  tvs_ndarray_free(a);
  a = tvs_ndarray_empty(1, shape, (DLDataType){kDLFloat, 32, 1});
  CHECK(tvs_npy_save("/nonexistent/dir/x.npy", &a->t, err, sizeof err) == -1 &&
        strstr(err, "cannot write"));
  tvs_ndarray_free(a);
}

int main(void) {
  char dir[] = "/tmp/tvs_test_npy_XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_dtype_names();
  test_ndarray();
  test_round_trip(dir);
  test_headers();
  test_malformed();
  test_save_errors(dir);
  rmdir(dir);
  TEST_MAIN_END();
}
