/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz-line.c: libFuzzer target for the trace line parser: the input is a worker file, read by
 * the real loader both a buffer at a time and line by line, which must agree, and each of its
 * lines also goes straight to the JSON and timestamp parsers, where every JSON kernel the
 * processor runs must read it as the default one does. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "fuzz-util.h"
#include "rolltrace/rt-json.h"
#include "rolltrace/rt-trace.h"

static char *exp_dir;
static char *worker_path;
static RtJsonParser *parser;
static GPtrArray *other_kernels;   /* a parser of every other kernel this processor runs */

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  rt_fuzz_init ();
  g_autofree char *tmpl = g_build_filename (g_get_tmp_dir (), "rt-fuzz-line-XXXXXX", NULL);
  g_autofree char *scratch = rt_fuzz_scratch_dir (tmpl);
  exp_dir = g_build_filename (scratch, "exp", NULL);
  g_autofree char *step = g_build_filename (exp_dir, "step_1", NULL);
  g_mkdir_with_parents (step, 0755);
  worker_path = g_build_filename (step, "worker_0.jsonl", NULL);
  parser = rt_json_parser_new ();
  other_kernels = g_ptr_array_new ();
  for (const char *const *k = rt_json_kernels (); *k != NULL; k++)
    {
      RtJsonParser *other = rt_json_parser_new_kernel (*k);
      if (other != NULL && strcmp (*k, rt_json_parser_kernel (parser)) != 0)
        g_ptr_array_add (other_kernels, other);
      else
        rt_json_parser_free (other);
    }
  return 0;
}

/* The two timestamp parsers must agree bit for bit (rt-trace.h promises it). The
 * text gets exactly `len` bytes of memory, so a read past its end is reported. */
static void
check_timestamp (const char *s, gsize len, RtTimestampMemo *memo)
{
  g_autofree char *exact = rt_fuzz_exact_copy (s, len);
  double plain = 0, memoized = 0;
  gboolean ok_plain = rt_parse_timestamp (exact, len, &plain);
  gboolean ok_memo = rt_parse_timestamp_memo (exact, len, memo, &memoized);
  if (ok_plain != ok_memo || (ok_plain && memcmp (&plain, &memoized, sizeof plain) != 0))
    rt_fuzz_fail ("rt_parse_timestamp and its memo disagree on \"%.*s\": %d %.17g / %d %.17g",
                  (int) len, s, ok_plain, plain, ok_memo, memoized);
}

static void
touch_view (RtStrView v)
{
  volatile char sink = 0;
  for (gsize i = 0; i < v.len; i++)
    sink ^= v.str[i];
  (void) sink;
}

/* by content: an unescaped string lies in its parser's own buffer */
static gboolean
same_view (RtStrView a, RtStrView b)
{
  return a.len == b.len && (a.len == 0 || memcmp (a.str, b.str, a.len) == 0);
}

static gboolean
same_number (double a, double b)
{
  return memcmp (&a, &b, sizeof a) == 0 || (isnan (a) && isnan (b));
}

static gboolean
same_turn (const RtTurnFigures *a, const RtTurnFigures *b)
{
  return a->turn == b->turn && same_number (a->total_s, b->total_s)
         && same_number (a->pre_process_s, b->pre_process_s)
         && same_number (a->engine_call_s, b->engine_call_s)
         && same_number (a->post_process_s, b->post_process_s)
         && same_number (a->tool_parsing_s, b->tool_parsing_s);
}

