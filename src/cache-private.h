/* SPDX-License-Identifier: Apache-2.0 */
/* cache-private.h: the cache's narrow interface: it opens and checks a cache, tells what it
 * knows of a file, and stores and restores one file as a plain snapshot; the loader drives it. */
#pragma once

#include "rolltrace/rt-trace.h"

G_BEGIN_DECLS

/* ---- one file, as plain tables ----------------------------------------------------- */

/* A problem of a file as the cache keeps it: the loader makes its RtProblem. */
typedef struct {
  guint64 line;
  const char *reason;
} RtCacheProblem;

/* One file as of its last newline, where reading resumes once it has grown: what
 * rt_cache_file_snapshot gives back and rt_cache_draft_add_file takes. It knows
 * nothing of how the loader keeps files; the loader turns it into its own state. */
typedef struct {
  RtFile counters;            /* lines ... schema, n_events (the rows) and, when restored,
                               * n_requests. Not part of it: path, step, worker, identity,
                               * first_request */
  guint64 offset;             /* bytes up to and including the last newline */
  guint64 line;               /* lines in those bytes */
  guint64 prefix_checksum;    /* rt_cache_prefix_checksum up to offset */
  gboolean prefix_known;      /* FALSE: it may not describe the bytes read */
  const RtEvent *rows;        /* counters.n_events rows, in the cache's mapping: check
                               * them (rt_cache_rows_ok) before use. Unused when writing */
  guint64 rows_checksum;
  /* Arrays the caller provides: appended to by rt_cache_file_snapshot, read by
   * rt_cache_draft_add_file. Strings restored point into the cache (valid until
   * rt_cache_close). Restoring: requests NULL, neither requests nor turns are
   * restored; turns NULL, no turns are: each request's first_turn is then an index
   * into the cache's own table (rt_cache_turns). */
  GArray *requests;           /* RtRequest: first_turn indexes `turns` (from its start);
                               * file, step and worker are not part of it */
  GArray *turns;              /* RtTurnFigures */
  GArray *problems;           /* RtCacheProblem */
} RtCacheSnapshot;

/* What a cache's tables hold (or will) in all. */
typedef struct {
  guint64 n_requests, n_turns, n_problems, ids_size;
} RtCacheTotals;

/* ---- reading ---------------------------------------------------------------------- */

typedef struct _RtCacheMap RtCacheMap;

/* Opens and checks the cache at `path` for the experiment `exp_canonical`, and
 * interns its event names into `reg` (which must be fresh: they keep their ids);
 * NULL (with `why` set) when there is none or it cannot be trusted. The cache is
 * mapped, not read: its large tables (requests, turns, step durations) are checked
 * when first used, by rt_cache_file_tables_ok and rt_cache_step_durations. */
RtCacheMap *rt_cache_open (const char *path, const char *exp_canonical, RtEventRegistry *reg,
                           const char **why);
/* A cache is a base, written whole, and may have a delta beside it (`path`-delta, with
 * rt_cache_delta_path), written after it: the files of the steps after the base's last, in
 * the same format, its header naming the base (rt_cache_base). rt_cache_open opens both,
 * the delta only when it extends this very base (else it is left out, as if there were
 * none), and every function below takes the two as one: the records of the base first,
 * then the delta's. The delta's tables are only ever copied out (rt_cache_file_snapshot):
 * the requests and turns used in place (rt_cache_requests, rt_cache_turns,
 * rt_cache_turn_sums_unchecked) are the base's. */
#define RT_CACHE_DELTA_SUFFIX "-delta"   /* a delta's name: its base's, and this */
char *rt_cache_delta_path (const char *path);
/* rt_cache_open of `path`, given the base a load before had open (`kept`, taken): that one, with
 * every check it passed, when it is still the file at `path` (its delta too while it is the
 * file beside it, else the delta there opened), else closed. A --watch round then checks only
 * what the round before did not; both files are marked used again. */
RtCacheMap *rt_cache_reopen (RtCacheMap *kept, const char *path, const char *exp_canonical,
                             RtEventRegistry *reg, const char **why);
