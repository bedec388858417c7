/* test_npz.c - .npz parameter files (runtime/npz.h).
 *
 * Round trips every dtype (0-d, empty and n-d shapes) through a file; reads
 * what numpy's np.savez and np.savez_compressed wrote (also with ZIP64
 * forced); has numpy's np.load read what we wrote; and checks that truncated,
 * bit-flipped and edited archives are rejected with their messages (and that
 * no single-bit flip or truncation crashes the reader).  numpy comes from
 * $PYTHON3, else /usr/bin/python3, else python3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "runtime/npz.h"

#define NDT 12
static const char *dtypes[NDT] = {"bool", "int8", "int16", "int32", "int64", "uint8",
                                  "uint16", "uint32", "uint64", "float16", "float32", "float64"};
static const int64_t shapes[4][3] = {{0}, {7}, {2, 3, 4}, {0, 5}};
static const int ndims[4] = {0, 1, 3, 2};

/* The value of element i of a test array of dtype dt (as the python side makes it). */
static double expected(DLDataType dt, int64_t i) {
  if (dt.code == kDLBool) return (double)(i % 2);
  if (dt.code == kDLUInt) return (double)(i % 100);
  return (double)(i % 100 - 50);
}

static uint16_t half_of_int(int v) {
  if (v == 0) return 0;
  unsigned s = v < 0, a = (unsigned)(v < 0 ? -v : v), e = 0;
  while ((a >> (e + 1)) != 0) e++;
  return (uint16_t)(s << 15 | (e + 15) << 10 | ((a << (10 - e)) & 0x3FF));
}

static void set_elem(DLTensor *t, int64_t i, double v) {
  void *p = t->data;
  switch (t->dtype.code * 100 + t->dtype.bits) {
    case kDLBool * 100 + 8: ((uint8_t *)p)[i] = v != 0; break;
    case kDLInt * 100 + 8: ((int8_t *)p)[i] = (int8_t)v; break;
    case kDLInt * 100 + 16: ((int16_t *)p)[i] = (int16_t)v; break;
    case kDLInt * 100 + 32: ((int32_t *)p)[i] = (int32_t)v; break;
    case kDLInt * 100 + 64: ((int64_t *)p)[i] = (int64_t)v; break;
    case kDLUInt * 100 + 8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case kDLUInt * 100 + 16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case kDLUInt * 100 + 32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case kDLUInt * 100 + 64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case kDLFloat * 100 + 16: ((uint16_t *)p)[i] = half_of_int((int)v); break;
    case kDLFloat * 100 + 32: ((float *)p)[i] = (float)v; break;
    case kDLFloat * 100 + 64: ((double *)p)[i] = v; break;
  }
}

/* The test array for dtype index d: name "a_<dtype>", shape shapes[d % 4]. */
static TvsNDArray *make_array(int d) {
  DLDataType dt;
  tvs_dtype_parse(dtypes[d], &dt);
  TvsNDArray *a = tvs_ndarray_empty(ndims[d % 4], shapes[d % 4], dt);
  int64_t n = tvs_ndarray_numel(&a->t);
  for (int64_t i = 0; i < n; i++) set_elem(&a->t, i, expected(dt, i));
  return a;
}

/* Whether z holds a_<dtype> for every dtype with the expected shape and values. */
static int check_all_arrays(const TvsNpz *z, const char *what) {
  int ok = z && z->count == NDT;
  for (int d = 0; ok && d < NDT; d++) {
    char name[32];
    snprintf(name, sizeof name, "a_%s", dtypes[d]);
    TvsNDArray *a = tvs_npz_find(z, name);
    DLDataType dt;
    tvs_dtype_parse(dtypes[d], &dt);
    ok = a && a->t.ndim == ndims[d % 4] && a->t.dtype.code == dt.code &&
         a->t.dtype.bits == dt.bits && a->t.dtype.lanes == 1;
    for (int k = 0; ok && k < a->t.ndim; k++) ok = a->t.shape[k] == shapes[d % 4][k];
    int64_t n = ok ? tvs_ndarray_numel(&a->t) : 0;
    for (int64_t i = 0; ok && i < n; i++) ok = tvs_ndarray_get_f64(&a->t, i) == expected(dt, i);
    if (!ok) fprintf(stderr, "  %s: array %s is missing or wrong\n", what, name);
  }
  if (!z) fprintf(stderr, "  %s: no archive\n", what);
  return ok;
}

