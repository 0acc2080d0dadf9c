/* rt-analyses.h: every analysis of rolltrace as a function of a loaded trace, the steps chosen and
 * its options, returning plain results (freed with one call, no I/O), and the tables made of them. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-rollouts.h"
#include "rolltrace/rt-stats.h"
#include "rolltrace/rt-steps.h"
#include "rolltrace/rt-table.h"
#include "rolltrace/rt-trace.h"
#include "rolltrace/rt-trainer-files.h"
#include "rolltrace/rt-trainlog.h"
#include "rolltrace/rt-views.h"

G_BEGIN_DECLS

/* Conventions. An analysis takes the trace and the steps to look at (an RtStepSet, NULL
 * for all) and returns its result even when there is nothing to say: a trace without the
 * data gives an empty result, never an error. Each result has its _free function and
 * g_autoptr cleanup. A result refers to the trace (step indices, interned texts): it
 * lives no longer than the trace. Step indices index trace->steps. */

/* Indices into t->steps of the steps of `set` (NULL: all), ascending. */
GArray *rt_trace_select_steps (const RtTrace *t, const RtStepSet *set);

/* The columns of an RtSummary in a table, and its cells. `extra` as in rt-views.h:
 * RT_SUMMARY_P80 and RT_SUMMARY_P999 add those two. */
#define RT_SUMMARY_COLUMNS_HEAD(unit) \
  { RT_COL ("count", RT_COLUMN_INT, NULL, "how many values") }, \
  { RT_COL ("mean", RT_COLUMN_NUMBER, unit, "mean") }, \
  { RT_COL ("std", RT_COLUMN_NUMBER, unit, "standard deviation (population)") }, \
  { RT_COL ("min", RT_COLUMN_NUMBER, unit, "smallest") }, \
  { RT_COL ("max", RT_COLUMN_NUMBER, unit, "largest") }, \
  { RT_COL ("p50", RT_COLUMN_NUMBER, unit, "median (percentiles interpolate between closest ranks)") }
#define RT_SUMMARY_COLUMN_P80(unit) { RT_COL ("p80", RT_COLUMN_NUMBER, unit, "80th percentile") }
#define RT_SUMMARY_COLUMNS_TAIL(unit) \
  { RT_COL ("p90", RT_COLUMN_NUMBER, unit, "90th percentile") }, \
  { RT_COL ("p95", RT_COLUMN_NUMBER, unit, "95th percentile") }, \
  { RT_COL ("p99", RT_COLUMN_NUMBER, unit, "99th percentile") }
#define RT_SUMMARY_COLUMN_P999(unit) { RT_COL ("p999", RT_COLUMN_NUMBER, unit, "99.9th percentile") }
void rt_table_summary (RtTable *table, const RtSummary *sum, guint extra);

/* A table whose RT_COLUMN_EACH column `pattern` becomes one column per step-level
 * section, the first `n` of them in RtEventId order. */
RtTable *rt_table_new_with_sections (const RtTableSpec *spec, const char *pattern, int n);

/* ---- cdf: the distribution of request durations, or of any event's ---------------- */

typedef struct {
  guint step_index;
  gint32 step;
  RtSorted sorted;            /* the step's values, ascending (in place in the cache, or own) */
  RtSummary summary;
} RtCdfStep;

typedef struct {
  const char *event;          /* the canonical name; as asked when the trace lacks it */
  guint16 id;                 /* RT_EVENT_NONE when the trace lacks it */
  GArray *steps;              /* RtCdfStep: the selected steps that have values */
  RtSorted all;               /* every value of those steps, ascending (in place, or own) */
  RtSummary all_summary;
} RtCdfEvent;

typedef struct {
  GPtrArray *events;          /* RtCdfEvent*, one per name asked, in that order */
} RtCdf;

/* The values of each event of `events` (NULL: async_rollout_request_complete, the request
 * durations): one per worker file (its sum) for a step-level event, one per line with a
 * duration for any other. */
RtCdf *rt_cdf_analyse (const RtTrace *t, const RtStepSet *steps, const char *const *events);
void rt_cdf_free (RtCdf *cdf);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtCdf, rt_cdf_free)

/* step and the summary of each step: cdf "steps" */
extern const RtTableSpec rt_cdf_steps_spec;
RtTable *rt_cdf_steps_table (const RtCdfEvent *e);
/* the summary of all selected steps, one row: cdf "all" */
extern const RtTableSpec rt_cdf_all_spec;
RtTable *rt_cdf_all_table (const RtCdfEvent *e);

/* ---- overview: rollout and step interval per step -------------------------------- */

typedef struct {
  guint step_index;
  gint32 step;
  double rollout_s;           /* max over workers of total_step_duration */
  double interval_s;          /* this step's start to the start of the next step of the whole
                               * trace; NAN for the last step or a step without a start */
  double outside_s;           /* interval_s - rollout_s: training, weight sync */
  gboolean rollout_outlier;   /* further than 2 population std from the mean */
  gboolean interval_outlier;
  double train_step_s;        /* the trainer's timing_s/step for the step; NAN without it */
  double train_gen_s;         /* its timing_s/gen */
} RtOverviewStep;

typedef struct {
  GArray *steps;              /* RtOverviewStep of the selected steps with a rollout time */
  gboolean with_train;        /* a trainer's log was given: its columns mean something */
  double rollout_mean;        /* over those steps; NAN when none */
  double interval_mean;       /* over those with an interval */
  guint n_both;               /* the steps with both a rollout and an interval > 0, over which: */
  double outside_mean;        /* the mean of outside_s */
  double rollout_share;       /* the mean of rollout_s / interval_s: the rollout's share of a step
                               * (the rollout_share finding's); 1 - it is outside rollout */
  gboolean any_outlier;       /* some step is a rollout or interval outlier */
} RtOverview;

/* `train` (NULL: none) adds the trainer's timing_s/step and timing_s/gen of each step. */
RtOverview *rt_overview_analyse (const RtTrace *t, const RtStepSet *steps, const RtTrainLog *train);
void rt_overview_free (RtOverview *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtOverview, rt_overview_free)

/* overview.tsv and the JSON "steps". The TSV always has the trainer's columns (NaN without
 * a log, so that the plot script reads the same columns); the JSON only with a log. So two
 * declarations: without a log those columns are TSV-only. rt_overview_table picks. */
extern const RtTableSpec rt_overview_spec;
extern const RtTableSpec rt_overview_train_spec;
RtTable *rt_overview_table (const RtOverview *o);

/* ---- workers: the ranks of a step, and the one everybody waits for ----------------- */

/* The straggler of a step: the worker file the others wait for at the barrier. The barrier
 * evens the totals out, so it is the one with the largest async_generate_duration (older:
 * async_generate) summed over its file; when no file of the step logged generation, the one
 * with the largest total_step_duration. Ties to the lower worker. */
typedef struct {
  guint step_index;
  gint32 step;
  int slowest_file;           /* the straggler, index into t->files; -1 when no file has either */
  gint32 slowest_worker;      /* its worker; -1 likewise */
  gboolean by_generation;     /* chosen by generation time (FALSE: by the total) */
  double generation_max, generation_median;   /* over the files that logged one; NAN: none */
  double total_max, total_median;             /* likewise of total_step_duration */
  /* generation_max / generation_median, or total_max / total_median when no generation */
  double imbalance;
  double total_imbalance;     /* total_max / total_median: what the barrier leaves of it */
} RtStepBalance;

