/* conv2d_bench.c - the convolutions of ResNet-18 (batch 1, 224x224, NCHW fp32):
 * TVS's conv2d prim_func under the default CPU schedule against oneDNN.
 *
 * For each distinct conv2d layer it generates the prim_func that LegalizeOps
 * makes of R.nn.conv2d (TOPI's form and names: a `pad_temp` block, then a
 * `conv2d_nchw` block over nn, ff, yy, xx, rc, ry, rx), applies
 * the default schedule that default_schedule() picks from
 * stdlib/schedules/conv2d_nchw_*.sched.tvs (by the host's vector ISA, the
 * output channels and the padding), JIT-compiles it (O3, host CPU, fast-math), checks it against a
 * double-precision reference and oneDNN, and times, interleaved in rounds so
 * that the machine's other load hits all of them alike:
 *   - TVS: NCHW input, OIHW weights, NCHW output; the kernel pads the input and
 *     packs the weights on every call (both counted);
 *   - oneDNN, plain: the same layouts (nchw, oihw, nchw), algorithm auto;
 *     whatever it does inside (im2col, packing) is counted;
 *   - oneDNN, blocked: its preferred layouts (format "any", usually
 *     nChw16c / OIhw16i16o), algorithm auto; the reorders into them are done
 *     once before timing and not counted.
 * It prints GFLOP/s per layer, the ratios TVS / oneDNN and their geometric
 * mean, on 1 and 2 threads.  See README.md. */
#define _GNU_SOURCE
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.h>

#include "bench/gemm_common.h"
#include "codegen/codegen.h"
#include "lang/elab.h"
#include "runtime/ndarray.h"
#include "sched/default_schedule.h"
#include "sched/schedule.h"

#define MAX_THREADS 8
#define MAX_ROUNDS 256

/* One conv2d layer: C -> F channels, H x H input, K x K kernel, stride S,
 * padding P on every side; `count` is how often ResNet-18 has it. */
typedef struct Layer {
  const char *name;
  int C, F, H, K, S, P, count;
} Layer;

static const Layer layers[] = {
    {"conv1 7x7/2", 3, 64, 224, 7, 2, 3, 1},
    {"layer1 3x3", 64, 64, 56, 3, 1, 1, 4},
    {"layer2 3x3/2", 64, 128, 56, 3, 2, 1, 1},
    {"layer2 3x3", 128, 128, 28, 3, 1, 1, 3},
    {"layer2 ds 1x1/2", 64, 128, 56, 1, 2, 0, 1},
    {"layer3 3x3/2", 128, 256, 28, 3, 2, 1, 1},
    {"layer3 3x3", 256, 256, 14, 3, 1, 1, 3},
    {"layer3 ds 1x1/2", 128, 256, 28, 1, 2, 0, 1},
    {"layer4 3x3/2", 256, 512, 14, 3, 2, 1, 1},
    {"layer4 3x3", 512, 512, 7, 3, 1, 1, 3},
    {"layer4 ds 1x1/2", 256, 512, 14, 1, 2, 0, 1},
};
#define NLAYERS ((int)(sizeof layers / sizeof layers[0]))

enum { IMPL_TVS, IMPL_DNNL, IMPL_DNNL_BLOCKED, NIMPL };

static int out_size(const Layer *l) { return (l->H + 2 * l->P - l->K) / l->S + 1; }
static double layer_flop(const Layer *l) {
  double o = out_size(l);
  return 2.0 * l->F * o * o * l->C * l->K * l->K;
}

/* ------------------------------------------------------------ TVS kernel */

/* The prim_func LegalizeOps makes of R.nn.conv2d(x, w, strides=[S, S],
 * padding=[P, P, P, P]) in NCHW fp32 (TOPI's conv2d_nchw), as .tvs text. */
