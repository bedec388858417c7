/* test_structural_equal.c - structural equality and hashing of TIR, Relax and modules.
 *
 * Builds mm_relu-style prim_funcs with the ir/tir.h constructors, varying one
 * property at a time, and checks equality, hash agreement and diff messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/module.h"
#include "ir/structural_equal.h"
#include "tests/unit/check.h"

/* ------------------------------------------------------------ builders */

/* One property to vary in the built function; zero = the default. */
typedef struct MmOpts {
  const char *sfx;       /* suffix appended to every name (renaming) */
  int64_t j_extent;      /* extent of the second nest's j loop (default 128) */
  bool j_extent_i64;     /* write that extent as T.int64 */
  TirForKind i_kind;     /* kind of the first nest's i loop */
  int ann;               /* 0: no annotation; else {"pragma_unroll": ann} on loop k */
  bool ann_two;          /* add a second annotation key (order test) */
  bool ann_two_swapped;  /* ...with the two keys in the other order */
  bool swap_reads;       /* reads [B, A] instead of [A, B] */
  bool k_spatial;        /* vk spatial instead of reduce */
  bool no_init;          /* drop T.init() */
  const char *gs;        /* global_symbol (default "mm_relu"), "" = none */
  int64_t c_dim0;        /* shape[0] of the param C (default 128) */
  bool y_shared;         /* Y allocated in "shared" scope */
  bool same_var_twice;   /* C[vi, vj] = max(Y[vi, vi], 0) */
  double relu_zero;      /* the 0 in max(Y, 0) (default 0.0) */
} MmOpts;

static char *nm(char *buf, const char *base, const MmOpts *o) {
  snprintf(buf, 64, "%s%s", base, o->sfx ? o->sfx : "");
  return buf;
}

static TirExpr *v(IrHeap *h, TirVar *x) { return tir_var_ref(h, x); }
static TirExpr *i32(IrHeap *h, int64_t x) { return tir_i32(h, x); }

static TirExpr **shape2(IrHeap *h, int64_t a, int64_t b) {
  TirExpr **s = ir_alloc(h, 2 * sizeof *s);
  s[0] = i32(h, a);
  s[1] = i32(h, b);
  return s;
}

static TirBufferRegion point_region(IrHeap *h, TirBuffer *b, TirVar *x, TirVar *y) {
  TirRange *r = ir_alloc(h, 2 * sizeof *r);
  r[0] = (TirRange){v(h, x), i32(h, 1)};
  r[1] = (TirRange){v(h, y), i32(h, 1)};
  return (TirBufferRegion){b, r, 2};
}

static TirExpr *load2(IrHeap *h, TirBuffer *b, TirVar *x, TirVar *y) {
  TirExpr *idx[2] = {v(h, x), v(h, y)};
  return tir_load(h, b, idx, 2);
}

static TirStmt *store2(IrHeap *h, TirBuffer *b, TirVar *x, TirVar *y, TirExpr *val) {
  TirExpr *idx[2] = {v(h, x), v(h, y)};
  return tir_store(h, b, val, idx, 2);
}

static TirIterVar iter(IrHeap *h, TirVar *x, int64_t ext, TirIterType t) {
  return (TirIterVar){x, {i32(h, 0), i32(h, ext)}, t};
}

static TirStmt *loop(IrHeap *h, TirVar *x, TirExpr *ext, TirForKind k, IrValue *ann, TirStmt *body) {
  return tir_for(h, x, i32(h, 0), ext, k, NULL, ann, body);
}

