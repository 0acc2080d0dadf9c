/* SPDX-License-Identifier: Apache-2.0 */
/* test-chrome-trace.c: the Chrome trace writer (its JSON, its streaming, its errors), the packing of
 * intervals onto the fewest lanes, and the nesting rule that leaves no partial overlap on a thread. */
#include "rolltrace/rt-chrome-trace.h"

/* ---- the writer ---- */

static char *
memory_text (GOutputStream *mem)
{
  GMemoryOutputStream *m = G_MEMORY_OUTPUT_STREAM (mem);
  return g_strndup (g_memory_output_stream_get_data (m), g_memory_output_stream_get_data_size (m));
}

static void
test_writer_document (void)
{
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (RtChromeTrace) ct = rt_chrome_trace_new (mem);
  rt_chrome_trace_process (ct, 1, "worker 0", 0);
  rt_chrome_trace_thread (ct, 1, 2, "requests 0", 2);
  RtJsonWriter *w = rt_chrome_trace_complete_args (ct, 1, 2, "ST\"OP", "request", 10, 5);
  rt_jw_member_string (w, "request_id", "a\"b\n\xff");
  rt_jw_member_int (w, "turns", -3);
  rt_chrome_trace_end_args (ct);
  rt_chrome_trace_complete (ct, 1, 2, "turn 0", "tu\"rn", 11, 2);
  rt_chrome_trace_counter (ct, 1, "requests in flight", "counter", 10, "requests", 1);
  g_autoptr (GError) error = NULL;
  g_assert_true (rt_chrome_trace_finish (ct, &error));
  g_assert_no_error (error);
  g_autofree char *text = memory_text (mem);
  g_assert_cmpstr (text, ==,
                   "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n"
                   "{\"ph\": \"M\", \"name\": \"process_name\", \"cat\": \"__metadata\", \"pid\": 1, "
                   "\"args\": {\"name\": \"worker 0\"}},\n"
                   "{\"ph\": \"M\", \"name\": \"process_sort_index\", \"cat\": \"__metadata\", \"pid\": 1, "
                   "\"args\": {\"sort_index\": 0}},\n"
                   "{\"ph\": \"M\", \"name\": \"thread_name\", \"cat\": \"__metadata\", \"pid\": 1, \"tid\": 2, "
                   "\"args\": {\"name\": \"requests 0\"}},\n"
                   "{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"cat\": \"__metadata\", \"pid\": 1, \"tid\": 2, "
                   "\"args\": {\"sort_index\": 2}},\n"
                   "{\"ph\": \"X\", \"name\": \"ST\\\"OP\", \"cat\": \"request\", \"pid\": 1, \"tid\": 2, \"ts\": 10, "
                   "\"dur\": 5, \"args\": {\"request_id\": \"a\\\"b\\n\xef\xbf\xbd\", \"turns\": -3}},\n"
                   "{\"ph\": \"X\", \"name\": \"turn 0\", \"cat\": \"tu\\\"rn\", \"pid\": 1, \"tid\": 2, \"ts\": 11, "
                   "\"dur\": 2},\n"
                   "{\"ph\": \"C\", \"name\": \"requests in flight\", \"cat\": \"counter\", \"pid\": 1, \"ts\": 10, "
                   "\"args\": {\"requests\": 1}}\n"
                   "]}\n");
  g_assert_cmpuint (rt_chrome_trace_events (ct), ==, 7);
  g_assert_cmpuint (rt_chrome_trace_bytes (ct), ==, strlen (text));
}

/* Every number of an event is written, whatever its sign or size (a timed event without its
 * ts is one a viewer cannot place). */
static void
test_writer_integers (void)
{
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (RtChromeTrace) ct = rt_chrome_trace_new (mem);
  rt_chrome_trace_complete (ct, 0, 0, "x", "c", -5, 0);
  rt_chrome_trace_counter (ct, G_MAXINT64, "c", "c", G_MININT64 + 1, "n", -1);
  g_assert_true (rt_chrome_trace_finish (ct, NULL));
  g_autofree char *text = memory_text (mem);
  g_assert_nonnull (strstr (text, "{\"ph\": \"X\", \"name\": \"x\", \"cat\": \"c\", \"pid\": 0, \"tid\": 0, \"ts\": -5, \"dur\": 0}"));
  g_assert_nonnull (strstr (text, "\"pid\": 9223372036854775807, \"ts\": -9223372036854775807, \"args\": {\"n\": -1}}"));
}

