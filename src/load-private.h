/* SPDX-License-Identifier: Apache-2.0 */
/* load-private.h: what the loader (load.c) and the file parser (parse.c) share: one file's
 * parse state, and the state the trace keeps per file. The cache is below both (cache-private.h). */
#pragma once

#include "cache-private.h"
#include "memory-private.h"
#include "rolltrace/rt-trace.h"

G_BEGIN_DECLS

/* A turn's figures and the (file-local) request they belong to: from a
 * turn_timings entry or a turn_end line. The turns table is derived from these. */
typedef struct {
  guint32 request;
  RtTurnFigures figures;
} RtTurnRecord;

typedef enum {
  RT_FILE_UNREAD,    /* not loaded yet */
  RT_FILE_PARSED,    /* read from the first byte */
  RT_FILE_RESUMED,   /* restored from the cache, then read from where it had stopped */
  RT_FILE_CACHED,    /* restored from the cache, nothing read */
} RtFileOrigin;

/* A file's tables as they stood after its last newline: what the cache keeps, and
 * where reading resumes once the file has grown. Tables only ever grow, so counts
 * say what belonged to that point; requests are copied only when the unterminated
 * last piece changed one of them. */
typedef struct {
  guint64 offset;                /* bytes up to and including the last newline */
  guint64 line;                  /* lines in those bytes */
  RtFile counters;               /* the file's row then (path not owned) */
  guint32 n_events, n_requests, n_timing, n_end, n_problems;
  GArray *requests;              /* RtRequest then, or NULL: the final ones are the same */
} RtResume;

/* What the trace keeps per file besides its RtFile row. */
typedef struct {
  RtFileOrigin origin;
  GArray *timing_turns;          /* RtTurnRecord */
  GArray *end_turns;             /* RtTurnRecord */
  GArray *problems;              /* RtProblem of this file (where owned here), all of them;
                                  * NULL for a file taken from the cache without any */
  RtResume resume;
  guint32 first_event;           /* rows in trace->events, when not mapped */
  const RtEvent *mapped;         /* rows in the cache mapping, or NULL */
  guint64 mapped_checksum;
  gsize rows_ready;              /* (g_once_init_enter) mapped rows checked against their
                                  * checksum, or read again after a failed check:
                                  * rt_trace_file_events */
  GArray *own_events;            /* rows re-read after a failed check */
  gint ids_ready;                /* (atomic) its requests' ids are checked, or were read again
                                  * (own_ids): RT_READS_SOME_IDS */
  GPtrArray *own_ids;            /* const char*: its requests' ids read again, in order */
  GStringChunk *own_ids_text;    /* and where they are kept */
  gboolean rows_written;         /* rows already in the draft cache, at rows_at */
  guint64 rows_at, rows_checksum;
  gboolean spilled;              /* its tables put aside in the draft (`spill`): a load that
                                  * keeps durations alone, and writes a cache */
  RtCacheSpill spill;
  guint64 prefix_checksum;       /* rt_cache_prefix_checksum up to resume.offset */
  gboolean prefix_known;         /* FALSE: it may not describe the bytes read */
  gboolean uncacheable;          /* changed while analysed: left out of a new cache */
  gboolean rows_dropped;         /* read, but not kept (without RT_READS_ROWS) */
  gboolean as_cached;            /* the cache's `record` holds it as it is (RT_CACHE_SAME):
                                  * taken whole, or with its unterminated last piece read */
  guint record;
  /* A file cut to the rollouts read (rt_trace_keep_file_parts): its RtFile then counts them
   * only; what the whole file held is kept here, for the checks of its cached tables. */
  gboolean cut;
  guint32 whole_events, whole_requests;
  guint32 cut_requests_at;       /* its first request read, among the whole file's */
  guint64 first_duration;        /* its requests' durations in RtTracePrivate.kept_durations,
                                  * when the load kept those alone (first_request RT_NONE) */
  GArray *cut_events;            /* RtEvent: the rows of a file cut to its later rollouts,
                                  * their requests numbered from its first read; NULL for a
                                  * file cut to its first rollout (the first rows of its own) */
} RtFileState;

/* The sorted request durations of a step, as the cache holds them, or as made of the durations
 * a load kept alone. */
typedef struct {
  gint looked;                   /* (atomic) the cache was asked (sorted NULL: it had none) */
  const double *sorted;          /* in the cache's mapping, or `owned` */
  guint n;
  double *owned;
} RtStepDurations;

/* The cache's request table is so large that the pages read of it go back once read: 64 MiB or
 * more (about 20M lines), or ROLLTRACE_RELEASE_FROM bytes (the tests make small caches large).
 * load-cache.c. */
