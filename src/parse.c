/* SPDX-License-Identifier: Apache-2.0 */
/* parse.c: reads one worker file into its own rows: events, requests, turn records, problems.
 * The loader runs one per file on a thread pool, and can start it from a snapshot the cache kept. */
#define _GNU_SOURCE   /* memrchr */
#include "load-private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "rolltrace/rt-error.h"
#include "timestamp-private.h"

/* A quarter of a core's 1 MiB L2 cache: the bytes read are still there when the parser
 * takes them, beside its own tables (less CPU than reads of 1 MiB: bench/RESULTS.md, "Behind the code"). */
#define READ_CHUNK (256u << 10)

/* What a loading thread keeps from one file to the next. Page faults are costly
 * (very much so on virtual machines), so the read buffer, the event rows and the
 * parser's own buffers are touched once per thread, not once per file. */
typedef struct {
  RtJsonParser *parser;
  char *buf;          /* READ_CHUNK + RT_JSON_PADDING bytes, grown for longer lines */
  gsize cap;
  GArray *events;     /* RtEvent rows of the file being parsed */
  GArray *requests, *timing_turns, *end_turns;  /* the same, shared with each parse */
  GArray *turns;      /* RtTurnFigures the file's turn records give (see merge_file) */
} ThreadState;

static void
thread_state_free (gpointer data)
{
  ThreadState *ts = data;
  rt_json_parser_free (ts->parser);
  g_free (ts->buf);
  g_array_unref (ts->events);
  g_array_unref (ts->requests);
  g_array_unref (ts->timing_turns);
  g_array_unref (ts->end_turns);
  g_array_unref (ts->turns);
  g_free (ts);
}

static GPrivate thread_state_key = G_PRIVATE_INIT (thread_state_free);

static ThreadState *
thread_state (void)
{
  ThreadState *ts = g_private_get (&thread_state_key);
  if (ts == NULL)
    {
      ts = g_new0 (ThreadState, 1);
      ts->parser = rt_json_parser_new ();
      ts->cap = READ_CHUNK;
      ts->buf = g_malloc (ts->cap + RT_JSON_PADDING);   /* too small for a huge page */
      ts->events = g_array_sized_new (FALSE, FALSE, sizeof (RtEvent), 1u << 16);
      ts->requests = g_array_new (FALSE, FALSE, sizeof (RtRequest));
      ts->timing_turns = g_array_new (FALSE, FALSE, sizeof (RtTurnRecord));
      ts->end_turns = g_array_new (FALSE, FALSE, sizeof (RtTurnRecord));
      ts->turns = g_array_new (FALSE, FALSE, sizeof (RtTurnFigures));
      g_private_set (&thread_state_key, ts);
    }
  return ts;
}

#define NAME_PROBES 8

static void id_index_init (RtIdIndex *ix, gsize capacity);

void
rt_problem_clear (gpointer p)
{
  g_free (((RtProblem *) p)->where);
}

RtFileParse *
rt_file_parse_new (RtTrace *trace, guint file_index, guint max_problems, gint *bytes_done)
{
  RtFileParse *p = g_new0 (RtFileParse, 1);
  p->trace = trace;
  p->file = &g_array_index (trace->files, RtFile, file_index);
  p->file_index = file_index;
  p->max_problems = max_problems;
  p->bytes_done = bytes_done;
  /* the thread's arrays, emptied; rows for the whole file at once (lines run
   * 200-400 bytes) */
  ThreadState *ts = thread_state ();
  p->events = ts->events;
  g_array_set_size (p->events, 0);
  p->events_room = (guint) MIN (p->file->size / 160 + 64, G_MAXUINT32 / 2);
  rt_array_make_room (p->events, p->events_room);
  p->requests = g_array_set_size (g_array_ref (ts->requests), 0);
  p->timing_turns = g_array_set_size (g_array_ref (ts->timing_turns), 0);
  p->end_turns = g_array_set_size (g_array_ref (ts->end_turns), 0);
  p->problems = g_array_new (FALSE, FALSE, sizeof (RtProblem));
  g_array_set_clear_func (p->problems, rt_problem_clear);
  p->strings = g_string_chunk_new (64 * 1024);
  id_index_init (&p->request_index, 64);
  p->tool_id = RT_EVENT_NONE;

  /* the file's row starts empty but for what discovery found (a parse may follow
   * a restore from the cache that turned out unusable) */
  RtFile *f = p->file;
  f->lines = f->events = f->bad_lines = f->field_problems = f->problems_total = 0;
  f->glued_lines = 0;
  f->n_complete = f->n_events = f->n_requests = f->first_request = 0;
  f->schema = RT_SCHEMA_NEITHER;
  f->start_min_s = NAN;
  for (int i = 0; i < RT_N_STEP_EVENTS; i++)
    f->step_sum_s[i] = NAN;
  f->n_rollout_ends = f->n_events_at_end = f->n_requests_at_end = 0;
  memset (&f->first_rollout, 0, sizeof f->first_rollout);
  return p;
}

