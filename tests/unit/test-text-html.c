/* SPDX-License-Identifier: Apache-2.0 */
/* test-text-html.c: rt_html_append_text, the one door from the input into rt-report's HTML: markup
 * characters become entities, control characters spaces, invalid UTF-8 U+FFFD; rt_tsv_append_text
 * does the same but for the entities, plain printable ASCII taken as it is. */
#include "rolltrace/rt-text.h"

static char *
html_of (const char *s)
{
  GString *out = g_string_new (NULL);
  rt_html_append_text (out, s);
  return g_string_free (out, FALSE);
}

static void
test_markup_becomes_entities (void)
{
  g_autofree char *a = html_of ("<script>alert('x')</script> & \"q\"");
  g_assert_cmpstr (a, ==, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  /* an entity in the input is text, not an entity */
  g_autofree char *b = html_of ("&amp;&lt;");
  g_assert_cmpstr (b, ==, "&amp;amp;&amp;lt;");
}

static void
test_controls_and_invalid_utf8 (void)
{
  g_autofree char *a = html_of ("a\nb\tc\x01" "d\x7f");
  g_assert_cmpstr (a, ==, "a b c d ");
  g_autofree char *b = html_of ("x\xff<y");
  g_assert_cmpstr (b, ==, "x\xEF\xBF\xBD&lt;y");
  g_autofree char *c = html_of ("caf\xc3\xa9 \xe2\x9c\x93");
  g_assert_cmpstr (c, ==, "caf\xc3\xa9 \xe2\x9c\x93");   /* valid UTF-8 stays as it is */
  g_autofree char *d = html_of (NULL);
  g_assert_cmpstr (d, ==, "");
}

static char *
tsv_of (const char *s)
{
  GString *out = g_string_new ("<");
  rt_tsv_append_text (out, s);
  return g_string_free (out, FALSE);
}

/* Plain printable ASCII is appended whole; any other byte, wherever it stands, sends the
 * whole text through the checks: each answer below depends on which way it went. */
static void
test_tsv_text (void)
{
  g_autofree char *plain = tsv_of ("req-0001 ~!'\"&<>");
  g_assert_cmpstr (plain, ==, "<req-0001 ~!'\"&<>");
  g_autofree char *empty = tsv_of ("");
  g_assert_cmpstr (empty, ==, "<");
  g_autofree char *none = tsv_of (NULL);
  g_assert_cmpstr (none, ==, "<");
  g_autofree char *tab_last = tsv_of ("a b\t");
  g_assert_cmpstr (tab_last, ==, "<a b ");
  g_autofree char *controls = tsv_of ("\x1f" "a\nb\x7f");
  g_assert_cmpstr (controls, ==, "< a b ");
  g_autofree char *invalid_last = tsv_of ("abc\xff");
  g_assert_cmpstr (invalid_last, ==, "<abc\xEF\xBF\xBD");
  g_autofree char *utf8 = tsv_of ("id \xc3\xa9\t");
  g_assert_cmpstr (utf8, ==, "<id \xc3\xa9 ");
}

/* rt_text_is_printable_ascii reads eight bytes at a time: every byte value, at every place
 * in texts of every length up to 20 (in a word, after the last whole word, the last byte),
 * among printable neighbours, gives the answer of a byte-by-byte test. */
static void
test_printable_ascii_every_byte_everywhere (void)
{
  char text[24];
  for (gsize len = 1; len <= 20; len++)
    for (gsize at = 0; at < len; at++)
      for (guint byte = 0; byte < 256; byte++)
        {
          for (gsize i = 0; i < len; i++)
            text[i] = (char) ('a' + i);
          text[at] = (char) byte;
          gboolean want = byte >= 0x20 && byte < 0x7f;
          if (rt_text_is_printable_ascii (text, len) != want)
            g_error ("byte 0x%02x at %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT ": not %s", byte, at, len,
                     want ? "printable" : "refused");
        }
  g_assert_true (rt_text_is_printable_ascii ("", 0));
  g_assert_true (rt_text_is_printable_ascii (" ~ ~ ~ ~ ~ ~", 12));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/text/html/markup-becomes-entities", test_markup_becomes_entities);
  g_test_add_func ("/text/html/controls-and-invalid-utf8", test_controls_and_invalid_utf8);
  g_test_add_func ("/text/tsv/plain-controls-and-invalid-utf8", test_tsv_text);
  g_test_add_func ("/text/printable-ascii-every-byte-everywhere", test_printable_ascii_every_byte_everywhere);
  return g_test_run ();
}