/* mm_relu from the MLC course: Y = A @ B (block "Y"), C = relu(Y) (block "C"). */
static TirFunc *build_mm_relu(IrHeap *h, const MmOpts *o) {
  char b1[64];
  int64_t jext = o->j_extent ? o->j_extent : 128, c0 = o->c_dim0 ? o->c_dim0 : 128;
  TirBuffer *A = tir_buffer(h, nm(b1, "A", o), dt_float32, shape2(h, 128, 128), 2, NULL);
  TirBuffer *B = tir_buffer(h, nm(b1, "B", o), dt_float32, shape2(h, 128, 128), 2, NULL);
  TirBuffer *C = tir_buffer(h, nm(b1, "C", o), dt_float32, shape2(h, c0, 128), 2, NULL);
  TirBuffer *Y = tir_buffer(h, nm(b1, "Y", o), dt_float32, shape2(h, 128, 128), 2,
                            o->y_shared ? "shared" : NULL);
  TirVar *params[3] = {tir_var(h, nm(b1, "a", o), dt_handle), tir_var(h, nm(b1, "b", o), dt_handle),
                       tir_var(h, nm(b1, "c", o), dt_handle)};
  TirBuffer *bmap[3] = {A, B, C};

  /* first nest: for i, j, k: block Y */
  TirVar *i = tir_var(h, nm(b1, "i", o), dt_int32), *j = tir_var(h, nm(b1, "j", o), dt_int32),
         *k = tir_var(h, nm(b1, "k", o), dt_int32);
  TirVar *vi = tir_var(h, nm(b1, "vi", o), dt_int32), *vj = tir_var(h, nm(b1, "vj", o), dt_int32),
         *vk = tir_var(h, nm(b1, "vk", o), dt_int32);
  TirBlock by = {0};
  by.name = o->sfx ? "Y_renamed" : "Y";
  TirIterVar its[3] = {iter(h, vi, 128, TIR_ITER_SPATIAL), iter(h, vj, 128, TIR_ITER_SPATIAL),
                       iter(h, vk, 128, o->k_spatial ? TIR_ITER_SPATIAL : TIR_ITER_REDUCE)};
  by.iters = its;
  by.niters = 3;
  TirBufferRegion rd[2] = {point_region(h, A, vi, vk), point_region(h, B, vk, vj)};
  if (o->swap_reads) {
    TirBufferRegion t = rd[0];
    rd[0] = rd[1];
    rd[1] = t;
  }
  TirBufferRegion wr[1] = {point_region(h, Y, vi, vj)};
  by.reads = rd;
  by.nreads = 2;
  by.writes = wr;
  by.nwrites = 1;
  if (!o->no_init) by.init = store2(h, Y, vi, vj, tir_float(h, dt_float32, 0.0));
  TirExpr *prod = tir_binary(h, TIR_MUL, load2(h, A, vi, vk), load2(h, B, vk, vj));
  by.body = store2(h, Y, vi, vj, tir_binary(h, TIR_ADD, load2(h, Y, vi, vj), prod));
  TirExpr *bind1[3] = {v(h, i), v(h, j), v(h, k)};
  TirStmt *r1 = tir_block_realize(h, bind1, 3, NULL, tir_block(h, &by));
  IrValue *ann = NULL;
  if (o->ann) {
    const char *keys[2] = {"pragma_unroll", "software_pipeline"};
    IrValue *vals[2] = {irv_int(h, o->ann), irv_str(h, "on")};
    if (o->ann_two_swapped) {
      const char *k2[2] = {keys[1], keys[0]};
      IrValue *v2[2] = {vals[1], vals[0]};
      ann = irv_dict(h, k2, v2, 2);
    } else {
      ann = irv_dict(h, keys, vals, o->ann_two ? 2 : 1);
    }
  }
  TirStmt *n1 = loop(h, k, i32(h, 128), TIR_FOR_SERIAL, ann, r1);
  n1 = loop(h, j, i32(h, 128), TIR_FOR_SERIAL, NULL, n1);
  n1 = loop(h, i, i32(h, 128), o->i_kind, NULL, n1);

  /* second nest: for i, j: block C */
  TirVar *i2 = tir_var(h, nm(b1, "i", o), dt_int32), *j2 = tir_var(h, nm(b1, "j", o), dt_int32);
  TirVar *wi = tir_var(h, nm(b1, "vi", o), dt_int32), *wj = tir_var(h, nm(b1, "vj", o), dt_int32);
  TirBlock bc = {0};
  bc.name = "C";
  TirIterVar its2[2] = {iter(h, wi, 128, TIR_ITER_SPATIAL), iter(h, wj, 128, TIR_ITER_SPATIAL)};
  bc.iters = its2;
  bc.niters = 2;
  TirBufferRegion rd2[1] = {point_region(h, Y, wi, wj)};
  TirBufferRegion wr2[1] = {point_region(h, C, wi, wj)};
  bc.reads = rd2;
  bc.nreads = 1;
  bc.writes = wr2;
  bc.nwrites = 1;
  TirExpr *y = load2(h, Y, wi, o->same_var_twice ? wi : wj);
  bc.body = store2(h, C, wi, wj,
                   tir_binary(h, TIR_MAX, y, tir_float(h, dt_float32, o->relu_zero)));
  TirExpr *bind2[2] = {v(h, i2), v(h, j2)};
  TirStmt *r2 = tir_block_realize(h, bind2, 2, NULL, tir_block(h, &bc));
  TirExpr *jx = o->j_extent_i64 ? tir_int(h, dt_int64, jext) : i32(h, jext);
  TirStmt *n2 = loop(h, j2, jx, TIR_FOR_SERIAL, NULL, r2);
  n2 = loop(h, i2, i32(h, 128), TIR_FOR_SERIAL, NULL, n2);

  /* root block */
  TirStmt *nests[2] = {n1, n2};
  TirBlock root = {0};
  root.name = "root";
  TirBuffer *allocs[1] = {Y};
  root.allocs = allocs;
  root.nallocs = 1;
  root.body = tir_seq(h, nests, 2);
  TirStmt *body = tir_block_realize(h, NULL, 0, NULL, tir_block(h, &root));

  const char *gs = o->gs ? o->gs : "mm_relu";
  const char *keys[2] = {"tir.noalias", "global_symbol"};
  IrValue *vals[2] = {irv_bool(h, true), irv_str(h, gs)};
  IrValue *attrs = irv_dict(h, keys, vals, *gs ? 2 : 1); /* private: no global_symbol */
  return tir_func(h, params, bmap, 3, body, attrs);
}