void rt_step_balance (const RtTrace *t, guint step_index, RtStepBalance *out);

typedef struct {
  GArray *steps;              /* RtStepBalance of the selected steps with a total */
  gint32 worst_step;          /* the step with the largest imbalance, -1 when none */
  double worst_imbalance;
} RtWorkers;

RtWorkers *rt_workers_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_workers_free (RtWorkers *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtWorkers, rt_workers_free)

extern const RtTableSpec rt_workers_steps_spec;
RtTable *rt_workers_steps_table (const RtWorkers *w);

typedef struct {
  guint file;                 /* index into t->files */
  gint32 worker;
  double sections_s[RT_N_STEP_EVENTS];  /* its sum of each step-level section; NAN: none */
  guint requests;             /* complete requests */
  double request_p50, request_max;      /* of their durations; NAN when none */
} RtWorkerRow;

typedef struct {
  RtStepBalance balance;
  GArray *workers;            /* RtWorkerRow, by worker */
  double barrier_slowest_s;   /* barrier wait of the slowest worker */
  double barrier_mean_s;      /* mean over the workers that logged one */
} RtWorkersStep;

RtWorkersStep *rt_workers_step_analyse (const RtTrace *t, guint step_index);
void rt_workers_step_free (RtWorkersStep *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtWorkersStep, rt_workers_step_free)

/* worker, total, every section, requests: workers_step_N.tsv and --step's "workers" */
extern const RtTableSpec rt_workers_step_spec;
RtTable *rt_workers_step_table (const RtWorkersStep *w);
/* one worker's sections with a positive time: worker_M_step_N.tsv */
extern const RtTableSpec rt_worker_sections_spec;
RtTable *rt_worker_sections_table (const RtWorkerRow *row);

/* ---- requests: one step's requests, and the slowest broken down by phase ----------- */

/* One of the slowest requests and where its time went. */
typedef struct {
  guint request;              /* index into t->requests */
  GArray *phase_ids;          /* guint16 event ids of its lines with a duration, in order of
                               * first appearance */
  double *phase_s;            /* seconds by event id: the sum of those lines' durations */
} RtSlowRequest;

typedef struct {
  guint step_index;
  gint32 step;
  gint32 worker;              /* the worker asked; -1: all */
  RtSamples *durations;       /* of its complete requests with a duration, ascending */
  RtSummary summary;          /* of `durations` */
  GArray *slowest;            /* RtSlowRequest, the `top` slowest first (ties: the lower
                               * worker, then the lower request id) */
  GArray *leaves;             /* guint16 event ids of the leaf phases (that contain no other
                               * phase) some slow request spent time in, in stacking order */
  guint at_length;            /* of `slowest`, those that ended on the length limit */
  gint32 at_length_tokens;    /* the most response tokens among them; -1: none known */
} RtRequests;

/* Whether request q ended on the length limit: its finish reason is LENGTH
 * ("FinishReasonTypeEnum.LENGTH"). */
gboolean rt_request_at_length (const RtTrace *t, const RtRequest *q);

/* The requests of step `step_index` of `worker` (-1: all), and the `top` slowest. */
RtRequests *rt_requests_analyse (const RtTrace *t, guint step_index, gint32 worker, guint top);
void rt_requests_free (RtRequests *r);
/* The sum of the durations of the lines of request `request` (index into t->requests) that
 * name `event`: its RtSlowRequest.phase_s[event], reading only its own file's rows. */
double rt_request_event_sum (const RtTrace *t, guint request, guint16 event);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtRequests, rt_requests_free)

/* the summary of the durations, one row: requests "cdf" */
extern const RtTableSpec rt_requests_cdf_spec;
RtTable *rt_requests_cdf_table (const RtRequests *r);
/* one slow request, one row, its phases ({event: seconds}, different for each) as a group:
 * an element of requests "slowest" */
extern const RtTableSpec rt_requests_slow_spec;
RtTable *rt_requests_slow_table (const RtTrace *t, const RtSlowRequest *slow);
/* a slow request's phases with a positive time, each under the phase that holds its lines
 * (RtRequestView's nesting), depth first: request_K_step_N.tsv */
extern const RtTableSpec rt_request_phases_spec;
RtTable *rt_request_phases_table (const RtTrace *t, const RtSlowRequest *slow);
/* the slowest by leaf phase, and the rest: requests_top_step_N.tsv */
extern const RtTableSpec rt_requests_top_spec;
RtTable *rt_requests_top_table (const RtTrace *t, const RtRequests *r);

/* ---- request view: everything that happened to one request, in time ---------------- */

/* A line is inside another when it starts no earlier and ends no later, this much allowed
 * either way: the logger's clock has microseconds, and each line is written a little after
 * its section ended, which shifts the start it gives (timestamp - duration) by as much. */
#define RT_REQUEST_NEST_SLACK_S 20e-6
/* A stretch of the request's life that no innermost line covers is a gap when it lasts at
 * least this long; the shorter ones (between two lines written one after the other) are
 * only counted. */
#define RT_REQUEST_GAP_MIN_S 0.001
/* A request with more lines than this (a real one has tens to hundreds) is shown flat, its
 * lines and gaps in time but none inside another: nesting compares lines pairwise. */
#define RT_REQUEST_NEST_MAX 5000

/* A line of the request, or a gap between its lines. Times from the request's start. */
typedef struct {
  double start_s, end_s;      /* a line: timestamp - duration (timestamp for an instant
                               * line), timestamp; a gap: where it begins and ends */
  double duration_s;          /* as logged; NAN for an instant line; a gap's length */
  guint32 row;                /* the line's row in its file (line order); RT_NONE: a gap */
  guint32 parent;             /* the item holding it (the shortest line it is inside), RT_NONE:
                               * none; an index into RtRequestView.items */
  guint16 event;              /* canonical id in t->registry; RT_EVENT_NONE for a gap */
  gint16 turn;                /* extra.turn as logged, -1 when absent (and for a gap) */
  guint16 depth;              /* 0 for an outermost item, its parent's + 1 */
} RtRequestItem;

typedef struct {
  guint request;              /* index into t->requests */
  double origin_s;            /* its start in absolute seconds (rt-trace.h): the earliest
                               * start of its lines; NAN when none has a timestamp */
  double end_s;               /* the latest end, from origin_s */
  GArray *items;              /* RtRequestItem, depth first: an item, then the items inside
                               * it by start (ties: line order, a gap after the lines) */
  guint lines;                /* lines with a timestamp (items that are not gaps) */
  guint untimed;              /* lines of the request without a readable timestamp: left out */
  guint gaps;                 /* gaps of at least RT_REQUEST_GAP_MIN_S (items) */
  double gap_s;               /* their summed length */
  guint short_gaps;           /* uncovered stretches shorter than that (not items) */
  double short_gap_s;         /* their summed length */
  gboolean flat;              /* more than RT_REQUEST_NEST_MAX lines: none nested */
} RtRequestView;

