/* npu_isa.h - the simulated NPU (docs/npu.md): configuration, instruction
 * stream, text form and the cycle-counting simulator.
 *
 * A VTA-style accelerator: a GEMM core (BATCH x BLOCK_IN by BLOCK_OUT x
 * BLOCK_IN per cycle), a vector ALU on the accumulator, scratchpads filled by
 * 2-D strided DMA, and load/compute/store modules that synchronise through
 * four dependency-token queues.  Nothing here depends on the compiler: the
 * stream is plain data, written by codegen or by hand (the text form). */
#ifndef TVS_RUNTIME_NPU_ISA_H
#define TVS_RUNTIME_NPU_ISA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---- configuration --------------------------------------------------------- */

typedef struct NpuConfig {
  int batch;                 /* rows of the GEMM input tile (VTA's BATCH) */
  int block_in;              /* reduction width of the GEMM core (BLOCK_IN) */
  int block_out;             /* output width of the GEMM core (BLOCK_OUT) */
  int64_t inp_buff_bytes;    /* input scratchpad (int8) */
  int64_t wgt_buff_bytes;    /* weight scratchpad (int8) */
  int64_t acc_buff_bytes;    /* accumulator scratchpad (int32) */
  int64_t uop_buff_bytes;    /* micro-op cache (4 bytes a micro-op) */
  int64_t dma_bytes_per_cycle; /* DRAM bandwidth of each module's DMA port */
  int64_t dma_latency;       /* cycles before the first byte of a transfer */
  bool functional;           /* compute values (false: count cycles only) */
} NpuConfig;

/* VTA's default configuration (docs/npu.md). */
void npu_config_default(NpuConfig *c);
/* Reads a JSON object of the keys above (missing keys keep their value);
 * returns 0, or -1 with a message in err. */
int npu_config_parse_json(NpuConfig *c, const char *json, char *err, size_t errlen);
int npu_config_load(NpuConfig *c, const char *path, char *err, size_t errlen);

/* ---- instructions ---------------------------------------------------------- */

typedef enum NpuOpcode { NPU_LOAD, NPU_STORE, NPU_GEMM, NPU_ALU, NPU_FINISH } NpuOpcode;

/* Memories a LOAD/STORE moves; the unit of every address is one tile of it. */
typedef enum NpuMem {
  NPU_MEM_UOP, /* a micro-op (dst, src, wgt indices) */
  NPU_MEM_WGT, /* BLOCK_OUT x BLOCK_IN int8 */
  NPU_MEM_INP, /* BATCH x BLOCK_IN int8 */
  NPU_MEM_ACC, /* BATCH x BLOCK_OUT int32 */
  NPU_MEM_OUT, /* BATCH x BLOCK_OUT int8: a STORE of the accumulator narrowed */
  NPU_MEM_COUNT
} NpuMem;

typedef enum NpuAluOp { NPU_ALU_MIN, NPU_ALU_MAX, NPU_ALU_ADD, NPU_ALU_SHR, NPU_ALU_MUL } NpuAluOp;

/* The three modules and the token queues between neighbours. */
typedef enum NpuModule { NPU_MOD_LOAD, NPU_MOD_COMPUTE, NPU_MOD_STORE, NPU_MOD_COUNT } NpuModule;

/* Dependency flags: pop/push a token from/to the previous or next module. */
enum { NPU_POP_PREV = 1, NPU_POP_NEXT = 2, NPU_PUSH_PREV = 4, NPU_PUSH_NEXT = 8 };

typedef struct NpuMemInsn {
  NpuMem mem;
  int dram;                  /* index of the DRAM buffer (ignored for uops) */
  int64_t sram_base;         /* first scratchpad tile */
  int64_t dram_base;         /* first DRAM tile of the buffer */
  int64_t y_size, x_size;    /* rows, tiles a row */
  int64_t x_stride;          /* DRAM tiles between rows */
  int64_t y_pad0, y_pad1, x_pad0, x_pad1; /* zero tiles around a LOAD */
} NpuMemInsn;

