/* npz.c - NumPy .npz (ZIP of .npy members) reader and writer.
 *
 * The reader trusts nothing: every offset and length read from the archive is
 * checked against the image before use, the central directory (as Python's
 * zipfile reads it) is authoritative, and each member's local header must
 * agree with it.  Deflated members are inflated with zlib into a buffer of
 * the recorded size, which must be plausible for the compressed size (deflate
 * expands at most ~1032:1), so a hostile size cannot force a huge allocation.
 * Files are mapped read-only, so a stored member is copied once, into its
 * array (a file truncated by another process while we read it could still
 * raise SIGBUS; our own writer replaces files by rename, never in place). */
#include "runtime/npz.h"
#include "runtime/write_file.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "runtime/npy.h"


enum {
  SIG_LOCAL = 0x04034b50,
  SIG_CENTRAL = 0x02014b50,
  SIG_EOCD = 0x06054b50,
  SIG_EOCD64 = 0x06064b50,
  SIG_LOCATOR64 = 0x07064b50,
  LOCAL_SIZE = 30,
  CENTRAL_SIZE = 46,
  EOCD_SIZE = 22,
  EOCD64_SIZE = 56,
  LOCATOR64_SIZE = 20,
};

static uint64_t zip64_limit = 0xFFFFFFFFu;

void tvs_npz_set_zip64_limit(uint64_t limit) { zip64_limit = limit ? limit : 0xFFFFFFFFu; }

static unsigned rd16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* Whether [off, off + n) lies inside an image of len bytes. */
static bool in_range(uint64_t off, uint64_t n, size_t len) {
  return off <= len && n <= len - off;
}

/* ------------------------------------------------------------------ read */

typedef struct Archive {
  const unsigned char *data;
  size_t len;
  uint64_t count, cd_off, cd_size;  /* from the (ZIP64) end record */
  char *err;
  size_t errlen;
} Archive;

/* One central directory entry. */
typedef struct Member {
  char name[256];  /* truncated copy for messages; full name compared via name_p */
  const unsigned char *name_p;
  unsigned name_len, flags, method;
  uint32_t crc;
  uint64_t csize, usize, local_off;
} Member;

/* Reads the ZIP64 end record through the locator just before the end record
 * at eocd; fills a->count/cd_off/cd_size. */
static bool read_eocd64(Archive *a, size_t eocd) {
  if (eocd < LOCATOR64_SIZE || rd32(a->data + eocd - LOCATOR64_SIZE) != SIG_LOCATOR64) {
    tvs_set_err(a->err, a->errlen, "bad .npz archive: ZIP64 end-of-central-directory locator missing");
    return false;
  }
  const unsigned char *loc = a->data + eocd - LOCATOR64_SIZE;
  uint64_t off = rd64(loc + 8);
  if (rd32(loc + 4) != 0 || rd32(loc + 16) > 1) {
    tvs_set_err(a->err, a->errlen, "multi-disk ZIP archives are not supported");
    return false;
  }
  if (!in_range(off, EOCD64_SIZE, eocd - LOCATOR64_SIZE)) {
    tvs_set_err(a->err, a->errlen, "truncated .npz archive: ZIP64 end record out of range");
    return false;
  }
  const unsigned char *e = a->data + off;
  if (rd32(e) != SIG_EOCD64) {
    tvs_set_err(a->err, a->errlen, "bad .npz archive: bad ZIP64 end-of-central-directory signature");
    return false;
  }
  if (rd32(e + 16) != 0 || rd32(e + 20) != 0 || rd64(e + 24) != rd64(e + 32)) {
    tvs_set_err(a->err, a->errlen, "multi-disk ZIP archives are not supported");
    return false;
  }
  a->count = rd64(e + 32);
  a->cd_size = rd64(e + 40);
  a->cd_off = rd64(e + 48);
  return true;
}

/* Finds the end-of-central-directory record (the last one whose comment
 * reaches exactly to the end) and the central directory's extent. */
