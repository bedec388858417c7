/* npy.c - NumPy .npy reader and writer (format versions 1.0, 2.0 and 3.0).
 *
 * The header is a Python dict literal; we parse it with a small tokenizer that
 * accepts any key order and whitespace, and reject everything we cannot
 * represent (big-endian multi-byte data, Fortran order, object/structured
 * dtypes, shapes whose size overflows) with a message instead of crashing. */
#include "runtime/npy.h"
#include "runtime/write_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tvs_set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* ------------------------------------------------------------ header dict */

typedef struct HdrParser {
  const char *p, *end;  /* cursor and end of the header text */
  char *err;            /* message buffer */
  size_t errlen;
} HdrParser;

static void skip_ws(HdrParser *hp) {
  while (hp->p < hp->end && (*hp->p == ' ' || *hp->p == '\t' || *hp->p == '\n' ||
                             *hp->p == '\r'))
    hp->p++;
}

static bool accept(HdrParser *hp, char c) {
  skip_ws(hp);
  if (hp->p < hp->end && *hp->p == c) {
    hp->p++;
    return true;
  }
  return false;
}

/* A quoted Python string (no escapes needed for npy keys and descrs). */
static bool parse_string(HdrParser *hp, char *out, size_t outlen) {
  skip_ws(hp);
  if (hp->p >= hp->end || (*hp->p != '\'' && *hp->p != '"')) return false;
  char q = *hp->p++;
  size_t n = 0;
  while (hp->p < hp->end && *hp->p != q) {
    if (*hp->p == '\\' || n + 1 >= outlen) return false;
    out[n++] = *hp->p++;
  }
  if (hp->p >= hp->end) return false;
  hp->p++;
  out[n] = '\0';
  return true;
}

static bool parse_word(HdrParser *hp, const char *w) {
  skip_ws(hp);
  size_t n = strlen(w);
  if ((size_t)(hp->end - hp->p) < n || memcmp(hp->p, w, n) != 0) return false;
  hp->p += n;
  return true;
}

/* A tuple of non-negative integers: (), (n,), (a, b, ...). */
static bool parse_shape(HdrParser *hp, int64_t *shape, int *ndim) {
  if (!accept(hp, '(')) {
    tvs_set_err(hp->err, hp->errlen, "bad .npy header: 'shape' is not a tuple");
    return false;
  }
  *ndim = 0;
  for (;;) {
    if (accept(hp, ')')) return true;
    skip_ws(hp);
    if (hp->p >= hp->end || *hp->p < '0' || *hp->p > '9') {
      tvs_set_err(hp->err, hp->errlen, "bad .npy header: 'shape' must hold non-negative integers");
      return false;
    }
    uint64_t v = 0;
    while (hp->p < hp->end && *hp->p >= '0' && *hp->p <= '9') {
      if (v > (uint64_t)INT64_MAX / 10) {
        tvs_set_err(hp->err, hp->errlen, "bad .npy header: a shape dimension is too large");
        return false;
      }
      v = v * 10 + (uint64_t)(*hp->p++ - '0');
      if (v > (uint64_t)INT64_MAX) {
        tvs_set_err(hp->err, hp->errlen, "bad .npy header: a shape dimension is too large");
        return false;
      }
    }
    if (hp->p < hp->end && (*hp->p == 'L' || *hp->p == 'l')) hp->p++; /* Python 2 longs */
    if (*ndim >= TVS_MAX_NDIM) {
      tvs_set_err(hp->err, hp->errlen, "arrays with more than %d dimensions are not supported",
              TVS_MAX_NDIM);
      return false;
    }
    shape[(*ndim)++] = (int64_t)v;
    if (accept(hp, ',')) continue;
    if (accept(hp, ')')) return true;
    tvs_set_err(hp->err, hp->errlen, "bad .npy header: malformed 'shape' tuple");
    return false;
  }
}

