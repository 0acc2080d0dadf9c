/* rt-trainlog.h: the trainer's console log (verl's `step:N - name:value - ...` lines) as series.
 * Read by rt-train, and by rt-overview --train to put training beside the rollout. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One metric: its value per step (the later line wins when a restart repeats a step).
 * Non-finite values are kept as NAN, so that a metric is known even when all of it is nan. */
typedef struct {
  gint32 step;
  guint32 seq;                /* order of reading: the later of two values of a step wins */
  double value;
} RtMetricPoint;

typedef struct {
  char *name;
  GArray *points;             /* RtMetricPoint; one per step, by step, once `settled` */
  gboolean settled;
  guint settled_len;          /* points when last settled: repeats are folded as they double */
} RtMetric;

/* The distinct metric names a log may have: a real one has a few hundred, and each name
 * costs memory, so a line of millions of names (64 MiB of "a1:1 - a2:1 - ...") is cut
 * here; the values of the names past it are counted in dropped_values. */
#define RT_TRAIN_MAX_METRICS 65536

typedef struct {
  GHashTable *metrics;        /* name -> RtMetric* */
  GArray *steps;              /* gint32: the steps that had a metric line, ascending */
  guint64 lines;              /* physical lines read */
  guint64 metric_lines;       /* lines (or \r-separated pieces) that held step:N */
  guint64 long_lines;         /* lines longer than the limit, skipped without being held whole */
  guint64 first_long_line;    /* the line number of the first of them (from 1), 0 when none */
  guint64 dropped_values;     /* values of names past the first RT_TRAIN_MAX_METRICS, not kept */
  guint steps_settled;        /* steps->len when last sorted: repeats are folded as it doubles */
} RtTrainLog;

/* Reads the log in chunks: memory grows with the longest line, never with the file, and
 * never past RT_LINE_MAX (rt-trace.h): a longer line (a crash can leave gigabytes of NUL
 * bytes without a newline) is counted in long_lines and skipped unread. */
RtTrainLog *rt_train_log_read (const char *path, GError **error);
/* The same with another limit than RT_LINE_MAX, for the tests. */
RtTrainLog *rt_train_log_read_with_limit (const char *path, gsize line_max, GError **error);
void rt_train_log_free (RtTrainLog *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTrainLog, rt_train_log_free)

/* The metric called `name`, or NULL. */
const RtMetric *rt_train_log_metric (const RtTrainLog *log, const char *name);

/* The value of a metric at a step: NAN when absent or not finite. */
double rt_metric_at (const RtMetric *m, gint32 step);

/* The finite values of a metric in step order. */
GArray *rt_metric_values (const RtMetric *m);

/* Metric names in sorted order (the array owns nothing). */
GPtrArray *rt_train_log_names (const RtTrainLog *log);

/* Parses one line of the log (ANSI codes, a Ray "(Actor pid=N)" prefix and tqdm's
 * carriage returns allowed) into `log`. Exposed for the tests. Returns TRUE when the
 * line held a step. */
gboolean rt_train_log_feed_line (RtTrainLog *log, const char *line, gsize len);
RtTrainLog *rt_train_log_new (void);

/* Reads a value as Python's pretty-printer wrote it: 1.5, 3, 1e-05, nan, inf, -inf,
 * np.float64(0.5), np.int64(3). FALSE for anything else (a string, a list). */
gboolean rt_parse_metric_value (const char *s, gsize len, double *out);

G_END_DECLS
