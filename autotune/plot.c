/* plot.c - the tuning curve as a hand-written SVG: best-so-far GFLOP/s
 * against trials (left) and against wall time (right), one polyline per
 * run.  Written to a temporary name and renamed, like every output. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "runtime/write_file.h"

#define W 420
#define H 300
#define PAD 50

typedef struct Panel {
  int x0;             /* left edge */
  double xmax, ymax;
  const char *xlabel;
} Panel;

static void axes(FILE *f, const Panel *p) {
  fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#444'/>\n", p->x0 + PAD, 20,
          W - PAD - 10, H - PAD - 20);
  for (int i = 0; i <= 4; i++) {
    double y = 20 + (H - PAD - 20) * (1 - i / 4.0);
    fprintf(f, "<text x='%d' y='%.1f' font-size='10' text-anchor='end'>%.0f</text>\n", p->x0 + PAD - 4, y + 3,
            p->ymax * i / 4);
    double x = p->x0 + PAD + (W - PAD - 10) * i / 4.0;
    fprintf(f, "<text x='%.1f' y='%d' font-size='10' text-anchor='middle'>%.0f</text>\n", x, H - PAD + 14,
            p->xmax * i / 4);
  }
  fprintf(f, "<text x='%d' y='%d' font-size='11' text-anchor='middle'>%s</text>\n", p->x0 + PAD + (W - PAD) / 2,
          H - 12, p->xlabel);
  fprintf(f, "<text x='%d' y='%d' font-size='11' transform='rotate(-90 %d %d)' text-anchor='middle'>best GFLOP/s</text>\n",
          p->x0 + 14, H / 2, p->x0 + 14, H / 2);
}

static void curve(FILE *f, const Panel *p, const TuneRun *r, bool by_time, const char *color) {
  fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5' points='", color);
  for (int i = 0; i < r->ntrials; i++) {
    double xv = by_time ? r->time_curve[i] : i + 1;
    double x = p->x0 + PAD + (W - PAD - 10) * (p->xmax > 0 ? xv / p->xmax : 0);
    double y = 20 + (H - PAD - 20) * (1 - (p->ymax > 0 ? r->best_curve[i] / p->ymax : 0));
    fprintf(f, "%.1f,%.1f ", x, y);
  }
  fprintf(f, "'/>\n");
}

static double max_of(const double *v, int n, double m) {
  for (int i = 0; i < n; i++)
    if (v[i] > m) m = v[i];
  return m;
}

int tune_plot_svg(const char *path, const char *title, const TuneRun *a, const char *alabel, const TuneRun *b,
                  const char *blabel) {
  char *text = NULL; /* built in memory, then written checked and atomically */
  size_t tlen = 0;
  FILE *f = open_memstream(&text, &tlen);
  if (!f) return -1;
  double ymax = max_of(a->best_curve, a->ntrials, 1), tmax = max_of(a->time_curve, a->ntrials, 1);
  double nmax = a->ntrials;
  if (b) {
    ymax = max_of(b->best_curve, b->ntrials, ymax);
    tmax = max_of(b->time_curve, b->ntrials, tmax);
    if (b->ntrials > nmax) nmax = b->ntrials;
  }
  ymax *= 1.1;
  fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif'>\n", 2 * W,
          H + 20);
  fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
  fprintf(f, "<text x='%d' y='14' font-size='12' text-anchor='middle'>%s</text>\n", W, title);
  Panel p1 = {0, nmax, ymax, "trials"}, p2 = {W, tmax, ymax, "seconds"};
  axes(f, &p1);
  axes(f, &p2);
  const char *ca = "#1f77b4", *cb = "#d62728";
  curve(f, &p1, a, false, ca);
  curve(f, &p2, a, true, ca);
  fprintf(f, "<text x='%d' y='%d' font-size='11' fill='%s'>%s</text>\n", PAD + 8, 36, ca, alabel);
  if (b) {
    curve(f, &p1, b, false, cb);
    curve(f, &p2, b, true, cb);
    fprintf(f, "<text x='%d' y='%d' font-size='11' fill='%s'>%s</text>\n", PAD + 8, 50, cb, blabel);
  }
  fprintf(f, "</svg>\n");
  char err[512];
  int rc = fclose(f) == 0 && tvs_write_text_file(path, text, err, sizeof err) == 0 ? 0 : -1;
  free(text);
  return rc;
}