/* Maps a descr string such as '<f4' to a DLPack dtype. */
static bool parse_descr(const char *d, DLDataType *out, char *err, size_t errlen) {
  size_t n = strlen(d);
  if (n < 2) goto bad;
  char order = d[0], kind = d[1];
  const char *digits = d + 2;
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    order = '=';
    kind = d[0];
    digits = d + 1;
  }
  if (kind == 'O') {
    tvs_set_err(err, errlen, "object arrays are not supported in .npy files");
    return false;
  }
  if (!*digits) goto bad;
  char *end;
  long size = strtol(digits, &end, 10);
  if (*end || size <= 0) goto bad;
  uint8_t code;
  switch (kind) {
    case 'b': if (size != 1) goto bad; code = kDLBool; break;
    case 'i': code = kDLInt; break;
    case 'u': code = kDLUInt; break;
    case 'f': code = kDLFloat; break;
    default: goto bad;
  }
  if (code == kDLInt || code == kDLUInt) {
    if (size != 1 && size != 2 && size != 4 && size != 8) goto bad;
  } else if (code == kDLFloat) {
    if (size != 2 && size != 4 && size != 8) goto bad;
  }
  if (order == '>' && size > 1) {
    tvs_set_err(err, errlen, "big-endian .npy data (descr '%s') is not supported; save it as little-endian ('<')", d);
    return false;
  }
  *out = (DLDataType){code, (uint8_t)(code == kDLBool ? 8 : size * 8), 1};
  return true;
bad:
  tvs_set_err(err, errlen, "unsupported .npy dtype descr '%s'", d);
  return false;
}