static bool read_end_record(Archive *a) {
  size_t eocd = SIZE_MAX;
  if (a->len >= EOCD_SIZE) {
    size_t lo = a->len - EOCD_SIZE > 0xFFFF ? a->len - EOCD_SIZE - 0xFFFF : 0;
    for (size_t off = a->len - EOCD_SIZE + 1; off-- > lo;) {
      if (rd32(a->data + off) == SIG_EOCD &&
          off + EOCD_SIZE + rd16(a->data + off + 20) == a->len) {
        eocd = off;
        break;
      }
    }
  }
  if (eocd == SIZE_MAX) {
    tvs_set_err(a->err, a->errlen,
            "not a .npz file or truncated (no ZIP end-of-central-directory record)");
    return false;
  }
  const unsigned char *e = a->data + eocd;
  unsigned disk = rd16(e + 4), cd_disk = rd16(e + 6), on_disk = rd16(e + 8);
  a->count = rd16(e + 10);
  a->cd_size = rd32(e + 12);
  a->cd_off = rd32(e + 16);
  bool zip64 = a->count == 0xFFFF || a->cd_size == 0xFFFFFFFFu || a->cd_off == 0xFFFFFFFFu ||
               (eocd >= LOCATOR64_SIZE && rd32(a->data + eocd - LOCATOR64_SIZE) == SIG_LOCATOR64);
  if (zip64) {
    if (!read_eocd64(a, eocd)) return false;
    eocd -= LOCATOR64_SIZE; /* the ZIP64 records sit between the directory and here */
  } else if (disk != 0 || cd_disk != 0 || on_disk != a->count) {
    tvs_set_err(a->err, a->errlen, "multi-disk ZIP archives are not supported");
    return false;
  }
  if (!in_range(a->cd_off, a->cd_size, eocd)) {
    tvs_set_err(a->err, a->errlen, "truncated .npz archive: the central directory is out of range");
    return false;
  }
  if (a->count > a->cd_size / CENTRAL_SIZE || a->count > INT_MAX) {
    tvs_set_err(a->err, a->errlen,
            "bad .npz archive: %llu members cannot fit a %llu-byte central directory",
            (unsigned long long)a->count, (unsigned long long)a->cd_size);
    return false;
  }
  return true;
}

/* Applies the ZIP64 extra field (id 1) in [x, x + xlen) to the fields of m
 * whose 32-bit values are saturated, in the order the format gives. */
static bool apply_zip64_extra(Archive *a, Member *m, const unsigned char *x, size_t xlen,
                              bool central) {
  size_t i = 0;
  while (i + 4 <= xlen) {
    unsigned id = rd16(x + i), sz = rd16(x + i + 2);
    if (sz > xlen - i - 4) break;
    if (id == 1) {
      const unsigned char *f = x + i + 4, *fend = f + sz;
      uint64_t *fields[3] = {&m->usize, &m->csize, &m->local_off};
      for (int k = 0; k < (central ? 3 : 2); k++) {
        if (*fields[k] != 0xFFFFFFFFu) continue;
        if (fend - f < 8) {
          tvs_set_err(a->err, a->errlen, "bad .npz archive: member '%s' has a short ZIP64 extra field",
                  m->name);
          return false;
        }
        *fields[k] = rd64(f);
        f += 8;
      }
      return true;
    }
    i += 4 + (size_t)sz;
  }
  if (i != xlen) {
    tvs_set_err(a->err, a->errlen, "bad .npz archive: member '%s' has a malformed extra field",
            m->name);
    return false;
  }
  return true;
}

