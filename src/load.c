/* load.c: finds the worker files of an experiment and parses them, in parallel, into tables.
 * One task per file builds its own rows; finished files are appended to the trace under a lock. */
#include "rolltrace/rt-trace.h"
#include "rolltrace/rt-error.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- discovery ------------------------------------------------------------------- */

/* "step_17" -> 17; anything else (step_x, step_1.bak, a file) is not a step folder. */
static gboolean
parse_numbered_name (const char *name, const char *prefix, const char *suffix, gint32 *out)
{
  gsize plen = strlen (prefix), slen = strlen (suffix), len = strlen (name);
  if (len <= plen + slen || strncmp (name, prefix, plen) != 0
      || strcmp (name + len - slen, suffix) != 0)
    return FALSE;
  gint64 v = 0;
  for (gsize i = plen; i < len - slen; i++)
    {
      if (!g_ascii_isdigit (name[i]))
        return FALSE;
      v = v * 10 + (name[i] - '0');
      if (v > G_MAXINT32)
        return FALSE;
    }
  *out = (gint32) v;
  return TRUE;
}

static int
compare_files (gconstpointer a, gconstpointer b)
{
  const RtFile *fa = a, *fb = b;
  if (fa->step != fb->step)
    return fa->step < fb->step ? -1 : 1;
  return fa->worker < fb->worker ? -1 : fa->worker > fb->worker;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
rt_compare_gint32 (gconstpointer a, gconstpointer b)
{
  gint32 x = *(const gint32 *) a, y = *(const gint32 *) b;
  return x < y ? -1 : x > y;
}

static gboolean
is_dir (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_DIR);
}

/* Lists step_N/worker_M.jsonl into trace->files and trace->steps, and everything
 * else into trace->strays. */
static gboolean
discover (RtTrace *trace, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) top = g_dir_open (trace->path, 0, &local);
  if (top == NULL)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT,
                   "cannot read experiment folder %s: %s", trace->path, local->message);
      return FALSE;
    }

  g_autoptr (GArray) step_numbers = g_array_new (FALSE, FALSE, sizeof (gint32));
  const char *name;
  while ((name = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *step_path = g_build_filename (trace->path, name, NULL);
      gint32 step;
      if (!parse_numbered_name (name, "step_", "", &step) || !is_dir (step_path))
        {
          g_ptr_array_add (trace->strays, g_strdup (name));
          continue;
        }
      g_array_append_val (step_numbers, step);

      g_autoptr (GDir) dir = g_dir_open (step_path, 0, &local);
      if (dir == NULL)
        {
          g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT, "cannot read %s: %s",
                       step_path, local->message);
          return FALSE;
        }
      const char *entry;
      while ((entry = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *rel = g_build_filename (name, entry, NULL);
          g_autofree char *full = g_build_filename (trace->path, rel, NULL);
          gint32 worker;
          struct stat st;
          if (!parse_numbered_name (entry, "worker_", ".jsonl", &worker)
              || stat (full, &st) != 0 || !S_ISREG (st.st_mode))
            {
              g_ptr_array_add (trace->strays, g_steal_pointer (&rel));
              continue;
            }
          RtFile f = { 0 };
          f.path = g_steal_pointer (&rel);
          f.step = step;
          f.worker = worker;
          f.size = (guint64) st.st_size;
          f.mtime_us = (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000;
          f.inode = (guint64) st.st_ino;
          g_array_append_val (trace->files, f);
        }
    }

  if (step_numbers->len == 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT,
                   "%s holds no step_N folders: expected EXP/step_N/worker_M.jsonl",
                   trace->path);
      return FALSE;
    }

  g_array_sort (trace->files, compare_files);
  g_ptr_array_sort (trace->strays, compare_strings);

  /* Steps in numeric order, each with its range of files; a step folder without
   * worker files is still a step (every worker is missing from it). */
  g_array_sort (step_numbers, rt_compare_gint32);
  guint fi = 0;
  for (guint i = 0; i < step_numbers->len; i++)
    {
      /* step_1 and step_01 are one step */
      if (i > 0 && g_array_index (step_numbers, gint32, i) == g_array_index (step_numbers, gint32, i - 1))
        continue;
      RtStep st = { .step = g_array_index (step_numbers, gint32, i), .start_s = NAN };
      st.first_file = fi;
      while (fi < trace->files->len && rt_trace_file (trace, fi)->step == st.step)
        fi++;
      st.n_files = fi - st.first_file;
      g_array_append_val (trace->steps, st);
    }
  return TRUE;
}

