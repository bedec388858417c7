/* target.c - the target a tvsc run compiles for: the host by default, or a
 * foreign --mtriple (all of LLVM's targets are then initialized and the CPU
 * defaults to "generic").  LLVM only warns about an unknown CPU or feature
 * and carries on; tvsc turns those warnings into errors by creating the
 * target machine once with stderr captured. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "driver/drv_internal.h"
#include "base/util.h"

static char *normalized(const char *triple) {
  char *n = LLVMNormalizeTargetTriple(triple);
  char *s = xstrdup(n);
  LLVMDisposeMessage(n);
  return s;
}

static char *host_triple(void) {
  char *t = LLVMGetDefaultTargetTriple();
  char *s = normalized(t);
  LLVMDisposeMessage(t);
  return s;
}

/* Creates (and disposes) a target machine with fd 2 redirected to a
 * temporary file; returns what LLVM printed (malloc'd, maybe empty). */
static char *target_machine_warnings(LLVMTargetRef target, const char *triple, const char *cpu,
                                     const char *features) {
  fflush(stderr);
  FILE *cap = tmpfile();
  int saved = cap ? dup(2) : -1;
  if (saved < 0 || dup2(fileno(cap), 2) < 0) {
    if (saved >= 0) close(saved);
    if (cap) fclose(cap);
    LLVMDisposeTargetMachine(LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelNone,
                                                     LLVMRelocPIC, LLVMCodeModelDefault));
    return xstrdup("");
  }
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelNone,
                                                    LLVMRelocPIC, LLVMCodeModelDefault);
  LLVMDisposeTargetMachine(tm);
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

/* Reports each "'X' is not a recognized feature/processor" line as an error
 * (LLVM repeats the processor line: each line is reported once). */
static int report_warnings(const char *text, const char *triple, DiagCtx *d) {
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

int drv_prepare_target(CgOptions *cg, bool *cross, DiagCtx *d) {
  char *host = host_triple();
  char *want = cg->triple && cg->triple[0] ? normalized(cg->triple) : xstrdup(host);
  *cross = strcmp(host, want) != 0;
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  if (*cross) {
    LLVMInitializeAllTargetInfos();
    LLVMInitializeAllTargets();
    LLVMInitializeAllTargetMCs();
    LLVMInitializeAllAsmPrinters();
    if (!cg->mcpu || !cg->mcpu[0] || !strcmp(cg->mcpu, "native")) cg->mcpu = "generic";
  }
  LLVMTargetRef target;
  char *err = NULL;
  int rc = 0;
  if (LLVMGetTargetFromTriple(want, &target, &err)) {
    diag_error(d, span_none, "unknown target triple '%s': %s", cg->triple ? cg->triple : want,
               err ? err : "not supported by this LLVM");
    LLVMDisposeMessage(err);
    rc = -1;
  } else {
    char *hostcpu = NULL;
    const char *cpu = cg->mcpu;
    if (!cpu || !cpu[0] || !strcmp(cpu, "native")) cpu = hostcpu = LLVMGetHostCPUName();
    char *warn = target_machine_warnings(target, want, cpu, cg->mattr ? cg->mattr : "");
    rc = report_warnings(warn, want, d);
    free(warn);
    if (hostcpu) LLVMDisposeMessage(hostcpu);
  }
  free(host);
  free(want);
  return rc;
}