static char *conv_source(const Layer *l) {
  int H = l->H, HP = H + 2 * l->P, O = out_size(l), P = l->P;
  size_t cap = 8192;
  char *s = malloc(cap);
  char pad_value[512];
  if (P)
    snprintf(pad_value, sizeof pad_value,
             "T.if_then_else(T.int64(%d) <= v_i2 and v_i2 < T.int64(%d) and T.int64(%d) <= v_i3 and v_i3 < "
             "T.int64(%d), A[v_i0, v_i1, v_i2 - T.int64(%d), v_i3 - T.int64(%d)], T.float32(0.0))",
             P, H + P, P, H + P, P, P);
  else
    snprintf(pad_value, sizeof pad_value, "A[v_i0, v_i1, v_i2, v_i3]");
  char yi[64], xi[64];
  if (l->S == 1) {
    snprintf(yi, sizeof yi, "v_yy + v_ry");
    snprintf(xi, sizeof xi, "v_xx + v_rx");
  } else {
    snprintf(yi, sizeof yi, "v_yy * T.int64(%d) + v_ry", l->S);
    snprintf(xi, sizeof xi, "v_xx * T.int64(%d) + v_rx", l->S);
  }
  snprintf(s, cap,
           "from tvm.script import tir as T\n\n\n"
           "@T.prim_func(private=True)\n"
           "def conv2d(A: T.Buffer((T.int64(1), T.int64(%d), T.int64(%d), T.int64(%d)), \"float32\"), "
           "B: T.Buffer((T.int64(%d), T.int64(%d), T.int64(%d), T.int64(%d)), \"float32\"), "
           "conv2d_nchw: T.Buffer((T.int64(1), T.int64(%d), T.int64(%d), T.int64(%d)), \"float32\")):\n"
           "    T.func_attr({\"tir.noalias\": True})\n"
           "    pad_temp = T.alloc_buffer((T.int64(1), T.int64(%d), T.int64(%d), T.int64(%d)))\n"
           "    for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(%d), T.int64(%d), T.int64(%d)):\n"
           "        with T.block(\"pad_temp\"):\n"
           "            v_i0, v_i1, v_i2, v_i3 = T.axis.remap(\"SSSS\", [i0, i1, i2, i3])\n"
           "            pad_temp[v_i0, v_i1, v_i2, v_i3] = %s\n"
           "    for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(%d), T.int64(%d), T.int64(%d), "
           "T.int64(%d), T.int64(%d), T.int64(%d)):\n"
           "        with T.block(\"conv2d_nchw\"):\n"
           "            v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap(\"SSSSRRR\", "
           "[nn, ff, yy, xx, rc, ry, rx])\n"
           "            with T.init():\n"
           "                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)\n"
           "            conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + "
           "pad_temp[v_nn, v_rc, %s, %s] * B[v_ff, v_rc, v_ry, v_rx]\n",
           l->C, H, H, l->F, l->C, l->K, l->K, l->F, O, O, l->C, HP, HP, l->C, HP, HP, pad_value, l->F, O, O,
           l->C, l->K, l->K, yi, xi);
  return s;
}

typedef struct Kernel {
  SourceFile *src;
  IrModule *ir;
  TVSModule *mod;
  TVSFunction *fn;
  double compile_ms;
} Kernel;

static void kernel_free(Kernel *k) {
  tvs_func_release(k->fn);
  tvs_module_free(k->mod);
  ir_module_free(k->ir);
  src_free(k->src);
  memset(k, 0, sizeof *k);
}

/* Parses text, applies the schedule file sched_path (NULL: none) and
 * JIT-compiles; 0 or -1 with the errors printed. */