static void
count_call (gpointer data)
{
  (*(guint *) data)++;
}

/* The text reaches the stream while events are still being written, and the buffer stays
 * within one chunk: memory does not grow with the output. */
static void
test_writer_streams (void)
{
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (RtChromeTrace) ct = rt_chrome_trace_new (mem);
  guint calls = 0;
  rt_chrome_trace_on_size (ct, 3 * RT_CHROME_TRACE_CHUNK, count_call, &calls);
  GMemoryOutputStream *m = G_MEMORY_OUTPUT_STREAM (mem);
  gsize seen = 0;
  guint grew = 0;
  for (guint i = 0; i < 100000; i++)
    {
      rt_chrome_trace_complete (ct, 1, 1, "phase", "phase", i, 1);
      gsize now = g_memory_output_stream_get_data_size (m);
      g_assert_cmpuint (rt_chrome_trace_bytes (ct) - now, <, RT_CHROME_TRACE_CHUNK + 256);
      grew += now > seen;
      seen = now;
    }
  g_assert_cmpuint (grew, >, 10);
  g_assert_cmpuint (calls, ==, 1);
  g_assert_true (rt_chrome_trace_finish (ct, NULL));
  g_assert_cmpuint (rt_chrome_trace_bytes (ct), ==, g_memory_output_stream_get_data_size (m));
}

static void
test_writer_reports_a_full_disk (void)
{
  static char room[64];
  g_autoptr (GOutputStream) small = g_memory_output_stream_new (room, sizeof room, NULL, NULL);
  g_autoptr (RtChromeTrace) ct = rt_chrome_trace_new (small);
  for (guint i = 0; i < 10; i++)
    rt_chrome_trace_complete (ct, 1, 1, "phase", "phase", i, 1);
  g_autoptr (GError) error = NULL;
  g_assert_false (rt_chrome_trace_finish (ct, &error));
  g_assert_nonnull (error);
}

/* An event of a name made once (rt_chrome_trace_name) is the bytes of one written with the
 * name itself, whatever the name holds (a quote, a newline, invalid UTF-8, nothing), first
 * event of the trace or not, names made before or between events. */
static void
test_writer_names_made_once (void)
{
  const char *names[] = { "turn_engine_call", "ST\"OP\n", "a\xff\xfe b", "", "turn 0" };
  const char *cats[] = { "phase", "c\"at", "\xff", "", "turn" };
  g_autoptr (GOutputStream) plain_mem = g_memory_output_stream_new_resizable ();
  g_autoptr (GOutputStream) named_mem = g_memory_output_stream_new_resizable ();
  g_autoptr (RtChromeTrace) plain = rt_chrome_trace_new (plain_mem);
  g_autoptr (RtChromeTrace) named = rt_chrome_trace_new (named_mem);
  RtChromeName ids[G_N_ELEMENTS (names)];
  ids[0] = rt_chrome_trace_name (named, names[0], cats[0]);
  for (guint i = 0; i < 3 * G_N_ELEMENTS (names); i++)
    {
      guint k = i % G_N_ELEMENTS (names);
      if (i > 0 && i < G_N_ELEMENTS (names))
        ids[k] = rt_chrome_trace_name (named, names[k], cats[k]);
      rt_chrome_trace_complete (plain, 3, 4, names[k], cats[k], (gint64) i - 2, 7 * (gint64) i);
      rt_chrome_trace_complete_name (named, 3, 4, ids[k], (gint64) i - 2, 7 * (gint64) i);
      if (k == 2)
        {
          rt_chrome_trace_counter (plain, 3, "c", "counter", 1, "n", 2);
          rt_chrome_trace_counter (named, 3, "c", "counter", 1, "n", 2);
        }
    }
  g_assert_true (rt_chrome_trace_finish (plain, NULL));
  g_assert_true (rt_chrome_trace_finish (named, NULL));
  g_assert_cmpuint (rt_chrome_trace_events (named), ==, rt_chrome_trace_events (plain));
  g_autofree char *want = memory_text (plain_mem);
  g_autofree char *got = memory_text (named_mem);
  g_assert_cmpstr (got, ==, want);
  g_assert_nonnull (strstr (got, "\"name\": \"ST\\\"OP\\n\", \"cat\": \"c\\\"at\", \"pid\": 3, \"tid\": 4"));
}

