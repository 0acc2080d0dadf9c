/* SPDX-License-Identifier: Apache-2.0 */
/* test-json-line.c: every parsing quirk of a trace line, one test each.
 * NaN and friends, key order, wrong types, truncation and non-objects must never lose a good line. */
#include <math.h>
#include <string.h>

#include "rolltrace/rt-json.h"

/* Parses `text` from a padded copy, as the loader does. */
static RtLineStatus
parse (RtJsonParser *p, const char *text, RtLineFields *f, const char **reason)
{
  static char buf[8192];
  gsize len = strlen (text);
  g_assert_cmpuint (len + RT_JSON_PADDING, <, sizeof buf);
  memset (buf, 'x', sizeof buf);   /* padding content must not matter */
  memcpy (buf, text, len);
  return rt_json_parse_line (p, buf, len, f, reason);
}

static gboolean
view_is (RtStrView v, const char *s)
{
  return v.len == strlen (s) && memcmp (v.str, s, v.len) == 0;
}

static void
test_reads_the_fields_the_tables_need (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  RtLineFields f;
  const char *reason;
  g_assert_cmpint (parse (p, "{\"timestamp\": \"2025-07-13T11:04:25.706221\", \"event\": \"turn_engine_call\", "
                             "\"duration_sec\": 3.21, \"extra\": {\"request_id\": \"5c1f\", \"turn\": 1, "
                             "\"generated_tokens\": 212}, \"workid\": 3, \"step\": 17}", &f, &reason), ==, RT_LINE_OK);
  g_assert_true (view_is (f.event, "turn_engine_call"));
  g_assert_true (view_is (f.timestamp, "2025-07-13T11:04:25.706221"));
  g_assert_true (view_is (f.request_id, "5c1f"));
  g_assert_cmpfloat (f.duration_s, ==, 3.21);
  g_assert_cmpint (f.turn, ==, 1);
  g_assert_null (f.type_problem);
}

static void
test_key_order_does_not_matter (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  RtLineFields f;
  const char *reason;
  g_assert_cmpint (parse (p, "{\"step\": 1, \"extra\": {\"turn\": 2, \"request_id\": \"r\"}, \"duration_sec\": 1.5, "
                             "\"event\": \"turn_end\", \"timestamp\": \"2025-01-01T00:00:00\"}", &f, &reason), ==, RT_LINE_OK);
  g_assert_true (view_is (f.event, "turn_end"));
  g_assert_true (view_is (f.request_id, "r"));
  g_assert_cmpint (f.turn, ==, 2);
  g_assert_cmpfloat (f.duration_s, ==, 1.5);
}

/* A key is one of ours only when it is the whole name, spelled without escapes: longer or
 * shorter names, or names with the same first letters, are skipped unread. */
static void
test_keys_match_whole_names_only (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  RtLineFields f;
  const char *reason;
  g_assert_cmpint (parse (p, "{\"events\": \"a\", \"even\": \"b\", \"\\u0065vent\": \"c\", \"event\": \"d\", "
                             "\"timestamps\": \"x\", \"duration\": 1, \"duration_sec_\": 2, \"duration_sec\": 3, "
                             "\"extra_\": {\"turn\": 9}, \"extr\": 8, \"extra\": {\"turns_\": 7, \"turn\": 1, "
                             "\"request_idx\": \"no\", \"request_i\": \"no\", \"request_id\": \"r\", "
                             "\"pre_process_duration_pct\": 5, \"engine_call_duration\": 0.5, "
                             "\"tool_parsing_durations\": 6, \"turn_timings_\": [1], \"finish_reasons\": \"no\"}}",
                          &f, &reason), ==, RT_LINE_OK);
  g_assert_true (view_is (f.event, "d"));
  g_assert_cmpuint (f.timestamp.len, ==, 0);
  g_assert_cmpfloat (f.duration_s, ==, 3);
  g_assert_cmpint (f.turn, ==, 1);
  g_assert_cmpint (f.turns, ==, -1);
  g_assert_true (view_is (f.request_id, "r"));
  g_assert_cmpuint (f.finish_reason.len, ==, 0);
  g_assert_true (isnan (f.turn_end.pre_process_s));
  g_assert_cmpfloat (f.turn_end.engine_call_s, ==, 0.5);
  g_assert_true (isnan (f.turn_end.tool_parsing_s));
  g_assert_false (f.has_turn_timings);
  g_assert_null (f.type_problem);
}