/* The lines of request `request` (index into t->requests), nested and in time, and its gaps. */
RtRequestView *rt_request_view (const RtTrace *t, guint request);
void rt_request_view_free (RtRequestView *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtRequestView, rt_request_view_free)

static inline const RtRequestItem *
rt_request_item (const RtRequestView *v, guint i)
{
  return &g_array_index (v->items, RtRequestItem, i);
}

/* The requests of the steps `steps` selects (NULL: all) whose id begins with `prefix`, as
 * indices into t->requests in step, worker, line order; only the one whose id is `prefix`
 * itself when there is such a request. */
GArray *rt_requests_find (const RtTrace *t, const RtStepSet *steps, const char *prefix);

/* one item (line or gap) of a request, in RtRequestView order: request_ID.tsv, the JSON "lines" */
extern const RtTableSpec rt_request_lines_spec;
RtTable *rt_request_lines_table (const RtTrace *t, const RtRequestView *v);

/* ---- turns: time per turn index ---------------------------------------------------- */

/* The requests of one step, worker file after worker file (turns and turn-dist walk them):
 *   RtStepRequests it;
 *   rt_step_requests_init (&it, t, si);
 *   for (const RtRequest *q; (q = rt_step_requests_next (&it)) != NULL;) ... */
typedef struct {
  const RtTrace *t;
  guint file, end_file;
  const RtRequest *at, *end;  /* what is left of the file's requests */
} RtStepRequests;
void rt_step_requests_init (RtStepRequests *it, const RtTrace *t, guint step_index);
/* (the first request of the next file that has one, or NULL) */
const RtRequest *rt_step_requests_next_file (RtStepRequests *it);
/* Inline: it runs once per request of every step an analysis walks. */
static inline const RtRequest *
rt_step_requests_next (RtStepRequests *it)
{
  return it->at != it->end ? it->at++ : rt_step_requests_next_file (it);
}

typedef struct {
  gint32 turn;                /* the turn index, from 0 */
  guint count;                /* turn records of that index */
  double mean_s[RT_N_TURN_PARTS];   /* mean over the records that have the part; NAN: none */
} RtTurnsRow;

typedef struct {
  GArray *turns;              /* RtTurnsRow of each turn index with a record, ascending;
                               * empty when the logger wrote no turn timings */
} RtTurns;

/* Every turn record (turn_timings, or turn_end lines) of the selected steps' requests. */
RtTurns *rt_turns_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_turns_free (RtTurns *turns);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTurns, rt_turns_free)

/* turns.tsv and the JSON "turns" */
extern const RtTableSpec rt_turns_spec;
RtTable *rt_turns_table (const RtTurns *turns);

/* ---- turn-dist: requests by number of turns ---------------------------------------- */

typedef struct {
  gint32 turns;               /* the number of turns */
  guint count;                /* complete requests with that many */
  guint n_timed;              /* those of them with a duration */
  double sum_s;               /* their total duration */
  double mean_s;              /* sum_s / n_timed; NAN when none is timed */
} RtTurnBin;

typedef struct {
  guint step_index;
  gint32 step;
  guint requests;             /* complete requests, with a number of turns or not */
  GArray *bins;               /* RtTurnBin, one per number of turns that occurs, ascending:
                               * sized by what the trace holds, never by one absurd value */
} RtTurnDistStep;

typedef struct {
  GArray *steps;              /* RtTurnDistStep of the selected steps with a complete request */
  GArray *all;                /* RtTurnBin over all of them */
} RtTurnDist;

RtTurnDist *rt_turn_dist_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_turn_dist_free (RtTurnDist *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTurnDist, rt_turn_dist_free)

/* The bin of `turns` in `bins` (an RtTurnBin array, ascending), or NULL. */
const RtTurnBin *rt_turn_bins_find (const GArray *bins, gint32 turns);

/* turns, count, mean_s of each bin: the JSON "all" and each step's "by_turns" */
extern const RtTableSpec rt_turn_dist_bins_spec;
RtTable *rt_turn_dist_bins_table (const GArray *bins);
/* step, requests, by_turns: the JSON "steps" */
extern const RtTableSpec rt_turn_dist_steps_spec;
RtTable *rt_turn_dist_steps_table (const RtTurnDist *d);
/* Pivots, a column per number of turns in `all`: turn_dist_counts.tsv (requests; 0 when
 * none) and turn_dist_mean.tsv (mean duration; NaN when none) */
extern const RtTableSpec rt_turn_dist_counts_spec;
RtTable *rt_turn_dist_counts_table (const RtTurnDist *d);
extern const RtTableSpec rt_turn_dist_mean_spec;
RtTable *rt_turn_dist_mean_table (const RtTurnDist *d);

/* ---- events: each step-level section's share of the step ---------------------------- */

typedef struct {
  guint step_index;
  gint32 step;
  double total_mean_s;        /* mean over the step's workers of total_step_duration */
  double pct[RT_N_STEP_EVENTS];   /* each section's mean over the workers that logged it
                                   * / total_mean_s x 100; NAN when none did. The slot of
                                   * total_step_duration itself is NAN. */
} RtEventsStep;

typedef struct {
  GArray *steps;              /* RtEventsStep of the selected steps with a positive total */
  double mean_pct[RT_N_STEP_EVENTS];  /* each share averaged over the steps that have it;
                                       * NAN when none has (and for total_step_duration) */
  double barrier_pct;         /* mean_pct[RT_EV_BARRIER_WAIT]: what waiting at the barrier
                               * for the slowest rank costs every step */
} RtEvents;

RtEvents *rt_events_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_events_free (RtEvents *ev);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtEvents, rt_events_free)

/* step, total_mean_s and a column per section before total_step_duration (in JSON
 * under "pct"): events.tsv and the JSON "steps" */
extern const RtTableSpec rt_events_spec;
RtTable *rt_events_table (const RtEvents *ev);

/* ---- check: the inventory of an experiment and what is wrong with it --------------- */

typedef struct {
  gint32 step, worker;
} RtMissingFile;

/* The inventory of the selected steps; the strays, duplicates and how the trace was
 * loaded (t->strays, t->duplicates, t->stats) belong to the folder, not to steps. */
typedef struct {
  guint n_steps;
  gint32 step_min, step_max;  /* 0 when no step is selected */
  guint max_workers;          /* worker files of the step with the most */
  guint64 files, lines, events, bad_lines, field_problems, glued_lines;
  guint64 requests;           /* complete ones */
  guint64 problems_total;     /* bad lines and field problems, listed or not */
  guint64 other_name_events;  /* events past RT_EVENT_NAMES_MAX distinct names */
  RtSchemaFlags schema;       /* the logger generations whose names occur */
  GArray *missing;            /* RtMissingFile: a worker's file absent from a selected step
                               * while it has one in another step; by step, then worker */
  GArray *empty;              /* RtMissingFile: a selected step's worker file in which no line
                               * is an event (nothing written, or only bad lines); in order */
  GArray *problems;           /* guint: indices into t->problems of the selected files' */
} RtCheck;

RtCheck *rt_check_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_check_free (RtCheck *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtCheck, rt_check_free)