/* The delta opened with `map`, or NULL (for the tests: the same one across rounds). */
const RtCacheMap *rt_cache_delta (const RtCacheMap *map);
/* How many records are the base's (the first ones). */
guint rt_cache_n_base_files (RtCacheMap *map);
/* What a delta names of the base it extends. */
typedef struct {
  guint64 checksum;           /* of its header, which covers its size and counts */
  guint64 n_files;
} RtCacheBase;
RtCacheBase rt_cache_base (RtCacheMap *map);
void rt_cache_close (RtCacheMap *map);

/* How many files and requests the cache holds, in all. */
guint rt_cache_n_files (RtCacheMap *map);
guint64 rt_cache_n_requests (RtCacheMap *map);

/* What the cache knows of a file, by its path and what stat says of it. */
typedef enum {
  RT_CACHE_MISS,    /* nothing, or not the same file: read it from its first byte */
  RT_CACHE_SAME,    /* the same inode, size, mtime and change time: as it was cached */
  RT_CACHE_GROWN,   /* longer than cached: appended to, if rt_cache_prefix_same says so */
} RtCacheMatch;
RtCacheMatch rt_cache_match (RtCacheMap *map, const RtFile *f, guint *record);

/* Where the cached part of `record` ends. */
guint64 rt_cache_resume_offset (RtCacheMap *map, guint record);

/* A file that is RT_CACHE_SAME ends with that part: nothing to read at all (else
 * what follows it is an unterminated last piece, which the cache never holds). */
gboolean rt_cache_complete (RtCacheMap *map, guint record, const RtFile *f);

/* The blocks read to tell whether the first bytes of a file are still those that
 * were read: the first, one in the middle and the last before `upto`, of
 * RT_PREFIX_BLOCK bytes or fewer. `head` receives the first of them (MIN (upto,
 * RT_PREFIX_BLOCK) bytes). FALSE when they cannot be read (the file is shorter). */
#define RT_PREFIX_BLOCK 4096
gboolean rt_cache_prefix_checksum (int fd, guint64 upto, guint8 *head, guint64 *sum);

/* The file open as `fd` still holds the bytes cached for `record`, as far as the
 * sampled blocks tell: reading on from where the cache stopped is safe. */
gboolean rt_cache_prefix_same (RtCacheMap *map, guint record, int fd);

/* The prefix checksum kept for `record`, and whether it can be trusted. */
gboolean rt_cache_prefix (RtCacheMap *map, guint record, guint64 *sum);

/* The parts of a file's tables, each with a checksum of its own: a command checks those it
 * reads (the requests always: whatever reads a request needs them, and their bounds). */
typedef enum {
  RT_CACHE_REQUESTS = 1 << 0,   /* the request table (and its bounds) */
  RT_CACHE_TURNS = 1 << 1,      /* the turn figures */
  RT_CACHE_IDS = 1 << 2,        /* the text of the request ids */
  RT_CACHE_ALL_TABLES = RT_CACHE_REQUESTS | RT_CACHE_TURNS | RT_CACHE_IDS,
} RtCacheTables;

/* The `tables` of `record` pass their checks (checksums, bounds): until the requests have,
 * no snapshot of it with its requests may be taken; until all have, none that copies them
 * into a new cache. Each part checked once; not thread-safe the first time, but for
 * different records at once. */
gboolean rt_cache_file_tables_ok (RtCacheMap *map, guint record, RtCacheTables tables);

/* The `tables` of these n records are about to be read: their pages are mapped in one go
 * rather than fault after fault. */
void rt_cache_prefetch_file_tables (RtCacheMap *map, const guint *records, guint n,
                                    RtCacheTables tables);

/* Fills `snap` with what the cache holds of `record`, appending its requests,
 * turns and problems to the arrays the caller put in it (rt_cache_file_tables_ok first).
 * Restored strings point into the cache, valid until rt_cache_close. */
void rt_cache_file_snapshot (RtCacheMap *map, guint record, RtCacheSnapshot *snap);

/* The caller will not read the `tables` of records first_record ... first_record + n_records - 1
 * again soon: their pages of the mapping (and of the requests' engine times, with the requests)
 * go back, read from the page cache again when next touched. Pointers into them stay valid. */
void rt_cache_release_file_tables (RtCacheMap *map, guint first_record, guint n_records,
                                   RtCacheTables tables);

/* The caller will not read these n rows of the cache's mapping again soon: their pages go back
 * (as rt_cache_release_file_tables's do). Rows not in the mapping's rows are left alone. */
