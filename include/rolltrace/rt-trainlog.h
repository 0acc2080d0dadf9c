/* SPDX-License-Identifier: Apache-2.0 */
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

/* A line copied from a terminal or a web page can come broken in two: the lines after a step
 * line that only continue it (` - name:value` pairs, no `step:`) are joined to it. Where the
 * break fell inside a metric's name or value (`timing_s/ge` | `n:12.5`), the two pieces are
 * joined as they stand, and the join is listed: the first RT_TRAIN_MAX_CUTS of them. */
#define RT_TRAIN_MAX_CUTS 100
/* The longest item (name:value) rebuilt from pieces: past it a line does not continue it. */
#define RT_TRAIN_MAX_ITEM 1024

typedef struct {
  guint64 line;               /* the line that continued the cut item (from 1) */
  gint32 step;
  char *text;                 /* the item as joined (its first 160 bytes), as read */
  gboolean kept;              /* it read as name:value, and the value was recorded */
} RtTrainCut;

typedef struct {
  GHashTable *metrics;        /* name -> RtMetric* */
  GArray *steps;              /* gint32: the steps that had a metric line, ascending */
  guint64 lines;              /* physical lines read */
  guint64 metric_lines;       /* lines (or \r-separated pieces) that held step:N */
  guint64 long_lines;         /* lines longer than the limit, skipped without being held whole */
  guint64 first_long_line;    /* the line number of the first of them (from 1), 0 when none */
  guint64 dropped_values;     /* values of names past the first RT_TRAIN_MAX_METRICS, not kept */
  guint steps_settled;        /* steps->len when last sorted: repeats are folded as it doubles */
  guint64 joined_lines;       /* lines that continued the step line above them, joined to it */
  guint64 cut_lines;          /* those of them that continued a cut name or value */
  GArray *cuts;               /* RtTrainCut: the first RT_TRAIN_MAX_CUTS of the cut_lines */
  /* while reading: the step line the next line may continue */
  gboolean open;              /* the last line read was a step line, or continued one */
  gboolean open_listed;       /* its step is in `steps` (it has a value) */
  gint32 open_step;
  GString *open_item;         /* the text of its last item, which a break may have cut; empty
                               * when it ended with a separator (" -") */
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

/* Says what joining wrapped lines did, in a sentence for a note ("3 lines continued ..."),
 * naming the first cuts by line; NULL when no line was joined. */
char *rt_train_log_describe_joins (const RtTrainLog *log);

/* Parses the next line of the log (ANSI codes, a Ray "(Actor pid=N)" prefix and tqdm's
 * carriage returns allowed) into `log`, counted in `lines`; a line that continues the step
 * line before it is joined to it. Exposed for the tests. Returns TRUE when the line held a
 * step (a continuation does not). */
gboolean rt_train_log_feed_line (RtTrainLog *log, const char *line, gsize len);
RtTrainLog *rt_train_log_new (void);

/* Reads a value as Python's pretty-printer wrote it: 1.5, 3, 1e-05, nan, inf, -inf,
 * np.float64(0.5), np.int64(3). FALSE for anything else (a string, a list). */
gboolean rt_parse_metric_value (const char *s, gsize len, double *out);

G_END_DECLS
