/* npu_config.c - the NPU's configuration: VTA's defaults and a JSON reader
 * (cJSON), so a class can change the block or the scratchpad sizes. */
#include "runtime/npu_isa.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/npy.h"

void npu_config_default(NpuConfig *c) {
  c->batch = 1;
  c->block_in = 16;
  c->block_out = 16;
  c->inp_buff_bytes = 32 << 10;
  c->wgt_buff_bytes = 256 << 10;
  c->acc_buff_bytes = 128 << 10;
  c->uop_buff_bytes = 32 << 10;
  c->dma_bytes_per_cycle = 64;
  c->dma_latency = 100;
  c->functional = true;
}

/* One integer key: its name, where it goes, and the smallest value allowed. */
typedef struct {
  const char *key;
  size_t off;
  bool is_int;        /* int (else int64_t) */
  int64_t min, max;   /* the range allowed */
} NpuConfigKey;

static const NpuConfigKey config_keys[] = {
    {"batch", offsetof(NpuConfig, batch), true, 1, 256},
    {"block_in", offsetof(NpuConfig, block_in), true, 1, 256},
    {"block_out", offsetof(NpuConfig, block_out), true, 1, 256},
    {"inp_buff_bytes", offsetof(NpuConfig, inp_buff_bytes), false, 1, 1LL << 32},
    {"wgt_buff_bytes", offsetof(NpuConfig, wgt_buff_bytes), false, 1, 1LL << 32},
    {"acc_buff_bytes", offsetof(NpuConfig, acc_buff_bytes), false, 1, 1LL << 32},
    {"uop_buff_bytes", offsetof(NpuConfig, uop_buff_bytes), false, 4, 1LL << 32},
    {"dma_bytes_per_cycle", offsetof(NpuConfig, dma_bytes_per_cycle), false, 1, 1LL << 20},
    {"dma_latency", offsetof(NpuConfig, dma_latency), false, 0, 1LL << 20},
};

static int set_key(NpuConfig *c, const cJSON *item, char *err, size_t errlen) {
  if (!strcmp(item->string, "functional")) {
    if (!cJSON_IsBool(item)) goto bad_bool;
    c->functional = cJSON_IsTrue(item);
    return 0;
  }
  for (size_t k = 0; k < sizeof config_keys / sizeof config_keys[0]; k++) {
    const NpuConfigKey *ck = &config_keys[k];
    if (strcmp(item->string, ck->key)) continue;
    double v = item->valuedouble;
    if (!cJSON_IsNumber(item) || v < (double)ck->min || v > (double)ck->max || v != (double)(int64_t)v) {
      tvs_set_err(err, errlen, "npu config: '%s' must be an integer in [%lld, %lld]", ck->key, (long long)ck->min,
                  (long long)ck->max);
      return -1;
    }
    if (ck->is_int) *(int *)((char *)c + ck->off) = (int)v;
    else *(int64_t *)((char *)c + ck->off) = (int64_t)v;
    return 0;
  }
  tvs_set_err(err, errlen,
              "npu config: unknown key '%s' (known: batch, block_in, block_out, "
              "inp_buff_bytes, wgt_buff_bytes, acc_buff_bytes, uop_buff_bytes, "
              "dma_bytes_per_cycle, dma_latency, functional)",
              item->string);
  return -1;
bad_bool:
  tvs_set_err(err, errlen, "npu config: 'functional' must be true or false");
  return -1;
}

int npu_config_parse_json(NpuConfig *c, const char *json, char *err, size_t errlen) {
  cJSON *root = cJSON_Parse(json);
  if (!root || !cJSON_IsObject(root)) {
    tvs_set_err(err, errlen, "npu config: not a JSON object");
    cJSON_Delete(root);
    return -1;
  }
  int rc = 0;
  for (const cJSON *it = root->child; it && rc == 0; it = it->next) rc = set_key(c, it, err, errlen);
  cJSON_Delete(root);
  return rc;
}

int npu_config_load(NpuConfig *c, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    tvs_set_err(err, errlen, "npu config: cannot open '%s'", path);
    return -1;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = cap ? 2 * cap : 8192;
      char *nb = realloc(buf, cap);
      if (!nb) abort();
      buf = nb;
    }
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    len += n;
    if (n == 0) break;
  }
  fclose(f);
  buf[len] = '\0';
  int rc = npu_config_parse_json(c, buf, err, errlen);
  free(buf);
  return rc;
}