/* ---- parsing one file ------------------------------------------------------------ */

/* A per-file cache of raw event names: a file holds a few dozen distinct names
 * on millions of lines, so a small open-addressing table keyed by the raw bytes
 * answers without a copy, a lock or a string hash of the registry. */
#define NAME_SLOTS 256
#define NAME_MAX_LEN 47
#define NAME_PROBES 8

typedef struct {
  guint32 hash;
  guint16 len;      /* 0: free */
  guint16 id;
  char name[NAME_MAX_LEN + 1];
} NameSlot;

/* Request id -> index into the file's requests: open addressing on a 64-bit hash
 * of the id's bytes, so a lookup needs no copy of the id and no NUL. */
typedef struct {
  guint64 hash;
  guint32 index;      /* RT_NONE: free */
} IdSlot;

typedef struct {
  IdSlot *slots;
  gsize mask;         /* capacity - 1, a power of two */
  gsize used;
} IdIndex;

#define READ_CHUNK (8u << 20)

/* What a loading thread keeps from one file to the next. Page faults are costly
 * (very much so on virtual machines), so the read buffer, the event rows and the
 * parser's own buffers are touched once per thread, not once per file. */
typedef struct {
  RtJsonParser *parser;
  char *buf;          /* READ_CHUNK + RT_JSON_PADDING bytes, grown for longer lines */
  gsize cap;
  GArray *events;     /* RtEvent rows of the file being parsed */
} ThreadState;

static void
thread_state_free (gpointer data)
{
  ThreadState *ts = data;
  rt_json_parser_free (ts->parser);
  g_free (ts->buf);
  g_array_unref (ts->events);
  g_free (ts);
}

static GPrivate thread_state_key = G_PRIVATE_INIT (thread_state_free);

/* Asks for transparent huge pages on the whole 2 MiB pages inside [p, p + len):
 * a large buffer then costs a few page faults instead of thousands. A hint only. */
static void
advise_huge_pages (void *p, gsize len)
{
#ifdef MADV_HUGEPAGE
  const guintptr huge = 2u << 20;
  guintptr start = ((guintptr) p + huge - 1) & ~(huge - 1);
  guintptr end = ((guintptr) p + len) & ~(huge - 1);
  if (end > start)
    madvise ((void *) start, end - start, MADV_HUGEPAGE);
#else
  (void) p;
  (void) len;
#endif
}

static ThreadState *
thread_state (void)
{
  ThreadState *ts = g_private_get (&thread_state_key);
  if (ts == NULL)
    {
      ts = g_new0 (ThreadState, 1);
      ts->parser = rt_json_parser_new ();
      ts->cap = READ_CHUNK;
      ts->buf = g_malloc (ts->cap + RT_JSON_PADDING);
      advise_huge_pages (ts->buf, ts->cap);
      ts->events = g_array_sized_new (FALSE, FALSE, sizeof (RtEvent), 1u << 16);
      g_private_set (&thread_state_key, ts);
    }
  return ts;
}