/* "v1", "v2" or "mixed" (v2 too for RT_SCHEMA_NEITHER: no event at all). */
const char *rt_schema_name (RtSchemaFlags schema);

/* check "missing" */
extern const RtTableSpec rt_check_missing_spec;
RtTable *rt_check_missing_table (const RtCheck *c);
extern const RtTableSpec rt_check_empty_spec;
RtTable *rt_check_empty_table (const RtCheck *c);
/* check "problems": the listed bad lines of the selected steps' files */
extern const RtTableSpec rt_check_problems_spec;
RtTable *rt_check_problems_table (const RtTrace *t, const RtCheck *c);
/* check "duplicates": t->duplicates */
extern const RtTableSpec rt_check_duplicates_spec;
RtTable *rt_check_duplicates_table (const RtTrace *t);
/* check "cache", one row: t->stats */
extern const RtTableSpec rt_check_cache_spec;
RtTable *rt_check_cache_table (const RtTrace *t);
/* check "rollouts": every rollout of the map's folders that `steps` selects */
extern const RtTableSpec rt_check_rollouts_spec;
RtTable *rt_check_rollouts_table (const RtRolloutMap *map, const RtStepSet *steps);
/* "trainer_sections" (rt-check, rt-events): the trainer's own sections (worker_-1.jsonl) */
extern const RtTableSpec rt_trainer_sections_spec;
RtTable *rt_trainer_sections_table (const RtTrainerSections *ts);

/* ---- train: the trainer's console log ---------------------------------------------- */

typedef struct {
  const char *metric;         /* its name in the log (owned by the log) */
  char *file;                 /* metric_NAME, its plot's files: unique among the log's metrics */
  char *wanted_file;          /* metric_NAME of its name alone, `file` unless another metric has it */
  char *key;                  /* its --json key (valid UTF-8), unique among the log's metrics */
  RtSummary summary;          /* of its finite values */
  double window_mean;         /* of its last `window` finite values */
  gboolean plottable;         /* it has a value a plot can draw (finite, at most 1e300 in size) */
  gboolean chosen;            /* a --metric glob matches it */
} RtTrainMetric;

/* The plots every log gets when it has their metrics, in the order they are drawn. */
typedef enum {
  RT_TRAIN_BREAKDOWN,         /* step_timing_breakdown: time per step by section */
  RT_TRAIN_PER_TOKEN,         /* per_token_timing */
  RT_TRAIN_THROUGHPUT,        /* throughput, and the time per step below it */
  RT_TRAIN_COMPONENTS,        /* component_comparison: generation against the updates */
  RT_TRAIN_GENERATION,        /* generation_timing */
  RT_TRAIN_N_PLOTS
} RtTrainPlotId;

typedef struct {
  const char *name;           /* its files, "step_timing_breakdown" */
  const char *const *metrics; /* the metrics it draws, NULL-terminated */
  const char *trailer;        /* a column after them, drawn apart (timing_s/step), or NULL */
  GPtrArray *found;           /* const char*: the metrics the log has a value to plot of, in
                               * the order of `metrics`; empty: the plot is skipped */
  GArray *means;              /* double: the mean of each found one's values a plot can draw */
  GPtrArray *known;           /* const char*: the metrics the log has at all, plottable or not
                               * (NULL-terminated) */
} RtTrainPlot;

typedef struct {
  guint window;
  GArray *metrics;            /* RtTrainMetric: every metric of the log, in name order */
  GPtrArray *unmatched;       /* const char*: the globs asked that match no metric */
  RtTrainPlot plots[RT_TRAIN_N_PLOTS];
  gboolean step_plottable;    /* timing_s/step has a value to plot */
  double step_mean;           /* the mean of those values, NAN when none */
} RtTrain;

/* `window`: values in window_mean and moving means; `metric_globs` (NULL-terminated, or
 * NULL): the metrics to plot one by one. The result refers to the log and the globs. */
RtTrain *rt_train_analyse (const RtTrainLog *log, guint window, const char *const *metric_globs);
void rt_train_free (RtTrain *tr);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTrain, rt_train_free)

/* the statistics of every metric: train "metrics" (an object keyed by RtTrainMetric.key) */
extern const RtTableSpec rt_train_metrics_spec;
RtTable *rt_train_metrics_table (const RtTrain *tr);
/* step and the found metrics of a plot, then its trailer: NAME.tsv of each RtTrainPlot */
extern const RtTableSpec rt_train_series_spec;
RtTable *rt_train_plot_table (const RtTrainLog *log, const RtTrainPlot *p);
/* one metric and its moving mean over `window` values: metric_NAME.tsv */
extern const RtTableSpec rt_train_metric_spec;
RtTable *rt_train_metric_table (const RtTrainLog *log, const char *metric, guint window);

/* ---- spans: a step's requests, their turns and phases, and the workers' sections in time ---- */

/* What a request-level line's time was spent on. The Gantt of rt-timeline colours phases by
 * kind, the Chrome trace of rt-trace nests them; both draw enclosing lines differently. */
typedef enum {
  RT_PHASE_PRE_PROCESS,       /* turn_pre_process, pending_state_handling,
                               * tool_creation_pending_state, interaction_start_pending_state */
  RT_PHASE_ENGINE,            /* turn_engine_call (older engine_call), engine_generate_setup,
                               * engine_async_generate_actual: generation */
  RT_PHASE_TOOL,              /* tool_execution, tool_response_processing, tool_calling_state */
  RT_PHASE_POST_PROCESS,      /* turn_post_process, turn_tool_parsing (older tool_parsing),
                               * reward_calculation, finalization: post-processing, parsing */
  RT_PHASE_OTHER,             /* any other name with a duration (interaction_response,
                               * interacting_state, names this version does not know) */
  RT_PHASE_ENCLOSING,         /* lines that hold the others rather than being a phase:
                               * async_rollout_request_complete (the request), main_loop, turn_end
                               * and the older running_state (a whole turn) */
  RT_N_PHASE_KINDS
} RtPhaseKind;

/* The kind of a canonical event name; RT_PHASE_OTHER for unknown names and NULL. */
RtPhaseKind rt_phase_kind (const char *canonical_name);
/* "pre-process", "engine", "tool", "post-process", "other", "enclosing" */
const char *rt_phase_kind_name (RtPhaseKind kind);

/* All times in RtSpans are doubles in seconds from the step's start, RtSpans.origin_s: the
 * minimum over all the step's lines of timestamp - duration_sec (RtStep.start_s), so that
 * absolute = origin_s + relative. A line has a time when it has a readable timestamp (its end);
 * a line without a duration lasts 0 s. */

/* A timed line of a request: one with a request id, a finite duration and a readable timestamp. */
typedef struct {
  double start_s, end_s;      /* end - duration, end (start > end for a negative duration) */
  guint16 event;              /* canonical id in t->registry */
  guint8 kind;                /* RtPhaseKind of the event */
  gint16 turn;                /* extra.turn as logged, -1 when absent; of a tool call
                               * (RT_PHASE_TOOL): the turn it belongs to, by time (below) */
} RtSpanLine;