/* Reads the central directory entry at *off into m and advances *off. */
static bool read_central(Archive *a, uint64_t *off, uint64_t cd_end, int idx, Member *m) {
  if (!in_range(*off, CENTRAL_SIZE, cd_end)) {
    tvs_set_err(a->err, a->errlen, "truncated .npz archive: central directory entry %d is cut off",
            idx);
    return false;
  }
  const unsigned char *c = a->data + *off;
  if (rd32(c) != SIG_CENTRAL) {
    tvs_set_err(a->err, a->errlen, "bad .npz archive: bad signature of central directory entry %d",
            idx);
    return false;
  }
  unsigned nlen = rd16(c + 28), xlen = rd16(c + 30), clen = rd16(c + 32);
  if (!in_range(*off + CENTRAL_SIZE, (uint64_t)nlen + xlen + clen, cd_end)) {
    tvs_set_err(a->err, a->errlen, "truncated .npz archive: central directory entry %d is cut off",
            idx);
    return false;
  }
  memset(m, 0, sizeof *m);
  m->name_p = c + CENTRAL_SIZE;
  m->name_len = nlen;
  size_t shown = nlen < sizeof m->name - 1 ? nlen : sizeof m->name - 1;
  memcpy(m->name, m->name_p, shown);
  for (size_t i = 0; i < shown; i++)
    if ((unsigned char)m->name[i] < 0x20) m->name[i] = '?';
  m->flags = rd16(c + 8);
  m->method = rd16(c + 10);
  m->crc = rd32(c + 16);
  m->csize = rd32(c + 20);
  m->usize = rd32(c + 24);
  m->local_off = rd32(c + 42);
  if (rd16(c + 34) != 0 && rd16(c + 34) != 0xFFFF) {
    tvs_set_err(a->err, a->errlen, "multi-disk ZIP archives are not supported");
    return false;
  }
  if (!apply_zip64_extra(a, m, c + CENTRAL_SIZE + nlen, xlen, true)) return false;
  *off += CENTRAL_SIZE + (uint64_t)nlen + xlen + clen;
  return true;
}

/* Checks m's name: NAME.npy with NAME free of path components. */
static bool check_name(Archive *a, const Member *m) {
  const unsigned char *n = m->name_p;
  size_t len = m->name_len;
  if (memchr(n, '\0', len)) {
    tvs_set_err(a->err, a->errlen, "bad .npz archive: member name '%s' contains a NUL byte", m->name);
    return false;
  }
  if (len < 5 || memcmp(n + len - 4, ".npy", 4) != 0) {
    tvs_set_err(a->err, a->errlen, "member '%s' is not a .npy file (its name must end in .npy)",
            m->name);
    return false;
  }
  if (memchr(n, '/', len) || memchr(n, '\\', len) || (len == 5 && n[0] == '.') ||
      (len == 6 && n[0] == '.' && n[1] == '.')) {
    tvs_set_err(a->err, a->errlen, "member name '%s' has path components", m->name);
    return false;
  }
  return true;
}

/* Locates m's data through its local header; sets *data. */
static bool locate_data(Archive *a, Member *m, const unsigned char **data) {
  if (m->flags & 1) {
    tvs_set_err(a->err, a->errlen, "member '%s' is encrypted (not supported)", m->name);
    return false;
  }
  if (m->method != 0 && m->method != 8) {
    tvs_set_err(a->err, a->errlen,
            "member '%s' uses unsupported compression method %u (only stored and deflate)",
            m->name, m->method);
    return false;
  }
  if (!in_range(m->local_off, LOCAL_SIZE, a->cd_off)) {
    tvs_set_err(a->err, a->errlen, "truncated .npz archive: local header of member '%s' out of range",
            m->name);
    return false;
  }
  const unsigned char *l = a->data + m->local_off;
  if (rd32(l) != SIG_LOCAL) {
    tvs_set_err(a->err, a->errlen, "bad .npz archive: bad local header signature of member '%s'",
            m->name);
    return false;
  }
  unsigned nlen = rd16(l + 26), xlen = rd16(l + 28);
  uint64_t start = m->local_off + LOCAL_SIZE + nlen + xlen;
  if (!in_range(m->local_off + LOCAL_SIZE, (uint64_t)nlen + xlen, a->cd_off)) {
    tvs_set_err(a->err, a->errlen, "truncated .npz archive: local header of member '%s' is cut off",
            m->name);
    return false;
  }
  if (nlen != m->name_len || memcmp(l + LOCAL_SIZE, m->name_p, nlen) != 0) {
    tvs_set_err(a->err, a->errlen,
            "bad .npz archive: local header name of member '%s' differs from the directory",
            m->name);
    return false;
  }
  if (rd16(l + 8) != m->method) {
    tvs_set_err(a->err, a->errlen,
            "bad .npz archive: local header of member '%s' disagrees on the compression method",
            m->name);
    return false;
  }
  if (!in_range(start, m->csize, a->cd_off)) {
    tvs_set_err(a->err, a->errlen, "truncated .npz archive: data of member '%s' runs past its end",
            m->name);
    return false;
  }
  *data = a->data + start;
  return true;
}

