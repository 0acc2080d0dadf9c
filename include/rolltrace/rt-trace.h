/* SPDX-License-Identifier: Apache-2.0 */
/* rt-trace.h: an experiment loaded into tables: files, events, requests, turns, steps.
 * Analyzers only read these arrays; the loader (load.c) is the only writer. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-events.h"
#include "rolltrace/rt-json.h"

G_BEGIN_DECLS

/* Times are doubles in seconds throughout. Absolute times count from
 * 2020-01-01T00:00:00 in the logger's own (zone-less) clock: only differences are shown. */

#define RT_NONE G_MAXUINT32

/* The longest line any reader of rolltrace holds in memory: a longer line (a crash
 * can leave gigabytes of NUL bytes without a newline) is counted as a bad line and
 * skipped without being held whole, so memory stays bounded whatever the input. */
#define RT_LINE_MAX ((gsize) 64 << 20)
#define RT_LINE_MAX_TEXT "64 MiB"

/* What a worker file held up to and including a total_step_duration line: a folder can hold
 * more than one rollout (the 2026 logger appends a step's validation to its files), each
 * ended by such a line. Counted as the lines are read, so that a rollout's part of the
 * file's tables is known without its rows. */
typedef struct {
  guint32 n_events;           /* rows up to there */
  guint32 n_requests;         /* requests whose first line came before it */
  guint32 n_complete;         /* async_rollout_request_complete lines up to there */
  guint32 unused;             /* 0 */
  double start_min_s;         /* as RtFile's, over those lines */
  double step_sum_s[RT_N_STEP_EVENTS];
} RtFileSlice;

/* One worker_M.jsonl of one step_N folder. */
typedef struct {
  char *path;                 /* as found below the experiment folder */
  gint32 step;
  gint32 worker;
  guint64 size;
  gint64 mtime_us;
  guint64 inode;
  gint64 ctime_ns;            /* status change time: no user can set it back */
  guint64 lines;              /* newline-separated pieces plus an unterminated last one */
  guint64 events;             /* lines that parse to a JSON object */
  guint64 bad_lines;          /* lines - events */
  guint64 field_problems;     /* events with a field of the wrong type */
  guint64 problems_total;     /* bad lines and field problems, listed or not */
  guint64 glued_lines;        /* lines holding more than a JSON object (all read) */
  guint32 n_events;                    /* rows: rt_trace_file_events () */
  guint32 first_request, n_requests;   /* range in RtTrace.requests */
  guint32 n_complete;                  /* async_rollout_request_complete events */
  guint32 first_turn, n_turns;         /* its requests' turns, one request after another:
                                        * rt_trace_turn (first_turn + k) */
  double start_min_s;         /* min over lines of timestamp - duration; NAN if none */
  double step_sum_s[RT_N_STEP_EVENTS]; /* sum of each step-level event; NAN when absent */
  RtSchemaFlags schema;       /* generations whose names occur in the file */
  guint32 n_rollout_ends;     /* total_step_duration (older: total) lines: one per rollout
                               * that ended in the file */
  guint32 n_events_at_end;    /* rows up to and including the last of them: rows after it
                               * belong to a rollout still running */
  guint32 n_requests_at_end;  /* requests whose first line came before the last of them */
  RtFileSlice first_rollout;  /* the file up to and including the first of them (all of it
                               * while it has none) */
} RtFile;

/* One timed (or instant) section: a row of the event table. */
typedef struct {
  double end_s;               /* the line's timestamp; NAN when absent or unreadable */
  double duration_s;          /* NAN for instant events and unreadable values */
  guint32 request;            /* index among the file's requests (RtFile.first_request
                                 * + request in RtTrace.requests), or RT_NONE */
  guint16 event;              /* canonical id in RtTrace.registry */
  gint16 turn;                /* extra.turn as logged, -1 when absent */
} RtEvent;                    /* 24 bytes: a file's rows are reached through the file,
                               * in line order, so neither is stored in the row */