/* A tool call (tool_execution, tool_response_processing, tool_calling_state) belongs to the
 * turn of its request that ended last at or before the call started, this much allowed (a
 * start up to 1 ms before that turn's end), and to none (-1) when no turn had ended. Its
 * extra.turn is no guide: the logger counts a turn as done before its tool runs, so a call
 * numbered n was asked for by turn n - 1 (docs/input.md), while older traces, the samples among
 * them, number it with the calling turn. By time, both read the same. */
#define RT_TOOL_CALL_SLACK_S 0.001

/* The turns of a request: the span of its timed lines with that extra.turn, its tool calls
 * left out (they run between the turn that asked for them and the next, and stretch
 * neither). */
typedef struct {
  gint16 turn;                /* as logged (0-based in the newer logger) */
  double start_s, end_s;      /* min start / max end of those lines */
} RtSpanTurn;

/* One request: one async_rollout_request_complete line with a finite duration_sec and a
 * readable timestamp. Every such line counts once (a rerun of an id is another request). */
typedef struct {
  guint32 request;            /* index into t->requests (id, finish reason, turns...), or
                               * RT_NONE when the line could not be tied to one */
  guint32 worker_index;       /* index into RtSpans.workers */
  double start_s, end_s;      /* its life [end - duration, end); start_s = end_s (an empty life)
                               * when duration_s <= 0 */
  double duration_s;          /* duration_sec as logged */
  guint32 first_line, n_lines;/* its timed lines (those the loader tied to its request, the
                               * complete line itself excluded) in RtSpans.lines, by start, then
                               * the longer first, then line order: an enclosing line comes
                               * before what it holds */
  guint32 first_turn, n_turns;/* its turns in RtSpans.turns, ascending turn index; their index
                               * range is turns[first_turn].turn .. turns[first_turn + n_turns - 1].turn */
} RtSpanRequest;

/* A step-level section (RtEventId < RT_N_STEP_EVENTS, total_step_duration included) of a
 * worker file with a duration and a readable timestamp, in line order. */
typedef struct {
  double start_s, end_s;
  guint16 event;              /* RtEventId */
} RtSpanSection;

/* One worker file of the step. */
typedef struct {
  guint32 file;               /* index into t->files */
  gint32 worker;
  double start_s, end_s;      /* min timestamp - duration / max timestamp over its lines with a
                               * time; NAN for a file without one */
  guint32 first_request, n_requests;  /* in RtSpans.requests, by start (ties: the earlier end,
                                       * then line order) */
  guint32 first_section, n_sections;  /* in RtSpans.sections */
} RtSpanWorker;

typedef struct {
  guint step_index;
  gint32 step;
  double origin_s;            /* the step's start in absolute seconds (see rt-trace.h); NAN when
                               * no line of the step has a time (then every array but workers
                               * is empty) */
  double end_s;               /* the step's last timestamp, from origin_s; NAN likewise */
  GArray *workers;            /* RtSpanWorker: every worker file of the step, ascending worker */
  GArray *requests;           /* RtSpanRequest, worker after worker */
  GArray *lines;              /* RtSpanLine, request after request */
  GArray *turns;              /* RtSpanTurn, request after request */
  GArray *sections;           /* RtSpanSection, worker after worker */
  /* Made without lines (rt_spans_analyse_requests): lines and turns are empty, each
   * request's n_lines counts its lines all the same (first_line, first_turn, n_turns 0),
   * and rt_spans_worker_lines makes the lines of some requests when they are needed. */
  gboolean without_lines;
  const RtEvent **rows;       /* then: each worker's rows (the trace's) */
  guint32 *request_of;        /* each worker's file-local requests: the index of the span request
                               * among the worker's, or RT_NONE (none has a life) */
  guint32 *request_of_first;  /* where each worker's begin in request_of */
  guint8 *kinds;              /* RtPhaseKind by event id */
} RtSpans;

/* The requests, turns, phases and step-level sections of step `step_index` as intervals. */
RtSpans *rt_spans_analyse (const RtTrace *t, guint step_index);
/* The same without the lines and turns (most of the work, and of the memory, of a step with
 * many lines), for what needs the lines of a few requests at most (a Gantt of a window):
 * t outlives the spans. */
RtSpans *rt_spans_analyse_requests (const RtTrace *t, guint step_index);
/* The lines of worker k's requests (`wanted`, one per request of the worker: those set;
 * NULL: all), each request's as in RtSpans.lines, into `lines` (emptied first); first[i]
 * (one per request of the worker): where the worker's i-th request's lines begin there
 * (its n_lines of them), RT_NONE for a request not wanted. Of spans made with or without
 * their lines alike; on any thread. */
void rt_spans_worker_lines (const RtSpans *sp, const RtTrace *t, guint k, const gboolean *wanted, GArray *lines,
                            guint32 *first);
void rt_spans_free (RtSpans *sp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtSpans, rt_spans_free)

static inline const RtSpanWorker *
rt_spans_worker (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->workers, RtSpanWorker, i);
}

static inline const RtSpanRequest *
rt_spans_request (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->requests, RtSpanRequest, i);
}

static inline const RtSpanLine *
rt_spans_line (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->lines, RtSpanLine, i);
}

static inline const RtSpanTurn *
rt_spans_turn (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->turns, RtSpanTurn, i);
}

static inline const RtSpanSection *
rt_spans_section (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->sections, RtSpanSection, i);
}



/* ---- timeline: when requests ran, how many at once, and the tail ---------------------- */

/* Times as in RtSpans: seconds from the step's start. A request (RtSpanRequest) lives over
 * [start_s, end_s); NAN stands for null throughout. */

typedef struct {
  gint32 worker;
  double start_s, end_s;      /* its file's span (RtSpanWorker); NAN for a file without times */
  guint requests;
  guint peak_in_flight;       /* the most of its requests alive at one instant */
  double busy_share;          /* length of the union of its requests' lives / (end_s - start_s);
                               * NAN unless that span is > 0 */
  double barrier_s;           /* its summed barrier_wait_duration (the older `barrier`); NAN: none */
} RtTimelineWorker;

/* Requests in flight after each instant where some began or ended. */
typedef struct {
  double time_s;
  guint total;
  guint first_count;          /* in RtTimeline.inflight_counts: one count per worker of the step */
} RtInflightRow;

typedef struct {
  gboolean has_step;          /* FALSE when "slowest" found no selected step with a rollout time */
  gint32 step;                /* the step asked or found */
  int step_index;             /* index into t->steps; -1 when there is no step, or the one asked
                               * is not selected or not in the trace: every value below is then
                               * null (NAN, and `found` FALSE) and `workers` empty */
  gboolean found;
  RtSpans *spans;             /* the step laid out in time; NULL when step_index < 0 */
  double end_s;               /* the step's last timestamp */
  guint requests;             /* RtSpans.requests->len */
  double t50_s, t90_s, t99_s, t100_s;  /* with the n ends ascending e_1..e_n: e_k, k = ceil(p n / 100) */
  double tail_share;          /* (t100 - t90) / t100, NAN unless t100 > 0 */
  guint peak_in_flight;       /* the most requests alive at one instant (ends before starts at
                               * equal instants), 0 without requests */
  GArray *workers;            /* RtTimelineWorker: every worker file of the step, ascending */
  GArray *inflight;           /* RtInflightRow, ascending time, from 0 (the step's start) to end_s */
  GArray *inflight_counts;    /* guint */
} RtTimeline;