/* What one task builds from one file; appended to the trace when the file is done. */
typedef struct {
  RtFile *file;                 /* the trace's row for this file (filled in place) */
  guint32 file_index;
  GArray *events;               /* RtEvent, .request local to this file (the thread's) */
  GArray *requests;             /* RtRequest */
  GArray *timing_turns;         /* TurnRecord from turn_timings */
  GArray *end_turns;            /* TurnRecord from turn_end lines */
  GArray *problems;             /* RtProblem */
  guint64 problems_total;
  GStringChunk *strings;
  IdIndex request_index;        /* request id -> local index */
  NameSlot names[2][NAME_SLOTS];/* raw event name -> id, per has-request-id */
} FileResult;

typedef struct {
  guint32 request;
  RtTurnFigures figures;
} TurnRecord;

typedef struct {
  RtTrace *trace;
  const RtLoadOptions *opts;
  GMutex lock;
  GCond done_cond;
  guint files_done;
  guint64 bytes_done;
  GError *error;                /* the first failure to read a file */
} LoadJob;

static void
file_result_free (FileResult *r)
{
  g_array_unref (r->requests);
  g_array_unref (r->timing_turns);
  g_array_unref (r->end_turns);
  g_array_unref (r->problems);
  if (r->strings)
    g_string_chunk_free (r->strings);
  g_free (r->request_index.slots);
  g_free (r);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FileResult, file_result_free)

static void
problem_free (gpointer p)
{
  g_free (((RtProblem *) p)->where);
}

static void
add_problem (FileResult *r, const LoadJob *job, guint64 line, const char *reason)
{
  r->problems_total++;
  if (r->problems->len >= job->opts->max_problems_per_file)
    return;
  RtProblem p = { g_strdup_printf ("%s:%" G_GUINT64_FORMAT, r->file->path, line), reason,
                  r->file_index, line };
  g_array_append_val (r->problems, p);
}

static guint32
name_hash (const char *s, gsize len)
{
  guint32 h = 2166136261u;   /* FNV-1a */
  for (gsize i = 0; i < len; i++)
    h = (h ^ (guchar) s[i]) * 16777619u;
  return h;
}

/* Canonical id of a raw event name: from the file's cache, or from the shared
 * registry (under its lock) the first time the file uses the name. */
static guint16
event_id (FileResult *r, RtEventRegistry *reg, RtStrView name, gboolean has_rid)
{
  NameSlot *table = r->names[has_rid ? 1 : 0];
  guint32 h = name_hash (name.str, name.len);
  NameSlot *free_slot = NULL;
  if (name.len > 0 && name.len <= NAME_MAX_LEN)
    for (guint k = 0; k < NAME_PROBES; k++)
      {
        NameSlot *slot = &table[(h + k) % NAME_SLOTS];
        if (slot->len == 0)
          {
            free_slot = slot;
            break;
          }
        if (slot->hash == h && slot->len == name.len && memcmp (slot->name, name.str, name.len) == 0)
          return slot->id;
      }

  RtSchemaFlags schema;
  guint16 id = rt_event_registry_intern (reg, name.str, name.len, has_rid, &schema);
  r->file->schema |= schema;
  if (free_slot != NULL)   /* else: a name too long, or a crowded table: not cached */
    {
      free_slot->hash = h;
      free_slot->len = (guint16) name.len;
      free_slot->id = id;
      memcpy (free_slot->name, name.str, name.len);
    }
  return id;
}

static guint64
id_hash (const char *s, gsize len)
{
  guint64 h = 14695981039346656037ull;   /* FNV-1a, 64 bits */
  for (gsize i = 0; i < len; i++)
    h = (h ^ (guchar) s[i]) * 1099511628211ull;
  return h;
}

static void
id_index_init (IdIndex *ix, gsize capacity)
{
  gsize cap = 64;
  while (cap < capacity * 2)
    cap *= 2;
  ix->slots = g_new (IdSlot, cap);
  for (gsize i = 0; i < cap; i++)
    ix->slots[i].index = RT_NONE;
  ix->mask = cap - 1;
  ix->used = 0;
}