/* One request id of one worker file. Only a request with an
 * async_rollout_request_complete line is `complete` and has a duration. Its texts are
 * read through rt_request_id () and rt_request_finish_reason (): a table taken from the
 * cache is used where the cache keeps it, its texts counted from the cache's own. */
typedef struct {
  guint64 id;                 /* the request id: rt_request_id () */
  guint64 finish_reason;      /* as logged ("FinishReasonTypeEnum.STOP"), 0 if absent:
                               * rt_request_finish_reason () */
  double end_s;               /* timestamp of the complete line */
  double total_s;             /* its duration_sec; NAN when absent */
  guint32 file;
  gint32 step;
  gint32 worker;
  gint32 turns;               /* extra.turns, -1 when absent */
  gint32 response_length;     /* -1 when absent */
  guint32 first_turn, n_turns;/* the request's turns: rt_trace_turn (first_turn + k) */
  guint8 complete;            /* TRUE or FALSE */
  guint8 turns_from_timings;  /* TRUE: turn_timings; FALSE: turn_end lines */
  guint8 own_lines;           /* TRUE: complete, its id non-empty and on no other complete
                               * line of the file, so every line with that id is its own */
  guint8 unused;              /* 0 */
  gint32 response_tokens;     /* extra.actual_response_tokens (generated tokens, unlike
                               * response_length): a JSON integer 0..2^31-1, else -1 */
  guint32 complete_rank;      /* complete: how many complete lines came before its own in
                               * the file (the line order of requests, which are numbered by
                               * their first line); else 0 */
  double tool_s;              /* the sum of the finite duration_sec of the tool_execution
                               * lines of its id that the parser gave it (0 if none): all of
                               * them when own_lines */
} RtRequest;                  /* 80 bytes, the cache's own layout */

/* One step_N folder and its worker files (a contiguous range of RtTrace.files). */
typedef struct {
  gint32 step;
  guint32 first_file, n_files;
  double start_s;             /* min over the step's lines of timestamp - duration */
} RtStep;

/* A diagnostic about the input: a bad line, a stray file. */
typedef struct {
  char *where;                /* file:line */
  const char *reason;         /* static text */
  guint32 file;               /* index into RtTrace.files, for ordering */
  guint64 line;
} RtProblem;

/* Two names for one step and worker (step_01/ beside step_1/, worker_01.jsonl beside
 * worker_1.jsonl): one of them is read (rt_trace_load says which rule picks it), the
 * other is listed here and never counted. */
typedef struct {
  char *path;                 /* the file not read */
  char *same_as;              /* the file read in its place */
} RtDuplicate;

/* How the tables came to be: from the cache, or read from the files. */
typedef struct {
  gboolean cache_used;        /* a valid cache was found and used */
  gboolean cache_written;     /* a new cache was written */
  const char *cache_rejected; /* why an existing cache was not trusted, or NULL */
  guint files_parsed;         /* read from their first byte */
  guint files_resumed;        /* grown since cached: read from where the cache stopped */
  guint files_cached;         /* taken from the cache as they were */
  guint64 bytes_read;         /* JSONL bytes read in this load */
} RtLoadStats;

typedef struct _RtTracePrivate RtTracePrivate;