/* The index into t->steps of step number `step` (-1: rt_view_slowest_step of the selected
 * steps) when it is among the selected steps; -1 when it is not. */
int rt_timeline_step_index (const RtTrace *t, const RtStepSet *steps, gint32 step);

/* The timeline of step number `step` (-1: the slowest) among the selected steps:
 * rt_timeline_step_index's. */
RtTimeline *rt_timeline_analyse (const RtTrace *t, const RtStepSet *steps, gint32 step);
void rt_timeline_free (RtTimeline *tl);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTimeline, rt_timeline_free)

/* every worker of the step: the JSON "workers" and timeline_workers_step_N.tsv */
extern const RtTableSpec rt_timeline_workers_spec;
RtTable *rt_timeline_workers_table (const RtTimeline *tl);

/* time_s, total and a column per worker of `workers` (gint32 worker numbers; NULL: all):
 * inflight_step_N.tsv */
extern const RtTableSpec rt_timeline_inflight_spec;
RtTable *rt_timeline_inflight_table (const RtTimeline *tl, const GArray *workers);
/* Its TSV (rt_table_tsv), written as its rows are made: the table of a long step has
 * thousands of rows of a cell per worker. `n_columns`: the table's. */
GString *rt_timeline_inflight_tsv (const RtTimeline *tl, const GArray *workers, guint *n_columns);
/* That table's columns, without a row; and its rows [from, to) written into w, a writer of
 * those columns (its TSV made a batch of rows at a time). */
RtTable *rt_timeline_inflight_columns (const RtTimeline *tl, const GArray *workers);
void rt_timeline_inflight_rows_tsv (const RtTimeline *tl, const GArray *workers, RtTsvWriter *w, guint from,
                                    guint to);

/* What the Gantt draws; each row is a bar on a lane. Lanes go worker after worker (of
 * `workers`, NULL: all): first the worker's band (its step-level sections, and a row "worker"
 * spanning its file), then one lane per request alive in [from_s, to_s) (NAN: unbounded), by
 * start, then an empty lane. A request has a row "request" (its life), and its life split into
 * its phases by kind and "waiting" (alive in no timed section); where phases overlap, the one
 * that began last (the innermost) is shown. A request without a phase line (the older logger
 * ties none to a request) has "unlogged" over its life instead. A request whose life ends at
 * from_s is left out (a life is [start, end)). Without `phases`, a request has its "request"
 * row alone (a Gantt of too many lanes draws a thin line each). timeline_step_N[_ZOOM].tsv
 * Its request ids are t's own, not copies: t outlives the table. */
extern const RtTableSpec rt_timeline_gantt_spec;
RtTable *rt_timeline_gantt_table (const RtTrace *t, const RtTimeline *tl, const GArray *workers,
                                  double from_s, double to_s, gboolean phases);
/* One of those rows (a bar), as it is made. */
typedef struct {
  guint lane;
  gint32 worker;
  const char *request_id;     /* NULL on a worker's band; t's own */
  const char *phase;          /* static */
  double start_s, end_s;
} RtGanttBar;
typedef void (*RtGanttBarFunc) (const RtGanttBar *bar, gpointer data);
/* The same rows, of the step's workers from index first_worker to end_worker (excluded;
 * 0 and G_MAXUINT: all), handed to `each` one at a time, in order, and kept nowhere: a
 * Gantt with phases has some hundred rows per request, and its data is written as they
 * come; its workers' rows can be made apart (their lanes as in the whole table). */
void rt_timeline_gantt_each (const RtTrace *t, const RtTimeline *tl, const GArray *workers, double from_s,
                             double to_s, gboolean phases, guint first_worker, guint end_worker,
                             RtGanttBarFunc each, gpointer data);
/* A bar as the cells of a row of that table (its TSV written as it comes). */
void rt_timeline_gantt_bar_tsv (RtTsvWriter *w, const RtGanttBar *bar);
/* The lane of the band of the step's worker index k in that table (after all the workers
 * wanted: the number of lanes). */
guint rt_timeline_gantt_first_lane (const RtTimeline *tl, const GArray *workers, double from_s, double to_s, guint k);
/* How many requests of `workers` (NULL: all) that table has a lane for. */
guint rt_timeline_gantt_requests (const RtTimeline *tl, const GArray *workers, double from_s, double to_s);


/* ---- export: the loaded tables as rows (requests, turns, events, steps, workers) ------- */

/* Times in the exported rows are seconds, rounded to the microsecond (the timestamps'
 * resolution): of a request, turn, event or worker file from its step's start (RtStep.start_s,
 * as rt-timeline); of a step from the earliest start of any step of the trace (not only of
 * those selected, so that exports of different step ranges of one trace agree). Durations
 * are as logged. The loggers' clocks are zone-less: no row holds a date. */
typedef enum {
  RT_EXPORT_REQUESTS,         /* one row per request id of a worker file */
  RT_EXPORT_TURNS,            /* one per turn record (turn_timings, or turn_end lines) */
  RT_EXPORT_EVENTS,           /* one per event row: a JSON object with a string event */
  RT_EXPORT_STEPS,            /* one per selected step */
  RT_EXPORT_WORKERS,          /* one per worker file of a selected step */
  RT_N_EXPORT_TABLES
} RtExportTable;

/* The declarations, in RtExportTable order; each spec's name is its --table name. */
extern const RtTableSpec rt_export_requests_spec, rt_export_turns_spec, rt_export_events_spec,
  rt_export_steps_spec, rt_export_workers_spec;
const RtTableSpec *rt_export_spec (RtExportTable which);
/* An empty table of `which`, its columns ready for rows (the workers' sections expanded). */
RtTable *rt_export_table_new (RtExportTable which);
/* The table named `name` ("requests"...), or -1. */
int rt_export_table_find (const char *name);

/* Receives the rows made so far; the table is emptied when it returns. FALSE stops the export
 * (a write failed). */
typedef gboolean (*RtExportSink) (RtTable *rows, gpointer data);

/* Makes the rows of table `which` over the selected steps (NULL: all), in step, worker and
 * line order, and hands them to `sink` in batches of `batch` rows, so that memory holds one
 * batch whatever the size of the trace. The sink is called at least once, the last time
 * with what is left, maybe no row, so that a writer can put a header first. Sets `n_rows`
 * to the rows made; returns FALSE when the sink stopped the export. */
gboolean rt_export_rows (const RtTrace *t, const RtStepSet *steps, RtExportTable which, guint batch,
                         RtExportSink sink, gpointer data, guint64 *n_rows);

/* Receives the next piece of a CSV text; FALSE stops the export (a write failed). */
typedef gboolean (*RtExportWrite) (const char *text, gsize len, gpointer data);

/* The CSV (rt_table_csv_append: the header line, then every row) of table `which` over the
 * selected steps, the rows as rt_export_rows makes them, handed to `write` in pieces, in
 * order, one call at a time (from this thread or a helper: the rows are made and formatted
 * on both cores). Memory holds a few MB of text whatever the size of the table. Sets
 * `n_rows` to the rows written; returns FALSE when `write` stopped the export. */
