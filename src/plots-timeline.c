/* SPDX-License-Identifier: Apache-2.0 */
/* plots-timeline.c: rt-timeline's plots, written once for rt-timeline and for rt-report's
 * slowest step: the Gantt of a step's requests phase by phase (whole, or one window of it),
 * with its tail marked, and the requests in flight over the step. */
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-rollouts.h"
#include "rolltrace/rt-views.h"
#include "tasks-private.h"

#include <math.h>
#include <string.h>

/* Above this many requests in one Gantt, each is a thin line without its phases. */
#define THIN_ABOVE 400

/* The bars of the Gantt: what each phase of the table is drawn as. */
static const struct { const char *phase, *title, *colour; gboolean band; } bars[] = {
  { "worker", "worker file span", "#c7c7c7", TRUE },
  { "preprocessing", "step: preprocessing", "#8c564b", TRUE },
  { "generation", "step: generation", "#17becf", TRUE },
  { "barrier wait", "step: barrier wait", "#000000", TRUE },
  { "other sections", "step: other sections", "#bcbd22", TRUE },
  { "waiting", "waiting", "#e4e4e4", FALSE },
  { "pre-process", "pre-process", "#ff7f0e", FALSE },
  { "engine", "engine (generate)", "#1f77b4", FALSE },
  { "tool", "tool execution", "#2ca02c", FALSE },
  { "post-process", "post-process, parsing", "#d62728", FALSE },
  { "other", "other", "#9467bd", FALSE },
  { "unlogged", "alive, no phase logged", "#9ab7d3", FALSE },
  { "request", "request (alive)", "#1f77b4", FALSE },
};

/* Dashed verticals where 50, 90 and 99 % of the step's requests had finished. */
static char *
finish_marks (const RtTimeline *tl)
{
  const struct { const char *name; double v; } marks[] = {
    { "t50", tl->t50_s }, { "t90", tl->t90_s }, { "t99", tl->t99_s },
  };
  GString *gp = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    {
      if (isnan (marks[i].v) || (i > 0 && marks[i].v == marks[i - 1].v))
        continue;
      /* marks at one instant share a line and a label: "t90, t99" */
      g_autoptr (GString) label = g_string_new (marks[i].name);
      for (guint j = i + 1; j < G_N_ELEMENTS (marks) && marks[j].v == marks[i].v; j++)
        g_string_append_printf (label, ", %s", marks[j].name);
      g_string_append_printf (gp,
                              "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555' front\n"
                              "set label '%s' at %.17g, graph 1 offset 0, char 0.6 center tc rgb '#555555' front\n",
                              marks[i].v, marks[i].v, label->str, marks[i].v);
    }
  return g_string_free (gp, FALSE);
}

/* A bar [start, end] shows in the window [from_s, to_s] (NAN: open on that side): it overlaps
 * it, not only touches its edge; a bar of no length shows where it stands. */
static gboolean
bar_in_window (double start, double end, double from_s, double to_s)
{
  if (end <= start)
    return !(end < from_s) && !(start > to_s);
  return !(end <= from_s) && !(start >= to_s);
}

/* The bar of the Gantt a phase is drawn as, or -1: found by its phase's first letter before
 * the whole text is compared. */
static int
bar_of_phase (const char *phase)
{
  for (guint b = 0; phase != NULL && b < G_N_ELEMENTS (bars); b++)
    if (phase[0] == bars[b].phase[0] && strcmp (phase, bars[b].phase) == 0)
      return (int) b;
  return -1;
}

/* The bars that show, as gnuplot plot clauses (the legend names only those); `thin`:
 * requests without phases. */
static char *
gantt_clauses (const gboolean occurs[G_N_ELEMENTS (bars)], gboolean thin)
{
  GString *gp = g_string_new (NULL);
  for (guint b = 0; b < G_N_ELEMENTS (bars); b++)
    {
      if (!bars[b].band && (strcmp (bars[b].phase, "request") == 0) != thin)
        continue;
      if (!occurs[b])
        continue;
      /* the worker's span is a thin line under its sections; request bars fill most of a lane */
      double half = strcmp (bars[b].phase, "worker") == 0 ? 0.06 : bars[b].band ? 0.3 : thin ? 0.3 : 0.4;
      g_string_append_printf (gp, "%sdata using (($5+$6)/2):(strcol(4) eq '%s' ? $1 : NaN):(($6-$5)/2):(%g) "
                              "with boxxyerror fc rgb '%s' title '%s'",
                              gp->len ? ", \\\n     " : "", bars[b].phase, half, bars[b].colour, bars[b].title);
    }
  return g_string_free (gp, FALSE);
}