/* The slot holding `id`, or the free slot where it belongs. */
static IdSlot *
id_index_slot (IdIndex *ix, const GArray *requests, guint64 h, RtStrView id)
{
  for (gsize i = h & ix->mask;; i = (i + 1) & ix->mask)
    {
      IdSlot *slot = &ix->slots[i];
      if (slot->index == RT_NONE)
        return slot;
      if (slot->hash == h)
        {
          const char *known = g_array_index (requests, RtRequest, slot->index).id;
          if (strncmp (known, id.str, id.len) == 0 && known[id.len] == '\0')
            return slot;
        }
    }
}

static void
id_index_grow (IdIndex *ix)
{
  IdIndex bigger;
  id_index_init (&bigger, ix->mask + 1);   /* twice the slots */
  for (gsize i = 0; i <= ix->mask; i++)
    {
      if (ix->slots[i].index == RT_NONE)
        continue;
      gsize j = ix->slots[i].hash & bigger.mask;
      while (bigger.slots[j].index != RT_NONE)
        j = (j + 1) & bigger.mask;
      bigger.slots[j] = ix->slots[i];
      bigger.used++;
    }
  g_free (ix->slots);
  *ix = bigger;
}

static guint32
new_request (FileResult *r, RtStrView id)
{
  RtRequest q = { 0 };
  q.id = g_string_chunk_insert_len (r->strings, id.str, (gssize) id.len);
  q.file = r->file_index;
  q.step = r->file->step;
  q.worker = r->file->worker;
  q.end_s = q.total_s = NAN;
  q.turns = q.response_length = -1;
  g_array_append_val (r->requests, q);
  return r->requests->len - 1;
}

/* The local request a line belongs to. A second complete line for an id that
 * already completed (a rerun after a restart) opens a new request. */
static guint32
request_for_line (FileResult *r, RtStrView id, gboolean is_complete)
{
  if (id.len == 0)
    return is_complete ? new_request (r, id) : RT_NONE;
  guint64 h = id_hash (id.str, id.len);
  IdSlot *slot = id_index_slot (&r->request_index, r->requests, h, id);
  if (slot->index != RT_NONE
      && !(is_complete && g_array_index (r->requests, RtRequest, slot->index).complete))
    return slot->index;
  gboolean fresh = slot->index == RT_NONE;
  guint32 idx = new_request (r, id);
  slot->hash = h;
  slot->index = idx;   /* a rerun's new request takes over the id */
  if (fresh && ++r->request_index.used * 2 > r->request_index.mask)
    id_index_grow (&r->request_index);
  return idx;
}