gboolean rt_export_csv (const RtTrace *t, const RtStepSet *steps, RtExportTable which, RtExportWrite write,
                        gpointer data, guint64 *n_rows);

/* ---- compare: several experiments side by side, the first the reference ----------------- */

/* The two-sample Kolmogorov-Smirnov statistic of samples a (n values) and b (m values), both
 * sorted ascending: D = sup |F_a(x) - F_b(x)|, the right-continuous empirical CDFs compared at
 * every pooled value, exactly the largest |i m - j n| / (n m); NAN when either is empty. */
double rt_ks_statistic (const double *a, guint n, const double *b, guint m);
/* Q(t) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 t^2), 1 for t <= 0: the asymptotic p-value of
 * D as Q(sqrt(n m / (n + m)) D). */
double rt_ks_q (double t);
double rt_ks_pvalue (double d, guint n, guint m);

typedef enum {
  RT_COMPARE_ALIGN_STEP,      /* pair equal step numbers */
  RT_COMPARE_ALIGN_INDEX,     /* pair the k-th selected step with data of each */
} RtCompareAlign;

/* An experiment to compare: its trace, label and the path as given, and its own steps (each
 * experiment's rollouts of the kind read: RtExperiment.step_set; NULL: rt_compare_analyse's). */
typedef struct {
  const RtTrace *trace;
  const char *label;
  const char *path;
  const RtStepSet *steps;
} RtCompareInput;

/* A selected step with data (one rt-overview lists) of one experiment. */
typedef struct {
  guint step_index;
  gint32 step;
  double rollout_s, interval_s;   /* rt-overview's, on the whole experiment */
  guint requests;             /* its complete requests */
  double tokens;              /* sum of their response_length; NAN when none has one */
  double requests_per_s;      /* requests / rollout_s; NAN unless rollout_s > 0 */
  double tokens_per_s;        /* tokens / rollout_s; NAN likewise, or without tokens */
} RtCompareStep;

typedef struct {
  RtCompareInput in;
  guint64 requests;           /* complete requests of the selected steps (as rt-check) */
  RtSamples *durations;       /* rt-cdf's "all": finite request durations, ascending */
  RtSummary duration;         /* of `durations` (count 0: none) */
  GArray *steps;              /* RtCompareStep, ascending */
  double rollout_mean, interval_mean;   /* over the non-null values of `steps`; NAN: none */
  double barrier_share_mean;  /* rt-events' mean barrier_wait_duration share (%) */
  double requests_per_s, tokens_per_s;  /* rollout-weighted over the steps with a value */
  double section_pct[RT_N_STEP_EVENTS]; /* rt-events' mean share of each section (%) */
  RtTurns *turns;             /* rt-turns over the selected steps */
  RtTurnDist *turn_dist;      /* rt-turn-dist over the selected steps */
} RtCompareExperiment;

typedef struct {
  double p50_ratio, p90_ratio, p99_ratio, mean_ratio;   /* this / the reference; NAN: null */
  double ks_statistic, ks_pvalue;   /* against the reference; NAN when either sample is empty */
} RtCompareVersus;

typedef struct {
  gint32 step;                /* the reference's step number */
  int *index;                 /* per experiment: an index into its `steps`, -1 where absent */
} RtCompareRow;

typedef struct {
  guint n;                    /* experiments, the first the reference */
  RtCompareExperiment *experiments;
  RtCompareVersus *versus;    /* n entries; [0] (the reference against itself) unused */
  GArray *rows;               /* RtCompareRow: every reference step with data, in order */
  RtCompareAlign align;
} RtCompare;

/* Each experiment reduced to the same views over the steps `steps` selects (NULL: all), and
 * each after the first against the first. */
RtCompare *rt_compare_analyse (const RtCompareInput *inputs, guint n, const RtStepSet *steps,
                               RtCompareAlign align);
void rt_compare_free (RtCompare *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtCompare, rt_compare_free)

/* Row `row`'s step of experiment `e`, or NULL where it has none. */
const RtCompareStep *rt_compare_row_step (const RtCompare *c, guint row, guint e);

/* the JSON "experiments" and compare_experiments.tsv */
extern const RtTableSpec rt_compare_experiments_spec;
RtTable *rt_compare_experiments_table (const RtCompare *c);
/* the JSON "versus" and compare_versus.tsv: each experiment after the first */
extern const RtTableSpec rt_compare_versus_spec;
RtTable *rt_compare_versus_table (const RtCompare *c);
/* the JSON "steps" (arrays, one value per experiment) and compare_steps.tsv (a column per
 * experiment: rollout_s_1, rollout_s_2..., numbered in the order given) */
extern const RtTableSpec rt_compare_steps_spec;
RtTable *rt_compare_steps_table (const RtCompare *c);
/* What the plots draw (TSV only): the mean engine time per turn index (compare_turns), the
 * share of requests by number of turns (compare_turn_dist), each section's mean share of the
 * step (compare_events), request durations in logarithmic bins, `bins_per_decade` of them
 * (compare_hist) */
extern const RtTableSpec rt_compare_turns_spec, rt_compare_turn_dist_spec, rt_compare_events_spec,
  rt_compare_hist_spec;
RtTable *rt_compare_turns_table (const RtCompare *c);
RtTable *rt_compare_turn_dist_table (const RtCompare *c);
RtTable *rt_compare_events_table (const RtCompare *c);
RtTable *rt_compare_hist_table (const RtCompare *c, guint bins_per_decade);

/* ---- fit: four distributions fitted to a sample of durations (issue 13) ------------------ */

/* Maximum likelihood with the location fixed at 0, on the values > 0 of the sample:
 * exponential: scale = mean x;
 * lognormal: mu = mean(ln x), sigma = sqrt(mean((ln x - mu)^2));
 * gamma: shape k solving ln k - digamma(k) = ln(mean x) - mean(ln x), scale = mean x / k;
 * Weibull: shape c solving sum(x^c ln x)/sum(x^c) - 1/c - mean(ln x) = 0,
 *   scale = (mean(x^c))^(1/c).
 * The equations are solved by Brent's method to 1e-14 relative. Each fit's KS distance
 * D = max over the sorted values of max(i/n - F(x_i), F(x_i) - (i-1)/n), its log-likelihood
 * and AIC = 2k - 2 lnL (k = 1 for the exponential, 2 otherwise). */
typedef enum {
  RT_FIT_EXPONENTIAL,
  RT_FIT_LOGNORMAL,
  RT_FIT_GAMMA,
  RT_FIT_WEIBULL,
  RT_FIT_N_DISTS
} RtFitDist;

typedef struct {
  RtFitDist dist;
  gboolean exists;            /* the estimate exists (exponential: n > 0; the others: two
                               * distinct values at least); when not every number is NAN */
  double shape;               /* gamma's k, Weibull's c; NAN for the other two */
  double scale;               /* seconds: exponential's mean, gamma's and Weibull's scale */
  double mu, sigma;           /* lognormal: of ln x; NAN for the others */
  double ks, loglik, aic;
} RtFitModel;