/* Every kernel must read the same bytes the same way: status, reason, every field. */
static void
check_other_kernels (const char *buf, gsize len, RtLineStatus status, const RtLineFields *f,
                     const char *reason)
{
  for (guint i = 0; i < other_kernels->len; i++)
    {
      RtJsonParser *other = g_ptr_array_index (other_kernels, i);
      RtLineFields g;
      const char *why = NULL;
      RtLineStatus st = rt_json_parse_line (other, buf, len, &g, &why);
      const char *kernel = rt_json_parser_kernel (other);
      if (st != status || g_strcmp0 (why, reason) != 0)
        rt_fuzz_fail ("the %s kernel reads a line as %d (%s), the %s one as %d (%s)", kernel, st,
                      why, rt_json_parser_kernel (parser), status, reason);
      if (status != RT_LINE_OK)
        continue;
      gboolean same = same_view (f->event, g.event) && same_view (f->timestamp, g.timestamp)
                      && same_view (f->request_id, g.request_id)
                      && same_view (f->finish_reason, g.finish_reason)
                      && same_number (f->duration_s, g.duration_s) && f->turn == g.turn
                      && f->turns == g.turns && f->response_length == g.response_length
                      && same_turn (&f->turn_end, &g.turn_end)
                      && f->has_turn_timings == g.has_turn_timings
                      && f->turn_timings->len == g.turn_timings->len
                      && g_strcmp0 (f->type_problem, g.type_problem) == 0
                      && f->consumed == g.consumed;
      for (guint k = 0; same && k < f->turn_timings->len; k++)
        same = same_turn (&g_array_index (f->turn_timings, RtTurnFigures, k),
                          &g_array_index (g.turn_timings, RtTurnFigures, k));
      if (!same)
        rt_fuzz_fail ("the %s kernel reads other fields than the %s one from \"%.*s\"", kernel,
                      rt_json_parser_kernel (parser), (int) MIN (len, 200), buf);
    }
}

/* One line, with exactly RT_JSON_PADDING bytes after it (what the parser may read;
 * their content is ignored, so they hold what follows, as in the loader's buffer). */
static void
parse_line_directly (const char *line, gsize len, const char *after, gsize after_len,
                     RtTimestampMemo *memo)
{
  g_autofree char *buf = g_malloc (len + RT_JSON_PADDING);
  memcpy (buf, line, len);
  memset (buf + len, ' ', RT_JSON_PADDING);
  memcpy (buf + len, after, MIN (after_len, RT_JSON_PADDING));
  RtLineFields fields;
  const char *reason = NULL;
  RtLineStatus status = rt_json_parse_line (parser, buf, len, &fields, &reason);
  check_other_kernels (buf, len, status, &fields, reason);
  if (status != RT_LINE_OK)
    {
      if (reason == NULL)
        rt_fuzz_fail ("a line that is not an event (status %d) comes without a reason", status);
      rt_fuzz_touch_string (reason);
      return;
    }
  touch_view (fields.event);
  touch_view (fields.timestamp);
  touch_view (fields.request_id);
  touch_view (fields.finish_reason);
  if (fields.type_problem != NULL)
    rt_fuzz_touch_string (fields.type_problem);
  if (fields.has_turn_timings && fields.turn_timings == NULL)
    rt_fuzz_fail ("turn_timings announced but not given");
  if (fields.timestamp.len > 0)
    check_timestamp (fields.timestamp.str, fields.timestamp.len, memo);
}

/* The loader reads clean lines a buffer at a time and the rest one by one: the tables must be
 * those of reading every line on its own (RtLoadOptions.line_by_line). */
