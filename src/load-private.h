/* load-private.h: what the loader (load.c), the file parser (parse.c) and the cache (cache.c)
 * share: one file's parse state, and the state the trace keeps per file for the cache.
 * The memory helpers all three use are in memory-private.h. */
#pragma once

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
  GArray *problems;              /* RtProblem of this file (where owned here), all of them */
  RtResume resume;
  guint32 first_event;           /* rows in trace->events, when not mapped */
  const RtEvent *mapped;         /* rows in the cache mapping, or NULL */
  guint64 mapped_checksum;
  gboolean verified;             /* mapped rows checked against their checksum */
  GArray *own_events;            /* rows re-read after a failed check */
  gboolean rows_written;         /* rows already in the draft cache, at rows_at */
  guint64 rows_at, rows_checksum;
  guint64 prefix_checksum;       /* rt_cache_prefix_checksum up to resume.offset */
  gboolean prefix_known;         /* FALSE: it may not describe the bytes read */
  gboolean uncacheable;          /* changed while analysed: left out of a new cache */
} RtFileState;

typedef struct _RtCacheMap RtCacheMap;

struct _RtTracePrivate {
  RtFileState *files;            /* one per trace->files */
  RtCacheMap *cache;             /* the mapping the cached rows live in, or NULL */
  char *cache_path;              /* where the cache is (or would be) kept, or NULL */
  struct _RtCacheDraft *draft;   /* the new cache, begun while loading, or NULL */
  gboolean draft_failed;         /* could not begin one: rt_cache_write says why */
  RtLoadOptions opts;
};

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
} RtIdSlot;

typedef struct {
  RtIdSlot *slots;
  gsize mask;                    /* capacity - 1, a power of two */
  gsize used;
} RtIdIndex;

/* One file being read: its rows, built locally and appended to the trace at the end. */
typedef struct {
  RtTrace *trace;
  RtFile *file;                  /* the trace's row for this file (filled in place) */
  guint32 file_index;
  guint max_problems;
  GArray *events;                /* RtEvent (the thread's reusable array) */
  GArray *requests;              /* RtRequest (a reference to the thread's array) */
  GArray *timing_turns;          /* RtTurnRecord (likewise: copy to keep them) */
  GArray *end_turns;             /* RtTurnRecord (likewise) */
  GArray *problems;              /* RtProblem */
  GStringChunk *strings;
  RtIdIndex request_index;
  RtNameSlot names[2][RT_NAME_SLOTS];
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

/* Appends a restored or read request; used by the cache to rebuild a file. */
guint32 rt_file_parse_add_request (RtFileParse *p, const RtRequest *q);
void rt_file_parse_add_problem (RtFileParse *p, guint64 line, const char *reason);

/* Derives each request's turns: its turn_timings, or failing those its turn_end lines. */
GArray *rt_file_parse_collect_turns (RtFileParse *p);

/* The turns of requests from their turn records (see parse.c). */
void rt_derive_turns (RtRequest *reqs, guint n_req, const RtTurnRecord *timing, guint n_timing,
                      const RtTurnRecord *end, guint n_end, GArray *out);

/* ---- cache.c ------------------------------------------------------------------ */

/* Opens and checks the cache at `path` for the experiment `exp_canonical`; NULL (with
 * `why` set) when there is none or it cannot be trusted. */
RtCacheMap *rt_cache_open (const char *path, const char *exp_canonical, RtEventRegistry *reg,
                           const char **why);
void rt_cache_close (RtCacheMap *map);

/* How many files the cache describes. */
guint rt_cache_n_files (RtCacheMap *map);

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

/* Sizes the trace's request and turn tables for what the cache holds. */
void rt_cache_reserve (RtCacheMap *map, RtTrace *trace);

/* Takes a complete file's tables straight into the trace: requests and turns are
 * appended to the trace's tables, rows stay in the mapping. Not thread-safe. */
void rt_cache_adopt (RtCacheMap *map, guint record, RtTrace *trace, guint file_index);

/* Fills a fresh parse with the cached tables of `record`, to read on from where the
 * cache stopped; `rows` receives the mapped rows (not copied) and their checksum. */
void rt_cache_restore (RtCacheMap *map, guint record, RtFileParse *p, const RtEvent **rows,
                       guint64 *rows_checksum);

/* Frees what only loading needed; the strings stay, requests point into them. */
void rt_cache_loaded (RtCacheMap *map);

/* Checks mapped rows against their checksum, and that each names an event and a
 * request that exist (n_names and n_requests: the sizes of those tables). */
gboolean rt_cache_rows_ok (const RtEvent *rows, guint32 n, guint64 checksum, guint n_names,
                           guint32 n_requests);

/* Removes the cache file at `path` if it is still the one `map` was opened from. */
void rt_cache_discard (RtCacheMap *map, const char *path);

/* A new cache being written (a temporary file beside `cache_path`). Rows can be
 * put in while the files are still being read: rt_cache_draft_reserve (callers
 * serialise it) gives each file's rows their place, rt_cache_draft_put_rows
 * (thread-safe) writes them there and returns their checksum. A write that fails
 * is remembered and reported by rt_cache_write. Freeing a draft that was not
 * written removes its file. */
typedef struct _RtCacheDraft RtCacheDraft;
RtCacheDraft *rt_cache_draft_new (const char *cache_path, GError **error);
guint64 rt_cache_draft_reserve (RtCacheDraft *draft, guint32 n_rows);
guint64 rt_cache_draft_put_rows (RtCacheDraft *draft, guint64 at, const RtEvent *rows, guint32 n_rows);
void rt_cache_draft_free (RtCacheDraft *draft);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtCacheDraft, rt_cache_draft_free)

/* Writes the whole trace as a new cache at `path`, completing `draft` (taken;
 * NULL: a new one), and renames it into place. */
gboolean rt_cache_write (const RtTrace *trace, RtCacheDraft *draft, const char *path, GError **error);

/* The 64-bit checksum used for every section of the cache. */
guint64 rt_hash64 (const void *data, gsize len, guint64 seed);

G_END_DECLS