static bool contains(const char *s, const char *sub) { return s && strstr(s, sub) != NULL; }

/* Compares a default mm_relu with one built from o; returns equality and the diff. */
static bool cmp_with(IrHeap *h, const MmOpts *o, const SEqualOptions *so, char **diff) {
  MmOpts base = {0};
  TirFunc *a = build_mm_relu(h, &base);
  TirFunc *b = build_mm_relu(h, o);
  return seq_tir_func(a, b, so, diff);
}

/* ------------------------------------------------------------ TIR tests */

static void test_renamed_equal(IrHeap *h) {
  MmOpts a = {0}, b = {.sfx = "_2"};
  TirFunc *f = build_mm_relu(h, &a), *g = build_mm_relu(h, &b);
  char *diff = (char *)"unset";
  CHECK(seq_tir_func(f, g, NULL, &diff));
  CHECK(diff == NULL);
  CHECK(seq_tir_func(f, f, NULL, NULL));
  CHECK(shash_tir_func(f, false) == shash_tir_func(g, false));
  CHECK(shash_tir_func(f, true) == shash_tir_func(g, true));
  /* block names are ignored */
  CHECK(strcmp(tir_realize_block(f->body)->name, "root") == 0);
}

static void test_loop_extent(IrHeap *h) {
  MmOpts o = {.j_extent = 64};
  char *diff = NULL;
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "mm_relu: body -> block \"root\" -> seq[1] -> for i -> for j -> extent: 128 vs 64"));
  free(diff);
  MmOpts base = {0};
  CHECK(shash_tir_func(build_mm_relu(h, &base), false) != shash_tir_func(build_mm_relu(h, &o), false));
}