static int save_all(const char *path, char *err, size_t errlen) {
  TvsNDArray *arrs[NDT];
  const DLTensor *ts[NDT];
  char names[NDT][32];
  const char *np[NDT];
  for (int d = 0; d < NDT; d++) {
    arrs[d] = make_array(d);
    ts[d] = &arrs[d]->t;
    snprintf(names[d], sizeof names[d], "a_%s", dtypes[d]);
    np[d] = names[d];
  }
  int rc = tvs_npz_save(path, NDT, np, ts, err, errlen);
  for (int d = 0; d < NDT; d++) tvs_ndarray_free(arrs[d]);
  return rc;
}

static unsigned char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n + 1);
  *len = fread(b, 1, (size_t)n, f);
  fclose(f);
  return b;
}

static void write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f) {
    fwrite(p, 1, n, f);
    fclose(f);
  }
}

static void test_round_trip(const char *dir) {
  char path[512], err[512] = "";
  snprintf(path, sizeof path, "%s/rt.npz", dir);
  CHECK(save_all(path, err, sizeof err) == 0);
  TvsNpz *z = tvs_npz_load(path, err, sizeof err);
  if (!z) fprintf(stderr, "  load: %s\n", err);
  CHECK(check_all_arrays(z, "round trip"));
  CHECK(z && tvs_npz_find(z, "a_nothing") == NULL && tvs_npz_find(z, "a_int8.npy") == NULL);
  CHECK(z && !strcmp(z->entries[0].name, "a_bool") && !strcmp(z->entries[11].name, "a_float64"));
  tvs_npz_free(z);
  /* ZIP64 everywhere (sizes, offsets, end records) */
  tvs_npz_set_zip64_limit(1);
  CHECK(save_all(path, err, sizeof err) == 0);
  tvs_npz_set_zip64_limit(0);
  z = tvs_npz_load(path, err, sizeof err);
  if (!z) fprintf(stderr, "  load zip64: %s\n", err);
  CHECK(check_all_arrays(z, "zip64 round trip"));
  tvs_npz_free(z);
  /* no arrays at all */
  CHECK(tvs_npz_save(path, 0, NULL, NULL, err, sizeof err) == 0);
  z = tvs_npz_load(path, err, sizeof err);
  CHECK(z && z->count == 0);
  tvs_npz_free(z);
  unlink(path);
}

/* ------------------------------------------------------------- numpy */

static char python[512];

/* Picks a python3 that imports numpy; false when none does. */
static int find_python(void) {
  const char *cands[3] = {getenv("PYTHON3"), "/usr/bin/python3", "python3"};
  for (int i = 0; i < 3; i++) {
    if (!cands[i] || !*cands[i]) continue;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import numpy' >/dev/null 2>&1", cands[i]);
    if (system(cmd) == 0) {
      snprintf(python, sizeof python, "%s", cands[i]);
      return 1;
    }
  }
  return 0;
}

static const char *py_common =
    "import sys, zipfile, numpy as np\n"
    "DT = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',\n"
    "      'float16', 'float32', 'float64']\n"
    "SH = [(), (7,), (2, 3, 4), (0, 5)]\n"
    "def make(d):\n"
    "    dt, sh = DT[d], SH[d % 4]\n"
    "    i = np.arange(int(np.prod(sh, dtype=np.int64)))\n"
    "    v = i % 2 if dt == 'bool' else i % 100 if dt.startswith('u') else i % 100 - 50\n"
    "    return v.astype(dt).reshape(sh)\n"
    "ARRS = {'a_' + DT[d]: make(d) for d in range(len(DT))}\n";

static const char *py_write =
    "D = sys.argv[1]\n"
    "np.savez(D + '/np_stored.npz', **ARRS)\n"
    "np.savez_compressed(D + '/np_deflate.npz', **ARRS)\n"
    "np.savez(D + '/np_positional.npz', np.arange(3, dtype='int32'), np.ones((2, 2)))\n"
    "np.savez(D + '/np_empty.npz')\n"
    "zipfile.ZIP64_LIMIT = 1; zipfile.ZIP_FILECOUNT_LIMIT = 1\n"
    "np.savez(D + '/np_zip64.npz', **ARRS)\n"
    "np.savez_compressed(D + '/np_zip64_deflate.npz', **ARRS)\n";