void rt_cache_release_rows (RtCacheMap *map, const RtEvent *rows, guint32 n);

/* The requests were taken (converted into the loader's own table): the memory of the
 * cache's is given back; they are read from the file again if asked for. */
void rt_cache_requests_taken (RtCacheMap *map);

/* The requests of records first_record ... first_record + n_records - 1, in the cache's
 * table, used in place: NULL unless they lie there one record after another (as the cache's
 * writer puts them), else the first of them, with `n` set to their number, RtRequest.id
 * counting from `ids`, the finish reason from `texts`, `file` being the record. Only once
 * the requests of each of those records passed rt_cache_file_tables_ok may they be read. */
const RtRequest *rt_cache_requests (RtCacheMap *map, guint first_record, guint n_records,
                                    guint32 *n, const char **ids, const char **texts);

/* Adds to `totals` what rt_cache_file_snapshot gives of `record`'s tables. */
void rt_cache_file_count (RtCacheMap *map, guint record, RtCacheTotals *totals);

/* Where the requests of `record` begin in the cache's table. */
guint32 rt_cache_first_request (RtCacheMap *map, guint record);

/* The cache's turns table, used in place: rt_cache_file_tables_ok has checked the
 * turns of a record before any snapshot of it points into it. */
const RtTurnFigures *rt_cache_turns (RtCacheMap *map, guint *n);

/* The durations of the complete requests of step `step` (those rt_cache_file_snapshot
 * gives of its records first_record ... first_record + n_files - 1, in that order,
 * without the NaN ones), sorted ascending, with `n` set to their number: NULL when
 * the cache holds no such step, or when they fail their check. */
const double *rt_cache_step_durations (RtCacheMap *map, gint32 step, guint first_record,
                                       guint n_files, guint *n);

/* The durations that step number `step` stands for over records 0 ... n_files - 1, in sorted
 * runs used in place: the base's record of them over its own files, and, when n_files takes in
 * the delta's files too, the delta's over those (a delta keeps its own files' alone: it stays
 * the size of what was appended). How many runs, 0 when the cache holds no such record. */
guint rt_cache_step_durations_runs (RtCacheMap *map, gint32 step, guint n_files, const double *runs[2],
                                    guint lens[2]);

/* The step durations pass their check (done once: rt_cache_step_durations gives none when
 * they fail it). Thread-safe. */
gboolean rt_cache_step_durations_ok (RtCacheMap *map);

/* What stands in for the turns of records 0 ... n_records - 1 (the records one after another):
 * the turn sums of the first *end_record of them (rt_turn_sums_add of their turns; the most
 * the cache marked; `n` set to their number), and the engine time of every request
 * (rt_turns_engine_s of its turns; `engine`, one per request of the requests table). NULL
 * when the cache marked none within them. Only the marks are checked here: neither the sums
 * nor the engine times may be read before rt_cache_turn_sums_ok said they pass (a caller
 * checks them beside other work). */
const RtTurnSums *rt_cache_turn_sums_unchecked (RtCacheMap *map, guint n_records, guint *n,
                                                guint *end_record, const double **engine);

/* The turn sums and the engine times pass their checks (each part checked once). Thread-safe. */
gboolean rt_cache_turn_sums_ok (RtCacheMap *map);

/* Checks mapped rows against their checksum, and that each names an event and a
 * request that exist (n_names and n_requests: the sizes of those tables). */
gboolean rt_cache_rows_ok (const RtEvent *rows, guint32 n, guint64 checksum, guint n_names,
                           guint32 n_requests);

/* The experiment (its canonical path) the cache file at `path` was written for, or NULL
 * when it is not a cache this rolltrace can read (another version, damaged, not one). */
char *rt_cache_file_experiment (const char *path);

/* Removes the cache file at `path` if it is still the one `map` was opened from. */
void rt_cache_discard (RtCacheMap *map, const char *path);

/* ---- writing ---------------------------------------------------------------------- */