typedef struct {
  guint n;                    /* values > 0, the ones fitted */
  guint excluded;             /* the other values */
  int best;                   /* index into dists of the smallest KS distance (ties to the
                               * earlier); -1 when no estimate exists */
  RtFitModel dists[RT_FIT_N_DISTS];   /* in RtFitDist order */
} RtFit;

/* The fit of `sorted` (ascending, no NaN), of any length. */
RtFit *rt_fit_analyse (const double *sorted, guint len);
void rt_fit_free (RtFit *fit);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtFit, rt_fit_free)

const char *rt_fit_dist_name (RtFitDist dist);   /* "exponential"... */
const RtFitModel *rt_fit_best (const RtFit *fit);   /* NULL when none (or fit NULL) */
/* The fitted CDF at x and its quantile at p (0 < p < 1); NAN when the estimate does not exist. */
double rt_fit_model_cdf (const RtFitModel *m, double x);
double rt_fit_model_quantile (const RtFitModel *m, double p);
/* "gamma (shape 2.31, scale 1.52 s)", for legends and summaries */
char *rt_fit_model_describe (const RtFitModel *m);

/* The "fit" object of a --json document: {"n", "excluded", "best", "dists": [{"dist",
 * "params": {"scale"} | {"mu", "sigma"} | {"shape", "scale"}, "ks", "loglik", "aic"}]},
 * with null params, ks, loglik and aic for an estimate that does not exist; NULL fit: null. */
void rt_fit_write_json (const RtFit *fit, RtJsonWriter *w);
/* The fit for a text summary: a line of its n, excluded and best, then a line per distribution
 * (parameters, KS, log-likelihood, AIC), each line after `indent`. */
char *rt_fit_text (const RtFit *fit, const char *indent);
/* fit.tsv: the four rows of each sample fitted, named `sample` */
extern const RtTableSpec rt_fit_spec;
void rt_fit_table_add (RtTable *table, const char *sample, const RtFit *fit);
/* Plot data, as rt_view_tsv_cdf_block: one block headed `label`. The fitted CDF at `n_points`
 * x evenly spaced on a log axis from x_min to x_max; the Q-Q points (the fitted quantile at
 * (i - 1/2)/n, the i-th value > 0 of `sorted`), thinned to about `max_points`. */
void rt_fit_tsv_cdf_block (GString *tsv, const char *label, const RtFitModel *m, double x_min,
                           double x_max, guint n_points);
void rt_fit_tsv_qq_block (GString *tsv, const char *label, const RtFitModel *m, const double *sorted,
                          guint len, guint max_points);

/* ---- findings: what is wrong with a rollout, ranked, each with its numbers ------------ */

/* The thresholds of the rules (docs/findings.md explains each; rt-report --help lists them). */
#define RT_FINDING_STRAGGLER_MIN_STEPS 4      /* straggler: at least this many steps... */
#define RT_FINDING_STRAGGLER_SHARE 0.5        /* ...and the same worker slowest in this share of them */
#define RT_FINDING_BARRIER_PCT 20.0           /* barrier_share: mean barrier wait, % of a step */
#define RT_FINDING_TAIL_RATIO 5.0             /* long_tail: P99 / P50 of request durations */
#define RT_FINDING_TAIL_SHARE 0.3             /* long_tail: or the slowest step's tail_share */
#define RT_FINDING_LENGTH_SHARE 0.10          /* truncation: share of complete requests ending LENGTH */
#define RT_FINDING_TURN_RECORDS_SHARE 0.05    /* context_growth: a turn index holding this share... */
#define RT_FINDING_CONTEXT_GROWTH 2.0         /* ...with this many times turn 0's engine time */
#define RT_FINDING_ROLLOUT_SHARE_LOW 0.5      /* rollout_share: rollout / interval below this... */
#define RT_FINDING_ROLLOUT_SHARE_HIGH 0.8     /* ...or above this */
#define RT_FINDING_OUTLIER_STD 2.0            /* outlier_steps: rollout beyond mean + this many std */
#define RT_FINDING_TOOL_TOP 10                /* tool_time: the slowest this many requests... */
#define RT_FINDING_TOOL_SHARE 0.30            /* ...spend more than this share in tool_execution */
#define RT_FINDING_TRAINER_MISMATCH 0.10      /* trainer_mismatch: |gen - rollout| / rollout, median step */

typedef enum {
  RT_SEVERITY_HIGH,           /* costs every step a large share of its time, or the data lie */
  RT_SEVERITY_MEDIUM,         /* worth a look: a tail, a turn, a tool, damaged input */
  RT_SEVERITY_INFO,           /* how the run is shaped, not necessarily wrong */
} RtSeverity;

/* "high", "medium", "info" */
const char *rt_severity_name (RtSeverity severity);

typedef struct {
  const char *name;           /* static */
  double value;
} RtEvidence;

typedef struct {
  const char *id;             /* the rule's fixed id: "straggler", "barrier_share"... */
  RtSeverity severity;
  char *title;                /* one line */
  char *detail;               /* one or two sentences with the numbers */
  const char *section;        /* the rt-report section that shows it ("workers") */
  char *plot;                 /* the plot that shows it ("workers_steps"), or NULL */
  GArray *evidence;           /* RtEvidence, the numbers of `detail` by name */
} RtFinding;

/* One rule: its id, severity and what fires it, for --help and the documentation. */
typedef struct {
  const char *id;
  RtSeverity severity;
  const char *rule;           /* one sentence, with the thresholds above */
} RtFindingRule;
extern const RtFindingRule rt_finding_rules[];   /* ends with { NULL } */

/* The analyses the rules read; rt-report computes them once for its sections too. Any may be
 * NULL: the rules that need it are not tried. */
typedef struct {
  const RtOverview *overview; /* with the trainer's log when there is one */
  const RtCdf *cdf;           /* of request durations */
  const RtEvents *events;
  const RtTurns *turns;
  const RtTimeline *timeline; /* of the slowest selected step */
  const RtCheck *check;
} RtFindingsInput;

typedef struct {
  GPtrArray *findings;        /* RtFinding*, ranked: severity, then the order of rt_finding_rules */
  RtLastStep last_step;       /* how the last step of the trace stands (rt_view_last_step) */
  gint32 running_step;        /* that step when it is still being written; -1 otherwise */
} RtFindings;

/* Every rule over the selected steps; the analyses of `in` must be of the same steps. */
RtFindings *rt_findings_from (const RtTrace *t, const RtStepSet *steps, const RtFindingsInput *in);
/* The same, computing the analyses (the trainer's log may be NULL). */
RtFindings *rt_findings_analyse (const RtTrace *t, const RtStepSet *steps, const RtTrainLog *train);
void rt_findings_free (RtFindings *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtFindings, rt_findings_free)

/* The finding of rule `id`, or NULL when it did not fire. */
const RtFinding *rt_findings_find (const RtFindings *f, const char *id);
/* The evidence `name` of a finding; NAN when it has none of that name. */
double rt_finding_evidence (const RtFinding *finding, const char *name);
/* The findings as the JSON array of rt-report --json. */
void rt_findings_write_json (const RtFindings *f, RtJsonWriter *w);

G_END_DECLS