static void
process_line (FileResult *r, const LoadJob *job, const RtLineFields *f, guint64 line_no)
{
  RtFile *file = r->file;
  file->events++;
  if (f->type_problem != NULL)
    {
      file->field_problems++;
      add_problem (r, job, line_no, f->type_problem);
    }
  if (f->event.len == 0)
    {
      if (f->type_problem == NULL)
        add_problem (r, job, line_no, "object without an event name");
      return;
    }

  gboolean has_rid = f->request_id.len > 0;
  RtEvent ev;
  ev.event = event_id (r, job->trace->registry, f->event, has_rid);
  ev.duration_s = f->duration_s;
  ev.file = r->file_index;
  ev.line = line_no > G_MAXUINT32 ? G_MAXUINT32 : (guint32) line_no;
  ev.turn = f->turn >= 0 && f->turn <= G_MAXINT16 ? (gint16) f->turn : -1;
  if (f->timestamp.len == 0 || !rt_parse_timestamp (f->timestamp.str, f->timestamp.len, &ev.end_s))
    ev.end_s = NAN;

  if (!isnan (ev.end_s))
    {
      double start = ev.end_s - (isnan (ev.duration_s) ? 0.0 : ev.duration_s);
      if (isnan (file->start_min_s) || start < file->start_min_s)
        file->start_min_s = start;
    }
  if (ev.event < RT_N_STEP_EVENTS && !isnan (ev.duration_s))
    file->step_sum_s[ev.event] = isnan (file->step_sum_s[ev.event])
                                   ? ev.duration_s
                                   : file->step_sum_s[ev.event] + ev.duration_s;

  gboolean is_complete = ev.event == RT_EV_REQUEST_COMPLETE;
  ev.request = request_for_line (r, f->request_id, is_complete);
  if (is_complete)
    {
      RtRequest *q = &g_array_index (r->requests, RtRequest, ev.request);
      q->complete = TRUE;
      q->end_s = ev.end_s;
      q->total_s = ev.duration_s;
      q->turns = f->turns > G_MAXINT32 ? -1 : (gint32) f->turns;
      q->response_length = f->response_length > G_MAXINT32 ? -1 : (gint32) f->response_length;
      if (f->finish_reason.len > 0)
        {
          g_autofree char *reason = g_strndup (f->finish_reason.str, f->finish_reason.len);
          q->finish_reason = g_string_chunk_insert_const (r->strings, reason);
        }
      q->turns_from_timings = f->has_turn_timings;
      for (guint i = 0; f->has_turn_timings && i < f->turn_timings->len; i++)
        {
          TurnRecord t = { ev.request, g_array_index (f->turn_timings, RtTurnFigures, i) };
          g_array_append_val (r->timing_turns, t);
        }
      file->n_complete++;
    }
  else if (ev.event == RT_EV_TURN_END && ev.request != RT_NONE)
    {
      TurnRecord t = { ev.request, f->turn_end };
      t.figures.turn = ev.turn;
      t.figures.total_s = ev.duration_s;
      g_array_append_val (r->end_turns, t);
    }
  g_array_append_val (r->events, ev);
}

static void
parse_piece (FileResult *r, const LoadJob *job, RtJsonParser *parser,
             const char *line, gsize len, guint64 line_no, gboolean unterminated)
{
  RtLineFields fields;
  const char *reason;
  r->file->lines++;
  if (len > 0 && line[len - 1] == '\r')
    len--;
  if (rt_json_parse_line (parser, line, len, &fields, &reason) == RT_LINE_OK)
    {
      process_line (r, job, &fields, line_no);
      return;
    }
  r->file->bad_lines++;
  if (unterminated)
    reason = "truncated last line (no newline, object cut off)";
  add_problem (r, job, line_no, reason);
}

/* Reads the file in chunks and parses every line in place in the read buffer:
 * memory grows with the longest line, never with the file. (A read-only mapping
 * was measured slower here: the copy read() makes also warms the cache that the
 * newline search and the parser then hit.) */
static gboolean
parse_file (FileResult *r, LoadJob *job, GError **error)
{
  g_autofree char *full = g_build_filename (job->trace->path, r->file->path, NULL);
  int fd = open (full, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot open %s: %s", full, g_strerror (e));
      return FALSE;
    }
#ifdef POSIX_FADV_SEQUENTIAL
  posix_fadvise (fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif

  ThreadState *ts = thread_state ();
  RtJsonParser *parser = ts->parser;
  char *buf = ts->buf;
  gsize cap = ts->cap;
  gsize have = 0;   /* bytes in buf not yet consumed */
  guint64 line_no = 0;
  gboolean ok = TRUE;

  for (;;)
    {
      if (have == cap)
        {
          /* one line longer than the buffer: make room for it */
          cap *= 2;
          buf = ts->buf = g_realloc (buf, cap + RT_JSON_PADDING);
          ts->cap = cap;
        }
      gssize n = read (fd, buf + have, cap - have);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          int e = errno;
          g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot read %s: %s", full, g_strerror (e));
          ok = FALSE;
          break;
        }
      if (n == 0)
        break;
      g_atomic_pointer_add (&job->bytes_done, n);
      have += (gsize) n;

      const char *p = buf, *end = buf + have;
      const char *nl;
      while ((nl = memchr (p, '\n', (gsize) (end - p))) != NULL)
        {
          parse_piece (r, job, parser, p, (gsize) (nl - p), ++line_no, FALSE);
          p = nl + 1;
        }
      have = (gsize) (end - p);
      memmove (buf, p, have);
    }
  close (fd);

  if (ok && have > 0)
    parse_piece (r, job, parser, buf, have, ++line_no, TRUE);
  return ok;
}