static const char *py_check =
    "bad = 0\n"
    "for f in sys.argv[1:]:\n"
    "    z = np.load(f)\n"
    "    if sorted(z.files) != sorted(ARRS):\n"
    "        print(f, 'keys', z.files); bad = 1; continue\n"
    "    for k, want in ARRS.items():\n"
    "        got = z[k]\n"
    "        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):\n"
    "            print(f, k, got.dtype, got.shape, want.dtype, want.shape); bad = 1\n"
    "    if zipfile.ZipFile(f).testzip() is not None: print(f, 'testzip'); bad = 1\n"
    "sys.exit(bad)\n";

/* Runs python on common + body with args; returns the exit status. */
static int run_python(const char *dir, const char *body, const char *args) {
  char script[512], cmd[2048];
  snprintf(script, sizeof script, "%s/script.py", dir);
  FILE *f = fopen(script, "w");
  if (!f) return -1;
  fputs(py_common, f);
  fputs(body, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "'%s' '%s' %s", python, script, args);
  int rc = system(cmd);
  unlink(script);
  return rc;
}

static void test_numpy_writes(const char *dir) {
  char args[600];
  snprintf(args, sizeof args, "'%s'", dir);
  CHECK(run_python(dir, py_write, args) == 0);
  static const char *files[4] = {"np_stored", "np_deflate", "np_zip64", "np_zip64_deflate"};
  char path[512], err[512] = "";
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/%s.npz", dir, files[i]);
    TvsNpz *z = tvs_npz_load(path, err, sizeof err);
    if (!z) fprintf(stderr, "  %s: %s\n", files[i], err);
    CHECK(check_all_arrays(z, files[i]));
    tvs_npz_free(z);
  }
  snprintf(path, sizeof path, "%s/np_positional.npz", dir);
  TvsNpz *z = tvs_npz_load(path, err, sizeof err);
  TvsNDArray *a0 = tvs_npz_find(z, "arr_0"), *a1 = tvs_npz_find(z, "arr_1");
  CHECK(z && z->count == 2 && a0 && a1);
  CHECK(a0 && a0->t.dtype.code == kDLInt && a0->t.dtype.bits == 32 && a0->t.shape[0] == 3 &&
        ((int32_t *)a0->t.data)[2] == 2);
  CHECK(a1 && a1->t.dtype.code == kDLFloat && a1->t.dtype.bits == 64 && a1->t.ndim == 2 &&
        ((double *)a1->t.data)[3] == 1.0);
  tvs_npz_free(z);
  snprintf(path, sizeof path, "%s/np_empty.npz", dir);
  z = tvs_npz_load(path, err, sizeof err);
  CHECK(z && z->count == 0);
  tvs_npz_free(z);
}

static void test_numpy_reads(const char *dir) {
  char p1[512], p2[512], args[1100], err[512] = "";
  snprintf(p1, sizeof p1, "%s/ours.npz", dir);
  snprintf(p2, sizeof p2, "%s/ours64.npz", dir);
  CHECK(save_all(p1, err, sizeof err) == 0);
  tvs_npz_set_zip64_limit(1);
  CHECK(save_all(p2, err, sizeof err) == 0);
  tvs_npz_set_zip64_limit(0);
  snprintf(args, sizeof args, "'%s' '%s'", p1, p2);
  CHECK(run_python(dir, py_check, args) == 0);
  /* a non-ASCII name: np.load must see it as UTF-8, and so must we */
  TvsNDArray *a = make_array(2);
  const DLTensor *ts[1] = {&a->t};
  const char *names[1] = {"w\xc3\xa9ight"};
  CHECK(tvs_npz_save(p2, 1, names, ts, err, sizeof err) == 0);
  snprintf(args, sizeof args, "'%s'", p2);
  CHECK(run_python(dir, "sys.exit(0 if np.load(sys.argv[1]).files == ['w\\u00e9ight'] else 1)\n",
                   args) == 0);
  TvsNpz *z = tvs_npz_load(p2, err, sizeof err);
  CHECK(z && z->count == 1 && !strcmp(z->entries[0].name, "w\xc3\xa9ight"));
  tvs_npz_free(z);
  tvs_ndarray_free(a);
}