static int kernel_load(Kernel *k, const char *name, const char *text, const char *sched_path,
                       const CgOptions *opt) {
  memset(k, 0, sizeof *k);
  k->src = src_from_string(name, text, strlen(text));
  DiagCtx d;
  diag_init(&d, stderr);
  StrBuf out;
  sb_init(&out);
  k->ir = tvs_load_module(k->src, &d);
  if (k->ir && sch_apply_schedules(&k->ir, NULL, sched_path, &d, &out)) {
    ir_module_free(k->ir);
    k->ir = NULL;
  }
  fputs(out.data ? out.data : "", stdout);
  sb_free(&out);
  double t0 = gemm_now();
  if (k->ir) k->mod = cg_compile_module(k->ir, opt, &d);
  k->compile_ms = (gemm_now() - t0) * 1e3;
  diag_flush(&d);
  diag_free(&d);
  if (!k->mod) {
    fprintf(stderr, "bench_conv2d: %s failed to load, schedule or compile\n", name);
    return -1;
  }
  k->fn = tvs_module_get_function(k->mod, k->ir->funcs[0].name);
  if (!k->fn) {
    fprintf(stderr, "bench_conv2d: %s\n", tvs_get_last_error());
    return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------- oneDNN */

#define DNNL_OK(call)                                                              \
  do {                                                                             \
    dnnl_status_t st_ = (call);                                                    \
    if (st_ != dnnl_success) {                                                     \
      fprintf(stderr, "bench_conv2d: %s failed (status %d)\n", #call, (int)st_); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

/* A oneDNN convolution primitive with its memories bound. */
typedef struct DnnlConv {
  dnnl_primitive_t prim;
  dnnl_memory_t src, wei, dst;  /* in the primitive's layouts */
  dnnl_memory_t dst_plain;      /* the nchw view of the output (blocked: reordered into) */
  dnnl_primitive_t dst_reorder; /* blocked: dst -> dst_plain, for the check only */
  const char *impl;
} DnnlConv;

static dnnl_engine_t engine;
static dnnl_stream_t stream;

static void md_plain(dnnl_memory_desc_t *md, int64_t a, int64_t b, int64_t c, int64_t d, dnnl_format_tag_t tag) {
  dnnl_dims_t dims = {a, b, c, d};
  DNNL_OK(dnnl_memory_desc_init_by_tag(md, 4, dims, dnnl_f32, tag));
}

/* Reorders the plain memory `from` into a new memory of descriptor md. */
static dnnl_memory_t reordered(dnnl_memory_t from, const dnnl_memory_desc_t *md) {
  dnnl_memory_t to;
  DNNL_OK(dnnl_memory_create(&to, md, engine, DNNL_MEMORY_ALLOCATE));
  const dnnl_memory_desc_t *from_md;
  DNNL_OK(dnnl_memory_get_memory_desc(from, &from_md));
  dnnl_primitive_desc_t rpd;
  dnnl_primitive_t r;
  DNNL_OK(dnnl_reorder_primitive_desc_create(&rpd, from_md, engine, md, engine, NULL));
  DNNL_OK(dnnl_primitive_create(&r, rpd));
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  DNNL_OK(dnnl_primitive_execute(r, stream, 2, args));
  DNNL_OK(dnnl_stream_wait(stream));
  dnnl_primitive_destroy(r);
  dnnl_primitive_desc_destroy(rpd);
  return to;
}

/* Builds the convolution over the plain buffers x (nchw), w (oihw), y (nchw);
 * blocked: in oneDNN's preferred layouts, x and w reordered into them now. */
static void dnnl_conv_init(DnnlConv *c, const Layer *l, float *x, float *w, float *y, bool blocked) {
  memset(c, 0, sizeof *c);
  int O = out_size(l);
  dnnl_memory_desc_t xm, wm, ym, xa, wa, ya;
  md_plain(&xm, 1, l->C, l->H, l->H, dnnl_nchw);
  md_plain(&wm, l->F, l->C, l->K, l->K, dnnl_oihw);
  md_plain(&ym, 1, l->F, O, O, dnnl_nchw);
  md_plain(&xa, 1, l->C, l->H, l->H, blocked ? dnnl_format_tag_any : dnnl_nchw);
  md_plain(&wa, l->F, l->C, l->K, l->K, blocked ? dnnl_format_tag_any : dnnl_oihw);
  md_plain(&ya, 1, l->F, O, O, blocked ? dnnl_format_tag_any : dnnl_nchw);
  dnnl_dims_t strides = {l->S, l->S}, pad = {l->P, l->P};
  dnnl_convolution_desc_t cd;
  DNNL_OK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_auto, &xa, &wa, NULL,
                                             &ya, strides, pad, pad));
  dnnl_primitive_desc_t pd;
  DNNL_OK(dnnl_primitive_desc_create(&pd, &cd, NULL, engine, NULL));
  DNNL_OK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &c->impl));
  const dnnl_memory_desc_t *sx = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  const dnnl_memory_desc_t *sw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  const dnnl_memory_desc_t *sy = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  dnnl_memory_t px, pw;
  DNNL_OK(dnnl_memory_create(&px, &xm, engine, x));
  DNNL_OK(dnnl_memory_create(&pw, &wm, engine, w));
  DNNL_OK(dnnl_memory_create(&c->dst_plain, &ym, engine, y));
  if (blocked) {
    c->src = reordered(px, sx);
    c->wei = reordered(pw, sw);
    DNNL_OK(dnnl_memory_create(&c->dst, sy, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t rpd;
    DNNL_OK(dnnl_reorder_primitive_desc_create(&rpd, sy, engine, &ym, engine, NULL));
    DNNL_OK(dnnl_primitive_create(&c->dst_reorder, rpd));
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(px);
    dnnl_memory_destroy(pw);
  } else {
    c->src = px;
    c->wei = pw;
    c->dst = c->dst_plain;
  }
  DNNL_OK(dnnl_primitive_create(&c->prim, pd));
  c->impl = strdup(c->impl); /* owned by pd */
  dnnl_primitive_desc_destroy(pd);
}

static int dnnl_conv_run(DnnlConv *c) {
  dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, c->src}, {DNNL_ARG_WEIGHTS, c->wei}, {DNNL_ARG_DST, c->dst}};
  if (dnnl_primitive_execute(c->prim, stream, 3, args) != dnnl_success) return -1;
  return dnnl_stream_wait(stream) == dnnl_success ? 0 : -1;
}

/* Blocked: the output back into the plain nchw buffer (for the check). */
static void dnnl_conv_fetch(DnnlConv *c) {
  if (!c->dst_reorder) return;
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, c->dst}, {DNNL_ARG_TO, c->dst_plain}};
  DNNL_OK(dnnl_primitive_execute(c->dst_reorder, stream, 2, args));
  DNNL_OK(dnnl_stream_wait(stream));
}