static void test_literal_dtype(IrHeap *h) {
  MmOpts o = {.j_extent_i64 = true};
  char *diff = NULL;
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "extent: 128 vs T.int64(128) (dtype int32 vs int64)"));
  free(diff);
  /* int32 128 vs int64 128 as bare expressions */
  CHECK(!seq_tir_expr(tir_i32(h, 128), tir_int(h, dt_int64, 128)));
  CHECK(seq_tir_expr(tir_int(h, dt_int64, 128), tir_int(h, dt_int64, 128)));
  CHECK(shash_tir_expr(tir_i32(h, 128)) != shash_tir_expr(tir_int(h, dt_int64, 128)));
}

static void test_loop_kind(IrHeap *h) {
  MmOpts o = {.i_kind = TIR_FOR_PARALLEL};
  char *diff = NULL;
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "seq[0] -> for i -> kind: serial vs parallel") ||
        contains(diff, "seq[0] -> for i: kind serial vs parallel"));
  free(diff);
}

static void test_annotations(IrHeap *h) {
  MmOpts a1 = {.ann = 1}, a2 = {.ann = 2}, none = {0};
  char *diff = NULL;
  CHECK(!seq_tir_func(build_mm_relu(h, &a1), build_mm_relu(h, &a2), NULL, &diff));
  CHECK(contains(diff, "for k -> annotations -> key \"pragma_unroll\": 1 vs 2"));
  free(diff);
  diff = NULL;
  CHECK(!seq_tir_func(build_mm_relu(h, &a1), build_mm_relu(h, &none), NULL, &diff));
  CHECK(contains(diff, "key \"pragma_unroll\" missing on the right"));
  free(diff);
  /* dict order does not matter, for equality and hash */
  MmOpts t1 = {.ann = 3, .ann_two = true}, t2 = {.ann = 3, .ann_two_swapped = true, .sfx = "x"};
  TirFunc *f = build_mm_relu(h, &t1), *g = build_mm_relu(h, &t2);
  CHECK(seq_tir_func(f, g, NULL, NULL));
  CHECK(shash_tir_func(f, false) == shash_tir_func(g, false));
}

static void test_reads_order(IrHeap *h) {
  MmOpts o = {.swap_reads = true};
  char *diff = NULL;
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "block \"Y\" -> reads[0]: buffer A vs B (not bound to each other)"));
  free(diff);
}

static void test_iter_type(IrHeap *h) {
  MmOpts o = {.k_spatial = true};
  char *diff = NULL;
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "block \"Y\" -> iter_vars[2]: iter type reduce vs spatial"));
  free(diff);
}

static void test_init_presence(IrHeap *h) {
  MmOpts o = {.no_init = true};
  char *diff = NULL;
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "init present vs absent"));
  free(diff);
}

static void test_param_shape(IrHeap *h) {
  MmOpts o = {.c_dim0 = 64};
  char *diff = NULL;
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "mm_relu: params[2] -> buffer C -> shape[0]: 128 vs 64"));
  free(diff);
}

static void test_alloc_scope(IrHeap *h) {
  MmOpts o = {.y_shared = true};
  char *diff = NULL;
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "alloc_buffers[0] -> buffer Y: scope \"global\" vs \"shared\""));
  free(diff);
}