/* ---------------------------------------------------------- malformed */

static uint16_t get16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const unsigned char *p) { return get16(p) | (uint32_t)get16(p + 2) << 16; }
static void put16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}
static void put32(unsigned char *p, uint32_t v) {
  put16(p, v & 0xFFFF);
  put16(p + 2, v >> 16);
}

/* The k-th central directory entry of a small (non-ZIP64, no comment) image. */
static unsigned char *central(unsigned char *img, size_t len, int k) {
  unsigned char *c = img + get32(img + len - 22 + 16);
  for (int i = 0; i < k; i++) c += 46 + get16(c + 28) + get16(c + 30) + get16(c + 32);
  return c;
}

/* Replaces every occurrence of from by to (same length) in img. */
static void rename_all(unsigned char *img, size_t len, const char *from, const char *to) {
  size_t n = strlen(from);
  for (size_t i = 0; i + n <= len; i++)
    if (!memcmp(img + i, from, n)) memcpy(img + i, to, n);
}

/* Parses a copy of img edited by edit(); returns whether it fails with want. */
static int parse_fails(const unsigned char *img, size_t len, const char *want) {
  char err[512] = "";
  TvsNpz *z = tvs_npz_parse(img, len, err, sizeof err);
  if (z) {
    tvs_npz_free(z);
    fprintf(stderr, "  expected failure '%s' but parse succeeded\n", want);
    return 0;
  }
  if (!strstr(err, want)) {
    fprintf(stderr, "  expected '%s' in: %s\n", want, err);
    return 0;
  }
  return 1;
}