/* Inflates m's raw deflate stream into out[0..m->usize). */
static bool inflate_member(Archive *a, const Member *m, const unsigned char *src,
                           unsigned char *out) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
    tvs_set_err(a->err, a->errlen, "member '%s': cannot start zlib", m->name);
    return false;
  }
  uint64_t in_left = m->csize, out_left = m->usize;
  zs.next_in = (Bytef *)(uintptr_t)src;
  zs.next_out = out;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (zs.avail_in == 0) {
      zs.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
      in_left -= zs.avail_in;
    }
    if (zs.avail_out == 0) {
      zs.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
      out_left -= zs.avail_out;
    }
    rc = inflate(&zs, Z_NO_FLUSH); /* Z_BUF_ERROR: no progress, nothing left to refill */
  }
  bool ok = rc == Z_STREAM_END && zs.avail_out == 0 && out_left == 0;
  if (!ok) {
    if (rc == Z_DATA_ERROR)
      tvs_set_err(a->err, a->errlen, "member '%s': corrupt deflate data (%s)", m->name,
              zs.msg ? zs.msg : "zlib");
    else if (rc == Z_STREAM_END)
      tvs_set_err(a->err, a->errlen, "member '%s': inflates to fewer bytes than its recorded size",
              m->name);
    else if (zs.avail_out == 0 && out_left == 0)
      tvs_set_err(a->err, a->errlen, "member '%s': inflates to more bytes than its recorded size",
              m->name);
    else
      tvs_set_err(a->err, a->errlen, "member '%s': truncated deflate data", m->name);
  }
  inflateEnd(&zs);
  return ok;
}

/* Decodes one member (stored or deflated, CRC checked) into an array. */
static TvsNDArray *read_member(Archive *a, Member *m) {
  const unsigned char *src;
  if (!locate_data(a, m, &src)) return NULL;
  if (m->method == 0 && m->csize != m->usize) {
    tvs_set_err(a->err, a->errlen,
            "bad .npz archive: stored member '%s' has different compressed and plain sizes",
            m->name);
    return NULL;
  }
  /* deflate's best ratio is ~1032:1 (numpy's 4.4 GB of zeros: 1029:1) */
  if (m->method == 8 && (m->usize / 1040 > m->csize + 64 || m->usize > (uint64_t)PTRDIFF_MAX / 2)) {
    tvs_set_err(a->err, a->errlen,
            "bad .npz archive: member '%s' claims %llu plain bytes from %llu deflated bytes",
            m->name, (unsigned long long)m->usize, (unsigned long long)m->csize);
    return NULL;
  }
  unsigned char *buf = NULL;
  const unsigned char *plain = src;
  if (m->method == 8) {
    buf = malloc(m->usize ? (size_t)m->usize : 1);
    if (!buf) {
      tvs_set_err(a->err, a->errlen, "member '%s': out of memory", m->name);
      return NULL;
    }
    if (!inflate_member(a, m, src, buf)) {
      free(buf);
      return NULL;
    }
    plain = buf;
  }
  uint32_t crc = (uint32_t)crc32_z(crc32_z(0, Z_NULL, 0), plain, (z_size_t)m->usize);
  TvsNDArray *arr = NULL;
  if (crc != m->crc) {
    tvs_set_err(a->err, a->errlen, "member '%s': CRC-32 mismatch (recorded %08x, computed %08x)",
            m->name, (unsigned)m->crc, (unsigned)crc);
  } else {
    char msg[256];
    arr = tvs_npy_parse(plain, (size_t)m->usize, msg, sizeof msg);
    if (!arr) tvs_set_err(a->err, a->errlen, "member '%s': %s", m->name, msg);
  }
  free(buf);
  return arr;
}