static void dnnl_conv_free(DnnlConv *c) {
  dnnl_primitive_destroy(c->prim);
  if (c->dst_reorder) {
    dnnl_primitive_destroy(c->dst_reorder);
    dnnl_memory_destroy(c->src);
    dnnl_memory_destroy(c->wei);
    dnnl_memory_destroy(c->dst);
  } else {
    dnnl_memory_destroy(c->src);
    dnnl_memory_destroy(c->wei);
  }
  dnnl_memory_destroy(c->dst_plain);
  free((char *)c->impl);
}

/* ------------------------------------------------------------- one layer */

typedef struct Problem {
  const Layer *l;
  TvsNDArray *x, *w, *y[NIMPL];
  TvsNDArray *w_packed; /* --packed-weights V: w as [F/V, C, K, K, V], what TVS is given */
  TVSFunction *tvs_fn;
  DnnlConv dnnl[NIMPL]; /* [IMPL_DNNL], [IMPL_DNNL_BLOCKED] */
} Problem;

typedef struct Call {
  Problem *p;
  int impl;
} Call;

static int run_impl(void *ctx) {
  Call *c = ctx;
  Problem *p = c->p;
  if (c->impl == IMPL_TVS) return gemm_call3(p->tvs_fn, p->x, p->w_packed ? p->w_packed : p->w, p->y[IMPL_TVS]);
  return dnnl_conv_run(&p->dnnl[c->impl]);
}

static void set_threads(int impl, int n) {
  if (impl == IMPL_TVS)
    tvs_thread_pool_set_num_threads(n);
  else
    omp_set_num_threads(n);
}

/* The worst error of `count` sampled outputs of y against a double-precision
 * sum, relative to sum |x w| (the scale of fp32 rounding). */