static void
test_python_nan_and_infinity_make_the_field_absent (void)
{
  const char *lits[] = { "NaN", "Infinity", "-Infinity" };
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  for (guint i = 0; i < G_N_ELEMENTS (lits); i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"timestamp\": \"2025-01-01T00:00:00\", \"event\": \"e\", "
                                               "\"duration_sec\": %s, \"workid\": 0}", lits[i]);
      RtLineFields f;
      const char *reason;
      g_assert_cmpint (parse (p, line, &f, &reason), ==, RT_LINE_OK);
      g_assert_true (isnan (f.duration_s));
      g_assert_null (f.type_problem);
    }
}

static void
test_nan_in_a_field_nobody_reads_is_ignored (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  RtLineFields f;
  const char *reason;
  g_assert_cmpint (parse (p, "{\"timestamp\": \"2025-01-01T00:00:00\", \"event\": \"step_response_length_stats\", "
                             "\"extra\": {\"response_lengths\": [1, 2], \"response_length_p95\": NaN, "
                             "\"response_length_mean\": Infinity, \"response_length_min\": -Infinity}, \"workid\": 1}",
                          &f, &reason), ==, RT_LINE_OK);
  g_assert_true (view_is (f.event, "step_response_length_stats"));
  g_assert_null (f.type_problem);
}

static void
test_wrong_type_is_a_field_problem_not_a_bad_line (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  RtLineFields f;
  const char *reason;
  g_assert_cmpint (parse (p, "{\"timestamp\": \"2025-01-01T00:00:00\", \"event\": \"e\", \"duration_sec\": \"3\"}",
                          &f, &reason), ==, RT_LINE_OK);
  g_assert_true (isnan (f.duration_s));
  g_assert_cmpstr (f.type_problem, ==, "wrong type: duration_sec");

  g_assert_cmpint (parse (p, "{\"event\": 42}", &f, &reason), ==, RT_LINE_OK);
  g_assert_cmpuint (f.event.len, ==, 0);
  g_assert_cmpstr (f.type_problem, ==, "wrong type: event");

  g_assert_cmpint (parse (p, "{\"event\": \"e\", \"extra\": \"oops\"}", &f, &reason), ==, RT_LINE_OK);
  g_assert_cmpstr (f.type_problem, ==, "wrong type: extra");

  g_assert_cmpint (parse (p, "{\"event\": \"e\", \"extra\": null}", &f, &reason), ==, RT_LINE_OK);
  g_assert_null (f.type_problem);
}

static void
test_whole_number_counts_may_be_written_as_floats (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  RtLineFields f;
  const char *reason;
  g_assert_cmpint (parse (p, "{\"event\": \"async_rollout_request_complete\", \"extra\": {\"turns\": 3.0, "
                             "\"response_length\": 2.5, \"turn\": -1}}", &f, &reason), ==, RT_LINE_OK);
  g_assert_cmpint (f.turns, ==, 3);
  g_assert_cmpint (f.response_length, ==, -1);
  g_assert_cmpint (f.turn, ==, -1);
}

/* actual_response_tokens is a JSON integer 0..2^31-1 or unknown: no float, sign, exponent or
 * list (a logger writes the batch's list there), and none of them a wrong type */