static int cmp_entry_names(const void *x, const void *y) {
  return strcmp((*(const TvsNpzEntry *const *)x)->name, (*(const TvsNpzEntry *const *)y)->name);
}

/* Rejects duplicate names (sorting pointers, so hostile counts stay fast). */
static bool check_duplicates(Archive *a, const TvsNpz *z) {
  if (z->count < 2) return true;
  const TvsNpzEntry **v = malloc((size_t)z->count * sizeof *v);
  if (!v) {
    tvs_set_err(a->err, a->errlen, "out of memory");
    return false;
  }
  for (int i = 0; i < z->count; i++) v[i] = &z->entries[i];
  qsort(v, (size_t)z->count, sizeof *v, cmp_entry_names);
  bool ok = true;
  for (int i = 1; i < z->count && ok; i++) {
    if (!strcmp(v[i - 1]->name, v[i]->name)) {
      tvs_set_err(a->err, a->errlen, "duplicate member '%.200s.npy'", v[i]->name);
      ok = false;
    }
  }
  free(v);
  return ok;
}

/* Reads every central directory entry and its member into z: first the
 * names (checked, duplicates rejected before anything is inflated), then the
 * members. */
static bool read_members(Archive *a, TvsNpz *z) {
  uint64_t off = a->cd_off, cd_end = a->cd_off + a->cd_size;
  Member m;
  for (uint64_t i = 0; i < a->count; i++) {
    if (!read_central(a, &off, cd_end, (int)i, &m) || !check_name(a, &m)) return false;
    char *name = malloc(m.name_len - 3);
    if (!name) {
      tvs_set_err(a->err, a->errlen, "out of memory");
      return false;
    }
    memcpy(name, m.name_p, m.name_len - 4);
    name[m.name_len - 4] = '\0';
    z->entries[z->count++] = (TvsNpzEntry){name, NULL};
  }
  if (!check_duplicates(a, z)) return false;
  off = a->cd_off;
  for (int i = 0; i < z->count; i++) {
    if (!read_central(a, &off, cd_end, i, &m)) return false;
    z->entries[i].array = read_member(a, &m);
    if (!z->entries[i].array) return false;
  }
  return true;
}

TvsNpz *tvs_npz_parse(const unsigned char *data, size_t len, char *err, size_t errlen) {
  Archive a = {.data = data, .len = len, .err = err, .errlen = errlen};
  if (!read_end_record(&a)) return NULL;
  TvsNpz *z = calloc(1, sizeof *z);
  if (z) z->entries = calloc(a.count ? (size_t)a.count : 1, sizeof *z->entries);
  if (!z || !z->entries) {
    free(z);
    tvs_set_err(err, errlen, "out of memory");
    return NULL;
  }
  if (!read_members(&a, z)) {
    tvs_npz_free(z);
    return NULL;
  }
  return z;
}

/* Maps (or, where mapping fails, reads) the regular file fd of size len. */
static unsigned char *map_file(int fd, size_t len, bool *mapped) {
  *mapped = false;
  if (len == 0) return malloc(1);
  void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p != MAP_FAILED) {
    *mapped = true;
    return p;
  }
  unsigned char *buf = malloc(len);
  size_t got = 0;
  while (buf && got < len) {
    ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO; /* the file shrank */
      free(buf);
      return NULL;
    }
    got += (size_t)n;
  }
  return buf;
}