/* Parses the header dict into dtype and shape. */
static bool parse_header(const char *text, size_t len, DLDataType *dtype, int64_t *shape,
                         int *ndim, char *err, size_t errlen) {
  HdrParser hp = {text, text + len, err, errlen};
  bool have_descr = false, have_order = false, have_shape = false;
  if (!accept(&hp, '{')) {
    tvs_set_err(err, errlen, "bad .npy header: expected a '{' dict");
    return false;
  }
  for (;;) {
    if (accept(&hp, '}')) break;
    char key[32];
    if (!parse_string(&hp, key, sizeof key)) {
      tvs_set_err(err, errlen, "bad .npy header: expected a quoted key");
      return false;
    }
    if (!accept(&hp, ':')) {
      tvs_set_err(err, errlen, "bad .npy header: expected ':' after '%s'", key);
      return false;
    }
    if (!strcmp(key, "descr")) {
      char d[32];
      skip_ws(&hp);
      if (hp.p < hp.end && *hp.p == '[') {
        tvs_set_err(err, errlen, "structured .npy dtypes are not supported");
        return false;
      }
      if (!parse_string(&hp, d, sizeof d)) {
        tvs_set_err(err, errlen, "bad .npy header: 'descr' is not a string");
        return false;
      }
      if (!parse_descr(d, dtype, err, errlen)) return false;
      have_descr = true;
    } else if (!strcmp(key, "fortran_order")) {
      if (parse_word(&hp, "True")) {
        tvs_set_err(err, errlen, "Fortran-order .npy arrays are not supported (save a C-order array)");
        return false;
      }
      if (!parse_word(&hp, "False")) {
        tvs_set_err(err, errlen, "bad .npy header: 'fortran_order' must be True or False");
        return false;
      }
      have_order = true;
    } else if (!strcmp(key, "shape")) {
      if (!parse_shape(&hp, shape, ndim)) return false;
      have_shape = true;
    } else {
      tvs_set_err(err, errlen, "bad .npy header: unexpected key '%s'", key);
      return false;
    }
    if (accept(&hp, ',')) continue;
    if (accept(&hp, '}')) break;
    tvs_set_err(err, errlen, "bad .npy header: expected ',' or '}' after '%s'", key);
    return false;
  }
  skip_ws(&hp);
  while (hp.p < hp.end && *hp.p == '\0') hp.p++; /* tolerate NUL padding */
  if (hp.p != hp.end) {
    tvs_set_err(err, errlen, "bad .npy header: unexpected text after the dict");
    return false;
  }
  if (!have_descr || !have_order || !have_shape) {
    tvs_set_err(err, errlen, "bad .npy header: missing key '%s'",
            !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    return false;
  }
  return true;
}

/* Where the parts of a .npy image lie, from its preamble and header. */
typedef struct NpyLayout {
  DLDataType dtype;
  int64_t shape[TVS_MAX_NDIM];
  int ndim;
  size_t hstart, hlen; /* the header dict: data[hstart .. hstart + hlen) */
  size_t nbytes;       /* the array data, which follows the header */
} NpyLayout;

/* Reads the magic, version and header length from data[0..len); 1 when len is
 * too short to tell, 0 when done, -1 (message in err) when the file is bad. */
static int parse_preamble(const unsigned char *data, size_t len, NpyLayout *lay, char *err,
                          size_t errlen) {
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (memcmp(data, magic, len < 6 ? len : 6) != 0) {
    tvs_set_err(err, errlen, "not a .npy file (bad magic)");
    return -1;
  }
  if (len < 8) return 1;
  unsigned major = data[6], minor = data[7];
  if (major != 1 && major != 2 && major != 3) {
    tvs_set_err(err, errlen, "unsupported .npy format version %u.%u", major, minor);
    return -1;
  }
  lay->hstart = major == 1 ? 10 : 12;
  if (len < lay->hstart) return 1;
  lay->hlen = (size_t)data[8] | (size_t)data[9] << 8;
  if (major != 1) lay->hlen |= (size_t)data[10] << 16 | (size_t)data[11] << 24;
  if (lay->hlen > TVS_NPY_HEADER_LIMIT) {
    tvs_set_err(err, errlen, "the .npy header is too long (%zu bytes; the limit is %d)", lay->hlen,
                TVS_NPY_HEADER_LIMIT);
    return -1;
  }
  return 0;
}

/* Parses the header dict (data must hold it: len >= hstart + hlen) and sizes the data. */
static bool parse_layout(const unsigned char *data, NpyLayout *lay, char *err, size_t errlen) {
  lay->ndim = 0;
  if (!parse_header((const char *)data + lay->hstart, lay->hlen, &lay->dtype, lay->shape, &lay->ndim,
                    err, errlen))
    return false;
  size_t count = 1;
  for (int i = 0; i < lay->ndim; i++)
    if (__builtin_mul_overflow(count, (size_t)lay->shape[i], &count)) goto too_big;
  if (__builtin_mul_overflow(count, tvs_dtype_bytes(lay->dtype), &lay->nbytes) ||
      lay->nbytes > (size_t)PTRDIFF_MAX / 2)
    goto too_big;
  return true;
too_big:
  tvs_set_err(err, errlen, "the .npy shape is too large (its size overflows)");
  return false;
}

TvsNDArray *tvs_npy_parse(const unsigned char *data, size_t len, char *err, size_t errlen) {
  NpyLayout lay;
  int pre = parse_preamble(data, len, &lay, err, errlen);
  if (pre < 0) return NULL;
  if (pre > 0 || lay.hlen > len - lay.hstart) {
    tvs_set_err(err, errlen, len < 6 ? "not a .npy file (bad magic)" : "truncated .npy header");
    return NULL;
  }
  if (!parse_layout(data, &lay, err, errlen)) return NULL;
  size_t avail = len - lay.hstart - lay.hlen;
  if (avail < lay.nbytes) {
    tvs_set_err(err, errlen, "truncated .npy data: expected %zu bytes, found %zu", lay.nbytes, avail);
    return NULL;
  }
  if (avail > lay.nbytes) {
    tvs_set_err(err, errlen, "%zu unexpected bytes after the .npy array data", avail - lay.nbytes);
    return NULL;
  }
  TvsNDArray *a = tvs_ndarray_empty(lay.ndim, lay.shape, lay.dtype);
  if (!a) {
    tvs_set_err(err, errlen, "out of memory allocating a %zu-byte array", lay.nbytes);
    return NULL;
  }
  if (lay.nbytes) memcpy(a->t.data, data + lay.hstart + lay.hlen, lay.nbytes);
  if (lay.dtype.code == kDLBool) {
    unsigned char *b = a->t.data;
    for (size_t i = 0; i < lay.nbytes; i++) b[i] = b[i] != 0; /* canonical 0/1 */
  }
  return a;
}

/* Reads up to want more bytes into buf[*len..]; stops early only at end of file. */
static bool read_upto(int fd, unsigned char *buf, size_t *len, size_t want) {
  size_t end = *len + want;
  while (*len < end) {
    ssize_t got = read(fd, buf + *len, end - *len);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) break;
    *len += (size_t)got;
  }
  return true;
}