static void
test_response_tokens_are_whole_numbers_only (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  RtLineFields f;
  const char *reason;
  static const struct { const char *value; gint64 want; } cases[] = {
    { "0", 0 }, { "812", 812 }, { "2147483647", G_MAXINT32 }, { "2147483648", -1 }, { "99999999999", -1 },
    { "812.0", -1 }, { "-3", -1 }, { "1e3", -1 }, { "[812, 3]", -1 }, { "\"812\"", -1 }, { "null", -1 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"event\": \"async_rollout_request_complete\", \"extra\": "
                                               "{\"actual_response_tokens\": %s, \"turns\": 2}}", cases[i].value);
      g_assert_cmpint (parse (p, line, &f, &reason), ==, RT_LINE_OK);
      g_assert_cmpint (f.response_tokens, ==, cases[i].want);
      g_assert_cmpint (f.turns, ==, 2);
      g_assert_null (f.type_problem);
    }
}

static void
test_turn_timings_and_turn_end_figures (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  RtLineFields f;
  const char *reason;
  g_assert_cmpint (parse (p, "{\"event\": \"async_rollout_request_complete\", \"duration_sec\": 9, \"extra\": "
                             "{\"request_id\": \"r\", \"finish_reason\": \"FinishReasonTypeEnum.STOP\", \"turn_timings\": ["
                             "{\"turn\": 0, \"total_duration\": 4, \"pre_process_duration\": 1, \"engine_call_duration\": 2, "
                             "\"post_process_duration\": 1, \"tool_parsing_duration\": 0.5, \"has_tool_calls\": true},"
                             "{\"turn\": 1, \"total_duration\": NaN}]}}", &f, &reason), ==, RT_LINE_OK);
  g_assert_true (f.has_turn_timings);
  g_assert_cmpuint (f.turn_timings->len, ==, 2);
  RtTurnFigures *t0 = &g_array_index (f.turn_timings, RtTurnFigures, 0);
  RtTurnFigures *t1 = &g_array_index (f.turn_timings, RtTurnFigures, 1);
  g_assert_cmpint (t0->turn, ==, 0);
  g_assert_cmpfloat (t0->total_s, ==, 4);
  g_assert_cmpfloat (t0->engine_call_s, ==, 2);
  g_assert_cmpfloat (t0->tool_parsing_s, ==, 0.5);
  g_assert_cmpint (t1->turn, ==, 1);
  g_assert_true (isnan (t1->total_s) && isnan (t1->pre_process_s));
  g_assert_true (view_is (f.finish_reason, "FinishReasonTypeEnum.STOP"));

  g_assert_cmpint (parse (p, "{\"event\": \"turn_end\", \"duration_sec\": 3.5, \"extra\": {\"request_id\": \"r\", "
                             "\"turn\": 0, \"pre_process_duration\": 0.5, \"engine_call_duration\": 3.0}}", &f, &reason),
                   ==, RT_LINE_OK);
  g_assert_false (f.has_turn_timings);
  g_assert_cmpuint (f.turn_timings->len, ==, 0);   /* reset between lines */
  g_assert_cmpfloat (f.turn_end.pre_process_s, ==, 0.5);
  g_assert_cmpfloat (f.turn_end.engine_call_s, ==, 3.0);
  g_assert_true (isnan (f.turn_end.post_process_s));
}

static void
test_escaped_strings_are_unescaped (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  RtLineFields f;
  const char *reason;
  g_assert_cmpint (parse (p, "{\"event\": \"e\", \"extra\": {\"request_id\": \"a\\u0041\\\"b\"}}", &f, &reason),
                   ==, RT_LINE_OK);
  g_assert_true (view_is (f.request_id, "aA\"b"));
}

