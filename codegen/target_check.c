/* target_check.c - the one check of a target CPU and feature string before
 * any code is generated for them (tvsc, tvs show, the C API: every path
 * through cg_build, and driver/target.c for foreign triples).
 *
 * LLVM only warns about an unknown CPU or feature and carries on, and a
 * known feature that contradicts the triple (-64bit-mode, --mcpu i386 on
 * x86_64) aborts the process deep inside instruction selection.  So the
 * check (1) creates the target machine once with stderr captured and turns
 * "'X' is not a recognized ..." into errors, then (2) compiles a small probe
 * function (integer, float and vector arithmetic, a call) in a forked child,
 * where a fatal LLVM error can only end the child.  Results are cached per
 * (triple, cpu, features) for the process. */
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "base/vec.h"
#include "codegen/cg_internal.h"

/* Runs `fn(arg)` with fd 2 redirected to a temporary file; returns what was
 * printed there (malloc'd, maybe empty). */
static char *capture_stderr(void (*fn)(void *), void *arg) {
  fflush(stderr);
  FILE *cap = tmpfile();
  int saved = cap ? dup(2) : -1;
  if (saved < 0 || dup2(fileno(cap), 2) < 0) {
    if (saved >= 0) close(saved);
    if (cap) fclose(cap);
    fn(arg);
    return xstrdup("");
  }
  fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  StrBuf sb;
  sb_init(&sb);
  rewind(cap);
  char buf[512];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, cap)) > 0) sb_putn(&sb, buf, n);
  fclose(cap);
  return sb_take(&sb);
}

typedef struct {
  LLVMTargetRef target;
  const char *triple, *cpu, *features;
} TmSpec;

static LLVMTargetMachineRef make_tm(const TmSpec *s) {
  return LLVMCreateTargetMachine(s->target, s->triple, s->cpu, s->features, LLVMCodeGenLevelDefault, LLVMRelocPIC,
                                 LLVMCodeModelDefault);
}

static void create_and_dispose(void *arg) { LLVMDisposeTargetMachine(make_tm(arg)); }

/* Reports each "'X' is not a recognized feature/processor" line once. */
static int report_unknown_names(const char *text, const char *triple, DiagCtx *d) {
  int bad = 0;
  char **seen = NULL;
  int nseen = 0, capseen = 0;
  for (const char *p = text; *p;) {
    const char *eol = strchr(p, '\n');
    char *line = eol ? xstrndup(p, (size_t)(eol - p)) : xstrdup(p);
    p = eol ? eol + 1 : p + strlen(p);
    char *q1 = strchr(line, '\''), *q2 = q1 ? strchr(q1 + 1, '\'') : NULL;
    bool feature = q2 && strstr(q2, "not a recognized feature");
    bool cpu = q2 && strstr(q2, "not a recognized processor");
    bool dup = false;
    for (int i = 0; i < nseen && !dup; i++) dup = !strcmp(seen[i], line);
    if ((feature || cpu) && !dup) {
      diag_error(d, span_none, "unknown %s '%.*s' for target %s (llc-14 -mtriple=%s -%s=help lists them)",
                 feature ? "--mattr feature" : "--mcpu CPU", (int)(q2 - q1 - 1), q1 + 1, triple, triple,
                 feature ? "mattr" : "mcpu");
      bad = 1;
    }
    VEC_PUSH(seen, nseen, capseen, line);
  }
  for (int i = 0; i < nseen; i++) free(seen[i]);
  free(seen);
  return bad ? -1 : 0;
}

/* The probe: i64 and i32 arithmetic with division, float and double math,
 * conversions, a <4 x float> loop body and a call, as generated code uses. */