TvsNpz *tvs_npz_load(const char *path, char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    tvs_set_err(err, errlen, "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  const char *why = NULL;
  if (fstat(fd, &st) != 0)
    why = strerror(errno);
  else if (S_ISDIR(st.st_mode))
    why = "it is a directory";
  else if (!S_ISREG(st.st_mode))
    why = "not a regular file";
  else if ((uint64_t)st.st_size > (uint64_t)PTRDIFF_MAX)
    why = "too large";
  if (why) {
    tvs_set_err(err, errlen, "cannot read '%s': %s", path, why);
    close(fd);
    return NULL;
  }
  size_t len = (size_t)st.st_size;
  bool mapped;
  unsigned char *buf = map_file(fd, len, &mapped);
  int map_errno = errno;
  close(fd);
  if (!buf) {
    tvs_set_err(err, errlen, "cannot read '%s': %s", path, strerror(map_errno));
    return NULL;
  }
  char msg[512];
  TvsNpz *z = tvs_npz_parse(buf, len, msg, sizeof msg);
  if (mapped)
    munmap(buf, len);
  else
    free(buf);
  if (!z) tvs_set_err(err, errlen, "%s: %s", path, msg);
  return z;
}

TvsNDArray *tvs_npz_find(const TvsNpz *z, const char *name) {
  for (int i = 0; z && i < z->count; i++)
    if (!strcmp(z->entries[i].name, name)) return z->entries[i].array;
  return NULL;
}

void tvs_npz_free(TvsNpz *z) {
  if (!z) return;
  for (int i = 0; i < z->count; i++) {
    free(z->entries[i].name);
    tvs_ndarray_free(z->entries[i].array);
  }
  free(z->entries);
  free(z);
}

/* ----------------------------------------------------------------- write */

static void wr16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}
static void wr32(unsigned char *p, uint32_t v) {
  wr16(p, v & 0xFFFF);
  wr16(p + 2, v >> 16);
}
static void wr64(unsigned char *p, uint64_t v) {
  wr32(p, (uint32_t)v);
  wr32(p + 4, (uint32_t)(v >> 32));
}

/* The longest name the writer takes (np.load has no limit; ZIP's is 65531). */
#define MAX_NAME 1024

/* What the writer knows of one member. */
typedef struct OutMember {
  unsigned char local[LOCAL_SIZE + MAX_NAME + 4 + 20];  /* local header, NAME.npy, ZIP64 extra */
  size_t local_len;
  unsigned char npy[TVS_NPY_HEADER_MAX];
  size_t npy_len, data_len;
  const void *data;
  uint32_t crc;
  uint64_t offset, size;  /* of the local header; of the member (npy header + data) */
} OutMember;

static bool check_out_name(const char *name, int i, char *err, size_t errlen) {
  size_t n = strlen(name);
  if (n == 0 || n > MAX_NAME) {
    tvs_set_err(err, errlen, "cannot save array %d to .npz: its name is empty or too long", i);
    return false;
  }
  if (strchr(name, '/') || strchr(name, '\\') || !strcmp(name, ".") || !strcmp(name, "..")) {
    tvs_set_err(err, errlen, "cannot save '%s' to .npz: the name has path components", name);
    return false;
  }
  return true;
}

/* General purpose flag bit 11 (the name is UTF-8) for non-ASCII names, as
 * Python's zipfile sets it; without it np.load decodes the name as cp437. */
static unsigned utf8_flag(const char *name) {
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    if (*p >= 0x80) return 0x800;
  return 0;
}