static double check_samples(const Problem *p, const float *y, int count) {
  const Layer *l = p->l;
  const float *x = p->x->t.data, *w = p->w->t.data;
  int O = out_size(l);
  double worst = 0;
  uint64_t s = 12345;
  for (int i = 0; i < count; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    int f = (int)((s >> 33) % (uint64_t)l->F), oy = (int)((s >> 20) % (uint64_t)O),
        ox = (int)((s >> 8) % (uint64_t)O);
    if (i == count - 1) f = l->F - 1, oy = O - 1, ox = O - 1; /* the last tile */
    double acc = 0, mag = 0;
    for (int c = 0; c < l->C; c++)
      for (int ky = 0; ky < l->K; ky++)
        for (int kx = 0; kx < l->K; kx++) {
          int iy = oy * l->S + ky - l->P, ix = ox * l->S + kx - l->P;
          if (iy < 0 || ix < 0 || iy >= l->H || ix >= l->H) continue;
          double v = (double)x[((size_t)c * l->H + iy) * l->H + ix] *
                     w[(((size_t)f * l->C + c) * l->K + ky) * l->K + kx];
          acc += v;
          mag += fabs(v);
        }
    double e = fabs(y[((size_t)f * O + oy) * O + ox] - acc) / (mag > 0 ? mag : 1);
    if (e > worst) worst = e;
  }
  return worst;
}

/* GFLOP/s of each implementation by three statistics of its calls. */
enum { ST_MED, ST_BEST, ST_CPU, NSTAT };
static const char *const stat_names[NSTAT] = {"median wall time", "best wall time",
                                              "median CPU time of the calling thread"};

typedef struct Result {
  double gflops[MAX_THREADS][NSTAT][NIMPL];
  double err[NIMPL];
  double compile_ms;
  const char *impl[NIMPL];
  char sched[64]; /* the schedule file's name */
} Result;

static double thread_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Times every implementation on `threads` threads: `rounds` rounds, each
 * round every implementation in turn for at least round_s seconds (after one
 * warm-up call), so that the machine's other load hits all of them alike;
 * statistics over all timed calls of an implementation. */
static int time_layer(Problem *p, int threads, int rounds, double round_s, double gflops[NSTAT][NIMPL]) {
  static double t[NIMPL][MAX_ROUNDS * 64], tc[NIMPL][MAX_ROUNDS * 64];
  int n[NIMPL] = {0};
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < NIMPL; i++) {
      Call c = {p, i};
      set_threads(i, threads);
      if (run_impl(&c)) return -1;
      double start = gemm_now();
      for (int k = 0; k < 64 && (k < 2 || gemm_now() - start < round_s); k++) {
        double t0 = gemm_now(), c0 = thread_cpu_now();
        if (run_impl(&c)) return -1;
        tc[i][n[i]] = thread_cpu_now() - c0;
        t[i][n[i]++] = gemm_now() - t0;
      }
      usleep(20000); /* let spinning workers go to sleep */
    }
  }
  double flop = layer_flop(p->l) * 1e-9;
  for (int i = 0; i < NIMPL; i++) {
    gflops[ST_CPU][i] = flop / drv_median(tc[i], n[i]);
    gflops[ST_MED][i] = flop / drv_median(t[i], n[i]);
    double best = t[i][0];
    for (int k = 1; k < n[i]; k++) best = t[i][k] < best ? t[i][k] : best;
    gflops[ST_BEST][i] = flop / best;
  }
  return 0;
}

/* w [F, C, K, K] (OIHW) re-laid out as [F/V, K, K, C, V], what a schedule's
 * transform_layout of the weight parameter by
 * lambda f, c, h, w: (f // V, h, w, c, f % V) asks for (the layout the default
 * schedules pack into on every call). */