static void test_malformed(const char *dir) {
  char path[512], err[512] = "";
  snprintf(path, sizeof path, "%s/ours.npz", dir);
  size_t len = 0;
  unsigned char *good = read_file(path, &len), *b = malloc(len);
  CHECK(good && len > 1000);
  if (!good) return;
#define FRESH() memcpy(b, good, len)
  /* sanity: the unedited image parses */
  TvsNpz *z = tvs_npz_parse(good, len, err, sizeof err);
  CHECK(check_all_arrays(z, "good image"));
  tvs_npz_free(z);
  /* truncated: on disk (the message names the file) and in memory */
  char tpath[512];
  snprintf(tpath, sizeof tpath, "%s/trunc.npz", dir);
  write_file(tpath, good, len - 1);
  z = tvs_npz_load(tpath, err, sizeof err);
  CHECK(z == NULL && strstr(err, tpath) == err &&
        strstr(err, "not a .npz file or truncated (no ZIP end-of-central-directory record)"));
  unlink(tpath);
  CHECK(parse_fails(good, 0, "no ZIP end-of-central-directory record"));
  CHECK(parse_fails(good, len / 2, "no ZIP end-of-central-directory record"));
  /* the central directory points past the end */
  FRESH();
  put32(b + len - 22 + 16, (uint32_t)len);
  CHECK(parse_fails(b, len, "truncated .npz archive: the central directory is out of range"));
  FRESH();
  put16(b + len - 22 + 10, 60000);
  put16(b + len - 22 + 8, 60000);
  CHECK(parse_fails(b, len, "60000 members cannot fit"));
  /* bad signatures */
  FRESH();
  b[0] ^= 0x10;
  CHECK(parse_fails(b, len, "bad local header signature of member 'a_bool.npy'"));
  FRESH();
  central(b, len, 3)[1] ^= 0x01;
  CHECK(parse_fails(b, len, "bad signature of central directory entry 3"));
  /* a member's local header offset out of range */
  FRESH();
  put32(central(b, len, 2) + 42, (uint32_t)len - 10);
  CHECK(parse_fails(b, len, "local header of member 'a_int16.npy' out of range"));
  /* CRC: flip the last data byte of member 0 (just before member 1's header) */
  FRESH();
  b[get32(central(b, len, 1) + 42) - 1] ^= 0x40;
  CHECK(parse_fails(b, len, "member 'a_bool.npy': CRC-32 mismatch"));
  /* the member's .npy does not parse (CRC fixed up) */
  FRESH();
  {
    unsigned char *c = central(b, len, 1);
    uint32_t off = get32(c + 42), size = get32(c + 24);
    unsigned char *data = b + off + 30 + get16(b + off + 26) + get16(b + off + 28);
    data[1] = 'X';
    uint32_t crc = (uint32_t)crc32(0, data, size);
    put32(c + 16, crc);
    CHECK(parse_fails(b, len, "member 'a_int8.npy': not a .npy file (bad magic)"));
  }
  /* stored sizes disagree */
  FRESH();
  put32(central(b, len, 1) + 20, 5);
  CHECK(parse_fails(b, len, "stored member 'a_int8.npy' has different compressed and plain sizes"));
  /* not .npy, path components, "..", duplicates, local/central names differ */
  FRESH();
  rename_all(b, len, "a_int8.npy", "a_int8.txt");
  CHECK(parse_fails(b, len, "member 'a_int8.txt' is not a .npy file"));
  FRESH();
  rename_all(b, len, "a_int8.npy", "a/int8.npy");
  CHECK(parse_fails(b, len, "member name 'a/int8.npy' has path components"));
  FRESH();
  rename_all(b, len, "a_int8.npy", "a\\int8.npy");
  CHECK(parse_fails(b, len, "has path components"));
  FRESH();
  rename_all(b, len, "a_int16.npy", "a_int32.npy");
  CHECK(parse_fails(b, len, "duplicate member 'a_int32.npy'"));
  FRESH();
  memcpy(b + 30, "A", 1); /* member 0's name in its local header only */
  CHECK(parse_fails(b, len, "local header name of member 'a_bool.npy' differs"));
  /* compression methods: bzip2 (12) is refused; a stored member marked deflate fails */
  FRESH();
  put16(b + 8, 12);
  put16(central(b, len, 0) + 10, 12);
  CHECK(parse_fails(b, len,
                    "member 'a_bool.npy' uses unsupported compression method 12 (only stored and "
                    "deflate)"));
  FRESH();
  put16(b + 8, 8);
  put16(central(b, len, 0) + 10, 8);
  CHECK(parse_fails(b, len, "member 'a_bool.npy'"));
  FRESH();
  put16(central(b, len, 0) + 10, 8);
  CHECK(parse_fails(b, len, "disagrees on the compression method"));
  FRESH();
  put16(central(b, len, 0) + 8, 1);
  CHECK(parse_fails(b, len, "member 'a_bool.npy' is encrypted"));
  /* a malformed extra field */
  FRESH();
  {
    /* grow member 0's central extra length into its (zero-length) comment space
     * by shifting: simplest is a ZIP64 marker without the extra field */
    put32(central(b, len, 0) + 24, 0xFFFFFFFFu);
    CHECK(parse_fails(b, len, "member 'a_bool.npy'"));
  }
  free(good);
  free(b);
  /* the same for a deflated archive from numpy, plus its own errors */
  snprintf(path, sizeof path, "%s/np_deflate.npz", dir);
  good = read_file(path, &len);
  b = malloc(len);
  CHECK(good != NULL);
  if (!good) return;
  FRESH();
  {
    unsigned char *c = central(b, len, 2);
    uint32_t off = get32(c + 42);
    unsigned char *data = b + off + 30 + get16(b + off + 26) + get16(b + off + 28);
    for (int i = 0; i < 8; i++) data[i] ^= 0xA5;
    CHECK(parse_fails(b, len, "member 'a_int16.npy': "));
    FRESH();
    put32(c + 24, 0x7FFFFFF0u); /* absurd plain size for a small deflated member */
    CHECK(parse_fails(b, len, "member 'a_int16.npy' claims 2147483632 plain bytes"));
    FRESH();
    put32(c + 24, get32(c + 24) + 1);
    CHECK(parse_fails(b, len, "member 'a_int16.npy': inflates to fewer bytes"));
    FRESH();
    put32(c + 24, get32(c + 24) - 1);
    CHECK(parse_fails(b, len, "member 'a_int16.npy': inflates to more bytes"));
    FRESH();
    put32(c + 20, get32(c + 20) - 4);
    CHECK(parse_fails(b, len, "member 'a_int16.npy': truncated deflate data"));
  }
  /* a missing file */
  z = tvs_npz_load("/nonexistent/dir/w.npz", err, sizeof err);
  CHECK(z == NULL && strstr(err, "cannot open '/nonexistent/dir/w.npz'"));
  z = tvs_npz_load(dir, err, sizeof err);
  CHECK(z == NULL && strstr(err, "it is a directory"));
#undef FRESH
  free(good);
  free(b);
}