/* an end of a gnuplot range: * for none */
static char *
range_bound (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return isnan (v) ? g_strdup ("*") : g_strdup (g_ascii_dtostr (buf, sizeof buf, v));
}

/* The data of one of the step's plots, made before anything is written, on either thread:
 * a part of a Gantt's (the TSV of the rows of some of its workers, and what its script
 * takes from them) or the in-flight plot's (its TSV). The text is compared with the file
 * already there as it is made, and let go while it is the same: all of it is kept only
 * for a file that changes. */
typedef struct {
  const RtTrace *trace;
  const RtTimeline *tl;
  const GArray *workers;
  gboolean inflight;          /* the in-flight data, not a Gantt's */
  double from_s, to_s;        /* a Gantt's window */
  gboolean thin;              /* its requests without phases (more than THIN_ABOVE) */
  guint first_worker, end_worker;  /* this part's workers: indices into the step's */
  double cost;                /* about how long it takes, to begin with the longest */
  RtOutCheck *check;          /* the file it goes into (the plot's own) */
  GString *tsv;               /* a Gantt's first part's begins with the header line */
  RtOutPart part;             /* tsv compared with the file */
  RtTsvWriter *writer;        /* into tsv, while it is made */
  const char *last_phase;     /* the last bar's phase, and its bar (-1: none) */
  int last_bar;
  guint lanes, n_workers;
  gboolean occurs[G_N_ELEMENTS (bars)];
  GString *tics;
} PlotData;

/* The text of a plot's data compared with the file whenever it has grown by this much (it
 * stays in the cache meanwhile). */
#define COMPARE_EVERY (32 << 10)

/* One bar of a Gantt's part: its row of the TSV; whether its bar shows in the window; "worker
 * M" beside each worker's band in the tics, and the lanes taken, from 0 (the rows come lane
 * after lane). The bar of a phase is not looked up again for a row whose phase is the row
 * above's (the same text). */
static void
gantt_bar (const RtGanttBar *bar, gpointer data)
{
  PlotData *d = data;
  rt_timeline_gantt_bar_tsv (d->writer, bar);
  if (d->tsv->len >= COMPARE_EVERY)
    rt_out_part_compare (&d->part);
  if (bar->phase != d->last_phase)
    {
      d->last_phase = bar->phase;
      d->last_bar = bar_of_phase (bar->phase);
    }
  if (d->last_bar >= 0 && !d->occurs[d->last_bar])
    d->occurs[d->last_bar] = bar_in_window (bar->start_s, bar->end_s, d->from_s, d->to_s);
  d->lanes = MAX (d->lanes, bar->lane + 1);
  if (d->last_bar == 0)   /* "worker" */
    g_string_append_printf (d->tics, "%s'worker %d' %u", d->tics->len ? ", " : "", bar->worker, bar->lane);
}

/* Rows of a Gantt of a worker: a band per worker and section, and per request of the
 * window, with phases two per timed line at most. */
static gsize
gantt_rows_of (const RtTimeline *tl, guint k, double from_s, double to_s, gboolean thin)
{
  const RtSpans *sp = tl->spans;
  const RtSpanWorker *w = rt_spans_worker (sp, k);
  gsize rows = 1 + w->n_sections;
  for (guint i = 0; i < w->n_requests; i++)
    {
      const RtSpanRequest *q = rt_spans_request (sp, w->first_request + i);
      if (!(!isnan (from_s) && q->end_s <= from_s) && !(!isnan (to_s) && q->start_s >= to_s))
        rows += thin ? 1 : 2 + 2 * (gsize) q->n_lines;
    }
  return rows;
}

/* The first line at or after `at` in the file (its size when there is none). */
static guint64
line_start (RtOutCheck *c, guint64 at)
{
  char block[256];
  guint64 size = rt_out_check_size (c);
  if (at == 0)
    return 0;
  for (at--; at < size;)   /* from the byte before: a line begins after its newline */
    {
      gsize n = rt_out_check_read (c, at, block, sizeof block);
      const char *nl = n > 0 ? memchr (block, '\n', n) : NULL;
      if (nl != NULL)
        return at + (guint64) (nl - block) + 1;
      if (n == 0)
        break;
      at += n;
    }
  return size;
}

/* The lane a Gantt's TSV line at `at` begins with: G_MAXINT64 at the file's end, -1 for a
 * line without one (the header, before every lane). */