typedef struct {
  char *path;                 /* the experiment folder as given */
  char *name;                 /* its last component, for titles */
  RtEventRegistry *registry;
  GArray *files;              /* RtFile */
  GArray *steps;              /* RtStep, ascending step number */
  GArray *events;             /* RtEvent rows of the files read in this load; read
                               * them through rt_trace_file_events () */
  guint32 n_requests;         /* requests rt_trace_request numbers: read each file's through
                               * the file (RtFile.first_request); a number may belong to no
                               * file (the cache's older copy of the requests of a file that
                               * was read on since) */
  const RtRequest *cached_requests;  /* the cache's own requests, used in place: those of */
  guint32 n_cached_requests;         /* the files taken whole from it, numbered first */
  const RtRequest *requests;  /* those of the files read in this load, numbered after them */
  guintptr request_ids_at;    /* what RtRequest.id counts from (0: it is the address of the
                               * text); rt_request_id () */
  guintptr request_texts_at;  /* the same for RtRequest.finish_reason */
  gboolean request_ids_unchecked; /* some file's ids are checked when first read
                               * (RT_READS_SOME_IDS) */
  GArray *turns;              /* RtTurnFigures of the files read in this load, grouped by
                               * request: read every turn through rt_trace_turn () */
  const RtTurnFigures *cached_turns; /* the cache's own turns, used in place: those of the */
  guint32 n_cached_turns;            /* files taken whole from it, numbered first */
  GPtrArray *strays;          /* char*: entries that are not part of the trace */
  GPtrArray *trainer_files;   /* char*: step_N/worker_-1.jsonl, the trainer's own sections
                               * (rank -1 of the 2026 logger): never a rollout rank, read
                               * by rt_trainer_sections_read; by step (numeric order) */
  GArray *duplicates;         /* RtDuplicate: files not read, as another name for a
                               * step and worker was; the name without leading zeros
                               * wins, then the shorter one, then the first in byte order */
  GArray *problems;           /* RtProblem: the first bad lines of every file */
  GPtrArray *string_chunks;   /* GStringChunk*: storage of interned strings */
  guint64 problems_total;     /* bad lines and field problems, listed or not */
  RtLoadStats stats;
  /* Which rollouts are read, set by whoever selects them (the command layer; rt-rollouts.h):
   * the map is theirs, borrowed here so that an analysis can name a step's trainer step
   * (rt_trace_train_step). NULL: none. */
  const struct _RtRolloutMap *rollouts;
  int rollouts_read;          /* RtRolloutSelect */
  RtTracePrivate *priv;
} RtTrace;

/* What a caller of rt_trace_load reads of the trace: a load keeps that and nothing else.
 * An analysis declares its own (RtAnalysisSpec.reads, rt-analysis.h); a command loads the
 * union of its analyses'. 0 declares nothing: every table is kept. */
typedef enum {
  RT_READS_EVERYTHING = 0,
  RT_READS_FILES = 1 << 0,      /* the file and step tables: their counters, step-level sums and
                                 * RtFile.n_requests (always kept; a need of its own so that an
                                 * analysis reading no more than them can say so) */
  RT_READS_DURATIONS = 1 << 1,  /* each step's request durations, through
                                 * rt_trace_step_sorted_durations (or the request table when
                                 * the cache does not hold them ready: the load keeps it then) */
  RT_READS_REQUESTS = 1 << 2,   /* the request table (rt_trace_request) */
  RT_READS_TURNS = 1 << 3,      /* each turn's figures (rt_trace_turn) */
  RT_READS_TURN_SUMS = 1 << 4,  /* the turns of every step, through rt_trace_all_turn_sums and
                                 * rt_trace_request_engine_s alone: a load wholly from a cache
                                 * that holds them ready leaves the turns unchecked then, and the
                                 * caller must not read those of the files
                                 * rt_trace_turn_sums_ready covers itself */
  RT_READS_REQUEST_IDS = 1 << 5,/* every RtRequest.id (rt_request_id) */
  RT_READS_SOME_IDS = 1 << 6,   /* the ids of the few requests it shows: a cache's ids of a file
                                 * are checked when one of them is first read, not while loading,
                                 * and read again from the file when they fail */
  RT_READS_ROWS = 1 << 7,       /* the event rows (rt_trace_file_events) */
  RT_READS_ALL = (1 << 8) - 1,
} RtReads;