static void test_inconsistent_var(IrHeap *h) {
  MmOpts o = {.same_var_twice = true};
  char *diff = NULL;
  /* Y[vi, vj] vs Y[vi, vi]: vj is bound to the other side's vj, not vi */
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "vj vs vi (not bound to each other)"));
  CHECK(contains(diff, "(in T.max(Y[vi, vj], T.float32(0.0)) vs T.max(Y[vi, vi], T.float32(0.0)))"));
  free(diff);
  /* and in the other direction */
  MmOpts base = {0};
  CHECK(!seq_tir_func(build_mm_relu(h, &o), build_mm_relu(h, &base), NULL, NULL));

  /* let x = 1 in x + x  vs  let y = 1 in let z = 1 in ... : x+x vs y+z */
  TirVar *x = tir_var(h, "x", dt_int32), *y = tir_var(h, "y", dt_int32), *z = tir_var(h, "z", dt_int32);
  TirExpr *e1 = tir_let(h, x, i32(h, 1), tir_binary(h, TIR_ADD, v(h, x), v(h, x)));
  TirExpr *e2 = tir_let(h, y, i32(h, 1), tir_binary(h, TIR_ADD, v(h, y), v(h, z)));
  TirExpr *e3 = tir_let(h, z, i32(h, 1), tir_binary(h, TIR_ADD, v(h, z), v(h, z)));
  CHECK(!seq_tir_expr(e1, e2));
  CHECK(seq_tir_expr(e1, e3));
  CHECK(shash_tir_expr(e1) == shash_tir_expr(e3));
}

static void test_free_vars(IrHeap *h) {
  TirVar *x = tir_var(h, "x", dt_int32), *y = tir_var(h, "y", dt_int32);
  TirVar *x2 = tir_var(h, "x", dt_int32);
  TirExpr *xy = tir_binary(h, TIR_ADD, v(h, x), v(h, y));
  TirExpr *yx = tir_binary(h, TIR_ADD, v(h, y), v(h, x));
  CHECK(seq_tir_expr(xy, tir_binary(h, TIR_ADD, v(h, x), v(h, y))));
  CHECK(!seq_tir_expr(xy, yx));                                 /* swapped free vars */
  CHECK(!seq_tir_expr(v(h, x), v(h, x2)));                      /* same name, other var */
  CHECK(shash_tir_expr(xy) == shash_tir_expr(tir_binary(h, TIR_ADD, v(h, x), v(h, y))));
  CHECK(shash_tir_expr(xy) != shash_tir_expr(yx));

  /* a free var in a body must be the same object on both sides */
  TirExpr *idx[1] = {i32(h, 0)};
  TirBuffer *B1 = tir_buffer(h, "B", dt_int32, (TirExpr *[]){i32(h, 4)}, 1, NULL);
  TirStmt *s1 = tir_store(h, B1, v(h, x), idx, 1);
  TirStmt *s2 = tir_store(h, B1, v(h, x2), idx, 1);
  char *diff = NULL;
  CHECK(!seq_tir_stmt(s1, s2, &diff));
  CHECK(contains(diff, "store B -> value: x vs x (different free variables)"));
  free(diff);
  CHECK(seq_tir_stmt(s1, tir_store(h, B1, v(h, x), idx, 1), NULL));
}

static void test_floats(IrHeap *h) {
  CHECK(seq_tir_expr(tir_float(h, dt_float32, NAN), tir_float(h, dt_float32, NAN)));
  CHECK(shash_tir_expr(tir_float(h, dt_float32, NAN)) == shash_tir_expr(tir_float(h, dt_float32, -NAN)));
  CHECK(!seq_tir_expr(tir_float(h, dt_float32, 0.0), tir_float(h, dt_float32, -0.0)));
  CHECK(!seq_tir_expr(tir_float(h, dt_float32, 1.0), tir_float(h, dt_float64, 1.0)));
  MmOpts o = {.relu_zero = 0.5};
  char *diff = NULL;
  CHECK(!cmp_with(h, &o, NULL, &diff));
  CHECK(contains(diff, "block \"C\" -> store C -> value: T.float32(0.0) vs T.float32(0.5)"));
  free(diff);
}