static gint64
line_lane (RtOutCheck *c, guint64 at)
{
  char text[24];
  gsize n = rt_out_check_read (c, at, text, sizeof text);
  if (n == 0)
    return G_MAXINT64;
  gint64 lane = 0;
  gsize i = 0;
  for (; i < n && i < 18 && g_ascii_isdigit (text[i]); i++)
    lane = lane * 10 + (text[i] - '0');
  return i > 0 && i < n && text[i] == '\t' ? lane : -1;
}

/* Where a part of a Gantt whose first row is on `lane` would begin in the file there, were
 * it the same: its lines come by lane, so at the first line of that lane or a later one,
 * found by bisection. A file that is not the same may give any place: the comparison
 * then tells. */
static guint64
gantt_part_offset (RtOutCheck *c, guint lane)
{
  guint64 lo = 0, hi = rt_out_check_size (c);
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (line_lane (c, line_start (c, mid)) >= (gint64) lane)
        hi = mid;
      else
        lo = mid + 1;
    }
  return line_start (c, lo);
}

/* Rows of the in-flight TSV written between two comparisons at most */
#define INFLIGHT_BATCH 512

static void
plot_data_make (PlotData *d)
{
  d->tsv = g_string_sized_new (2 * COMPARE_EVERY);
  if (d->inflight)
    {
      g_autoptr (RtTable) columns = rt_timeline_inflight_columns (d->tl, d->workers);
      guint n = d->tl->inflight->len, n_columns = rt_table_n_columns (columns);
      d->n_workers = n_columns - 2;
      rt_out_part_begin (&d->part, d->check, 0, d->tsv);
      if (d->part.differs)   /* kept whole: room for it at once, some 24 bytes and 4 a count */
        rt_string_grow (d->tsv, MIN ((gsize) (n + 1) * (24 + 4 * n_columns) + 4096, (gsize) 256 << 20));
      g_autoptr (RtTsvWriter) w = rt_tsv_writer_new (columns, d->tsv, TRUE);
      for (guint from = 0; from < n; from += INFLIGHT_BATCH)
        {
          rt_timeline_inflight_rows_tsv (d->tl, d->workers, w, from, MIN (from + INFLIGHT_BATCH, n));
          if (d->tsv->len >= COMPARE_EVERY)
            rt_out_part_compare (&d->part);
        }
      return;
    }
  guint64 offset = 0;
  if (d->first_worker > 0 && rt_out_check_size (d->check) > 0)
    offset = gantt_part_offset (d->check, rt_timeline_gantt_first_lane (d->tl, d->workers, d->from_s, d->to_s,
                                                                        d->first_worker));
  rt_out_part_begin (&d->part, d->check, offset, d->tsv);
  if (d->part.differs)
    {
      /* kept whole: room for it at once (only the pages written are touched), some 80
       * bytes a row */
      gsize rows = 0;
      guint n_workers = d->tl->spans ? d->tl->spans->workers->len : 0;
      for (guint k = d->first_worker; k < MIN (d->end_worker, n_workers); k++)
        rows += gantt_rows_of (d->tl, k, d->from_s, d->to_s, d->thin);
      rt_string_grow (d->tsv, MIN (rows * 80 + 4096, (gsize) 256 << 20));
    }
  d->tics = g_string_new (NULL);
  g_autoptr (RtTable) columns = rt_table_new (&rt_timeline_gantt_spec);
  d->writer = rt_tsv_writer_new (columns, d->tsv, d->first_worker == 0);
  d->last_phase = NULL;
  d->last_bar = -1;
  /* a thin line per request draws no phase: the data file holds none either */
  rt_timeline_gantt_each (d->trace, d->tl, d->workers, d->from_s, d->to_s, !d->thin, d->first_worker,
                          d->end_worker, gantt_bar, d);
  g_clear_pointer (&d->writer, rt_tsv_writer_free);
}

static void
plot_data_clear (PlotData *d)
{
  if (d->tsv != NULL)
    g_string_free (d->tsv, TRUE);
  if (d->tics != NULL)
    g_string_free (d->tics, TRUE);
}

/* The parts of one Gantt, in worker order, and what its script needs. */
typedef struct {
  const char *name, *zoom;
  double from_s, to_s;
  guint requests;
  gboolean thin;
  guint first_part, n_parts;  /* in the plots' data */
  RtOutCheck *check;          /* its TSV file */
} GanttPlan;

/* Splits a Gantt into parts of about equal rows (at most 3, and parts of at least some
 * thousands of rows), appending them to `data`. */
