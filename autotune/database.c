/* database.c - the tuning database: one JSON object per line (TVM's
 * JSONDatabase keeps tuning records the same way), append-only.
 *
 *   {"workload": "9f3c...", "func": "mm", "target": "llvm -mcpu=znver4 -num-cores=2",
 *    "threads": 1, "status": "ok", "median_ms": 20.1, "gflops": 106.8,
 *    "decisions": [[2], [4, 2, 8, 16], ...], "trace": "b0 = sch.get_block(...)\n...",
 *    "error": "", "prim_func": "@T.prim_func\ndef mm(...", "version": "tvs 0.1.0"}
 *
 * A record is written with one write() on an O_APPEND descriptor and
 * fsync'd, so a crash leaves at most a torn last line; loading skips lines
 * that do not parse and counts them.  Several runs may append to one file;
 * the best record of a workload is the fastest "ok" one. */
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autotune/tune.h"
#include "base/json_text.h"
#include "base/util.h"
#include "base/vec.h"
#include "ir/structural_equal.h"
#include "sched/schedule.h"

#define TVS_VERSION "tvs 0.1.0"

/* The key ignores "op_pattern": a graph pass's note for fusion, which the
 * graph passes add again when they run over an already fused module (`tvs
 * tune -o` output), not part of the kernel. */
char *tune_workload_key(const TirFunc *f) {
  const IrValue *a = f->attrs;
  if (!a || a->kind != IRV_DICT || !irv_dict_get(a, "op_pattern"))
    return xasprintf("%016llx", (unsigned long long)shash_tir_func(f, true));
  IrHeap *h = ir_heap_new();
  const char **keys = ir_alloc(h, (size_t)a->n * sizeof *keys);
  IrValue **vals = ir_alloc(h, (size_t)a->n * sizeof *vals);
  int n = 0;
  for (int i = 0; i < a->n; i++)
    if (strcmp(a->keys[i], "op_pattern")) keys[n] = a->keys[i], vals[n++] = a->items[i];
  TirFunc g = *f;
  g.attrs = irv_dict(h, keys, vals, n);
  char *key = xasprintf("%016llx", (unsigned long long)shash_tir_func(&g, true));
  ir_heap_release(h);
  return key;
}

char *tune_target_string(void) {
  char *cpu = LLVMGetHostCPUName();
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  char *s = xasprintf("llvm -mcpu=%s -num-cores=%ld", cpu ? cpu : "generic", cores);
  LLVMDisposeMessage(cpu);
  return s;
}

/* ---------------------------------------------------------------- writing */

int tune_db_append(const char *path, const TuneRecord *rec) {
  StrBuf sb;
  sb_init(&sb);
  char dec[2048];
  tune_decisions_json(&rec->dec, dec, sizeof dec);
  sb_puts(&sb, "{\"workload\": ");
  json_put_string(&sb, rec->workload);
  sb_puts(&sb, ", \"func\": ");
  json_put_string(&sb, rec->func);
  sb_puts(&sb, ", \"target\": ");
  json_put_string(&sb, rec->target);
  sb_printf(&sb, ", \"threads\": %d, \"status\": ", rec->threads);
  json_put_string(&sb, rec->status);
  sb_printf(&sb, ", \"median_ms\": %.6g, \"gflops\": %.6g, \"decisions\": %s, \"trace\": ", rec->median_ms,
            rec->gflops, dec);
  json_put_string(&sb, rec->trace);
  sb_puts(&sb, ", \"error\": ");
  json_put_string(&sb, rec->error ? rec->error : "");
  if (rec->prim_func) {
    sb_puts(&sb, ", \"prim_func\": ");
    json_put_string(&sb, rec->prim_func);
  }
  sb_puts(&sb, ", \"version\": \"" TVS_VERSION "\"}\n");
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  int rc = -1;
  if (fd >= 0) {
    rc = write(fd, sb.data, sb.len) == (ssize_t)sb.len ? 0 : -1;
    int e = errno;
    fsync(fd);
    if (close(fd) != 0 && rc == 0) rc = -1, e = errno;
    errno = e;
  }
  sb_free(&sb);
  return rc;
}

/* ---------------------------------------------------------------- reading */

/* The value after "key": in line, or NULL. */
static const char *find_key(const char *line, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = strstr(line, pat);
  return p ? p + strlen(pat) : NULL;
}

/* A JSON string starting at p (at its quote); NULL when malformed. */
static char *parse_string(const char *p) {
  if (!p || *p != '"') return NULL;
  StrBuf sb;
  sb_init(&sb);
  for (p++; *p && *p != '"'; p++) {
    if (*p != '\\') {
      sb_putc(&sb, *p);
      continue;
    }
    p++;
    if (*p == 'n') sb_putc(&sb, '\n');
    else if (*p == 't') sb_putc(&sb, '\t');
    else if (*p == 'u' && strlen(p) >= 5) {
      sb_putc(&sb, (char)strtol((char[5]){p[1], p[2], p[3], p[4], 0}, NULL, 16));
      p += 4;
    } else if (*p) sb_putc(&sb, *p);
    else break;
  }
  if (*p != '"') {
    sb_free(&sb);
    return NULL;
  }
  return sb_take(&sb);
}

static bool parse_decisions(const char *p, TuneDecisions *d) {
  memset(d, 0, sizeof *d);
  if (!p || *p != '[') return false;
  p++;
  while (*p == ' ' || *p == ',') p++;
  while (*p == '[' && d->n < TUNE_MAX_DECISIONS) {
    int k = d->n++;
    p++;
    while (*p && *p != ']') {
      char *end;
      long long v = strtoll(p, &end, 10);
      if (end == p) return false;
      if (d->len[k] < TUNE_MAX_TILE) d->v[k][d->len[k]++] = v;
      p = end;
      while (*p == ' ' || *p == ',') p++;
    }
    if (*p != ']') return false;
    d->tile[k] = d->len[k] > 1;
    p++;
    while (*p == ' ' || *p == ',') p++;
  }
  return *p == ']';
}