/* GEMM and ALU: for o < iter_out, i < iter_in, u in [uop_bgn, uop_end):
 * dst = uop.dst + o*dst_out + i*dst_in (likewise src, wgt). */
typedef struct NpuLoopInsn {
  int64_t uop_bgn, uop_end;
  int64_t iter_out, iter_in;
  int64_t dst_out, dst_in, src_out, src_in, wgt_out, wgt_in;
  bool reset;                /* GEMM: zero the accumulator tiles */
  NpuAluOp alu;              /* ALU: the operation */
  bool use_imm;              /* ALU: imm instead of the src tile */
  int32_t imm;
} NpuLoopInsn;

typedef struct NpuInsn {
  NpuOpcode op;
  int deps;                  /* NPU_POP_* | NPU_PUSH_* */
  NpuMemInsn mem;            /* LOAD/STORE */
  NpuLoopInsn loop;          /* GEMM/ALU */
  int line;                  /* source line in the text form (0: none) */
} NpuInsn;

typedef struct NpuUop { int64_t dst, src, wgt; } NpuUop;

/* A DRAM buffer the stream names; data is given to npu_sim_run. */
typedef struct NpuBufDecl {
  char name[32];
  NpuMem mem;                /* its tile kind (inp, wgt, acc or out) */
  int64_t ntiles;
} NpuBufDecl;

/* The instruction stream plus its micro-ops (loaded from DRAM by LOAD.uop). */
typedef struct NpuProgram {
  NpuBufDecl *bufs; int nbufs, cap_bufs;
  NpuUop *uops; int64_t nuops, cap_uops;
  NpuInsn *insns; int64_t ninsns, cap_insns;
} NpuProgram;

void npu_program_init(NpuProgram *p);
void npu_program_free(NpuProgram *p);
int npu_program_add_buf(NpuProgram *p, const char *name, NpuMem mem, int64_t ntiles);
int64_t npu_program_add_uop(NpuProgram *p, int64_t dst, int64_t src, int64_t wgt);
NpuInsn *npu_program_add_insn(NpuProgram *p, NpuOpcode op);

/* The module an instruction runs on (VTA's fetch stage). */
NpuModule npu_insn_module(const NpuInsn *in);
const char *npu_mem_name(NpuMem m);
const char *npu_module_name(NpuModule m);

/* ---- text form (npu_isa_text.c) -------------------------------------------- */

/* Prints the program as text that npu_program_parse reads back. */
void npu_program_print(FILE *out, const NpuProgram *p);
/* Prints one instruction (no index, no newline). */
void npu_insn_print(FILE *out, const NpuInsn *in, const NpuProgram *p);
/* Parses text; errors read "NAME:LINE:COL: error: ..." in err. */
int npu_program_parse(NpuProgram *p, const char *name, const char *text, char *err, size_t errlen);

/* ---- simulator (npu_sim.c) ------------------------------------------------- */

typedef struct NpuReport {
  int64_t total_cycles;
  int64_t busy[NPU_MOD_COUNT];     /* cycles each module executed instructions */
  int64_t stall[NPU_MOD_COUNT];    /* cycles each module waited for a token */
  int64_t ninsns[NPU_MOD_COUNT];
  int64_t gemm_cycles;             /* cycles the GEMM core multiplied (not resets) */
  int64_t alu_cycles;
  int64_t dram_read_bytes, dram_write_bytes;
} NpuReport;

/* Runs p on DRAM buffers data[i] (p->bufs[i].ntiles tiles each, laid out as
 * tiles; NULL allowed when c->functional is false).  Returns 0, or -1 with a
 * message naming the failing instruction (bounds, flags, deadlock). */
int npu_sim_run(const NpuConfig *c, const NpuProgram *p, void *const *data, NpuReport *r,
                char *err, size_t errlen);
/* Bytes of one tile of m. */
int64_t npu_tile_bytes(const NpuConfig *c, NpuMem m);
/* GEMM utilisation in percent (gemm_cycles / total_cycles). */
double npu_report_utilisation(const NpuReport *r);
void npu_report_print(FILE *out, const NpuReport *r);

#endif