static void
gantt_plan (GanttPlan *g, GArray *data, RtSession *s, const RtTimeline *tl, const GArray *workers)
{
  const RtTrace *t = s->trace;
  g_autofree char *file = g_strdup_printf ("%s.tsv", g->name);
  g->check = rt_session_check_new (s, file);
  g->requests = rt_timeline_gantt_requests (tl, workers, g->from_s, g->to_s);
  g->thin = g->requests > THIN_ABOVE;
  g->first_part = data->len;
  guint n_workers = tl->spans ? tl->spans->workers->len : 0;
  g_autofree gsize *rows = g_new0 (gsize, MAX (n_workers, 1u));
  gsize all = 0;
  for (guint k = 0; k < n_workers; k++)
    all += rows[k] = gantt_rows_of (tl, k, g->from_s, g->to_s, g->thin);
  guint n_parts = (guint) CLAMP (all / 6000, 1, 3);
  guint k = 0;
  gsize before = 0;
  for (guint part = 0; part < n_parts; part++)
    {
      guint first = k;
      gsize part_rows = 0;
      for (; k < n_workers && (part == n_parts - 1 || (before + part_rows) * n_parts < all * (part + 1)); k++)
        part_rows += rows[k];
      before += part_rows;
      PlotData d = { .trace = t, .tl = tl, .workers = workers, .from_s = g->from_s, .to_s = g->to_s,
                     .thin = g->thin, .first_worker = first, .end_worker = part == n_parts - 1 ? G_MAXUINT : k,
                     .cost = 10.0 * (double) part_rows, .check = g->check };
      g_array_append_val (data, d);
    }
  g->n_parts = n_parts;
}

/* Writes one Gantt from the data of its parts. */
static gboolean
gantt_write (RtSession *s, const RtTimeline *tl, const GanttPlan *g, PlotData *parts, const char *worker_text,
             GError **error)
{
  gboolean occurs[G_N_ELEMENTS (bars)] = { FALSE };
  g_autoptr (GString) tics = g_string_new (NULL);
  g_autofree RtOutPart *tsv = g_new (RtOutPart, g->n_parts);
  guint lanes = 0;
  for (guint i = 0; i < g->n_parts; i++)
    {
      for (guint b = 0; b < G_N_ELEMENTS (bars); b++)
        occurs[b] = occurs[b] || parts[i].occurs[b];
      if (tics->len > 0 && parts[i].tics->len > 0)
        g_string_append (tics, ", ");
      g_string_append (tics, parts[i].tics->str);
      lanes = MAX (lanes, parts[i].lanes);
      tsv[i] = parts[i].part;
    }
  g_autofree char *clauses = gantt_clauses (occurs, g->thin);
  g_autofree char *marks = finish_marks (tl);
  g_autofree char *from_text = range_bound (g->from_s), *to_text = range_bound (g->to_s);
  g_autofree char *xrange = g_strdup_printf ("%s:%s", from_text, to_text);
  g_autofree char *ymax = g_strdup_printf ("%u", lanes);
  int height = (int) CLAMP (180 + lanes * (g->thin ? 3 : 12), 600, 8000);
  g_autofree char *size = g_strdup_printf ("1400,%d", height);
  g_autofree char *on = worker_text ? g_strdup_printf (", worker %s", worker_text) : g_strdup ("");
  g_autofree char *what = g_strdup_printf ("step %d%s%s%s, %u requests%s", tl->step, on, *g->zoom ? ", " : "",
                                           g->zoom, g->requests,
                                           g->thin ? " (one thin line each, no phases: more than 400)" : "");
  const char *vars[] = { "XRANGE", xrange, "YMAX", ymax, "YTICS", tics->str, "MARKS", marks, "PLOTS", clauses,
                         "SIZE", size, NULL };
  return rt_session_check_finish (s, g->check, tsv, g->n_parts, error)
         && rt_session_plot (s, "timeline", g->name, what, vars, error);
}

/* Writes the in-flight plot from its data. */
static char *
inflight_name (const RtTimeline *tl)
{
  return g_strdup_printf ("inflight_step_%d", tl->step);
}

static RtOutCheck *
inflight_check (RtSession *s, const RtTimeline *tl)
{
  g_autofree char *name = inflight_name (tl);
  g_autofree char *file = g_strdup_printf ("%s.tsv", name);
  return rt_session_check_new (s, file);
}