static void
test_bad_lines_say_why (void)
{
  const struct { const char *line; RtLineStatus status; const char *reason; } cases[] = {
    { "", RT_LINE_EMPTY, "empty line" },
    { "   \t", RT_LINE_EMPTY, "empty line" },
    { "[1, 2]", RT_LINE_NOT_OBJECT, "a JSON array, not an object" },
    { "42", RT_LINE_NOT_OBJECT, "a JSON number, not an object" },
    { "\"text\"", RT_LINE_NOT_OBJECT, "a JSON string, not an object" },
    { "Traceback (most recent call last):", RT_LINE_INVALID, "not JSON" },
    { "{\"timestamp\": \"2025-06-10T09:02:18.319486\", ", RT_LINE_INVALID, "invalid JSON object" },
    { "{\"event\": \"e\"} trailing", RT_LINE_INVALID, "invalid JSON object" },
    { "{\"event\": \"e\", \"extra\": {\"a\": [1, 2}}", RT_LINE_INVALID, "invalid JSON object" },
  };
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RtLineFields f;
      const char *reason = NULL;
      g_test_message ("line: %s", cases[i].line);
      g_assert_cmpint (parse (p, cases[i].line, &f, &reason), ==, cases[i].status);
      g_assert_cmpstr (reason, ==, cases[i].reason);
    }
}

/* field by field: the struct has padding */
static void
assert_same_turn (const RtTurnFigures *a, const RtTurnFigures *b)
{
  g_assert_cmpint (a->turn, ==, b->turn);
  const double x[] = { a->total_s, a->pre_process_s, a->engine_call_s, a->post_process_s, a->tool_parsing_s };
  const double y[] = { b->total_s, b->pre_process_s, b->engine_call_s, b->post_process_s, b->tool_parsing_s };
  g_assert_cmpmem (x, sizeof x, y, sizeof y);
}

/* Every kernel this processor runs reads the same bytes into the same fields (the e2e test
 * t-json-kernels.sh compares whole tables; the fuzz target, every line it meets). */
static void
test_every_kernel_reads_lines_alike (void)
{
  const char *lines[] = {
    "{\"timestamp\": \"2025-07-13T11:04:25\", \"event\": \"turn_end\", \"duration_sec\": 0.30000000000000004, "
    "\"extra\": {\"request_id\": \"r\\u00e9\", \"turn\": 2.0, \"pre_process_duration\": NaN, "
    "\"engine_call_duration\": 1e-7, \"finish_reason\": \"stop\"}}",
    "{\"event\": \"async_rollout_request_complete\", \"duration_sec\": 12.5, \"extra\": {\"turns\": 2, "
    "\"turn_timings\": [{\"turn\": 0, \"total_duration\": 1.25}, {\"turn\": 1, \"engine_call_duration\": \"x\"}]}}"
    "{\"event\": \"glued\"}",
    "{\"event\": \"e\", \"duration_sec\": -Infinity, \"extra\": null}",
    "{\"event\": \"cut\", \"extra\": {\"request_id\": \"abc",
    "[1, 2]",
    "   ",
  };
  const char *const *names = rt_json_kernels ();
  g_assert_nonnull (names[0]);
  g_autoptr (RtJsonParser) plain = rt_json_parser_new_kernel ("plain");
  g_assert_nonnull (plain);
  g_assert_cmpstr (rt_json_parser_kernel (plain), ==, "plain");
  g_assert_null (rt_json_parser_new_kernel ("no-such-kernel"));
#if defined(__x86_64__)
  g_assert_cmpstr (names[0], ==, "icelake");
  g_assert_cmpstr (names[1], ==, "haswell");
  g_assert_cmpstr (names[2], ==, "plain");
  g_assert_null (names[3]);
#endif
  guint compared = 0;
  for (const char *const *k = names; *k != NULL; k++)
    {
      g_autoptr (RtJsonParser) other = rt_json_parser_new_kernel (*k);
      if (other == NULL)
        {
          g_test_message ("the %s kernel does not run on this processor", *k);
          continue;
        }
      g_assert_cmpstr (rt_json_parser_kernel (other), ==, *k);
      for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
        {
          RtLineFields a, b;
          const char *ra = NULL, *rb = NULL;
          static char buf[8192];
          gsize len = strlen (lines[i]);
          memset (buf, 'x', sizeof buf);
          memcpy (buf, lines[i], len);
          RtLineStatus sa = rt_json_parse_line (plain, buf, len, &a, &ra);
          g_autoptr (GArray) timings_a = g_array_copy (a.turn_timings);
          RtLineStatus sb = rt_json_parse_line (other, buf, len, &b, &rb);
          g_test_message ("%s kernel, line %u", *k, i);
          g_assert_cmpint (sa, ==, sb);
          g_assert_cmpstr (ra, ==, rb);
          if (sa != RT_LINE_OK)
            continue;
          /* (an unescaped string lies in its parser's own buffer: compared by content) */
          g_assert_cmpmem (a.event.str, a.event.len, b.event.str, b.event.len);
          g_assert_cmpmem (a.timestamp.str, a.timestamp.len, b.timestamp.str, b.timestamp.len);
          g_assert_cmpmem (a.request_id.str, a.request_id.len, b.request_id.str, b.request_id.len);
          g_assert_cmpmem (a.finish_reason.str, a.finish_reason.len, b.finish_reason.str, b.finish_reason.len);
          g_assert_cmpmem (&a.duration_s, sizeof (double), &b.duration_s, sizeof (double));
          assert_same_turn (&a.turn_end, &b.turn_end);
          g_assert_cmpint (a.turn, ==, b.turn);
          g_assert_cmpint (a.turns, ==, b.turns);
          g_assert_cmpstr (a.type_problem, ==, b.type_problem);
          g_assert_cmpuint (a.consumed, ==, b.consumed);
          g_assert_cmpuint (timings_a->len, ==, b.turn_timings->len);
          for (guint t = 0; t < timings_a->len; t++)
            assert_same_turn (&g_array_index (timings_a, RtTurnFigures, t),
                              &g_array_index (b.turn_timings, RtTurnFigures, t));
          compared++;
        }
    }
  g_assert_cmpuint (compared, >=, 3);   /* at least the plain kernel against itself */
}

