/* test-jsonw.c: the JSON writer behind every --json: commas, escapes, null for NaN,
 * and numbers that read back to the very same double. */
#include <math.h>

#include "rolltrace/rt-jsonw.h"

static void
test_nested_document (void)
{
  g_autoptr (GString) out = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_jw_begin_object (&w);
  rt_jw_member_int (&w, "a", 1);
  rt_jw_key (&w, "b");
  rt_jw_begin_array (&w);
  rt_jw_number (&w, 0.5);
  rt_jw_null (&w);
  rt_jw_begin_object (&w);
  rt_jw_end_object (&w);
  rt_jw_end_array (&w);
  rt_jw_member_string (&w, "c", "x\"y\\z\n");
  rt_jw_key (&w, "d");
  rt_jw_bool (&w, TRUE);
  rt_jw_end_object (&w);
  g_assert_cmpstr (out->str, ==, "{\"a\": 1, \"b\": [0.5, null, {}], \"c\": \"x\\\"y\\\\z\\n\", \"d\": true}");
}

static void
test_non_finite_numbers_are_null (void)
{
  g_autoptr (GString) out = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_jw_begin_array (&w);
  rt_jw_number (&w, NAN);
  rt_jw_number (&w, INFINITY);
  rt_jw_end_array (&w);
  g_assert_cmpstr (out->str, ==, "[null, null]");
}

static void
test_numbers_round_trip_in_shortest_form (void)
{
  const double values[] = { 0.1, 23.03253710964952, 1e-05, 4096, -2.5, 1.0 / 3.0, 6.02e23, 7.787102420906642e-05 };
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr (GString) out = g_string_new (NULL);
      rt_format_double (out, values[i]);
      g_assert_cmpfloat (g_ascii_strtod (out->str, NULL), ==, values[i]);
      g_assert_cmpuint (out->len, <=, 24);
    }
  g_autoptr (GString) s = g_string_new (NULL);
  rt_format_double (s, 0.1);
  g_assert_cmpstr (s->str, ==, "0.1");
  g_string_truncate (s, 0);
  rt_format_double (s, 4096);
  g_assert_cmpstr (s->str, ==, "4096.0");
}

/* Escapes at the edges of a string and next to each other: the escaper copies the runs between
 * them whole, so an off-by-one there would drop or repeat a byte. */
static void
test_escapes_at_every_position (void)
{
  static const struct { const char *in, *out; } cases[] = {
    { "", "\"\"" },
    { "plain", "\"plain\"" },
    { "\"", "\"\\\"\"" },
    { "\"a", "\"\\\"a\"" },
    { "a\\", "\"a\\\\\"" },
    { "\n\t\r", "\"\\n\\t\\r\"" },
    { "a\001b\037", "\"a\\u0001b\\u001f\"" },
    { "caf\xc3\xa9 \"x\"", "\"caf\xc3\xa9 \\\"x\\\"\"" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) out = g_string_new (NULL);
      RtJsonWriter w;
      rt_jw_init (&w, out);
      rt_jw_string (&w, cases[i].in);
      g_assert_cmpstr (out->str, ==, cases[i].out);
    }
}

static void
test_integers_as_printf_writes_them (void)
{
  const gint64 values[] = { 0, 7, -1, 10, 1234567890123, G_MAXINT64, G_MININT64 };
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr (GString) out = g_string_new ("x");
      rt_format_int (out, values[i]);
      g_autofree char *expected = g_strdup_printf ("x%" G_GINT64_FORMAT, values[i]);
      g_assert_cmpstr (out->str, ==, expected);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/jsonw/nested-document", test_nested_document);
  g_test_add_func ("/jsonw/non-finite-numbers-are-null", test_non_finite_numbers_are_null);
  g_test_add_func ("/jsonw/numbers-round-trip-in-shortest-form", test_numbers_round_trip_in_shortest_form);
  g_test_add_func ("/jsonw/escapes-at-every-position", test_escapes_at_every_position);
  g_test_add_func ("/jsonw/integers-as-printf-writes-them", test_integers_as_printf_writes_them);
  return g_test_run ();
}