/* Each event carries its own pid and tid, whether the one before had the same, another, or
 * none (a counter's, a process's metadata). */
static void
test_writer_ids_of_each_event (void)
{
  static const gint64 ids[][2] = { { 1, 2 }, { 1, 2 }, { 1, -1 }, { 1, 2 }, { 1, 3 }, { 2, 3 }, { 2, -1 },
                                   { 2, -1 }, { -5, 0 }, { 1, 2 } };
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (RtChromeTrace) ct = rt_chrome_trace_new (mem);
  RtChromeName x = rt_chrome_trace_name (ct, "x", "y");
  g_autoptr (GString) want = g_string_new ("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [");
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      gint64 pid = ids[i][0], tid = ids[i][1];
      if (i > 0)
        g_string_append_c (want, ',');
      if (tid < 0)
        {
          rt_chrome_trace_counter (ct, pid, "c", "counter", 7, "n", 1);
          g_string_append_printf (want, "\n{\"ph\": \"C\", \"name\": \"c\", \"cat\": \"counter\", \"pid\": %" G_GINT64_FORMAT
                                  ", \"ts\": 7, \"args\": {\"n\": 1}}", pid);
        }
      else
        {
          rt_chrome_trace_complete_name (ct, pid, tid, x, 5, 6);
          g_string_append_printf (want, "\n{\"ph\": \"X\", \"name\": \"x\", \"cat\": \"y\", \"pid\": %" G_GINT64_FORMAT
                                  ", \"tid\": %" G_GINT64_FORMAT ", \"ts\": 5, \"dur\": 6}", pid, tid);
        }
    }
  g_string_append (want, "\n]}\n");
  g_assert_true (rt_chrome_trace_finish (ct, NULL));
  g_autofree char *got = memory_text (mem);
  g_assert_cmpstr (got, ==, want->str);
}

/* ---- packing ---- */

typedef struct {
  gint64 start, end;
} Interval;

static int
interval_by_start (gconstpointer a, gconstpointer b)
{
  gint64 x = ((const Interval *) a)->start, y = ((const Interval *) b)->start;
  return x < y ? -1 : x > y;
}

/* The most intervals alive at one instant (an end before a start at the same instant). */
static guint
max_overlap (const Interval *iv, guint n)
{
  guint best = 0;
  for (guint i = 0; i < n; i++)
    {
      guint alive = 0;
      for (guint j = 0; j < n; j++)
        alive += iv[j].start <= iv[i].start && iv[i].start < iv[j].end;
      best = MAX (best, alive);
    }
  return best;
}

static void
test_lanes_reuse_the_first_freed (void)
{
  RtLanes l;
  rt_lanes_init (&l);
  g_assert_cmpuint (rt_lanes_place (&l, 0, 10), ==, 0);
  g_assert_cmpuint (rt_lanes_place (&l, 2, 5), ==, 1);
  g_assert_cmpuint (rt_lanes_place (&l, 4, 8), ==, 2);
  g_assert_cmpuint (rt_lanes_place (&l, 5, 6), ==, 1);    /* lane 1 freed at 5: touching is no overlap */
  g_assert_cmpuint (rt_lanes_place (&l, 9, 12), ==, 1);   /* lane 1 (6) freed before lane 2 (8) */
  g_assert_cmpuint (rt_lanes_place (&l, 9, 9), ==, 2);
  g_assert_cmpuint (l.n_lanes, ==, 3);
  rt_lanes_clear (&l);
}