/* What rt_json_parse_lines hands over, as text: "duration" for an object, the reason for a
 * bad line. */
static void
note_line (gpointer data, const RtLineFields *f, const char *reason)
{
  GString *seen = data;
  if (f != NULL)
    g_string_append_printf (seen, "%g;", f->duration_s);
  else
    g_string_append_printf (seen, "%s;", reason);
}

/* Runs rt_json_parse_lines over `text` (whole lines) from a copy padded with `pad`, as the
 * loader would: returns where it stopped, and what it handed over in `seen`. */
static gsize
parse_lines_padded (RtJsonParser *p, const char *text, char pad, GString *seen)
{
  static char buf[8192];
  gsize len = strlen (text);
  g_assert_cmpuint (len + RT_JSON_PADDING, <, sizeof buf);
  memset (buf, pad, sizeof buf);
  memcpy (buf, text, len);
  g_string_truncate (seen, 0);
  return rt_json_parse_lines (p, buf, len, note_line, seen);
}

static gsize
parse_lines (RtJsonParser *p, const char *text, GString *seen)
{
  return parse_lines_padded (p, text, 'x', seen);
}

#define D(x) "{\"event\": \"e\", \"duration_sec\": " #x "}\n"

static void
test_a_stream_of_lines_stops_where_a_line_is_not_one_object (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  g_autoptr (GString) seen = g_string_new (NULL);
  /* clean lines and blank ones: all but the last object, whose end the stream cannot see */
  const char *clean = D (1) "\n  \r\n" D (2) " " D (3);
  g_assert_cmpuint (parse_lines (p, clean, seen), ==, strlen (D (1) "\n  \r\n" D (2)));
  g_assert_cmpstr (seen->str, ==, "1;empty line;empty line;2;");

  /* a line cut inside a string flips the quotes of all that follows, which puts a newline
   * inside a "string": simdjson fails the whole batch, before its first line; the lines after
   * the cut one are read again from their own start */
  const char *cut = D (1) "{\"event\": \"e\", \"duration_sec\": 2, \"x\": \"cut\n" D (3) D (4) D (5);
  g_assert_cmpuint (parse_lines (p, cut, seen), ==, 0);
  g_assert_cmpstr (seen->str, ==, "");
  const char *after = strchr (cut + strlen (D (1)), '\n') + 1;
  g_assert_cmpuint (parse_lines (p, after, seen), ==, strlen (D (3) D (4)));
  g_assert_cmpstr (seen->str, ==, "3;4;");

  /* two objects on a line, one over two lines, a non-object: each stops the stream at its line */
  const char *stops[] = { D (1) "{\"a\": 1} {\"b\": 2}\n" D (3),
                          D (1) "{\"event\": \"e\",\n\"duration_sec\": 2}\n" D (3),
                          D (1) "[1, 2]\n" D (3), D (1) "{\"a\": 1} x\n" D (3),
                          D (1) "{\"event\": \"\xff\"}\n" D (3) };
  for (gsize k = 0; k < G_N_ELEMENTS (stops); k++)
    {
      gsize stop = parse_lines (p, stops[k], seen);
      /* (invalid UTF-8 anywhere stops it before its first line) */
      g_assert_cmpuint (stop, ==, k == 4 ? 0 : strlen (D (1)));
      g_assert_cmpstr (seen->str, ==, k == 4 ? "" : "1;");
    }
}