typedef struct {
  guint n_threads;            /* 0: one per core */
  guint max_problems_per_file;/* bad lines listed per file (the rest are counted) */
  gboolean progress;          /* a progress line on stderr when loading is slow */
  const char *cache_dir;      /* keep and reuse a binary cache of the tables there; NULL: none */
  gboolean line_by_line;      /* parse every line on its own instead of whole buffers at a
                               * time: slower, the same tables (the reference the faster way
                               * is tested against); also set by ROLLTRACE_PARSE=lines */
  RtReads reads;              /* what the caller reads. Without RT_READS_ROWS the rows of the
                               * files read are not kept in memory (a new cache still gets
                               * them), which is most of a first load's. Without
                               * RT_READS_REQUESTS (or _TURNS) a load wholly from a cache that
                               * holds every step's durations leaves the request table empty,
                               * each RtFile.first_request RT_NONE (the files' turns are then
                               * still there by RtFile.first_turn when turns are read); so does
                               * a load that writes no cache and reads no request, id, turn or
                               * row, which keeps each request's duration alone (each step's
                               * sorted: rt_trace_step_sorted_durations). Without
                               * RT_READS_TURNS (or _TURN_SUMS) a cache's turns are not checked
                               * (their ranges still are), and a load that writes no cache keeps
                               * none of the files it reads (RtRequest.n_turns is still each
                               * request's count). Without either id need a cache's ids are not
                               * checked (each still points to a NUL-terminated text in it).
                               * Reading what was not declared is a programming error: debug
                               * builds, and any build under ROLLTRACE_CHECK_READS=1 (the tests),
                               * stop on it; others read it late, from the file */
  /* The caller reads the requests (and turns) of one step only, and this says which once
   * the trace is loaded but for them (its files, counters and steps are there): TRUE, with
   * `step_index` set. A load wholly from a cache that has nothing to read then takes that
   * step's requests only, the other files' RtFile.first_request being RT_NONE as without
   * RT_READS_REQUESTS. NULL, or FALSE: every step's are taken. */
  gboolean (*requests_of_one_step) (const RtTrace *t, gpointer data, guint *step_index);
  gpointer requests_of_one_step_data;
  /* The cache a trace of this experiment loaded before had open (rt_trace_take_cache), or NULL:
   * used again while it is still the cache on disk, with what its checks found (a --watch
   * round does not check its tables again), else closed. The load takes it, whatever it
   * does with it. */
  struct _RtCacheMap *kept_cache;
} RtLoadOptions;

/* The part of a worker file the analyses read: a file holds one rollout per
 * total_step_duration line (RtFile.first_rollout), and the 2026 logger appends a step's
 * validation to the files of its training rollout. */
typedef enum {
  RT_FILE_WHOLE,
  RT_FILE_FIRST_ROLLOUT,      /* its lines up to and including the first such line (all of
                               * them while it has none) */
  RT_FILE_LATER_ROLLOUTS,     /* the lines after it (none while it has none) */
} RtFilePart;

/* Cuts each file i of a loaded trace to parts[i]: its RtFile (rows, requests, turns, counts,
 * start and step-level sums) then describes that part alone, its rows are only that part's
 * (requests numbered from its first), each step's start is its files', and the cache's
 * sorted durations and turn sums, made of whole files, are no longer used for a step with a
 * cut file. Its damage (bad lines, field problems, problems) stays the whole
 * file's: its lines and events count its part's rows and that damage. Once per load, after the
 * rollouts are known (rt-rollouts.h). FALSE, with nothing cut, when the load left out a table
 * the cut needs (the rows of a file cut to its later rollouts, without RT_READS_ROWS;
 * requests dropped without RT_READS_REQUESTS; the turns RT_READS_TURN_SUMS's sums stand in
 * for): load it again reading every table. */
gboolean rt_trace_keep_file_parts (RtTrace *t, const RtFilePart *parts);

/* TRUE when rt_trace_keep_file_parts cut file `file` to a part: its requests are then its
 * part's, but what the parser summed over the whole file stays the whole file's
 * (RtRequest.own_lines, complete_rank, tool_s): read its rows for those of the part. */
gboolean rt_trace_file_is_cut (const RtTrace *t, guint file);

/* Where the cache of an experiment is kept: $XDG_CACHE_HOME/rolltrace by default. */
char *rt_cache_default_dir (void);