static void test_global_symbol(IrHeap *h) {
  MmOpts a = {0}, b = {.gs = "main", .sfx = "z"}, c = {.gs = ""};
  TirFunc *f = build_mm_relu(h, &a), *g = build_mm_relu(h, &b), *k = build_mm_relu(h, &c);
  SEqualOptions ign = {.ignore_global_symbol = true};
  char *diff = NULL;
  CHECK(!seq_tir_func(f, g, NULL, &diff));
  CHECK(contains(diff, "mm_relu: attrs -> key \"global_symbol\": \"mm_relu\" vs \"main\""));
  free(diff);
  CHECK(seq_tir_func(f, g, &ign, NULL));
  CHECK(seq_tir_func(f, k, &ign, NULL));    /* private (no global_symbol) vs named */
  CHECK(!seq_tir_func(f, k, NULL, NULL));
  CHECK(shash_tir_func(f, true) == shash_tir_func(g, true));
  CHECK(shash_tir_func(f, true) == shash_tir_func(k, true));
  CHECK(shash_tir_func(f, false) != shash_tir_func(g, false));
}

/* A function with a symbolic size n: A: (n,), B: (n,); B[i] = A[i] + n. */
static TirFunc *build_sym(IrHeap *h, TirVar *freev) {
  TirVar *n = tir_var(h, "n", dt_int32);
  TirExpr *sh[1] = {v(h, n)};
  TirBuffer *A = tir_buffer(h, "A", dt_float32, sh, 1, NULL);
  TirBuffer *B = tir_buffer(h, "B", dt_float32, sh, 1, NULL);
  TirVar *params[2] = {tir_var(h, "a", dt_handle), tir_var(h, "b", dt_handle)};
  TirBuffer *bm[2] = {A, B};
  TirVar *i = tir_var(h, "i", dt_int32);
  TirExpr *idx[1] = {v(h, i)};
  TirExpr *val = tir_binary(h, TIR_ADD, tir_load(h, A, idx, 1),
                            tir_cast(h, dt_float32, v(h, freev ? freev : n)));
  TirStmt *body = tir_for(h, i, i32(h, 0), v(h, n), TIR_FOR_SERIAL, NULL, NULL,
                          tir_store(h, B, val, idx, 1));
  return tir_func(h, params, bm, 2, body, NULL);
}

static void test_symbolic_shapes(IrHeap *h) {
  TirFunc *f = build_sym(h, NULL), *g = build_sym(h, NULL);
  CHECK(seq_tir_func(f, g, NULL, NULL));
  CHECK(shash_tir_func(f, false) == shash_tir_func(g, false));
  TirVar *m = tir_var(h, "m", dt_int32);
  TirFunc *p = build_sym(h, m), *r = build_sym(h, m);
  CHECK(seq_tir_func(p, r, NULL, NULL)); /* same free var on both sides */
  CHECK(shash_tir_func(p, false) == shash_tir_func(r, false));
  char *diff = NULL;
  CHECK(!seq_tir_func(f, p, NULL, &diff)); /* bound n vs free m */
  CHECK(contains(diff, "n vs m (not bound to each other)"));
  free(diff);
}

static void test_module(IrHeap *h) {
  IrModule *m1 = ir_module_new("Module"), *m2 = ir_module_new("Other"), *m3 = ir_module_new("M");
  MmOpts a = {0}, b = {.sfx = "_b"};
  ir_module_add_tir(m1, "mm_relu", build_mm_relu(h, &a));
  ir_module_add_tir(m1, "sym", build_sym(h, NULL));
  ir_module_add_tir(m2, "sym", build_sym(h, NULL)); /* other order */
  ir_module_add_tir(m2, "mm_relu", build_mm_relu(h, &b));
  ir_module_add_tir(m3, "mm_relu", build_mm_relu(h, &a));
  char *diff = NULL;
  CHECK(seq_module(m1, m2, NULL, &diff));
  CHECK(diff == NULL);
  CHECK(shash_module(m1) == shash_module(m2));
  CHECK(!seq_module(m1, m3, NULL, &diff));
  CHECK_EQ_STR(diff, "module: function 'sym' missing on the right");
  free(diff);
  CHECK(!seq_module(m3, m1, NULL, &diff));
  CHECK_EQ_STR(diff, "module: function 'sym' missing on the left");
  free(diff);
  CHECK(shash_module(m1) != shash_module(m3));
  /* a difference inside a function is reported with the function's name */
  MmOpts c = {.j_extent = 32};
  ir_module_set_tir(m3, "mm_relu", build_mm_relu(h, &c));
  ir_module_add_tir(m3, "sym", build_sym(h, NULL));
  CHECK(!seq_module(m1, m3, NULL, &diff));
  CHECK(contains(diff, "mm_relu: body -> block \"root\" -> seq[1]"));
  CHECK(contains(diff, "extent: 128 vs 32"));
  free(diff);
  ir_module_free(m1);
  ir_module_free(m2);
  ir_module_free(m3);
}