static LLVMModuleRef probe_module(LLVMContextRef c) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tvs_probe", c);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c), i32 = LLVMInt32TypeInContext(c);
  LLVMTypeRef f32 = LLVMFloatTypeInContext(c), f64 = LLVMDoubleTypeInContext(c);
  LLVMTypeRef v4 = LLVMVectorType(f32, 4), pf = LLVMPointerType(f32, 0);
  LLVMTypeRef ps[] = {pf, i64, i64};
  LLVMTypeRef fty = LLVMFunctionType(i32, ps, 3, 0);
  LLVMValueRef fn = LLVMAddFunction(m, "tvs_probe", fty);
  LLVMTypeRef ety = LLVMFunctionType(f64, &f64, 1, 0);
  LLVMValueRef ext = LLVMAddFunction(m, "tvs_probe_ext", ety);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, fn, "entry"));
  LLVMValueRef p = LLVMGetParam(fn, 0), x = LLVMGetParam(fn, 1), y = LLVMGetParam(fn, 2);
  LLVMValueRef q = LLVMBuildAdd(b, LLVMBuildSDiv(b, x, y, ""), LLVMBuildSRem(b, x, y, ""), "");
  LLVMValueRef q32 = LLVMBuildUDiv(b, LLVMBuildTrunc(b, q, i32, ""), LLVMBuildTrunc(b, y, i32, ""), "");
  LLVMValueRef vp = LLVMBuildBitCast(b, p, LLVMPointerType(v4, 0), "");
  LLVMValueRef v = LLVMBuildLoad2(b, v4, vp, "");
  LLVMBuildStore(b, LLVMBuildFMul(b, LLVMBuildFAdd(b, v, v, ""), v, ""), vp);
  LLVMValueRef s = LLVMBuildFPExt(b, LLVMBuildLoad2(b, f32, p, ""), f64, "");
  LLVMValueRef d = LLVMBuildFDiv(b, LLVMBuildSIToFP(b, q, f64, ""), s, "");
  LLVMValueRef r = LLVMBuildCall2(b, ety, ext, &d, 1, "");
  LLVMBuildStore(b, LLVMBuildFPTrunc(b, r, f32, ""), p);
  LLVMBuildRet(b, LLVMBuildAdd(b, q32, LLVMBuildFPToSI(b, r, i32, ""), ""));
  LLVMDisposeBuilder(b);
  return m;
}

/* In a child process: generates code for the probe; exits 0 when LLVM got
 * through, else LLVM has aborted (or exited) with its message on fd 2. */
static void probe_child(const TmSpec *s) {
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = probe_module(c);
  LLVMTargetMachineRef tm = make_tm(s);
  LLVMSetTarget(m, s->triple);
  char *err = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &err, &buf)) {
    fprintf(stderr, "%s\n", err ? err : "code generation failed");
    _exit(1);
  }
  _exit(0);
}

/* The first "LLVM ERROR: ..." line of `text` (or its first line). */
static char *first_error_line(const char *text) {
  const char *p = strstr(text, "LLVM ERROR: ");
  p = p ? p + strlen("LLVM ERROR: ") : text;
  size_t n = strcspn(p, "\n");
  return n ? xstrndup(p, n) : xstrdup("LLVM aborted");
}

/* Forks the probe; 0 when code generation works, else -1 with an error. */
static int probe(const TmSpec *s, DiagCtx *d) {
  FILE *cap = tmpfile();
  if (!cap) return 0; /* no way to run it in isolation: let codegen try */
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    fclose(cap);
    return 0;
  }
  if (pid == 0) {
    dup2(fileno(cap), 2);
    probe_child(s);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
  }
  int rc = 0;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    StrBuf sb;
    sb_init(&sb);
    rewind(cap);
    char buf[512];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, cap)) > 0) sb_putn(&sb, buf, n);
    char *text = sb_take(&sb);
    char *line = first_error_line(text);
    /* the host's feature list is long: name the features only when short */
    bool brief = strlen(s->features) <= 80;
    diag_error(d, span_none, "LLVM cannot generate code for target %s with --mcpu '%s' and %s%s%s (LLVM: %s)",
               s->triple, s->cpu, brief ? "--mattr '" : "these --mattr features", brief ? s->features : "",
               brief ? "'" : "", line);
    free(line);
    free(text);
    rc = -1;
  }
  fclose(cap);
  return rc;
}

/* Combinations that passed: "triple\ncpu\nfeatures" (kept for the process). */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static char **checked;
static int nchecked, capchecked;

static bool already_checked(const char *key) {
  pthread_mutex_lock(&cache_lock);
  bool hit = false;
  for (int i = 0; i < nchecked && !hit; i++) hit = !strcmp(checked[i], key);
  pthread_mutex_unlock(&cache_lock);
  return hit;
}

int cg_check_target(const char *triple, const char *cpu, const char *features, DiagCtx *d) {
  cg_init_llvm();
  char *key = xasprintf("%s\n%s\n%s", triple, cpu ? cpu : "", features ? features : "");
  if (already_checked(key)) {
    free(key);
    return 0;
  }
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    diag_error(d, span_none, "unknown target triple '%s': %s", triple, err ? err : "not supported by this LLVM");
    LLVMDisposeMessage(err);
    free(key);
    return -1;
  }
  TmSpec s = {target, triple, cpu ? cpu : "", features ? features : ""};
  char *warn = capture_stderr(create_and_dispose, &s);
  int rc = report_unknown_names(warn, triple, d);
  free(warn);
  if (!rc) rc = probe(&s, d);
  if (rc) {
    free(key);
    return rc;
  }
  pthread_mutex_lock(&cache_lock);
  VEC_PUSH(checked, nchecked, capchecked, key);
  pthread_mutex_unlock(&cache_lock);
  return 0;
}