RtTrace *rt_trace_load (const char *exp_path, const RtLoadOptions *opts, GError **error);

/* The options `t` was loaded with. */
const RtLoadOptions *rt_trace_load_options (const RtTrace *t);
/* Takes the cache `t` has open out of it, for the next load of its experiment
 * (RtLoadOptions.kept_cache), or NULL: `t` may then only be freed. */
struct _RtCacheMap *rt_trace_take_cache (RtTrace *t);
/* Closes a cache taken from a trace that no load took. */
void rt_trace_kept_cache_free (struct _RtCacheMap *cache);
void rt_trace_free (RtTrace *trace);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTrace, rt_trace_free)

static inline const RtFile *
rt_trace_file (const RtTrace *t, guint i)
{
  return &g_array_index (t->files, RtFile, i);
}

static inline const RtStep *
rt_trace_step (const RtTrace *t, guint i)
{
  return &g_array_index (t->steps, RtStep, i);
}

/* The event rows of file `file` (RtFile.n_events of them). Rows that come from the
 * cache are checked against their checksum the first time they are asked for, and
 * read again from the file if they fail. */
const RtEvent *rt_trace_file_events (const RtTrace *t, guint file);

/* The caller will not read the requests of files first_file ... first_file + n_files - 1 (nor
 * their ids) again soon (a command that walks the steps one after another): where they are the
 * cache's, used in place, and the cache is large, their memory goes back, and they are read from
 * the cache file again if asked for. Pointers to them stay valid either way. */
void rt_trace_requests_done (const RtTrace *t, guint first_file, guint n_files);

/* The caller will not read file `file`'s rows again soon (a command that walks the steps one
 * after another): rows mapped from the cache give their memory back, and are read from the
 * cache file again if asked for. Rows the load made itself stay. Pointers to the rows stay
 * valid either way. */
void rt_trace_file_events_done (const RtTrace *t, guint file);

/* The durations of the complete requests of step `step_index` (rt_view_request_durations'
 * values, NaN left out), sorted ascending, when the cache holds them ready: `n` is then set
 * to their number. NULL otherwise (rt_view_request_durations_sorted computes them then). */
const double *rt_trace_step_sorted_durations (const RtTrace *t, guint step_index, guint *n);

/* The same of all the steps together, when the cache holds them ready; else NULL. */
const double *rt_trace_all_sorted_durations (const RtTrace *t, guint *n);

/* Turn i (RtRequest.first_turn ...): in the cache's table for a file taken whole from it,
 * in t->turns for the others. Asking for one the trace does not hold (a load that did not
 * declare RT_READS_TURNS keeps none it reads) is a programming error (RtLoadOptions.reads):
 * a figure of NaNs then, when the build does not stop on it. */
const RtTurnFigures *rt_trace_turn_missing (const RtTrace *t, guint32 i);

static inline const RtTurnFigures *
rt_trace_turn (const RtTrace *t, guint32 i)
{
  if (i < t->n_cached_turns)
    return &t->cached_turns[i];
  if (G_UNLIKELY (i - t->n_cached_turns >= t->turns->len))
    return rt_trace_turn_missing (t, i);
  return &g_array_index (t->turns, RtTurnFigures, i - t->n_cached_turns);
}

/* The parts of a turn, in the order RtTurnSums and the turn tables keep them. */
typedef enum {
  RT_TURN_PRE_PROCESS,
  RT_TURN_ENGINE_CALL,
  RT_TURN_POST_PROCESS,
  RT_TURN_TOOL_PARSING,
  RT_TURN_TOTAL,
  RT_N_TURN_PARTS
} RtTurnPart;

/* One turn index's figures, summed over turn records taken one after another. */
typedef struct {
  guint32 count;                      /* records of that index */
  guint32 missing[RT_N_TURN_PARTS];   /* records without that part (NAN) */
  double sum[RT_N_TURN_PARTS];        /* the sum of the others', added in record order */
} RtTurnSums;                         /* 64 bytes, the cache's own layout */