/* A new cache being written (a temporary file beside `cache_path`). Rows can be
 * put in while the files are still being read: rt_cache_draft_reserve (callers
 * serialise it) gives each file's rows their place, rt_cache_draft_put_rows
 * (thread-safe) writes them there and returns their checksum; a file's tables can be
 * put aside on disk too (rt_cache_draft_spill), for a load that keeps none. Then the
 * tables: rt_cache_draft_count of each file to be added, rt_cache_draft_begin_tables
 * with the totals, rt_cache_draft_add_file for each file (its tables written at their
 * place as it is added: the draft keeps only what the files and steps hold), and
 * rt_cache_write. A write that fails is remembered and reported by rt_cache_write.
 * Freeing a draft that was not written removes its file. */
typedef struct _RtCacheDraft RtCacheDraft;
RtCacheDraft *rt_cache_draft_new (const char *cache_path, GError **error);
guint64 rt_cache_draft_reserve (RtCacheDraft *draft, guint32 n_rows);
guint64 rt_cache_draft_put_rows (RtCacheDraft *draft, guint64 at, const RtEvent *rows, guint32 n_rows);
void rt_cache_draft_free (RtCacheDraft *draft);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtCacheDraft, rt_cache_draft_free)

/* FALSE (with `error` set as rt_cache_write would) once a write of the draft failed. */
gboolean rt_cache_draft_ok (RtCacheDraft *draft, GError **error);

/* A file's tables put aside by rt_cache_draft_spill: where, and what they count. */
typedef struct {
  guint64 at, size;            /* size 0: not put aside (the draft failed) */
  guint32 n_requests, n_turns, n_problems;
  guint64 ids_size;
} RtCacheSpill;

/* Puts the tables of `snap` (its requests, turns and problems: the arrays only) aside in a
 * file of the draft's, for rt_cache_draft_add_file to take them from: the caller need not keep
 * them. Thread-safe. */
RtCacheSpill rt_cache_draft_spill (RtCacheDraft *draft, const RtCacheSnapshot *snap);

/* Adds to `totals` what the tables of a file will add: of `spill` when not NULL, else of
 * `snap`'s arrays. */
void rt_cache_draft_count (const RtCacheSnapshot *snap, const RtCacheSpill *spill, RtCacheTotals *totals);

/* Begins the tables, once every file's rows have their place: the experiment the cache is
 * for, its event names (ids in order), how many files will be added, and what their tables
 * hold in all (rt_cache_draft_count of each: a draft whose tables come out otherwise is
 * not written). */
void rt_cache_draft_begin_tables (RtCacheDraft *draft, const char *exp_canonical,
                                  RtEventRegistry *reg, guint n_files, const RtCacheTotals *totals);

/* Adds file `f` (its path and identity) as `snap` describes it, its rows being
 * those rt_cache_draft_put_rows wrote at `rows_at` (snap->rows_checksum); its tables those
 * of `spill` when not NULL (`snap`'s arrays unused), else of `snap`. */
void rt_cache_draft_add_file (RtCacheDraft *draft, const RtFile *f, const RtCacheSnapshot *snap,
                              guint64 rows_at, const RtCacheSpill *spill);

/* How many files were added so far: the record the next one gets. */
guint rt_cache_draft_n_files (RtCacheDraft *draft);
/* Makes the draft the delta of `base` (before rt_cache_draft_begin_tables): its records are
 * numbered after the base's (rt_cache_draft_n_files counts them too, and rt_cache_draft_add_step
 * takes records of both), and it keeps no turn sums (rt_cache_draft_mark_turn_sums does
 * nothing: the base's stand in for the turns of its records alone). */
void rt_cache_draft_extend (RtCacheDraft *draft, RtCacheBase base);

/* Adds step `step`: its files are the records from `first_record` to the last one
 * added, `sorted` the durations rt_cache_step_durations will give of it. Any number
 * serves as `step` (the loader keeps those of all the steps as step -1). */
void rt_cache_draft_add_step (RtCacheDraft *draft, gint32 step, guint first_record,
                              const double *sorted, guint n);

/* Marks the records added so far: the cache keeps the turn sums of all their turns (unless
 * it keeps too many already), for rt_cache_turn_sums_unchecked. The loader marks the end of
 * each step. */
void rt_cache_draft_mark_turn_sums (RtCacheDraft *draft);

/* Completes `draft` (taken) as the cache at `path`, and renames it into place. */
gboolean rt_cache_write (RtCacheDraft *draft, const char *path, GError **error);

/* The 64-bit checksum used for every section of the cache. */
guint64 rt_hash64 (const void *data, gsize len, guint64 seed);

G_END_DECLS