static TvsNDArray *pack_weights(const Layer *l, const float *w, int V) {
  int64_t shape[5] = {l->F / V, l->K, l->K, l->C, V};
  DLDataType f32 = {kDLFloat, 32, 1};
  TvsNDArray *a = tvs_ndarray_empty(5, shape, f32);
  float *o = a->t.data;
  for (int f = 0; f < l->F; f++)
    for (int c = 0; c < l->C; c++)
      for (int h = 0; h < l->K; h++)
        for (int x = 0; x < l->K; x++)
          o[((((size_t)(f / V) * l->K + h) * l->K + x) * l->C + c) * V + f % V] =
              w[(((size_t)f * l->C + c) * l->K + h) * l->K + x];
  return a;
}

static int packed_v; /* --packed-weights V; 0: TVS gets the OIHW weights */

/* The default schedule for a layer: the script the graph pipeline's
 * default-schedule stage picks for this prim_func (sch_default_rule: by the
 * host's vector ISA, the output channels and the padding; see the scripts'
 * headers).  With --packed-weights, the _prepacked form of the AVX-512
 * script, which the stage uses when the weights are constants. */
static const char *default_schedule(const Layer *l, char *buf, size_t cap) {
  /* the graph pipeline's own rule (sched/default_schedule.c) on this prim_func */
  char *text = conv_source(l);
  SourceFile *src = src_from_string(l->name, text, strlen(text));
  free(text);
  DiagCtx d;
  diag_init(&d, stderr);
  IrModule *m = tvs_load_module(src, &d);
  const char *rule = m ? sch_default_rule(m->funcs[0].tir) : "generic";
  char name[128];
  snprintf(name, sizeof name, "%s", rule);
  char *isa = strstr(name, "avx512");
  if (packed_v && isa && !strstr(name, "_f16")) /* the prepacked form of the AVX-512 script */
    snprintf(isa, sizeof name - (size_t)(isa - name), "avx512_prepacked%s", rule + (isa - name) + 6);
  snprintf(buf, cap, "%s/stdlib/schedules/%s", TVS_SOURCE_DIR, name);
  ir_module_free(m);
  diag_free(&d);
  src_free(src);
  return buf;
}

static int bench_layer(const Layer *l, const char *sched_path, const CgOptions *opt, const int *thr, int nthr,
                       int rounds, double round_s, Result *res) {
  Problem p;
  memset(&p, 0, sizeof p);
  p.l = l;
  int O = out_size(l);
  int64_t xs[4] = {1, l->C, l->H, l->H}, ws[4] = {l->F, l->C, l->K, l->K}, ys[4] = {1, l->F, O, O};
  DLDataType f32 = {kDLFloat, 32, 1};
  p.x = tvs_ndarray_empty(4, xs, f32);
  p.w = tvs_ndarray_empty(4, ws, f32);
  for (int i = 0; i < NIMPL; i++) p.y[i] = tvs_ndarray_empty(4, ys, f32);
  gemm_fill(p.x->t.data, (size_t)l->C * l->H * l->H, 1);
  gemm_fill(p.w->t.data, (size_t)l->F * l->C * l->K * l->K, 2);
  if (packed_v && l->F % packed_v) {
    fprintf(stderr, "bench_conv2d: --packed-weights %d: %s has %d output channels\n", packed_v, l->name, l->F);
    return -1;
  }
  if (packed_v) p.w_packed = pack_weights(l, p.w->t.data, packed_v);
  char *text = conv_source(l);
  Kernel k;
  int rc = kernel_load(&k, l->name, text, sched_path, opt);
  free(text);
  if (rc) return -1;
  p.tvs_fn = k.fn;
  res->compile_ms = k.compile_ms;
  for (int t = 0; t < nthr && !rc; t++) {
    /* oneDNN fixes a primitive's thread count when it creates it */
    omp_set_num_threads(thr[t]);
    for (int i = IMPL_DNNL; i < NIMPL; i++) {
      dnnl_conv_init(&p.dnnl[i], l, p.x->t.data, p.w->t.data, p.y[i]->t.data, i == IMPL_DNNL_BLOCKED);
      if (t == 0) res->impl[i] = strdup(p.dnnl[i].impl);
    }
    rc = time_layer(&p, thr[t], rounds, round_s, res->gflops[t]);
    dnnl_conv_fetch(&p.dnnl[IMPL_DNNL_BLOCKED]);
    for (int i = 0; i < NIMPL && t == nthr - 1; i++) res->err[i] = check_samples(&p, p.y[i]->t.data, 64);
    for (int i = IMPL_DNNL; i < NIMPL; i++) dnnl_conv_free(&p.dnnl[i]);
  }
  for (int i = 0; i < NIMPL; i++) tvs_ndarray_free(p.y[i]);
  tvs_ndarray_free(p.x);
  tvs_ndarray_free(p.w);
  tvs_ndarray_free(p.w_packed);
  kernel_free(&k);
  return rc;
}