/* The walk of a broken object at the end of a batch reaches the parser's end sentinels, which
 * point just past the batch: whatever is there (what an earlier file left in the buffer) must
 * not let it pass for an object. */
static void
test_what_follows_a_stream_of_lines_does_not_matter (void)
{
  g_autoptr (RtJsonParser) p = rt_json_parser_new ();
  g_autoptr (GString) seen = g_string_new (NULL);
  const char *text = D (1) D (2) "{\"event\": \"e\": \"f\", \"duration_sec\": 3}\n";
  const char pads[] = { 'x', '}', ',', ']', ' ', '\n', '"', '{' };
  for (gsize k = 0; k < G_N_ELEMENTS (pads); k++)
    {
      g_assert_cmpuint (parse_lines_padded (p, text, pads[k], seen), ==, strlen (D (1) D (2)));
      g_assert_cmpstr (seen->str, ==, "1;2;");
    }
}

/* simdjson's On-Demand skips a value left unread by counting brackets, and takes a string
 * followed by ':' at its start for a key: it then skips on to the object's closing brace, so
 * that with one '}' too many a line whose value is followed by ':' where ',' or '}' is due
 * passed for one good object, in the per-line and the buffer path alike. Each such line is
 * bad, wherever the value is: read as a string, or left unread. */