void
rt_file_parse_free (RtFileParse *p)
{
  if (p == NULL)
    return;
  g_array_unref (p->requests);
  g_clear_pointer (&p->timing_turns, g_array_unref);
  g_clear_pointer (&p->end_turns, g_array_unref);
  g_clear_pointer (&p->problems, g_array_unref);
  g_clear_pointer (&p->resume.requests, g_array_unref);
  if (p->strings)
    g_string_chunk_free (p->strings);
  g_free (p->request_index.slots);
  g_free (p);
}

/* Counts a problem of the file, and lists it while fewer than max_problems are. */
static void
add_problem (RtFileParse *p, guint64 line, const char *reason)
{
  p->file->problems_total++;
  if (p->problems->len >= p->max_problems)
    return;
  RtProblem pr = { g_strdup_printf ("%s:%" G_GUINT64_FORMAT, p->file->path, line), reason,
                   p->file_index, line };
  g_array_append_val (p->problems, pr);
}

static inline guint64
load_u64 (const char *s)
{
  guint64 w;
  memcpy (&w, s, 8);
  return w;
}

static inline guint32
load_u32 (const char *s)
{
  guint32 w;
  memcpy (&w, s, 4);
  return w;
}

static inline guint64
hash_fold (guint64 h, guint64 w)
{
  h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 29);
}

/* A hash of raw bytes (event names, request ids) for the small tables below: eight
 * bytes a step (a uuid takes five), each folded in with a multiply and a shift that
 * brings the high bits down to the low ones the index uses. The last eight bytes are
 * the last step, overlapping the one before when the length is no multiple of eight;
 * under eight bytes, two overlapping halves (the length is hashed too). No loop over
 * single bytes: its length would change with every name. */
static guint64
bytes_hash (const char *s, gsize len)
{
  guint64 h = len * 0x9E3779B97F4A7C15ull;
  if (len >= 8)
    {
      for (gsize i = 0; i + 8 < len; i += 8)
        h = hash_fold (h, load_u64 (s + i));
      h = hash_fold (h, load_u64 (s + len - 8));
    }
  else if (len >= 4)
    h = hash_fold (h, load_u32 (s) | (guint64) load_u32 (s + len - 4) << 32);
  else if (len > 0)
    h = hash_fold (h, (guchar) s[0] | (guint64) (guchar) s[len / 2] << 8 | (guint64) (guchar) s[len - 1] << 16);
  return h ^ (h >> 32);
}

/* Whether len bytes at a and at b are the same, read as bytes_hash reads them (an inline
 * memcmp for the short texts of the tables, both at least len bytes long). */
static inline gboolean
bytes_equal (const char *a, const char *b, gsize len)
{
  if (len >= 8)
    {
      for (gsize i = 0; i + 8 < len; i += 8)
        if (load_u64 (a + i) != load_u64 (b + i))
          return FALSE;
      return load_u64 (a + len - 8) == load_u64 (b + len - 8);
    }
  if (len >= 4)
    return load_u32 (a) == load_u32 (b) && load_u32 (a + len - 4) == load_u32 (b + len - 4);
  return len == 0 || (a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1]);
}

/* A hash of an event name for the file's table of names, cheaper than bytes_hash: names of
 * eight bytes or more are told apart by their length and first and last eight bytes, which
 * differ between the few dozen names of a trace (any that do not only share a probe). */
static inline guint32
name_hash (const char *s, gsize len)
{
  if (len < 8)
    return (guint32) bytes_hash (s, len);
  guint64 w = load_u64 (s) ^ ((load_u64 (s + len - 8) << 29) | (load_u64 (s + len - 8) >> 35)) ^ len;
  return (guint32) ((w * 0x9E3779B97F4A7C15ull) >> 32);
}

