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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/jsonw/nested-document", test_nested_document);
  g_test_add_func ("/jsonw/non-finite-numbers-are-null", test_non_finite_numbers_are_null);
  g_test_add_func ("/jsonw/numbers-round-trip-in-shortest-form", test_numbers_round_trip_in_shortest_form);
  return g_test_run ();
}