static void test_misc_stmts(IrHeap *h) {
  /* Allocate / DeclBuffer / LetStmt / AttrStmt / If: renamed copies equal */
  TirStmt *s[2];
  for (int t = 0; t < 2; t++) {
    TirVar *p = tir_var(h, t ? "p2" : "p", dt_handle);
    TirBuffer *D = tir_buffer(h, t ? "D2" : "D", dt_float32, (TirExpr *[]){i32(h, 16)}, 1, "local");
    D->data = p;
    TirVar *x = tir_var(h, t ? "x2" : "x", dt_int32);
    TirVar *tx = tir_var(h, "threadIdx.x", dt_int32);
    TirExpr *idx[1] = {v(h, x)};
    TirStmt *st = tir_store(h, D, tir_float(h, dt_float32, 1.0), idx, 1);
    st = tir_if(h, tir_binary(h, TIR_LT, v(h, x), i32(h, 16)), st, NULL);
    st = tir_let_stmt(h, x, v(h, tx), st);
    st = tir_attr_stmt(h, "thread_extent", tx, i32(h, 16), st);
    st = tir_decl_buffer(h, D, st);
    s[t] = tir_allocate(h, p, dt_float32, (TirExpr *[]){i32(h, 16)}, 1, "local", st);
  }
  CHECK(seq_tir_stmt(s[0], s[1], NULL));
  CHECK(shash_tir_stmt(s[0]) == shash_tir_stmt(s[1]));
  /* a different allocation scope */
  TirStmt *s3 = tir_allocate(h, s[1]->alloc.var, dt_float32, s[1]->alloc.extents, 1, "shared",
                             s[1]->alloc.body);
  char *diff = NULL;
  CHECK(!seq_tir_stmt(s[0], s3, &diff));
  CHECK(contains(diff, "stmt: allocate p: scope \"local\" vs \"shared\""));
  free(diff);
  /* statement kinds */
  CHECK(!seq_tir_stmt(tir_evaluate(h, i32(h, 0)), s[0], &diff));
  CHECK(contains(diff, "statement kinds differ: Evaluate vs Allocate"));
  free(diff);
}

/* ------------------------------------------------------------ Relax tests */

/* main(x: R.Tensor((n, 784)), w: R.Tensor((784, 128))) with one dataflow
 * block: lv = R.matmul(x, w); gv = R.nn.relu(lv); output gv. */