/* Gives each request its turn records: its turn_timings, or failing those, its
 * turn_end lines. */
static GArray *
collect_turns (FileResult *r)
{
  guint n_req = r->requests->len;
  g_autofree guint32 *from_timings = g_new0 (guint32, n_req);
  g_autofree guint32 *from_ends = g_new0 (guint32, n_req);
  for (guint i = 0; i < r->timing_turns->len; i++)
    from_timings[g_array_index (r->timing_turns, TurnRecord, i).request]++;
  for (guint i = 0; i < r->end_turns->len; i++)
    from_ends[g_array_index (r->end_turns, TurnRecord, i).request]++;

  guint32 next = 0;
  for (guint i = 0; i < n_req; i++)
    {
      RtRequest *q = &g_array_index (r->requests, RtRequest, i);
      q->turns_from_timings = q->turns_from_timings && from_timings[i] > 0;
      q->first_turn = next;
      q->n_turns = q->turns_from_timings ? from_timings[i] : from_ends[i];
      next += q->n_turns;
    }

  GArray *turns = g_array_sized_new (FALSE, FALSE, sizeof (RtTurnFigures), next);
  g_array_set_size (turns, next);
  g_autofree guint32 *filled = g_new0 (guint32, n_req);
  for (int pass = 0; pass < 2; pass++)
    {
      GArray *src = pass == 0 ? r->timing_turns : r->end_turns;
      for (guint i = 0; i < src->len; i++)
        {
          const TurnRecord *t = &g_array_index (src, TurnRecord, i);
          const RtRequest *q = &g_array_index (r->requests, RtRequest, t->request);
          if (q->turns_from_timings != (pass == 0))
            continue;
          g_array_index (turns, RtTurnFigures, q->first_turn + filled[t->request]++) = t->figures;
        }
    }
  return turns;
}

/* Appends a finished file's rows to the trace, turning local indices into global ones. */
static void
merge_result (LoadJob *job, FileResult *r)
{
  RtTrace *t = job->trace;
  g_autoptr (GArray) turns = collect_turns (r);

  g_mutex_lock (&job->lock);
  guint32 req_base = t->requests->len, turn_base = t->turns->len;
  r->file->first_event = t->events->len;
  r->file->n_events = r->events->len;
  r->file->first_request = req_base;
  r->file->n_requests = r->requests->len;

  for (guint i = 0; i < r->events->len; i++)
    {
      RtEvent *ev = &g_array_index (r->events, RtEvent, i);
      if (ev->request != RT_NONE)
        ev->request += req_base;
    }
  g_array_append_vals (t->events, r->events->data, r->events->len);
  for (guint i = 0; i < r->requests->len; i++)
    g_array_index (r->requests, RtRequest, i).first_turn += turn_base;
  g_array_append_vals (t->requests, r->requests->data, r->requests->len);
  g_array_append_vals (t->turns, turns->data, turns->len);
  g_array_append_vals (t->problems, r->problems->data, r->problems->len);
  /* their strings now belong to the trace: empty the array without freeing them */
  g_array_set_clear_func (r->problems, NULL);
  g_array_set_size (r->problems, 0);
  t->problems_total += r->problems_total;
  g_ptr_array_add (t->string_chunks, g_steal_pointer (&r->strings));
  g_mutex_unlock (&job->lock);
}