static gboolean
inflight_write (RtSession *s, PlotData *d, const char *worker_text, GError **error)
{
  const RtTimeline *tl = d->tl;
  g_autofree char *name = inflight_name (tl);
  g_autofree char *lastcol = g_strdup_printf ("%u", d->n_workers + 2);
  /* past a dozen workers the legend would hide the plot: their lines stay, unnamed */
  const char *worker_title = d->n_workers <= 12 ? "title columnhead(c)" : "notitle lc rgb '#bbbbbb' lw 1";
  g_autofree char *marks = finish_marks (tl);
  g_autofree char *what = g_strdup_printf ("step %d%s%s, requests in flight", tl->step,
                                           worker_text ? ", worker " : "", worker_text ? worker_text : "");
  g_autofree char *ytics = rt_gnuplot_int_tics ("ytics", 0, (gint32) MAX (tl->peak_in_flight, 1u), 10);
  const char *vars[] = { "LASTCOL", lastcol, "WORKER_TITLE", worker_title, "MARKS", marks, "YTICS", ytics, NULL };
  return rt_session_check_finish (s, d->check, &d->part, 1, error)
         && rt_session_plot (s, "inflight", name, what, vars, error);
}

/* The plots' data, made in the order of `order` (the longest first). */
typedef struct {
  PlotData *data;
  const guint *order;
} PlotJobs;

static void
plot_job_run (gpointer p, guint i)
{
  PlotJobs *jobs = p;
  plot_data_make (&jobs->data[jobs->order[i]]);
}

/* Makes the plots' data, on a second thread too when there is a second core. */
static void
plot_data_make_all (PlotData *data, guint n)
{
  /* the longest first (a few plots: by insertion; equal costs keep their order) */
  g_autofree guint *order = g_new (guint, MAX (n, 1u));
  for (guint i = 0; i < n; i++)
    {
      guint j = i;
      for (; j > 0 && data[order[j - 1]].cost < data[i].cost; j--)
        order[j] = order[j - 1];
      order[j] = i;
    }
  PlotJobs jobs = { data, order };
  rt_run_shared (n, g_get_num_processors (), plot_job_run, &jobs);
}

/* One Gantt: the requests of `workers` alive in [from_s, to_s] (NAN: the whole step). */
gboolean
rt_plot_timeline_gantt (RtSession *s, const RtTimeline *tl, const GArray *workers,
                        const char *worker_text, const char *name, const char *zoom,
                        double from_s, double to_s, GError **error)
{
  RtTimelineGantt one = { name, zoom, from_s, to_s };
  return rt_plot_timeline (s, tl, workers, worker_text, &one, 1, FALSE, error);
}

gboolean
rt_plot_timeline_inflight (RtSession *s, const RtTimeline *tl, const GArray *workers,
                           const char *worker_text, GError **error)
{
  g_autoptr (RtOutCheck) check = inflight_check (s, tl);
  PlotData d = { .trace = s->trace, .tl = tl, .workers = workers, .inflight = TRUE, .check = check };
  plot_data_make (&d);
  gboolean ok = inflight_write (s, &d, worker_text, error);
  plot_data_clear (&d);
  return ok;
}

gboolean
rt_plot_timeline (RtSession *s, const RtTimeline *tl, const GArray *workers, const char *worker_text,
                  const RtTimelineGantt *gantts, guint n_gantts, gboolean inflight, GError **error)
{
  /* the data of each plot (of each part of a large Gantt) is made apart from the others
   * (the tables are only read), then the files are written in order */
  g_autoptr (GArray) data = g_array_new (FALSE, FALSE, sizeof (PlotData));
  g_autofree GanttPlan *plans = g_new0 (GanttPlan, MAX (n_gantts, 1u));
  for (guint i = 0; i < n_gantts; i++)
    {
      plans[i] = (GanttPlan) { .name = gantts[i].name, .zoom = gantts[i].zoom,
                               .from_s = gantts[i].from_s, .to_s = gantts[i].to_s };
      gantt_plan (&plans[i], data, s, tl, workers);
    }
  guint inflight_at = data->len;
  g_autoptr (RtOutCheck) inflight_file = inflight ? inflight_check (s, tl) : NULL;
  if (inflight)
    {
      /* a cell of it takes about a tenth of a Gantt's row */
      PlotData d = { .trace = s->trace, .tl = tl, .workers = workers, .inflight = TRUE,
                     .cost = (double) tl->inflight->len * (2 + tl->workers->len), .check = inflight_file };
      g_array_append_val (data, d);
    }
  PlotData *all = (PlotData *) (void *) data->data;
  plot_data_make_all (all, data->len);

  gboolean ok = TRUE;
  for (guint i = 0; ok && i < n_gantts; i++)
    ok = gantt_write (s, tl, &plans[i], &all[plans[i].first_part], worker_text, error);
  if (ok && inflight)
    ok = inflight_write (s, &all[inflight_at], worker_text, error);
  for (guint i = 0; i < data->len; i++)
    plot_data_clear (&all[i]);
  for (guint i = 0; i < n_gantts; i++)
    rt_out_check_free (plans[i].check);
  return ok;
}