static void record_free(TuneRecord *r) {
  free(r->workload);
  free(r->func);
  free(r->target);
  free(r->trace);
  free(r->status);
  free(r->error);
  free(r->prim_func);
}

static bool parse_line(const char *line, TuneRecord *r) {
  memset(r, 0, sizeof *r);
  size_t n = strlen(line);
  if (n < 2 || line[0] != '{' || line[n - 1] != '}') return false;
  r->workload = parse_string(find_key(line, "workload"));
  r->func = parse_string(find_key(line, "func"));
  r->target = parse_string(find_key(line, "target"));
  r->status = parse_string(find_key(line, "status"));
  r->trace = parse_string(find_key(line, "trace"));
  r->error = parse_string(find_key(line, "error"));
  r->prim_func = parse_string(find_key(line, "prim_func"));
  const char *p;
  if ((p = find_key(line, "threads"))) r->threads = atoi(p);
  if ((p = find_key(line, "median_ms"))) r->median_ms = strtod(p, NULL);
  if ((p = find_key(line, "gflops"))) r->gflops = strtod(p, NULL);
  bool ok = parse_decisions(find_key(line, "decisions"), &r->dec);
  if (ok && r->workload && r->func && r->status && r->trace) return true;
  record_free(r);
  return false;
}

int tune_db_load(const char *path, TuneDb *db) {
  memset(db, 0, sizeof *db);
  FILE *f = fopen(path, "r");
  if (!f) return errno == ENOENT ? 0 : -1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) > 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (!len) continue;
    TuneRecord r;
    if (!parse_line(line, &r)) {
      db->skipped++;
      continue;
    }
    size_t c = (size_t)db->cap;
    VEC_PUSH(db->r, db->n, c, r);
    db->cap = (int)c;
  }
  free(line);
  fclose(f);
  return 0;
}

void tune_db_free(TuneDb *db) {
  for (int i = 0; i < db->n; i++) record_free(&db->r[i]);
  free(db->r);
  memset(db, 0, sizeof *db);
}

const TuneRecord *tune_db_best(const TuneDb *db, const char *workload, int threads) {
  const TuneRecord *best = NULL;
  for (int i = 0; i < db->n; i++) {
    const TuneRecord *r = &db->r[i];
    if (strcmp(r->status, "ok") || strcmp(r->workload, workload) || (threads > 0 && r->threads != threads)) continue;
    if (!best || r->median_ms < best->median_ms) best = r;
  }
  return best;
}

const TuneRecord *tune_db_baseline(const TuneDb *db, const char *workload) {
  const TuneRecord *best = NULL;
  for (int i = 0; i < db->n; i++) {
    const TuneRecord *r = &db->r[i];
    if (strcmp(r->status, "baseline") || strcmp(r->workload, workload)) continue;
    if (!best || r->median_ms < best->median_ms) best = r;
  }
  return best;
}

int tune_db_top(const TuneDb *db, int k, int *idx) {
  int n = 0;
  for (int i = 0; i < db->n; i++) {
    if (strcmp(db->r[i].status, "ok")) continue;
    int j = n < k ? n++ : k;
    if (j == k && (k == 0 || db->r[i].gflops <= db->r[idx[k - 1]].gflops)) continue;
    if (j == k) j = k - 1;
    while (j > 0 && db->r[idx[j - 1]].gflops < db->r[i].gflops) idx[j] = idx[j - 1], j--;
    idx[j] = i;
  }
  return n;
}

int tune_db_apply(IrModule **m, const char *path, DiagCtx *diag) {
  TuneDb db;
  struct stat st;
  /* a missing database is empty to the tuner, which creates it; to a user
   * of its results it is a mistyped path */
  if (stat(path, &st) != 0 || tune_db_load(path, &db)) {
    diag_error(diag, span_none, "cannot read tuning database '%s': %s", path, strerror(errno));
    return -1;
  }
  /* A graph's tasks are its fused kernels: the records apply to the module
   * after fuse-tir (as `tvs tune -o` writes it; the graph passes leave such
   * a module unchanged), not to the functions the source names. */
  bool graph = false;
  for (int i = 0; i < (*m)->nfuncs; i++) graph |= (*m)->funcs[i].kind == IR_FUNC_RELAX;
  if (graph) {
    IrModule *fused = tune_graph_tasks_module(*m, diag);
    if (!fused) {
      tune_db_free(&db);
      return -1;
    }
    ir_module_free(*m);
    *m = fused;
  }
  int applied = 0;
  for (int i = 0; i < (*m)->nfuncs && applied >= 0; i++) {
    if ((*m)->funcs[i].kind != IR_FUNC_TIR) continue;
    char *key = tune_workload_key((*m)->funcs[i].tir);
    const TuneRecord *best = tune_db_best(&db, key, -1), *base = tune_db_baseline(&db, key);
    free(key);
    if (!best || (base && base->median_ms <= best->median_ms)) continue;
    IrModule *nm = sch_trace_replay(*m, best->trace, diag);
    if (!nm) {
      diag_error(diag, span_none, "tuning database '%s': the best record of '%s' does not replay", path,
                 (*m)->funcs[i].name);
      applied = -1;
      break;
    }
    ir_module_free(*m);
    *m = nm;
    applied++;
  }
  tune_db_free(&db);
  return applied;
}