/* Canonical id of a raw event name: from the file's cache, or from the shared
 * registry (under its lock) the first time the file uses the name. A file holds a
 * few dozen distinct names on millions of lines, so a small open-addressing table
 * keyed by the raw bytes answers without a copy, a lock or the registry's hash. */
static guint16
event_id (RtFileParse *r, RtEventRegistry *reg, RtStrView name, gboolean has_rid)
{
  RtNameSlot *table = r->names[has_rid ? 1 : 0];
  guint32 h = name_hash (name.str, name.len);
  RtNameSlot *free_slot = NULL;
  if (name.len > 0 && name.len <= RT_NAME_MAX_LEN)
    for (guint k = 0; k < NAME_PROBES; k++)
      {
        RtNameSlot *slot = &table[(h + k) % RT_NAME_SLOTS];
        if (slot->len == 0)
          {
            free_slot = slot;
            break;
          }
        if (slot->hash == h && slot->len == name.len && bytes_equal (slot->name, name.str, name.len))
          return slot->id;
      }

  RtSchemaFlags schema;
  guint16 id = rt_event_registry_intern (reg, name.str, name.len, has_rid, &schema);
  r->file->schema |= schema;
  if (strcmp (rt_event_registry_name (reg, id), "tool_execution") == 0)
    r->tool_id = id;
  if (free_slot != NULL)   /* else: a name too long, or a crowded table: not cached */
    {
      free_slot->hash = h;
      free_slot->len = (guint16) name.len;
      free_slot->id = id;
      memcpy (free_slot->name, name.str, name.len);
    }
  return id;
}

/* Request id -> index into the file's requests: open addressing on a 64-bit hash
 * of the id's bytes, so a lookup needs no copy of the id and no NUL. */
static void
id_index_init (RtIdIndex *ix, gsize capacity)
{
  gsize cap = 64;
  while (cap < capacity * 2)
    cap *= 2;
  ix->slots = g_new (RtIdSlot, cap);
  for (gsize i = 0; i < cap; i++)
    ix->slots[i].index = RT_NONE;
  ix->mask = cap - 1;
  ix->used = 0;
  ix->last = NULL;
}

/* The slot holding `id`, or the free slot where it belongs. */
static RtIdSlot *
id_index_slot (RtIdIndex *ix, guint64 h, RtStrView id)
{
  for (gsize i = h & ix->mask;; i = (i + 1) & ix->mask)
    {
      RtIdSlot *slot = &ix->slots[i];
      if (slot->index == RT_NONE)
        return slot;
      if (slot->hash == h && slot->len == id.len && bytes_equal (slot->text, id.str, id.len))
        return slot;
    }
}