gboolean rt_load_cache_is_large (RtCacheMap *cache);

/* What a load keeps, from RtLoadOptions.reads. */
typedef struct {
  gboolean rows;
  gboolean requests;
  gboolean turns;                /* their figures, read or summed */
  gboolean turns_summed;         /* summed over every step alone (RT_READS_TURN_SUMS) */
  gboolean ids;                  /* checked with their requests, or when first read: */
  gboolean ids_when_read;        /* (RT_READS_SOME_IDS) */
  gboolean strict;               /* a read of what was not kept stops the program */
} RtLoadKeeps;

RtLoadKeeps rt_load_keeps (RtReads reads);

struct _RtTracePrivate {
  RtFileState *files;            /* one per trace->files */
  RtCacheMap *cache;             /* the mapping the cached rows live in, or NULL */
  char *cache_path;              /* where the cache is (or would be) kept, or NULL */
  RtCacheDraft *draft;           /* the new cache, begun while loading, or NULL */
  gboolean draft_failed;         /* could not begin one: tried again, and why said, at the end */
  guint delta_from;              /* the new cache is the old one's delta, of files delta_from ...
                                  * (new steps after the old base's files, each as it was); 0:
                                  * the new cache is a base, of every file (load_files decides) */
  RtStepDurations *step_durations;   /* one per trace->steps */
  RtStepDurations all_durations;     /* those of every step */
  GArray *kept_durations;        /* double: a load that reads no request, id, turn or row and
                                  * writes no cache keeps of each file's requests only their
                                  * durations, in order (NAN: not complete, or none logged),
                                  * not the requests and their texts; else NULL */
  gboolean requests_deferred;    /* every file taken from the cache without its requests,
                                  * for RtLoadOptions.requests_of_one_step to choose, or to
                                  * be read in place once the rest is read (cache_in_order) */
  GArray *requests;              /* RtRequest: the table the load made (trace->requests, once
                                  * loaded, unless requests_in_place) */
  gboolean cache_in_order;       /* every file taken whole from the cache, as the record of its
                                  * own number: requests can be read in place */
  gboolean requests_in_place;    /* trace->requests is (part of) the cache's own table
                                  * (take_requests_in_place) */
  gboolean release_tables;       /* and so large that the pages of its requests, their engine
                                  * times and ids go back once read (rt_trace_requests_done) */
  const RtTurnSums *turn_sums;   /* the turn sums of the first turn_sums_files files, from */
  guint n_turn_sums;             /* the cache (when it holds them: files taken whole from it,
                                  * each the record of its own number), or NULL */
  guint turn_sums_files;
  const double *engine;          /* the engine time of every request of that cache */
  const double *cached_engine;   /* of each of trace->cached_requests (used in place), or NULL */
  guint turns_unchecked;         /* the first files whose turns were left unchecked, for
                                  * RT_READS_TURN_SUMS (turn_sums stands in for them) */
  RtLoadOptions opts;
  RtLoadKeeps keeps;             /* opts.reads, spelled out */
  GMutex lazy_lock;              /* what a loaded trace makes when first asked (a file's rows
                                  * checked, a step's durations looked up) is made under it,
                                  * once: analyses may ask from several threads at once */
};

/* A text of a request of the load's own table (RtTrace.request_ids_at and request_texts_at
 * 0): kept as its address. */
static inline guint64
rt_text_ref (const char *s)
{
  return (guint64) (guintptr) s;
}

static inline const char *
rt_text_at (guint64 ref)
{
  return (const char *) (guintptr) ref;
}

/* Each step's start_s, from its files' start_min_s (again, once they changed). */
void rt_trace_finish_steps (RtTrace *trace);

/* Forgets every step's sorted durations (made again when next asked). load-cache.c. */
void rt_load_forget_durations (RtTracePrivate *priv, guint n_steps);

/* Frees what an RtProblem owns (its where), as a GArray clear function. */
void rt_problem_clear (gpointer problem);

/* ---- parse.c: one file ---------------------------------------------------------- */

#define RT_NAME_SLOTS 256
#define RT_NAME_MAX_LEN 47

typedef struct {
  guint32 hash;
  guint16 len;                   /* 0: free */
  guint16 id;
  char name[RT_NAME_MAX_LEN + 1];
} RtNameSlot;

typedef struct {
  guint64 hash;
  guint32 index;                 /* RT_NONE: free */
  guint32 len;                   /* of the id, which may hold NUL bytes */
  const char *text;              /* the id (that of request `index`), compared in place */
} RtIdSlot;