static void
test_a_value_followed_by_a_colon_is_a_bad_line (void)
{
  const char *lines[] = {
    "{\"event\": \"total_step_duration\": \"f\", \"duration_sec\": 3}}",
    "{\"timestamp\": \"2025-06-10T09:00:12\": 1, \"event\": \"e\", \"duration_sec\": 3}}",
    "{\"event\": \"e\", \"duration_sec\": 3, \"extra\": {\"request_id\": \"r\": 1}}}",
    "{\"event\": \"e\", \"extra\": {\"finish_reason\": \"stop\": \"x\"}}, \"duration_sec\": 3}}",
    "{\"event\": \"e\", \"duration_sec\": 3, \"workid\": \"w\": 0}}",
    "{\"event\": \"e\", \"duration_sec\": 3, \"extra\": {\"note\": \"n\": 0}}}",
    "{\"event\": \"e\", \"duration_sec\": 3, \"extra\": {\"turn_timings\": [{\"note\": \"n\": 0}]}}}",
    "{\"event\": \"e\", \"duration_sec\": 3, \"x\": [\"a\": 1]}",
    "{\"event\": \"e\", \"duration_sec\": 3, \"x\": {\"a\": [1 2]}}",
    "{\"event\": \"e\", \"duration_sec\": 3, \"x\": {\"a\" 1}}",
    "{\"event\": \"e\", \"x\": [1, 2}, \"duration_sec\": 3}",
    "{\"event\": \"e\", \"duration_sec\": 3, \"x\": [1, 2,]}",
    "{\"event\": \"e\", \"duration_sec\": 3, \"x\": [1, , 2]}",
  };
  /* while a line with arrays and objects of every shape nobody reads is a good one */
  const char *good = "{\"event\": \"e\", \"duration_sec\": 3, \"x\": [1, 2.5e3 , \"a\\\"]\", "
                     "{\"b\" : [], \"c\": {}}, [[ ], [-1,NaN]], true, null], \"y\": {}}";
  g_autoptr (GString) seen = g_string_new (NULL);
  for (const char *const *k = rt_json_kernels (); *k != NULL; k++)
    {
      g_autoptr (RtJsonParser) p = rt_json_parser_new_kernel (*k);
      if (p == NULL)
        continue;
      RtLineFields f;
      const char *reason = NULL;
      g_assert_cmpint (parse (p, good, &f, &reason), ==, RT_LINE_OK);
      g_assert_cmpfloat (f.duration_s, ==, 3);
      g_autofree char *good_text = g_strconcat (D (1), good, "\n", D (2), D (3), NULL);
      g_assert_cmpuint (parse_lines (p, good_text, seen), ==, strlen (D (1)) + strlen (good) + 1 + strlen (D (2)));
      g_assert_cmpstr (seen->str, ==, "1;3;2;");
      for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
        {
          g_test_message ("%s kernel, line: %s", *k, lines[i]);
          g_assert_cmpint (parse (p, lines[i], &f, &reason), ==, RT_LINE_INVALID);
          g_assert_cmpstr (reason, ==, "invalid JSON object");
          /* in a stream, the line stops it: the caller reads it on its own */
          g_autofree char *text = g_strconcat (D (1), lines[i], "\n", D (2), D (3), NULL);
          g_assert_cmpuint (parse_lines (p, text, seen), ==, strlen (D (1)));
          g_assert_cmpstr (seen->str, ==, "1;");
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-line/reads-the-fields-the-tables-need", test_reads_the_fields_the_tables_need);
  g_test_add_func ("/json-line/key-order-does-not-matter", test_key_order_does_not_matter);
  g_test_add_func ("/json-line/response-tokens-are-whole-numbers-only", test_response_tokens_are_whole_numbers_only);
  g_test_add_func ("/json-line/keys-match-whole-names-only", test_keys_match_whole_names_only);
  g_test_add_func ("/json-line/python-nan-and-infinity-make-the-field-absent",
                   test_python_nan_and_infinity_make_the_field_absent);
  g_test_add_func ("/json-line/nan-in-a-field-nobody-reads-is-ignored", test_nan_in_a_field_nobody_reads_is_ignored);
  g_test_add_func ("/json-line/wrong-type-is-a-field-problem", test_wrong_type_is_a_field_problem_not_a_bad_line);
  g_test_add_func ("/json-line/whole-number-counts-as-floats", test_whole_number_counts_may_be_written_as_floats);
  g_test_add_func ("/json-line/turn-timings-and-turn-end-figures", test_turn_timings_and_turn_end_figures);
  g_test_add_func ("/json-line/escaped-strings-are-unescaped", test_escaped_strings_are_unescaped);
  g_test_add_func ("/json-line/bad-lines-say-why", test_bad_lines_say_why);
  g_test_add_func ("/json-line/every-kernel-reads-lines-alike", test_every_kernel_reads_lines_alike);
  g_test_add_func ("/json-line/a-stream-of-lines-stops-where-a-line-is-not-one-object",
                   test_a_stream_of_lines_stops_where_a_line_is_not_one_object);
  g_test_add_func ("/json-line/a-value-followed-by-a-colon-is-a-bad-line",
                   test_a_value_followed_by_a_colon_is_a_bad_line);
  g_test_add_func ("/json-line/what-follows-a-stream-of-lines-does-not-matter",
                   test_what_follows_a_stream_of_lines_does_not_matter);
  return g_test_run ();
}