/* Why fd is not a file to read an array from: directories and devices (which
 * never end, like /dev/zero) are refused; regular files, pipes and sockets pass. */
static const char *refuse_kind(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return strerror(errno);
  if (S_ISDIR(st.st_mode)) return "it is a directory";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "not a regular file (a device)";
  return NULL;
}

/* Reads the image: the preamble, then the header it sizes, then the data the
 * header sizes plus one byte (to notice trailing garbage), never more. */
static unsigned char *read_image(int fd, size_t *len, char *err, size_t errlen) {
  struct stat st;
  bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  NpyLayout lay;
  unsigned char head[12];
  *len = 0;
  if (!read_upto(fd, head, len, sizeof head)) return NULL;
  int pre = parse_preamble(head, *len, &lay, err, errlen);
  if (pre != 0) {
    if (pre > 0) tvs_set_err(err, errlen, *len < 6 ? "not a .npy file (bad magic)" : "truncated .npy header");
    return NULL;
  }
  size_t hend = lay.hstart + lay.hlen;
  unsigned char *buf = malloc(hend > sizeof head ? hend : sizeof head);
  if (!buf) return tvs_set_err(err, errlen, "out of memory"), NULL;
  memcpy(buf, head, *len);
  if (*len < hend && !read_upto(fd, buf, len, hend - *len)) goto io;
  if (*len < hend) {
    tvs_set_err(err, errlen, "truncated .npy header");
    goto fail;
  }
  if (!parse_layout(buf, &lay, err, errlen)) goto fail;
  size_t total = hend + lay.nbytes + 1;
  if (regular && (uint64_t)st.st_size < (uint64_t)hend + lay.nbytes) { /* before allocating */
    tvs_set_err(err, errlen, "truncated .npy data: expected %zu bytes, found %llu", lay.nbytes,
                (unsigned long long)st.st_size - hend);
    goto fail;
  }
  if (total > *len) {
    unsigned char *nb = realloc(buf, total);
    if (!nb) {
      tvs_set_err(err, errlen, "out of memory allocating a %zu-byte array", lay.nbytes);
      goto fail;
    }
    buf = nb;
    if (!read_upto(fd, buf, len, total - *len)) goto io;
  }
  return buf;
io:
  tvs_set_err(err, errlen, "%s", strerror(errno));
fail:
  free(buf);
  return NULL;
}