static RxFunc *build_rx(IrHeap *h, const char *op2, bool dataflow, float cval) {
  TirVar *n = tir_var(h, "n", dt_int64);
  TirExpr *xs[2] = {v(h, n), tir_int(h, dt_int64, 784)};
  TirExpr *ws[2] = {tir_int(h, dt_int64, 784), tir_int(h, dt_int64, 128)};
  TirExpr *os[2] = {v(h, n), tir_int(h, dt_int64, 128)};
  RxSInfo *out = rx_sinfo_tensor(h, os, 2, dt_float32);
  RxExpr *x = rx_var(h, "x", rx_sinfo_tensor(h, xs, 2, dt_float32), false);
  RxExpr *w = rx_var(h, "w", rx_sinfo_tensor(h, ws, 2, dt_float32), false);
  RxExpr *args[2] = {x, w};
  RxExpr *mm = rx_call(h, rx_op_lookup("matmul"), args, 2, NULL, NULL, 0, out);
  RxExpr *lv = rx_var(h, "lv", out, dataflow);
  RxExpr *c = rx_const(h, dt_float32, NULL, 0, &cval);
  RxExpr *args2[2] = {lv, c};
  RxExpr *r = rx_call(h, rx_op_lookup(op2), args2, 2, NULL, NULL, 0, out);
  RxExpr *gv = rx_var(h, "gv", out, false);
  RxBinding bs[2] = {{lv, mm, NULL, span_none}, {gv, r, NULL, span_none}};
  RxBlock blk = {dataflow, bs, 2};
  RxFunc *f = ir_alloc(h, sizeof *f);
  RxExpr *params[2] = {x, w};
  f->params = ir_memdup(h, params, sizeof params);
  f->nparams = 2;
  f->body = rx_seq(h, &blk, 1, gv);
  f->ret_sinfo = out;
  f->is_pure = true;
  f->span = span_none;
  return f;
}

static void test_relax(IrHeap *h) {
  RxFunc *f = build_rx(h, "add", true, 1.0f), *g = build_rx(h, "add", true, 1.0f);
  char *diff = NULL;
  CHECK(seq_relax_func(f, g, NULL, &diff));
  CHECK(diff == NULL);
  CHECK(shash_relax_func(f, false) == shash_relax_func(g, false));
  CHECK(!seq_relax_func(f, build_rx(h, "multiply", true, 1.0f), NULL, &diff));
  CHECK(contains(diff, "binding gv -> value: op relax.add vs relax.multiply"));
  free(diff);
  CHECK(!seq_relax_func(f, build_rx(h, "add", false, 1.0f), NULL, &diff));
  CHECK(contains(diff, "dataflow"));
  free(diff);
  CHECK(!seq_relax_func(f, build_rx(h, "add", true, 2.0f), NULL, &diff));
  CHECK(contains(diff, "constant values differ"));
  free(diff);
  CHECK(shash_relax_func(f, false) != shash_relax_func(build_rx(h, "add", true, 2.0f), false));
  RxFunc *impure = build_rx(h, "add", true, 1.0f);
  impure->is_pure = false;
  CHECK(!seq_relax_func(f, impure, NULL, &diff));
  CHECK(contains(diff, "purity pure vs impure"));
  free(diff);

  /* a module mixing both IRs */
  IrModule *m1 = ir_module_new("M"), *m2 = ir_module_new("M");
  MmOpts o = {0};
  ir_module_add_relax(m1, "main", f);
  ir_module_add_tir(m1, "mm_relu", build_mm_relu(h, &o));
  ir_module_add_tir(m2, "mm_relu", build_mm_relu(h, &o));
  ir_module_add_relax(m2, "main", g);
  CHECK(seq_module(m1, m2, NULL, NULL));
  CHECK(shash_module(m1) == shash_module(m2));
  ir_module_free(m1);
  ir_module_free(m2);
}

int main(void) {
  IrHeap *h = ir_heap_new();
  test_renamed_equal(h);
  test_loop_extent(h);
  test_literal_dtype(h);
  test_loop_kind(h);
  test_annotations(h);
  test_reads_order(h);
  test_iter_type(h);
  test_init_presence(h);
  test_param_shape(h);
  test_alloc_scope(h);
  test_inconsistent_var(h);
  test_free_vars(h);
  test_floats(h);
  test_global_symbol(h);
  test_symbolic_shapes(h);
  test_module(h);
  test_misc_stmts(h);
  test_relax(h);
  ir_heap_release(h);
  TEST_MAIN_END();
}