/* Every single-bit flip, every byte set to 0x00 and 0xFF, and every
 * truncation of the archive at path: the reader must not crash (the ASan
 * build checks for over-reads), and truncations must fail. */
static void fuzz_file(const char *path) {
  size_t len = 0;
  unsigned char *good = read_file(path, &len), *b = malloc(len ? len : 1);
  char err[512];
  int truncations_fail = good != NULL, survived_all = 1;
  for (size_t i = 0; good && i < len; i++) {
    for (int k = 0; k < 10; k++) {
      memcpy(b, good, len);
      b[i] = k < 8 ? b[i] ^ (unsigned char)(1 << k) : k == 8 ? 0 : 0xFF;
      TvsNpz *z = tvs_npz_parse(b, len, err, sizeof err);
      /* what parses must be self-consistent */
      for (int e = 0; z && e < z->count; e++)
        survived_all &= z->entries[e].array && z->entries[e].name[0] != '\0';
      tvs_npz_free(z);
    }
    TvsNpz *z = tvs_npz_parse(good, i, err, sizeof err);
    truncations_fail &= z == NULL;
    tvs_npz_free(z);
  }
  if (!truncations_fail) fprintf(stderr, "  %s: a truncation parsed\n", path);
  CHECK(truncations_fail && survived_all);
  free(good);
  free(b);
}

static void test_fuzz(const char *dir) {
  static const char *files[5] = {"ours", "np_stored", "np_deflate", "np_zip64",
                                 "np_zip64_deflate"};
  char path[512], err[512];
  for (int i = 0; i < 5; i++) {
    snprintf(path, sizeof path, "%s/%s.npz", dir, files[i]);
    fuzz_file(path);
  }
  snprintf(path, sizeof path, "%s/ours64.npz", dir);
  tvs_npz_set_zip64_limit(1);
  CHECK(save_all(path, err, sizeof err) == 0);
  tvs_npz_set_zip64_limit(0);
  fuzz_file(path);
}

static void test_save_errors(const char *dir) {
  char path[512], err[512] = "";
  snprintf(path, sizeof path, "%s/bad.npz", dir);
  TvsNDArray *a = make_array(3);
  const DLTensor *ts[2] = {&a->t, &a->t};
  const char *slash[1] = {"w/x"}, *dots[1] = {".."}, *empty[1] = {""}, *twice[2] = {"w", "w"};
  CHECK(tvs_npz_save(path, 1, slash, ts, err, sizeof err) == -1 &&
        strstr(err, "cannot save 'w/x' to .npz: the name has path components"));
  CHECK(tvs_npz_save(path, 1, dots, ts, err, sizeof err) == -1 && strstr(err, "path components"));
  CHECK(tvs_npz_save(path, 1, empty, ts, err, sizeof err) == -1 && strstr(err, "empty"));
  CHECK(tvs_npz_save(path, 2, twice, ts, err, sizeof err) == -1 &&
        strstr(err, "the name 'w' is used twice"));
  int64_t shape[1] = {4};
  TvsNDArray *bf = tvs_ndarray_empty(1, shape, (DLDataType){kDLBfloat, 16, 1});
  const DLTensor *tb[1] = {&bf->t};
  const char *nb[1] = {"bf"};
  CHECK(tvs_npz_save(path, 1, nb, tb, err, sizeof err) == -1 &&
        strstr(err, "cannot save 'bf' to .npz: cannot save dtype bfloat16"));
  CHECK(access(path, F_OK) != 0);
  CHECK(tvs_npz_save("/nonexistent/dir/x.npz", 1, nb + 0, ts, err, sizeof err) == -1 &&
        strstr(err, "cannot write"));
  tvs_ndarray_free(bf);
  tvs_ndarray_free(a);
}

int main(void) {
  char dir[] = "/tmp/tvs_test_npz_XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_round_trip(dir);
  test_save_errors(dir);
  int have_numpy = find_python();
  CHECK(have_numpy); /* python3-numpy is a test dependency (scripts/setup.sh) */
  if (have_numpy) {
    test_numpy_writes(dir);
    test_numpy_reads(dir);
    test_malformed(dir);
    test_fuzz(dir);
  }
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "  could not remove %s\n", dir);
  TEST_MAIN_END();
}