TvsNDArray *tvs_npy_load(const char *path, char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    tvs_set_err(err, errlen, "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  const char *why = refuse_kind(fd);
  if (why) {
    close(fd);
    tvs_set_err(err, errlen, "cannot read '%s': %s", path, why);
    return NULL;
  }
  char msg[256];
  size_t len;
  unsigned char *buf = read_image(fd, &len, msg, sizeof msg);
  close(fd);
  TvsNDArray *a = buf ? tvs_npy_parse(buf, len, msg, sizeof msg) : NULL;
  free(buf);
  if (!a) tvs_set_err(err, errlen, "%s: %s", path, msg);
  return a;
}

/* ------------------------------------------------------------------ save */

/* The .npy descr of t's dtype ("<f4", "|b1"); false for dtypes .npy lacks. */
static bool npy_descr(DLDataType dt, char descr[8]) {
  unsigned esz = (unsigned)((dt.bits + 7) / 8);
  if (dt.lanes != 1) return false;
  switch (dt.code) {
    case kDLBool: snprintf(descr, 8, "|b1"); return true;
    case kDLInt: case kDLUInt:
      if (dt.bits != 8 && dt.bits != 16 && dt.bits != 32 && dt.bits != 64) return false;
      snprintf(descr, 8, "%c%c%u", esz == 1 ? '|' : '<', dt.code == kDLInt ? 'i' : 'u', esz);
      return true;
    case kDLFloat:
      if (dt.bits != 16 && dt.bits != 32 && dt.bits != 64) return false;
      snprintf(descr, 8, "<f%u", esz);
      return true;
    default: return false;
  }
}

/* Checks that t is a compact host tensor of sane rank and shape; sets *count. */
static bool check_savable(const DLTensor *t, size_t *count, char *err, size_t errlen) {
  if (t->ndim < 0 || t->ndim > TVS_MAX_NDIM) {
    tvs_set_err(err, errlen, "cannot save a %d-dimensional array", t->ndim);
    return false;
  }
  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost) {
    tvs_set_err(err, errlen, "cannot save a tensor that is not in host memory");
    return false;
  }
  *count = 1;
  for (int i = 0; i < t->ndim; i++) {
    if (t->shape[i] < 0 || __builtin_mul_overflow(*count, (size_t)t->shape[i], count)) {
      tvs_set_err(err, errlen, "cannot save: bad shape");
      return false;
    }
  }
  if (t->strides) {
    int64_t expect = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
      if (t->shape[i] != 1 && t->strides[i] != expect) {
        tvs_set_err(err, errlen, "cannot save a non-compact (strided) tensor");
        return false;
      }
      expect *= t->shape[i];
    }
  }
  return true;
}

/* The 10-byte preamble and the header dict, padded with spaces so that the
 * data starts at a multiple of 64; returns the dict's length (hlen). */
static size_t build_header(const DLTensor *t, const char *descr, unsigned char pre[10],
                           char hdr[512]) {
  int n = snprintf(hdr, 512, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < t->ndim; i++)
    n += snprintf(hdr + n, 512 - (size_t)n, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
  n += snprintf(hdr + n, 512 - (size_t)n, "%s), }", t->ndim == 1 ? "," : "");
  size_t total = 10 + (size_t)n + 1;
  size_t padded = (total + 63) / 64 * 64;
  size_t hlen = padded - 10;
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  memcpy(pre, magic, sizeof magic);
  pre[8] = (unsigned char)(hlen & 0xff);
  pre[9] = (unsigned char)(hlen >> 8);
  while ((size_t)n < hlen - 1) hdr[n++] = ' ';
  hdr[n++] = '\n';
  return hlen;
}

int tvs_npy_save(const char *path, const DLTensor *t, char *err, size_t errlen) {
  char descr[8];
  if (!npy_descr(t->dtype, descr)) {
    char name[24];
    tvs_set_err(err, errlen, "cannot save dtype %s to .npy", tvs_dtype_str(t->dtype, name));
    return -1;
  }
  size_t count;
  if (!check_savable(t, &count, err, errlen)) return -1;
  unsigned char pre[10];
  char hdr[512];
  size_t hlen = build_header(t, descr, pre, hdr);
  const void *parts[3] = {pre, hdr, (const unsigned char *)t->data + t->byte_offset};
  size_t sizes[3] = {sizeof pre, hlen, count * tvs_dtype_bytes(t->dtype)};
  return tvs_write_file_atomic(path, parts, sizes, 3, err, errlen);
}

size_t tvs_npy_header(const DLTensor *t, unsigned char *out, size_t *nbytes, char *err,
                      size_t errlen) {
  char descr[8];
  if (!npy_descr(t->dtype, descr)) {
    char name[24];
    tvs_set_err(err, errlen, "cannot save dtype %s to .npy", tvs_dtype_str(t->dtype, name));
    return 0;
  }
  size_t count;
  if (!check_savable(t, &count, err, errlen)) return 0;
  if (__builtin_mul_overflow(count, tvs_dtype_bytes(t->dtype), nbytes)) {
    tvs_set_err(err, errlen, "cannot save: bad shape");
    return 0;
  }
  unsigned char pre[10];
  char hdr[512];
  size_t hlen = build_header(t, descr, pre, hdr);
  memcpy(out, pre, sizeof pre);
  memcpy(out + sizeof pre, hdr, hlen);
  return sizeof pre + hlen;
}