/* Adds turn records tf[0] ... tf[n - 1], in that order, into `sums` (RtTurnSums by turn
 * index, from 0, grown as needed; a record without a turn index is left out). What rt-turns'
 * means are made of, and what a cache keeps of all the steps together (the same additions
 * in the same order: the same doubles). */
void rt_turn_sums_add (GArray *sums, const RtTurnFigures *tf, gsize n);

/* The engine time of turns tf[0] ... tf[n - 1]: the sum of their finite engine calls, in
 * order (a request's, for the truncation finding). */
double rt_turns_engine_s (const RtTurnFigures *tf, gsize n);

/* rt_turn_sums_add of every turn of the first *n_files files, one file after another (every
 * step's, up to one), when the cache holds them ready and the load was asked for them
 * (RT_READS_TURN_SUMS): `n` is set to their number (turn indices). NULL otherwise. */
const RtTurnSums *rt_trace_turn_sums_ready (const RtTrace *t, guint *n, guint *n_files);

/* rt_turns_engine_s of request q's turns, from the cache when it holds them ready. */
double rt_trace_request_engine_s (const RtTrace *t, const RtRequest *q);

/* How many turns rt_trace_turn numbers. */
static inline guint64
rt_trace_n_turns (const RtTrace *t)
{
  return (guint64) t->n_cached_turns + t->turns->len;
}

static inline const RtRequest *
rt_trace_request (const RtTrace *t, guint i)
{
  return i < t->n_cached_requests ? &t->cached_requests[i] : &t->requests[i - t->n_cached_requests];
}

/* rt_request_id of a trace whose ids of some file are checked when first read. */
const char *rt_trace_request_id_checked (const RtTrace *t, const RtRequest *q);

/* The id of request q of t (NUL-terminated; the text may hold NUL bytes before it only if
 * the log did). */
static inline const char *
rt_request_id (const RtTrace *t, const RtRequest *q)
{
  if (G_UNLIKELY (t->request_ids_unchecked))
    return rt_trace_request_id_checked (t, q);
  return (const char *) (t->request_ids_at + (guintptr) q->id);
}

/* Its finish reason as logged, or NULL when it had none. */
static inline const char *
rt_request_finish_reason (const RtTrace *t, const RtRequest *q)
{
  return q->finish_reason == 0 ? NULL : (const char *) (t->request_texts_at + (guintptr) q->finish_reason);
}

/* Index in t->steps of step number `step`, or -1. */
int rt_trace_find_step (const RtTrace *t, gint32 step);

/* Parses an ISO-8601 local time ("2025-07-13T11:04:25.706221", fraction optional)
 * into seconds. Returns FALSE on anything else. */
gboolean rt_parse_timestamp (const char *s, gsize len, double *out_s);

/* The same, remembering the last second parsed ("YYYY-MM-DDTHH:MM:SS") and its minute: a
 * file's lines come many a second, second after second, so most of them reuse the one and
 * nearly all the other. Same answers, bit for bit. */
typedef struct {
  char text[19];     /* the second; its first 16 bytes are the minute */
  gint64 minute_s;
  gint64 second_s;   /* minute_s and the seconds */
  gboolean valid;    /* minute_s is text's minute */
  gboolean second_valid;   /* and second_s its second */
} RtTimestampMemo;
gboolean rt_parse_timestamp_memo (const char *s, gsize len, RtTimestampMemo *memo, double *out_s);

/* qsort-style comparison of two gint32, for g_array_sort. */
int rt_compare_gint32 (gconstpointer a, gconstpointer b);

/* The same of two strings by their bytes, for g_ptr_array_sort (whose elements it is given
 * the addresses of). */
int rt_compare_strings (gconstpointer a, gconstpointer b);

/* Text after the last '.' of a finish reason ("FinishReasonTypeEnum.STOP" -> "STOP"). */
const char *rt_finish_reason_short (const char *reason);

G_END_DECLS