static void
id_index_grow (RtIdIndex *ix)
{
  RtIdIndex bigger;
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
new_request (RtFileParse *r, RtStrView id)
{
  RtRequest q = { 0 };
  q.id = rt_text_ref (g_string_chunk_insert_len (r->strings, id.str, (gssize) id.len));
  q.file = r->file_index;
  q.step = r->file->step;
  q.worker = r->file->worker;
  q.end_s = q.total_s = NAN;
  q.turns = q.response_length = q.response_tokens = -1;
  g_array_append_val (r->requests, q);
  return r->requests->len - 1;
}

/* The local request a line belongs to. A second complete line for an id that
 * already completed (a rerun after a restart) opens a new request, and neither request
 * owns the lines of that id then (*rerun). Two lines in three belong to the request of
 * the line before: its id is compared first, which spares the hash and the probe. */
static guint32
request_for_line (RtFileParse *r, RtStrView id, gboolean is_complete, gboolean *rerun)
{
  *rerun = FALSE;
  if (id.len == 0)
    return is_complete ? new_request (r, id) : RT_NONE;
  RtIdIndex *ix = &r->request_index;
  RtIdSlot *slot = ix->last;
  guint64 h;
  if (slot != NULL && slot->len == id.len && bytes_equal (slot->text, id.str, id.len))
    h = slot->hash;
  else
    {
      h = bytes_hash (id.str, id.len);
      slot = id_index_slot (ix, h, id);
    }
  ix->last = slot;
  if (slot->index != RT_NONE
      && !(is_complete && g_array_index (r->requests, RtRequest, slot->index).complete))
    return slot->index;
  gboolean fresh = slot->index == RT_NONE;
  if (!fresh)
    {
      g_array_index (r->requests, RtRequest, slot->index).own_lines = FALSE;
      *rerun = TRUE;
    }
  guint32 idx = new_request (r, id);
  slot->hash = h;
  slot->len = (guint32) id.len;
  slot->index = idx;   /* a rerun's new request takes over the id */
  slot->text = rt_text_at (g_array_index (r->requests, RtRequest, idx).id);
  if (fresh && ++ix->used * 2 > ix->mask)
    id_index_grow (ix);   /* (which forgets the last slot) */
  return idx;
}

/* Appends an event row: in place while the room made for the whole file at the start lasts
 * (the array's own append is a call into GLib for every line), by GLib past it. */
static inline void
append_event (RtFileParse *r, const RtEvent *ev)
{
  GArray *a = r->events;
  if (G_LIKELY (a->len < r->events_room))
    ((RtEvent *) (void *) a->data)[a->len++] = *ev;
  else
    g_array_append_vals (a, ev, 1);
}

/* A total_step_duration line (with a duration) ends a rollout: the first one's part of the tables is noted
 * (RtFile.first_rollout), and where the last one ended. */
static void
rollout_ended (RtFileParse *r)
{
  RtFile *file = r->file;
  file->n_events_at_end = r->events->len;
  file->n_requests_at_end = r->requests->len;
  if (file->n_rollout_ends++ > 0)
    return;
  RtFileSlice *first = &file->first_rollout;
  first->n_events = r->events->len;
  first->n_requests = r->requests->len;
  first->n_complete = file->n_complete;
  first->start_min_s = file->start_min_s;
  memcpy (first->step_sum_s, file->step_sum_s, sizeof first->step_sum_s);
}

static void
process_line (RtFileParse *r, const RtLineFields *f, guint64 line_no)
{
  RtFile *file = r->file;
  file->events++;
  if (f->type_problem != NULL)
    {
      file->field_problems++;
      add_problem (r, line_no, f->type_problem);
    }
  if (f->event.len == 0)
    {
      if (f->type_problem == NULL)
        add_problem (r, line_no, "object without an event name");
      return;
    }

  gboolean has_rid = f->request_id.len > 0;
  RtEvent ev;
  ev.event = event_id (r, r->trace->registry, f->event, has_rid);
  ev.duration_s = f->duration_s;
  ev.turn = f->turn >= 0 && f->turn <= G_MAXINT16 ? (gint16) f->turn : -1;
  if (f->timestamp.len == 0
      || !rt_timestamp_memo_read (f->timestamp.str, f->timestamp.len, &r->timestamps, &ev.end_s))
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

  gboolean is_complete = ev.event == RT_EV_REQUEST_COMPLETE, rerun;
  ev.request = request_for_line (r, f->request_id, is_complete, &rerun);
  if (is_complete)
    {
      RtRequest *q = &g_array_index (r->requests, RtRequest, ev.request);
      q->complete = TRUE;
      q->own_lines = has_rid && !rerun;
      q->complete_rank = file->n_complete;
      q->end_s = ev.end_s;
      q->total_s = ev.duration_s;
      q->turns = f->turns > G_MAXINT32 ? -1 : (gint32) f->turns;
      q->response_length = f->response_length > G_MAXINT32 ? -1 : (gint32) f->response_length;
      q->response_tokens = (gint32) f->response_tokens;   /* -1, or 0..2^31-1 already */
      if (f->finish_reason.len > 0)
        {
          g_autofree char *reason = g_strndup (f->finish_reason.str, f->finish_reason.len);
          q->finish_reason = rt_text_ref (g_string_chunk_insert_const (r->strings, reason));
        }
      q->turns_from_timings = f->has_turn_timings;
      for (guint i = 0; f->has_turn_timings && i < f->turn_timings->len; i++)
        {
          RtTurnRecord t = { ev.request, g_array_index (f->turn_timings, RtTurnFigures, i) };
          g_array_append_val (r->timing_turns, t);
        }
      file->n_complete++;
    }
  else if (ev.event == r->tool_id && r->tool_id != RT_EVENT_NONE && ev.request != RT_NONE
           && isfinite (ev.duration_s))
    g_array_index (r->requests, RtRequest, ev.request).tool_s += ev.duration_s;
  else if (ev.event == RT_EV_TURN_END && ev.request != RT_NONE)
    {
      RtTurnRecord t = { ev.request, f->turn_end };
      t.figures.turn = ev.turn;
      t.figures.total_s = ev.duration_s;
      g_array_append_val (r->end_turns, t);
    }
  append_event (r, &ev);
  /* a total_step_duration whose duration cannot be read (a damaged copy of the line) ends
   * nothing that can be measured: the rollout runs on to the next readable one */
  if (ev.event == RT_EV_TOTAL_STEP && !isnan (ev.duration_s))
    rollout_ended (r);
}

/* One line (or the unterminated last piece). A line normally holds one object; when
 * a lost newline glued several together, every one of them is read and the line is
 * listed, so that nothing is dropped without a word. */
static void
parse_piece (RtFileParse *r, RtJsonParser *parser,
             const char *line, gsize len, guint64 line_no, gboolean unterminated)
{
  RtLineFields fields;
  const char *reason = NULL;
  r->file->lines++;
  if (len > 0 && line[len - 1] == '\r')
    len--;
  gsize at = 0;
  guint objects = 0;
  do
    {
      const char *piece = line + at;
      gsize piece_len = len - at;
      RtLineStatus status = rt_json_parse_line (parser, piece, piece_len, &fields, &reason);
      if (status != RT_LINE_OK)
        {
          /* the whole failed: perhaps a good object with a cut-off one glued on */
          gsize end = rt_json_object_end (piece, piece_len);
          const char *whole_reason = reason;
          if (end == piece_len || rt_json_parse_line (parser, piece, end, &fields, &reason) != RT_LINE_OK)
            {
              reason = whole_reason;
              break;
            }
          fields.consumed = end;
        }
      process_line (r, &fields, line_no);
      objects++;
      at += fields.consumed;
      while (at < len && g_ascii_isspace (line[at]))
        at++;
    }
  while (at < len);

  if (objects == 0)
    {
      r->file->bad_lines++;
      if (unterminated)
        reason = "truncated last line (no newline, object cut off)";
      add_problem (r, line_no, reason);
      return;
    }
  if (objects == 1 && at == len)
    return;
  r->file->glued_lines++;
  if (at == len)
    add_problem (r, line_no, objects == 2 ? "2 JSON objects on one line (a lost newline?): both read"
                                          : "several JSON objects on one line (a lost newline?): all read");
  else
    add_problem (r, line_no, "a JSON object followed by unreadable text on one line: the object is read, the rest skipped");
}

/* Where rt_json_parse_lines hands its lines. */
typedef struct {
  RtFileParse *r;
  guint64 *line;
} LineSink;

static void
take_line (gpointer data, const RtLineFields *fields, const char *reason)
{
  LineSink *sink = data;
  RtFileParse *r = sink->r;
  guint64 line_no = ++*sink->line;
  r->file->lines++;
  if (fields != NULL)
    {
      process_line (r, fields, line_no);
      return;
    }
  r->file->bad_lines++;
  add_problem (r, line_no, reason);
}

/* How a file's lines are being read: how long a batch the next stream gets, and how many
 * lines are read one by one before it. */
typedef struct {
  gsize batch;      /* bytes */
  guint alone;      /* lines still to read one by one */
  guint backoff;    /* lines to read one by one after the next batch that reads next to nothing */
} BatchPlan;

#define BATCH_MIN ((gsize) 4 << 10)
#define BACKOFF_MAX 1023
#define BATCH_WORTH 16   /* lines a batch must read to be worth its set-up */

/* Reads the whole lines of [buf, buf + len) (buf[len - 1] is a newline): in batches of
 * documents where they are clean, one by one from each line a batch stops at (see
 * rt_json_parse_lines). Where batches read next to nothing (damaged lines in a row, or every
 * other line), each costs a pass over all of its bytes for a line or two: the lines are then
 * read one by one, and a batch, shorter each time, is tried again after 1, 3, 7... lines. */
static void
parse_lines (RtFileParse *r, RtJsonParser *parser, const char *buf, gsize len, guint64 *line,
             BatchPlan *plan)
{
  LineSink sink = { r, line };
  gsize at = 0;
  while (at < len)
    {
      const char *batch_end = NULL;
      if (plan->alone > 0)
        plan->alone--;
      else if ((batch_end = memrchr (buf + at, '\n', MIN (plan->batch, len - at))) != NULL)
        {
          gsize n = (gsize) (batch_end + 1 - (buf + at));
          guint64 before = *line;
          gsize done = rt_json_parse_lines (parser, buf + at, n, take_line, &sink);
          at += done;
          if (done == n || *line - before >= BATCH_WORTH)
            {
              plan->backoff = 0;
              plan->batch = MIN (plan->batch * 2, RT_JSON_BATCH);
              if (done == n)
                continue;
            }
          else
            {
              plan->alone = plan->backoff;
              plan->backoff = MIN (plan->backoff * 2 + 1, BACKOFF_MAX);
              plan->batch = MAX (plan->batch / 2, BATCH_MIN);
            }
        }
      else
        plan->batch = MIN (plan->batch * 2, RT_JSON_BATCH);   /* a line longer than the batch */
      const char *nl = memchr (buf + at, '\n', len - at);
      parse_piece (r, parser, buf + at, (gsize) (nl - (buf + at)), ++*line, FALSE);
      at = (gsize) (nl + 1 - buf);
    }
}

/* Notes where the file's tables stood after its last newline (see RtResume). */
static void
take_resume_point (RtFileParse *r, guint64 offset, guint64 line)
{
  RtResume *rp = &r->resume;
  rp->offset = offset;
  rp->line = line;
  rp->counters = *r->file;
  rp->counters.path = NULL;
  rp->n_events = r->events->len;
  rp->n_requests = r->requests->len;
  rp->n_timing = r->timing_turns->len;
  rp->n_end = r->end_turns->len;
  rp->n_problems = r->problems->len;
}

/* Reads [offset, end of file) in chunks and parses every line in place in the read
 * buffer: memory grows with the longest line, never with the file, and never past
 * RT_LINE_MAX: a longer line is skipped to its newline, counted as one bad line.
 * Not a read-only mapping of the file, for two reasons. It is no faster: a first load took
 * more CPU mapped (bench/RESULTS.md, "Behind the code"), with or without MAP_POPULATE,
 * MADV_SEQUENTIAL or MADV_WILLNEED (the parser then takes every
 * byte from memory rather than from the cache the read left it in, and faulting the pages
 * in and unmapping them costs about what the copy does). And no SIGBUS handler makes it
 * safe: a file cut while mapped raises SIGBUS only past the page of the cut, whose tail
 * turns to zeros in place without a signal, and a file written again after a cut (logrotate's
 * copytruncate under a running job) changes anywhere under the mapping. simdjson's second
 * stage walks the bytes its first stage indexed, trusting them unchanged (a closing quote
 * turned to a zero lets a string run on): the parser needs bytes of its own, as read gives. */
void (*rt_file_parse_read_hook) (int fd);

gboolean
rt_file_parse_read (RtFileParse *r, guint64 offset, guint64 line, GError **error)
{
  g_autofree char *full = g_build_filename (r->trace->path, r->file->path, NULL);
  int fd = open (full, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (offset > 0 && lseek (fd, (off_t) offset, SEEK_SET) != (off_t) offset))
    {
      int e = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot read %s: %s", full, g_strerror (e));
      return FALSE;
    }
#ifdef POSIX_FADV_SEQUENTIAL
  posix_fadvise (fd, (off_t) offset, 0, POSIX_FADV_SEQUENTIAL);
#endif

  ThreadState *ts = thread_state ();
  RtJsonParser *parser = ts->parser;
  gboolean line_by_line = r->trace->priv->opts.line_by_line;
  BatchPlan plan = { RT_JSON_BATCH, 0, 0 };
  char *buf = ts->buf;
  gsize cap = ts->cap;
  gsize have = 0;        /* bytes in buf not yet consumed */
  guint64 consumed = offset;
  gboolean skipping = FALSE;   /* inside a line longer than RT_LINE_MAX */
  guint64 skip_start = 0;      /* where that line began */
  gboolean ok = TRUE;

  for (;;)
    {
      if (have == cap)
        {
          if (cap < RT_LINE_MAX)
            {
              /* one line longer than the buffer: make room for it */
              cap = MIN (cap * 2, RT_LINE_MAX);
              buf = ts->buf = g_realloc (buf, cap + RT_JSON_PADDING);
              ts->cap = cap;
            }
          else
            {
              /* too long to hold: drop what we have and look for its end */
              if (!skipping)
                skip_start = consumed;
              skipping = TRUE;
              consumed += have;
              have = 0;
            }
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
      if (G_UNLIKELY (rt_file_parse_read_hook != NULL))
        rt_file_parse_read_hook (fd);
      r->bytes_read += (guint64) n;
      if (r->bytes_done)
        g_atomic_int_add (r->bytes_done, (gint) (n >> 10));

      const char *p = buf + have, *end = buf + have + n;
      const char *nl;
      if (skipping)
        {
          if ((nl = memchr (p, '\n', (gsize) (end - p))) == NULL)
            {
              consumed += (guint64) n;
              continue;
            }
          skipping = FALSE;
          r->file->lines++;
          r->file->bad_lines++;
          add_problem (r, ++line, "line longer than " RT_LINE_MAX_TEXT " (skipped unread)");
          consumed += (guint64) (nl - p) + 1;
          have = 0;
          p = buf = ts->buf;
          memmove (buf, nl + 1, (gsize) (end - nl - 1));
          end = buf + (end - nl - 1);
        }
      have = (gsize) (end - buf);
      p = buf;
      if (!line_by_line)
        {
          if ((nl = memrchr (p, '\n', (gsize) (end - p))) != NULL)
            {
              parse_lines (r, parser, p, (gsize) (nl + 1 - p), &line, &plan);
              consumed += (guint64) (nl + 1 - p);
              p = nl + 1;
            }
        }
      else
        while ((nl = memchr (p, '\n', (gsize) (end - p))) != NULL)
          {
            parse_piece (r, parser, p, (gsize) (nl - p), ++line, FALSE);
            consumed += (guint64) (nl - p) + 1;
            p = nl + 1;
          }
      have = (gsize) (end - p);
      memmove (buf, p, have);
    }
  close (fd);
  if (!ok)
    return FALSE;

  if (skipping)
    {
      /* an over-long last line without a newline: the cache stops before it, so
       * that it is looked at again once it has grown */
      take_resume_point (r, skip_start, line);
      r->file->lines++;
      r->file->bad_lines++;
      add_problem (r, ++line, "line longer than " RT_LINE_MAX_TEXT " (skipped unread)");
      return TRUE;
    }
  take_resume_point (r, consumed, line);
  if (have > 0)
    {
      /* The unterminated last piece (a line being written, or cut off) may change a
       * request that the cache must keep as it was before it. */
      r->resume.requests = g_array_copy (r->requests);
      /* a newline after it, as after every other line: what the parser reads past the end
       * of the piece must not be what an earlier file left in the buffer */
      buf[have] = '\n';
      parse_piece (r, parser, buf, have, ++line, TRUE);
    }
  return TRUE;
}

/* Appends a request restored from the cache, as a complete line of its id would. */
static guint32
add_restored_request (RtFileParse *r, const RtRequest *q)
{
  const char *text = rt_text_at (q->id), *reason = rt_text_at (q->finish_reason);
  RtStrView id = { text ? text : "", text ? strlen (text) : 0 };
  gboolean rerun;
  guint32 idx = request_for_line (r, id, TRUE, &rerun);
  RtRequest *dst = &g_array_index (r->requests, RtRequest, idx);
  guint64 interned_id = dst->id;
  *dst = *q;
  dst->id = interned_id;
  dst->file = r->file_index;
  dst->step = r->file->step;
  dst->worker = r->file->worker;
  dst->finish_reason = reason ? rt_text_ref (g_string_chunk_insert_const (r->strings, reason)) : 0;
  return idx;
}

void
rt_resume_from_snapshot (RtFile *f, RtResume *rp, const RtCacheSnapshot *snap)
{
  /* the row takes the snapshot's counters, and keeps its path, identity and place
   * in the tables */
  RtFile row = snap->counters;
  row.path = f->path;
  row.step = f->step;
  row.worker = f->worker;
  row.size = f->size;
  row.mtime_us = f->mtime_us;
  row.inode = f->inode;
  row.ctime_ns = f->ctime_ns;
  row.first_request = f->first_request;
  row.n_requests = f->n_requests;
  *f = row;
  rp->offset = snap->offset;
  rp->line = snap->line;
  rp->counters = *f;
  rp->counters.path = NULL;
  rp->n_events = snap->counters.n_events;
  rp->n_requests = rp->n_problems = rp->n_timing = rp->n_end = 0;   /* the caller's */
  rp->requests = NULL;
}

void
rt_problems_from_snapshot (GArray *out, const RtCacheSnapshot *snap, const RtFile *f, guint file_index)
{
  for (guint k = 0; k < snap->problems->len; k++)
    {
      const RtCacheProblem *cp = &g_array_index (snap->problems, RtCacheProblem, k);
      RtProblem pr = { g_strdup_printf ("%s:%" G_GUINT64_FORMAT, f->path, cp->line),
                       g_intern_string (cp->reason), file_index, cp->line };
      g_array_append_val (out, pr);
    }
}

void
rt_file_parse_restore (RtFileParse *r, const RtCacheSnapshot *snap)
{
  rt_resume_from_snapshot (r->file, &r->resume, snap);
  r->resume.n_requests = snap->requests->len;
  r->resume.n_problems = snap->problems->len;

  /* requests, and their turns back as the turn records they came from */
  for (guint k = 0; k < snap->requests->len; k++)
    {
      const RtRequest *q = &g_array_index (snap->requests, RtRequest, k);
      guint32 local = add_restored_request (r, q);
      GArray *records = q->turns_from_timings ? r->timing_turns : r->end_turns;
      for (guint32 j = 0; j < q->n_turns; j++)
        {
          RtTurnRecord tr = { local, g_array_index (snap->turns, RtTurnFigures, q->first_turn + j) };
          g_array_append_val (records, tr);
        }
    }
  rt_problems_from_snapshot (r->problems, snap, r->file, r->file_index);
  r->resume.n_timing = r->timing_turns->len;
  r->resume.n_end = r->end_turns->len;
}

/* Gives each request its turn records: its turn_timings, or failing those, its
 * turn_end lines. Appends the turns to `out` and sets every request's range in it
 * (first_turn counts from where `out` started). */
void
rt_derive_turns (RtRequest *reqs, guint n_req, const RtTurnRecord *timing, guint n_timing,
                 const RtTurnRecord *end, guint n_end, GArray *out)
{
  g_autofree guint32 *from_timings = g_new0 (guint32, n_req + 1);
  g_autofree guint32 *from_ends = g_new0 (guint32, n_req + 1);
  for (guint i = 0; i < n_timing; i++)
    if (timing[i].request < n_req)
      from_timings[timing[i].request]++;
  for (guint i = 0; i < n_end; i++)
    if (end[i].request < n_req)
      from_ends[end[i].request]++;

  guint32 base = out->len, next = 0;
  for (guint i = 0; i < n_req; i++)
    {
      RtRequest *q = &reqs[i];
      q->turns_from_timings = q->turns_from_timings && from_timings[i] > 0;
      q->first_turn = next;
      q->n_turns = q->turns_from_timings ? from_timings[i] : from_ends[i];
      next += q->n_turns;
    }
  g_array_set_size (out, base + next);
  g_autofree guint32 *filled = g_new0 (guint32, n_req + 1);
  for (int pass = 0; pass < 2; pass++)
    {
      const RtTurnRecord *src = pass == 0 ? timing : end;
      guint n = pass == 0 ? n_timing : n_end;
      for (guint i = 0; i < n; i++)
        {
          if (src[i].request >= n_req)
            continue;
          const RtRequest *q = &reqs[src[i].request];
          if (q->turns_from_timings != (pass == 0))
            continue;
          g_array_index (out, RtTurnFigures, base + q->first_turn + filled[src[i].request]++) = src[i].figures;
        }
    }
}

GArray *
rt_file_parse_collect_turns (RtFileParse *r)
{
  GArray *turns = g_array_set_size (thread_state ()->turns, 0);
  rt_derive_turns ((RtRequest *) r->requests->data, r->requests->len,
                   (const RtTurnRecord *) r->timing_turns->data, r->timing_turns->len,
                   (const RtTurnRecord *) r->end_turns->data, r->end_turns->len, turns);
  return turns;
}