/* Fills m's local header for name at offset. Version 4.5 where ZIP64 is used. */
static void build_local(OutMember *m, const char *name) {
  size_t nlen = strlen(name) + 4;
  bool z64 = m->size >= zip64_limit;
  unsigned char *l = m->local;
  memset(l, 0, LOCAL_SIZE);
  wr32(l, SIG_LOCAL);
  wr16(l + 4, z64 ? 45 : 20);
  wr16(l + 6, utf8_flag(name));
  wr16(l + 12, 0x21); /* 1980-01-01, as np.savez writes */
  wr32(l + 14, m->crc);
  wr32(l + 18, z64 ? 0xFFFFFFFFu : (uint32_t)m->size);
  wr32(l + 22, z64 ? 0xFFFFFFFFu : (uint32_t)m->size);
  wr16(l + 26, (unsigned)nlen);
  wr16(l + 28, z64 ? 20 : 0);
  memcpy(l + LOCAL_SIZE, name, nlen - 4);
  memcpy(l + LOCAL_SIZE + nlen - 4, ".npy", 4);
  m->local_len = LOCAL_SIZE + nlen;
  if (z64) {
    unsigned char *x = l + m->local_len;
    wr16(x, 1);
    wr16(x + 2, 16);
    wr64(x + 4, m->size);
    wr64(x + 12, m->size);
    m->local_len += 20;
  }
}

/* Appends m's central directory entry to cd (room for CENTRAL_SIZE + name +
 * 28 bytes); returns its length. */
static size_t build_central(unsigned char *cd, const OutMember *m) {
  unsigned nlen = rd16(m->local + 26);
  bool zsize = m->size >= zip64_limit, zoff = m->offset >= zip64_limit;
  unsigned xlen = (zsize || zoff) ? 4 + (zsize ? 16 : 0) + (zoff ? 8 : 0) : 0;
  memset(cd, 0, CENTRAL_SIZE);
  wr32(cd, SIG_CENTRAL);
  wr16(cd + 4, 3 << 8 | 45); /* made by Unix, spec 4.5 */
  wr16(cd + 6, xlen ? 45 : 20);
  wr16(cd + 8, rd16(m->local + 6));
  wr16(cd + 14, 0x21);
  wr32(cd + 16, m->crc);
  wr32(cd + 20, zsize ? 0xFFFFFFFFu : (uint32_t)m->size);
  wr32(cd + 24, zsize ? 0xFFFFFFFFu : (uint32_t)m->size);
  wr16(cd + 28, nlen);
  wr16(cd + 30, xlen);
  wr32(cd + 38, 0644u << 16); /* rw-r--r-- regular file */
  wr32(cd + 42, zoff ? 0xFFFFFFFFu : (uint32_t)m->offset);
  memcpy(cd + CENTRAL_SIZE, m->local + LOCAL_SIZE, nlen);
  unsigned char *x = cd + CENTRAL_SIZE + nlen;
  if (xlen) {
    wr16(x, 1);
    wr16(x + 2, xlen - 4);
    x += 4;
    if (zsize) {
      wr64(x, m->size);
      wr64(x + 8, m->size);
      x += 16;
    }
    if (zoff) wr64(x, m->offset);
  }
  return CENTRAL_SIZE + nlen + xlen;
}

/* Writes the end records (ZIP64 ones where needed) into end; returns length. */
static size_t build_end(unsigned char *end, uint64_t count, uint64_t cd_off, uint64_t cd_size) {
  size_t n = 0;
  bool z64 = count >= 0xFFFF || cd_off >= zip64_limit || cd_size >= zip64_limit;
  if (z64) {
    memset(end, 0, EOCD64_SIZE + LOCATOR64_SIZE);
    wr32(end, SIG_EOCD64);
    wr64(end + 4, EOCD64_SIZE - 12);
    wr16(end + 12, 3 << 8 | 45);
    wr16(end + 14, 45);
    wr64(end + 24, count);
    wr64(end + 32, count);
    wr64(end + 40, cd_size);
    wr64(end + 48, cd_off);
    unsigned char *loc = end + EOCD64_SIZE;
    wr32(loc, SIG_LOCATOR64);
    wr64(loc + 8, cd_off + cd_size);
    wr32(loc + 16, 1);
    n = EOCD64_SIZE + LOCATOR64_SIZE;
  }
  unsigned char *e = end + n;
  memset(e, 0, EOCD_SIZE);
  wr32(e, SIG_EOCD);
  wr16(e + 8, z64 ? 0xFFFF : (unsigned)count);
  wr16(e + 10, z64 ? 0xFFFF : (unsigned)count);
  wr32(e + 12, z64 ? 0xFFFFFFFFu : (uint32_t)cd_size);
  wr32(e + 16, z64 ? 0xFFFFFFFFu : (uint32_t)cd_off);
  return n + EOCD_SIZE;
}