typedef struct {
  RtIdSlot *slots;
  gsize mask;                    /* capacity - 1, a power of two */
  gsize used;
  RtIdSlot *last;                /* the slot of the id looked up last, or NULL */
} RtIdIndex;

/* One file being read: its rows, built locally and appended to the trace at the end. */
typedef struct {
  RtTrace *trace;
  RtFile *file;                  /* the trace's row for this file (filled in place) */
  guint32 file_index;
  guint max_problems;
  GArray *events;                /* RtEvent (the thread's reusable array) */
  guint events_room;             /* events has room for this many rows (see append_event) */
  GArray *requests;              /* RtRequest (a reference to the thread's array) */
  GArray *timing_turns;          /* RtTurnRecord (likewise: copy to keep them) */
  GArray *end_turns;             /* RtTurnRecord (likewise) */
  GArray *problems;              /* RtProblem */
  GStringChunk *strings;
  RtIdIndex request_index;
  RtNameSlot names[2][RT_NAME_SLOTS];
  guint16 tool_id;               /* tool_execution's id, once a line of the file named it */
  RtTimestampMemo timestamps;
  RtResume resume;
  gint *bytes_done;              /* progress, updated atomically (in KiB) */
  guint64 bytes_read;
} RtFileParse;

RtFileParse *rt_file_parse_new (RtTrace *trace, guint file_index, guint max_problems, gint *bytes_done);
void rt_file_parse_free (RtFileParse *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtFileParse, rt_file_parse_free)

/* Reads the file from byte `offset` (line `line` ends there) to its end. */
gboolean rt_file_parse_read (RtFileParse *p, guint64 offset, guint64 line, GError **error);

/* For the tests: when set, called after each read of rt_file_parse_read with the file's
 * descriptor, so that a test can change the file between two reads. */
extern void (*rt_file_parse_read_hook) (int fd);

/* A file's row and resume point from a snapshot of it: its counters, as of where
 * reading resumes. The tables are the caller's, and so are their counts in `rp`
 * (n_requests, n_problems, n_timing, n_end: set to 0). */
void rt_resume_from_snapshot (RtFile *f, RtResume *rp, const RtCacheSnapshot *snap);

/* Fills a fresh parse with a file's snapshot from the cache, to read on from where
 * the cache stopped (its rows are not taken: they are checked first). */
void rt_file_parse_restore (RtFileParse *p, const RtCacheSnapshot *snap);

/* Appends to `out` the RtProblem of each problem of a snapshot of file `file_index`. */
void rt_problems_from_snapshot (GArray *out, const RtCacheSnapshot *snap, const RtFile *f,
                                guint file_index);

/* Derives each request's turns: its turn_timings, or failing those its turn_end lines. The
 * array is the calling thread's, emptied by its next call: fresh memory for each file would
 * be memory the kernel zeroes again for each file, as malloc gives it back between them. */
GArray *rt_file_parse_collect_turns (RtFileParse *p);

/* The turns of requests from their turn records (see parse.c). */
void rt_derive_turns (RtRequest *reqs, guint n_req, const RtTurnRecord *timing, guint n_timing,
                      const RtTurnRecord *end, guint n_end, GArray *out);

/* Lists step_N/worker_M.jsonl of trace->path into trace->files and trace->steps, the trainer's
 * files and everything else into trace->strays; with a cache path, opens the cache too
 * (*cache: NULL when there is none or it cannot be trusted). load-discover.c. */
gboolean rt_load_discover (RtTrace *trace, const char *canonical, guint n_threads, RtCacheMap **cache,
                           GError **error);

/* A snapshot with arrays of its own (see RtCacheSnapshot), and its clearing. load-cache.c. */
RtCacheSnapshot rt_load_snapshot_init (void);
void rt_load_snapshot_clear (RtCacheSnapshot *snap);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RtCacheSnapshot, rt_load_snapshot_clear)

/* Appends the first n of a file's `problems` (RtProblem) to the snapshot's. load-cache.c. */
void rt_load_snapshot_problems (RtCacheSnapshot *snap, const GArray *problems, guint32 n);

/* The cache file of an experiment in `dir`: one per canonical path. load-cache.c. */
char *rt_load_cache_path (const char *dir, const char *exp_canonical);
/* Counts how each file was loaded and, when what was read made the cache stale, writes a new
 * one (a failure is a note, not an error) and keeps the folder within its limit. */
void rt_load_update_cache (RtTrace *trace, RtCacheMap *cache);

G_END_DECLS