static void
check_line_by_line (const RtTrace *a)
{
  RtLoadOptions opts = { .n_threads = 1, .max_problems_per_file = 8, .line_by_line = TRUE };
  g_autoptr (GError) error = NULL;
  g_autoptr (RtTrace) b = rt_trace_load (exp_dir, &opts, &error);
  if (b == NULL)
    rt_fuzz_fail ("the experiment failed to load line by line: %s", error->message);
  const RtFile *x = rt_trace_file (a, 0), *y = rt_trace_file (b, 0);
  if (x->lines != y->lines || x->events != y->events || x->bad_lines != y->bad_lines
      || x->field_problems != y->field_problems || x->problems_total != y->problems_total
      || x->glued_lines != y->glued_lines || x->n_events != y->n_events
      || x->n_requests != y->n_requests || x->n_complete != y->n_complete
      || !same_number (x->start_min_s, y->start_min_s) || x->schema != y->schema)
    rt_fuzz_fail ("a buffer at a time and line by line count the file differently: %" G_GUINT64_FORMAT
                  " / %" G_GUINT64_FORMAT " lines, %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
                  " bad", x->lines, y->lines, x->bad_lines, y->bad_lines);
  for (int k = 0; k < RT_N_STEP_EVENTS; k++)
    if (!same_number (x->step_sum_s[k], y->step_sum_s[k]))
      rt_fuzz_fail ("a buffer at a time and line by line sum step event %d differently", k);
  const RtEvent *er = rt_trace_file_events (a, 0), *fr = rt_trace_file_events (b, 0);
  for (guint e = 0; e < x->n_events; e++)
    if (!same_number (er[e].end_s, fr[e].end_s) || !same_number (er[e].duration_s, fr[e].duration_s)
        || er[e].request != fr[e].request || er[e].turn != fr[e].turn
        || g_strcmp0 (rt_event_registry_name (a->registry, er[e].event),
                      rt_event_registry_name (b->registry, fr[e].event)) != 0)
      rt_fuzz_fail ("a buffer at a time and line by line read event row %u differently", e);
  if (a->turns->len != b->turns->len)
    rt_fuzz_fail ("a buffer at a time and line by line find %u / %u turns", a->turns->len, b->turns->len);
  for (guint r = 0; r < x->n_requests; r++)
    {
      const RtRequest *u = rt_trace_request (a, r), *v = rt_trace_request (b, r);
      if (g_strcmp0 (rt_request_id (a, u), rt_request_id (b, v)) != 0
          || g_strcmp0 (rt_request_finish_reason (a, u), rt_request_finish_reason (b, v)) != 0
          || u->complete != v->complete || !same_number (u->end_s, v->end_s)
          || !same_number (u->total_s, v->total_s) || u->turns != v->turns
          || u->response_length != v->response_length || u->n_turns != v->n_turns
          || u->first_turn != v->first_turn || u->turns_from_timings != v->turns_from_timings)
        rt_fuzz_fail ("a buffer at a time and line by line read request %u differently", r);
    }
  for (guint k = 0; k < a->turns->len; k++)
    if (!same_turn (&g_array_index (a->turns, RtTurnFigures, k), &g_array_index (b->turns, RtTurnFigures, k)))
      rt_fuzz_fail ("a buffer at a time and line by line read turn %u differently", k);
  if (a->problems->len != b->problems->len)
    rt_fuzz_fail ("a buffer at a time and line by line list %u / %u problems", a->problems->len,
                  b->problems->len);
  for (guint k = 0; k < a->problems->len; k++)
    {
      const RtProblem *p = &g_array_index (a->problems, RtProblem, k);
      const RtProblem *q = &g_array_index (b->problems, RtProblem, k);
      if (strcmp (p->where, q->where) != 0 || strcmp (p->reason, q->reason) != 0)
        rt_fuzz_fail ("a buffer at a time lists %s: %s, line by line %s: %s", p->where, p->reason,
                      q->where, q->reason);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *text = (const char *) data;

  /* 1. the whole input as step_1/worker_0.jsonl, through the loader (no cache) */
  rt_fuzz_write (worker_path, data, size);
  RtLoadOptions opts = { .n_threads = 1, .max_problems_per_file = 8 };
  g_autoptr (GError) error = NULL;
  g_autoptr (RtTrace) trace = rt_trace_load (exp_dir, &opts, &error);
  if (trace == NULL)
    rt_fuzz_fail ("a readable experiment failed to load: %s", error->message);
  rt_fuzz_check_trace (trace);
  check_line_by_line (trace);

  /* 2. each line straight to the parsers, as the loader cuts them */
  RtTimestampMemo memo = { .valid = FALSE };
  const char *p = text, *end = text + size;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *line_end = nl ? nl : end;
      gsize len = (gsize) (line_end - p);
      if (len > 0 && p[len - 1] == '\r')
        len--;
      parse_line_directly (p, len, line_end, (gsize) (end - line_end), &memo);
      check_timestamp (p, len, &memo);
      if (nl == NULL)
        break;
      p = nl + 1;
    }
  return 0;
}