static void
load_one_file (gpointer data, gpointer user_data)
{
  LoadJob *job = user_data;
  guint index = GPOINTER_TO_UINT (data) - 1;

  g_autoptr (FileResult) r = g_new0 (FileResult, 1);
  r->file = &g_array_index (job->trace->files, RtFile, index);
  r->file_index = index;
  /* sized from the file (lines run 200-400 bytes): growing by copies costs more */
  r->events = thread_state ()->events;
  g_array_set_size (r->events, 0);
  r->requests = g_array_new (FALSE, FALSE, sizeof (RtRequest));
  r->timing_turns = g_array_new (FALSE, FALSE, sizeof (TurnRecord));
  r->end_turns = g_array_new (FALSE, FALSE, sizeof (TurnRecord));
  r->problems = g_array_new (FALSE, FALSE, sizeof (RtProblem));
  g_array_set_clear_func (r->problems, problem_free);
  r->strings = g_string_chunk_new (64 * 1024);
  id_index_init (&r->request_index, 64);

  r->file->start_min_s = NAN;
  for (int i = 0; i < RT_N_STEP_EVENTS; i++)
    r->file->step_sum_s[i] = NAN;

  g_autoptr (GError) error = NULL;
  if (parse_file (r, job, &error))
    merge_result (job, r);

  g_mutex_lock (&job->lock);
  if (error != NULL && job->error == NULL)
    job->error = g_steal_pointer (&error);
  job->files_done++;
  g_cond_signal (&job->done_cond);
  g_mutex_unlock (&job->lock);
}

/* ---- the whole experiment -------------------------------------------------------- */

static void
show_progress (LoadJob *job, guint64 total_bytes, gint64 started_us, gboolean final)
{
  double secs = (double) (g_get_monotonic_time () - started_us) / 1e6;
  guint64 done = (guint64) g_atomic_pointer_get (&job->bytes_done);
  g_printerr ("\rloading %s: %u/%u files, %.0f/%.0f MB, %.1f s%s",
              job->trace->name, job->files_done, job->trace->files->len,
              (double) done / 1e6, (double) total_bytes / 1e6, secs, final ? "\n" : "");
}

static gboolean
load_files (RtTrace *trace, const RtLoadOptions *opts, GError **error)
{
  LoadJob job = { .trace = trace, .opts = opts };
  g_mutex_init (&job.lock);
  g_cond_init (&job.done_cond);

  guint n_threads = opts->n_threads ? opts->n_threads : g_get_num_processors ();
  guint64 total_bytes = 0;
  for (guint i = 0; i < trace->files->len; i++)
    total_bytes += rt_trace_file (trace, i)->size;

  /* Reserve the tables for the whole experiment at once (lines run 200-400 bytes):
   * appending file after file then never copies them, and reserved memory that is
   * never written is never resident. */
  guint reserve = (guint) MIN (total_bytes / 160 + 1024, G_MAXUINT32 / 2);
  g_array_set_size (g_array_set_size (trace->events, reserve), 0);
  advise_huge_pages (trace->events->data, (gsize) reserve * sizeof (RtEvent));
  GThreadPool *pool = g_thread_pool_new (load_one_file, &job, (gint) n_threads, FALSE, error);
  if (pool == NULL)
    return FALSE;
  for (guint i = 0; i < trace->files->len; i++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL);

  /* Wait, drawing a progress line once loading has taken more than a second. */
  gint64 started = g_get_monotonic_time ();
  gboolean shown = FALSE;
  g_mutex_lock (&job.lock);
  while (job.files_done < trace->files->len)
    {
      g_cond_wait_until (&job.done_cond, &job.lock, g_get_monotonic_time () + G_USEC_PER_SEC / 4);
      if (opts->progress && g_get_monotonic_time () - started > G_USEC_PER_SEC)
        {
          show_progress (&job, total_bytes, started, FALSE);
          shown = TRUE;
        }
    }
  g_mutex_unlock (&job.lock);
  g_thread_pool_free (pool, FALSE, TRUE);
  if (shown)
    show_progress (&job, total_bytes, started, TRUE);

  g_mutex_clear (&job.lock);
  g_cond_clear (&job.done_cond);
  if (job.error != NULL)
    {
      g_propagate_error (error, job.error);
      return FALSE;
    }
  return TRUE;
}