/* On random sets the lanes are as many as the most intervals alive at once, and no two
 * intervals of a lane overlap. */
static void
test_lanes_are_minimal (void)
{
  GRand *rand = g_rand_new_with_seed (12);
  for (guint round = 0; round < 200; round++)
    {
      guint n = g_rand_int_range (rand, 1, 60);
      g_autofree Interval *iv = g_new (Interval, n);
      for (guint i = 0; i < n; i++)
        {
          iv[i].start = g_rand_int_range (rand, 0, 100);
          iv[i].end = iv[i].start + g_rand_int_range (rand, 1, 30);
        }
      qsort (iv, n, sizeof *iv, interval_by_start);
      RtLanes l;
      rt_lanes_init (&l);
      g_autofree guint *lane = g_new (guint, n);
      for (guint i = 0; i < n; i++)
        lane[i] = rt_lanes_place (&l, iv[i].start, iv[i].end);
      g_assert_cmpuint (l.n_lanes, ==, max_overlap (iv, n));
      for (guint i = 0; i < n; i++)
        for (guint j = i + 1; j < n; j++)
          if (lane[i] == lane[j])
            g_assert_true (iv[i].end <= iv[j].start || iv[j].end <= iv[i].start);
      rt_lanes_clear (&l);
    }
  g_rand_free (rand);
}

/* Out of start order (steps whose clocks disagree) the lanes still hold no overlap. */
static void
test_lanes_out_of_order_stay_valid (void)
{
  RtLanes l;
  rt_lanes_init (&l);
  g_assert_cmpuint (rt_lanes_place (&l, 100, 200), ==, 0);
  g_assert_cmpuint (rt_lanes_place (&l, 0, 150), ==, 1);
  g_assert_cmpuint (rt_lanes_place (&l, 160, 170), ==, 1);
  rt_lanes_clear (&l);
}

/* ---- nesting ---- */

#define SPAN(s, e, l) { .start = (s), .end = (e), .level = (l) }

static RtNestCounts
nest_with (RtSpan *spans, guint n, gboolean rooted)
{
  RtNest ns;
  RtNestCounts counts = { 0 };
  rt_nest_init (&ns);
  for (guint i = 0; i < n; i++)
    spans[i].order = i;
  rt_nest_spans (&ns, spans, n, rooted, &counts);
  rt_nest_clear (&ns);
  return counts;
}

static RtNestCounts
nest (RtSpan *spans, guint n)
{
  return nest_with (spans, n, FALSE);
}

/* The span that was given as `order` (rt_nest_spans sorts them). */
static const RtSpan *
span_of (const RtSpan *spans, guint n, guint order)
{
  for (guint i = 0; i < n; i++)
    if (spans[i].order == order)
      return &spans[i];
  g_assert_not_reached ();
}

static void
test_nest_keeps_clean_nesting (void)
{
  /* a request, two turns, a phase in each; given children first */
  RtSpan s[] = { SPAN (30, 40, 2), SPAN (12, 20, 2), SPAN (25, 50, 1), SPAN (10, 20, 1), SPAN (0, 100, 0) };
  RtNestCounts c = nest (s, G_N_ELEMENTS (s));
  g_assert_cmpuint (c.clamped, ==, 0);
  g_assert_cmpuint (c.violations, ==, 0);
  /* written parents first, by start */
  guint want[] = { 4, 3, 1, 2, 0 };
  for (guint i = 0; i < G_N_ELEMENTS (s); i++)
    {
      g_assert_cmpuint (s[i].order, ==, want[i]);
      g_assert_true (s[i].keep);
    }
}