/* ------------------------------------------------------------------ main */

static void usage(void) {
  fprintf(stderr,
          "usage: bench_conv2d [--rounds N] [--round-time S] [--threads LIST] [--layer I] [--schedule F]\n"
          "                    [--packed-weights V] [--dump I]\n"
          "  --rounds N      interleaved timing rounds per layer and thread count (default 7)\n"
          "  --round-time S  seconds each implementation runs per round (default 0.05)\n"
          "  --threads LIST  comma-separated thread counts (default 1,2)\n"
          "  --layer I       only layer I (0-based, in the printed order)\n"
          "  --schedule F    this schedule script for every layer instead of the default one\n"
          "  --packed-weights V  give TVS the weights packed as [F/V, K, K, C, V], outside the timing (for\n"
          "                  a schedule that re-lays out the weight parameter, e.g. conv2d_nchw_avx512_packed)\n"
          "  --dump I        print layer I's unscheduled prim_func (.tvs) and exit\n");
}

static void print_layer(int li, const Result *r, const int *thr, int nthr) {
  const Layer *l = &layers[li];
  printf("%2d %-16s %3d->%-3d %3d->%-3d", li, l->name, l->C, l->F, l->H, out_size(l));
  for (int t = 0; t < nthr; t++) {
    const double *g = r->gflops[t][thr[t] == 1 ? ST_CPU : ST_MED], *b = r->gflops[t][ST_BEST];
    printf(" |%dT %6.1f %6.1f %6.1f %5.2f %5.2f %5.2f", thr[t], g[IMPL_TVS], g[IMPL_DNNL], g[IMPL_DNNL_BLOCKED],
           g[IMPL_TVS] / g[IMPL_DNNL], b[IMPL_TVS] / b[IMPL_DNNL], g[IMPL_TVS] / g[IMPL_DNNL_BLOCKED]);
  }
  printf("\n");
  fflush(stdout);
}

static void print_header(const int *thr, int nthr) {
  printf("GFLOP/s by the median time of the calls: on 1 thread the CPU time of the calling thread (it\n"
         "does all the work; time-slicing by other processes is not counted), on more the wall time;\n"
         "r = TVS / oneDNN nchw, rb = the same by the best wall time, r_blk = TVS / oneDNN blocked\n");
  printf("%-2s %-16s %-7s %-7s", "#", "layer", "C->F", "H->OH");
  for (int t = 0; t < nthr; t++)
    printf(" |%dT %6s %6s %6s %5s %5s %5s", thr[t], "TVS", "nchw", "blockd", "r", "rb", "r_blk");
  printf("\n");
}

static void print_summary(const Result *res, const int *thr, int nthr, int only) {
  printf("\ngeometric means of the ratios over the %s; total time of ResNet-18's 20 convolutions\n",
         only >= 0 ? "selected layer" : "11 distinct layers");
  for (int t = 0; t < nthr; t++)
    for (int st = 0; st < NSTAT; st++) {
      if (st == ST_CPU && thr[t] != 1) continue; /* other threads' CPU time is not counted */
      double g[2] = {0, 0}, time[NIMPL] = {0};
      int n = 0;
      for (int li = 0; li < NLAYERS; li++) {
        if (only >= 0 && li != only) continue;
        const double *gf = res[li].gflops[t][st];
        g[0] += log(gf[IMPL_TVS] / gf[IMPL_DNNL]);
        g[1] += log(gf[IMPL_TVS] / gf[IMPL_DNNL_BLOCKED]);
        for (int i = 0; i < NIMPL; i++) time[i] += layers[li].count * layer_flop(&layers[li]) / gf[i] * 1e-6;
        n++;
      }
      printf("  %dT, %-38s TVS/nchw %.2f  TVS/blocked %.2f", thr[t], stat_names[st], exp(g[0] / n),
             exp(g[1] / n));
      if (only < 0)
        printf("  | total ms: TVS %.2f, nchw %.2f, blocked %.2f", time[IMPL_TVS], time[IMPL_DNNL],
               time[IMPL_DNNL_BLOCKED]);
      printf("\n");
    }
}