static int
compare_problems (gconstpointer a, gconstpointer b)
{
  const RtProblem *pa = a, *pb = b;
  if (pa->file != pb->file)
    return pa->file < pb->file ? -1 : 1;
  return pa->line < pb->line ? -1 : pa->line > pb->line;
}

static void
finish_steps (RtTrace *trace)
{
  for (guint i = 0; i < trace->steps->len; i++)
    {
      RtStep *st = &g_array_index (trace->steps, RtStep, i);
      for (guint k = 0; k < st->n_files; k++)
        {
          double s = rt_trace_file (trace, st->first_file + k)->start_min_s;
          if (!isnan (s) && (isnan (st->start_s) || s < st->start_s))
            st->start_s = s;
        }
    }
}

RtTrace *
rt_trace_load (const char *exp_path, const RtLoadOptions *opts, GError **error)
{
  static const RtLoadOptions defaults = { .max_problems_per_file = 5 };
  if (opts == NULL)
    opts = &defaults;

  if (!g_file_test (exp_path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT, "%s: no such experiment folder",
                   exp_path);
      return NULL;
    }
  if (!is_dir (exp_path))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT,
                   "%s is not a folder: expected EXP/step_N/worker_M.jsonl", exp_path);
      return NULL;
    }

  g_autoptr (RtTrace) trace = g_new0 (RtTrace, 1);
  trace->path = g_strdup (exp_path);
  g_autofree char *canonical = g_canonicalize_filename (exp_path, NULL);
  trace->name = g_path_get_basename (canonical);
  trace->registry = rt_event_registry_new ();
  trace->files = g_array_new (FALSE, TRUE, sizeof (RtFile));
  trace->steps = g_array_new (FALSE, TRUE, sizeof (RtStep));
  trace->events = g_array_new (FALSE, FALSE, sizeof (RtEvent));
  trace->requests = g_array_new (FALSE, FALSE, sizeof (RtRequest));
  trace->turns = g_array_new (FALSE, FALSE, sizeof (RtTurnFigures));
  trace->strays = g_ptr_array_new_with_free_func (g_free);
  trace->problems = g_array_new (FALSE, FALSE, sizeof (RtProblem));
  g_array_set_clear_func (trace->problems, problem_free);
  trace->string_chunks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_string_chunk_free);

  if (!discover (trace, error) || !load_files (trace, opts, error))
    return NULL;
  g_array_sort (trace->problems, compare_problems);
  finish_steps (trace);
  return g_steal_pointer (&trace);
}

void
rt_trace_free (RtTrace *trace)
{
  if (trace == NULL)
    return;
  for (guint i = 0; trace->files && i < trace->files->len; i++)
    g_free (g_array_index (trace->files, RtFile, i).path);
  g_clear_pointer (&trace->files, g_array_unref);
  g_clear_pointer (&trace->steps, g_array_unref);
  g_clear_pointer (&trace->events, g_array_unref);
  g_clear_pointer (&trace->requests, g_array_unref);
  g_clear_pointer (&trace->turns, g_array_unref);
  g_clear_pointer (&trace->strays, g_ptr_array_unref);
  g_clear_pointer (&trace->problems, g_array_unref);
  g_clear_pointer (&trace->string_chunks, g_ptr_array_unref);
  g_clear_pointer (&trace->registry, rt_event_registry_free);
  g_free (trace->path);
  g_free (trace->name);
  g_free (trace);
}

int
rt_trace_find_step (const RtTrace *t, gint32 step)
{
  for (guint i = 0; i < t->steps->len; i++)
    if (rt_trace_step (t, i)->step == step)
      return (int) i;
  return -1;
}