static void
test_nest_clamps_rounding (void)
{
  RtSpan s[] = {
    SPAN (0, 100, 0),
    SPAN (10, 52, 1),     /* turn */
    SPAN (8, 30, 2),      /* starts 2 us before its turn: moves to 10 */
    SPAN (28, 53, 2),     /* overlaps the phase before by 2 us (starts at 30), ends 1 us after the turn (52) */
    SPAN (60, 104, 1),    /* ends 4 us after the request: ends with it */
  };
  RtNestCounts c = nest (s, G_N_ELEMENTS (s));
  g_assert_cmpuint (c.violations, ==, 0);
  g_assert_cmpuint (c.clamped, ==, 3);
  const RtSpan *p = span_of (s, 5, 2), *q = span_of (s, 5, 3), *t = span_of (s, 5, 4);
  g_assert_cmpint (p->start, ==, 10);
  g_assert_cmpint (q->start, ==, 30);
  g_assert_cmpint (q->end, ==, 52);
  g_assert_cmpint (t->end, ==, 100);
}

/* As the newer logger writes a request: main_loop (a phase) holds the turns and starts 3 us
 * before the first; two phases of one level start a microsecond apart, the longer second. */
static void
test_nest_logger_shapes (void)
{
  RtSpan s[] = {
    SPAN (0, 1000, 0),
    SPAN (100, 900, 2),      /* main_loop */
    SPAN (103, 500, 1),      /* turn 0 */
    SPAN (102, 200, 2),      /* its pre-process, 1 us early */
    SPAN (219, 300, 2),      /* engine_generate_setup, 1 us before... */
    SPAN (220, 480, 2),      /* ...turn_engine_call, which holds it */
  };
  RtNestCounts c = nest (s, G_N_ELEMENTS (s));
  g_assert_cmpuint (c.violations, ==, 0);
  g_assert_cmpuint (c.clamped, ==, 2);
  g_assert_cmpint (span_of (s, 6, 1)->start, ==, 100);
  g_assert_cmpint (span_of (s, 6, 3)->start, ==, 103);
  g_assert_cmpint (span_of (s, 6, 4)->start, ==, 220);
  guint want[] = { 0, 1, 2, 3, 5, 4 };
  for (guint i = 0; i < G_N_ELEMENTS (s); i++)
    g_assert_cmpuint (s[i].order, ==, want[i]);
}

static void
test_nest_leaves_out_real_overlaps (void)
{
  RtSpan s[] = {
    SPAN (0, 100, 0),
    SPAN (10, 40, 1),
    SPAN (30, 60, 2),     /* 20 us out of its turn and no sibling: a violation */
    SPAN (50, 45, 2),     /* ends before it starts */
    SPAN (50, 150, 1),    /* 50 us out of the request */
    SPAN (60, 70, 2),     /* fine: inside the request, after the turn */
  };
  RtNestCounts c = nest (s, G_N_ELEMENTS (s));
  g_assert_cmpuint (c.violations, ==, 3);
  g_assert_cmpuint (c.clamped, ==, 0);
  g_assert_false (span_of (s, 6, 2)->keep);
  g_assert_false (span_of (s, 6, 3)->keep);
  g_assert_false (span_of (s, 6, 4)->keep);
  g_assert_true (span_of (s, 6, 5)->keep);
}

/* A rooted group (a request): its phases belong in it, however the thread's earlier
 * spans stand; one sticking out further than a rounding is left out. */
static void
test_nest_rooted_group (void)
{
  RtNest ns;
  RtNestCounts c = { 0 };
  rt_nest_init (&ns);
  RtSpan first[] = { SPAN (0, 100, 0) };
  rt_nest_spans (&ns, first, 1, TRUE, &c);
  RtSpan second[] = {
    SPAN (200, 300, 0),
    SPAN (150, 160, 2),    /* wholly before its request: left out, not written alone */
    SPAN (197, 210, 2),    /* 3 us before its request: moved into it */
    SPAN (290, 310, 2),    /* 10 us after its end: left out */
  };
  for (guint i = 0; i < 4; i++)
    second[i].order = i;
  rt_nest_spans (&ns, second, 4, TRUE, &c);
  g_assert_cmpuint (c.violations, ==, 2);
  g_assert_cmpuint (c.clamped, ==, 1);
  g_assert_true (span_of (second, 4, 0)->keep);
  g_assert_cmpint (span_of (second, 4, 2)->start, ==, 200);
  g_assert_true (span_of (second, 4, 2)->keep);
  rt_nest_clear (&ns);
}