int main(int argc, char **argv) {
  int rounds = 7, nthr = 2, thr[MAX_THREADS] = {1, 2}, only = -1, dump = -1;
  double round_s = 0.05;
  const char *sched = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--round-time") && i + 1 < argc) {
      round_s = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--layer") && i + 1 < argc) {
      only = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
      dump = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--packed-weights") && i + 1 < argc) {
      packed_v = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--schedule") && i + 1 < argc) {
      sched = argv[++i];
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      nthr = gemm_parse_threads(argv[++i], thr, MAX_THREADS);
    } else {
      usage();
      return 2;
    }
  }
  if (rounds < 1 || rounds > MAX_ROUNDS || nthr < 1 || only >= NLAYERS || dump >= NLAYERS || !(round_s > 0) ||
      packed_v < 0) {
    usage();
    return 2;
  }
  if (dump >= 0) {
    char *text = conv_source(&layers[dump]);
    fputs(text, stdout);
    free(text);
    return 0;
  }
  const dnnl_version_t *dv = dnnl_version();
  printf("oneDNN %d.%d.%d; CPUs %ld; schedule %s\n%d rounds per layer and thread count, %.3f s per "
         "implementation per round\n",
         dv->major, dv->minor, dv->patch, sysconf(_SC_NPROCESSORS_ONLN),
         sched ? sched : "the default per layer (listed at the end)", rounds, round_s);
  DNNL_OK(dnnl_engine_create(&engine, dnnl_cpu, 0));
  DNNL_OK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
  CgOptions opt = cg_options_default();
  opt.fast_math = true;
  static Result res[NLAYERS];
  bool ok = true;
  print_header(thr, nthr);
  for (int li = 0; li < NLAYERS; li++) {
    if (only >= 0 && li != only) continue;
    char spath[1024];
    const char *lsched = sched ? sched : default_schedule(&layers[li], spath, sizeof spath);
    snprintf(res[li].sched, sizeof res[li].sched, "%s", lsched == sched ? "(--schedule)" : strrchr(lsched, '/') + 1);
    if (bench_layer(&layers[li], lsched, &opt, thr, nthr, rounds, round_s, &res[li])) return 1;
    print_layer(li, &res[li], thr, nthr);
    for (int i = 0; i < NIMPL; i++) ok &= res[li].err[i] < 1e-5;
  }
  print_summary(res, thr, nthr, only);
  printf("\nlayer: TVS schedule; oneDNN implementation (nchw / blocked); TVS compile ms; max error TVS, nchw, "
         "blocked\n");
  for (int li = 0; li < NLAYERS; li++) {
    if (only >= 0 && li != only) continue;
    const Result *r = &res[li];
    printf("%2d %-16s %-34s %-12s %-24s %6.0f ms  %.1e %.1e %.1e\n", li, layers[li].name, r->sched,
           r->impl[IMPL_DNNL],
           r->impl[IMPL_DNNL_BLOCKED], r->compile_ms, r->err[IMPL_TVS], r->err[IMPL_DNNL],
           r->err[IMPL_DNNL_BLOCKED]);
    free((char *)r->impl[IMPL_DNNL]);
    free((char *)r->impl[IMPL_DNNL_BLOCKED]);
  }
  dnnl_stream_destroy(stream);
  dnnl_engine_destroy(engine);
  if (!ok) printf("RESULTS WRONG\n");
  return ok ? 0 : 1;
}