/* Prepares every member (header, CRC, offsets); false with a message. */
static bool prepare_members(OutMember *ms, int count, const char *const *names,
                            const DLTensor *const *tensors, char *err, size_t errlen) {
  uint64_t off = 0;
  for (int i = 0; i < count; i++) {
    OutMember *m = &ms[i];
    if (!check_out_name(names[i], i, err, errlen)) return false;
    for (int j = 0; j < i; j++) {
      if (!strcmp(names[i], names[j])) {
        tvs_set_err(err, errlen, "cannot save to .npz: the name '%s' is used twice", names[i]);
        return false;
      }
    }
    char msg[256];
    m->npy_len = tvs_npy_header(tensors[i], m->npy, &m->data_len, msg, sizeof msg);
    if (!m->npy_len) {
      tvs_set_err(err, errlen, "cannot save '%s' to .npz: %s", names[i], msg);
      return false;
    }
    m->data = (const unsigned char *)tensors[i]->data + tensors[i]->byte_offset;
    m->size = m->npy_len + m->data_len;
    uLong crc = crc32_z(crc32_z(0, Z_NULL, 0), m->npy, m->npy_len);
    m->crc = (uint32_t)crc32_z(crc, m->data, m->data_len);
    m->offset = off;
    build_local(m, names[i]);
    off += m->local_len + m->size;
  }
  return true;
}

int tvs_npz_save(const char *path, int count, const char *const *names,
                 const DLTensor *const *tensors, char *err, size_t errlen) {
  if (count < 0 || count > (INT_MAX - 1) / 3) {
    tvs_set_err(err, errlen, "cannot save %d arrays to .npz", count);
    return -1;
  }
  OutMember *ms = calloc(count ? (size_t)count : 1, sizeof *ms);
  const void **parts = malloc(((size_t)count * 3 + 2) * sizeof *parts);
  size_t *sizes = malloc(((size_t)count * 3 + 2) * sizeof *sizes);
  unsigned char *cd = malloc((size_t)count * (CENTRAL_SIZE + MAX_NAME + 4 + 28) + 1);
  unsigned char end[EOCD64_SIZE + LOCATOR64_SIZE + EOCD_SIZE];
  int rc = -1;
  if (!ms || !parts || !sizes || !cd) {
    tvs_set_err(err, errlen, "out of memory");
    goto done;
  }
  if (!prepare_members(ms, count, names, tensors, err, errlen)) goto done;
  size_t cd_len = 0;
  int np = 0;
  for (int i = 0; i < count; i++) {
    cd_len += build_central(cd + cd_len, &ms[i]);
    parts[np] = ms[i].local, sizes[np++] = ms[i].local_len;
    parts[np] = ms[i].npy, sizes[np++] = ms[i].npy_len;
    parts[np] = ms[i].data, sizes[np++] = ms[i].data_len;
  }
  uint64_t cd_off = count ? ms[count - 1].offset + ms[count - 1].local_len + ms[count - 1].size : 0;
  parts[np] = cd, sizes[np++] = cd_len;
  parts[np] = end, sizes[np++] = build_end(end, (uint64_t)count, cd_off, cd_len);
  rc = tvs_write_file_atomic(path, parts, sizes, np, err, errlen);
done:
  free(ms);
  free(parts);
  free(sizes);
  free(cd);
  return rc;
}