/* Random spans: whatever is kept overlaps nothing kept partially, and every span is either
 * kept or counted. */
static void
test_nest_never_keeps_a_partial_overlap (void)
{
  GRand *rand = g_rand_new_with_seed (7);
  for (guint round = 0; round < 500; round++)
    {
      guint n = g_rand_int_range (rand, 1, 25);
      g_autofree RtSpan *s = g_new0 (RtSpan, n);
      for (guint i = 0; i < n; i++)
        {
          s[i].start = g_rand_int_range (rand, 0, 200);
          s[i].end = s[i].start + g_rand_int_range (rand, -2, 80);
          s[i].level = g_rand_int_range (rand, 0, 3);
        }
      RtNestCounts c = nest_with (s, n, round % 2);
      guint kept = 0;
      for (guint i = 0; i < n; i++)
        {
          if (!s[i].keep)
            continue;
          kept++;
          for (guint j = 0; j < n; j++)
            {
              if (!s[j].keep || i == j)
                continue;
              const RtSpan *a = &s[i], *b = &s[j];
              gboolean partial = a->start < b->start && b->start < a->end && a->end < b->end;
              g_assert_false (partial);
            }
        }
      g_assert_cmpuint (kept + c.violations, ==, n);
    }
  g_rand_free (rand);
}

/* The stack lives on across groups: a later group that starts before an earlier one's
 * end without fitting in it is a violation. */
static void
test_nest_across_groups (void)
{
  RtNest ns;
  RtNestCounts c = { 0 };
  rt_nest_init (&ns);
  RtSpan a[] = { SPAN (0, 100, 0), SPAN (10, 20, 1) };
  rt_nest_spans (&ns, a, 2, TRUE, &c);
  RtSpan b[] = { SPAN (50, 200, 0) };
  rt_nest_spans (&ns, b, 1, TRUE, &c);
  RtSpan d[] = { SPAN (5, 8, 0) };       /* before the last start on the thread */
  rt_nest_spans (&ns, d, 1, TRUE, &c);
  RtSpan e[] = { SPAN (200, 300, 0) };
  rt_nest_spans (&ns, e, 1, TRUE, &c);
  g_assert_cmpuint (c.violations, ==, 2);
  g_assert_true (e[0].keep);
  rt_nest_clear (&ns);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/chrome-trace/writer-document", test_writer_document);
  g_test_add_func ("/chrome-trace/writer-integers", test_writer_integers);
  g_test_add_func ("/chrome-trace/writer-streams", test_writer_streams);
  g_test_add_func ("/chrome-trace/writer-reports-a-full-disk", test_writer_reports_a_full_disk);
  g_test_add_func ("/chrome-trace/writer-names-made-once", test_writer_names_made_once);
  g_test_add_func ("/chrome-trace/writer-ids-of-each-event", test_writer_ids_of_each_event);
  g_test_add_func ("/chrome-trace/lanes-reuse-the-first-freed", test_lanes_reuse_the_first_freed);
  g_test_add_func ("/chrome-trace/lanes-are-minimal", test_lanes_are_minimal);
  g_test_add_func ("/chrome-trace/lanes-out-of-order-stay-valid", test_lanes_out_of_order_stay_valid);
  g_test_add_func ("/chrome-trace/nest-keeps-clean-nesting", test_nest_keeps_clean_nesting);
  g_test_add_func ("/chrome-trace/nest-clamps-rounding", test_nest_clamps_rounding);
  g_test_add_func ("/chrome-trace/nest-logger-shapes", test_nest_logger_shapes);
  g_test_add_func ("/chrome-trace/nest-leaves-out-real-overlaps", test_nest_leaves_out_real_overlaps);
  g_test_add_func ("/chrome-trace/nest-never-keeps-a-partial-overlap", test_nest_never_keeps_a_partial_overlap);
  g_test_add_func ("/chrome-trace/nest-across-groups", test_nest_across_groups);
  g_test_add_func ("/chrome-trace/nest-rooted-group", test_nest_rooted_group);
  return g_test_run ();
}
