/* SPDX-License-Identifier: Apache-2.0 */
/* text.c: text from the input crossing into gnuplot scripts, SQL, TSV tables and HTML, escaped in one place.
 * Whoever wrote the trace chose these strings; they are data wherever they go. */
#include "rolltrace/rt-text.h"

#include <string.h>

gboolean
rt_utf8_append (GString *out, const char *s, gssize len)
{
  gsize n = len < 0 ? strlen (s) : (gsize) len;
  const char *end = s + n;
  gboolean replaced = FALSE;
  while (s < end)
    {
      const char *bad;
      if (g_utf8_validate_len (s, (gsize) (end - s), &bad))
        {
          g_string_append_len (out, s, end - s);
          break;
        }
      g_string_append_len (out, s, bad - s);
      /* one replacement per byte that cannot start or continue a sequence */
      g_string_append (out, "\xEF\xBF\xBD");
      replaced = TRUE;
      s = bad + 1;
    }
  return replaced;
}

gboolean
rt_text_is_printable_ascii (const char *s, gsize len)
{
  /* eight bytes at a time, a byte outside 0x20..0x7e setting its top bit in one of two
   * sums: one below 0x20 borrows into it when 0x20 is taken off (a borrow carries on into
   * the bytes above, which are then wrong, but one is enough to say no), one of 0x7f..0xfe
   * has it set once 1 is added, and 0xff (which carries out) keeps it when 0x20 is taken
   * off, as does 0x80..0xff */
  const guint64 ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
  gsize i = 0;
  for (; i + 8 <= len; i += 8)
    {
      guint64 x;
      memcpy (&x, s + i, sizeof x);
      if (((x - 0x20 * ones) | (x + ones)) & tops)
        return FALSE;
    }
  for (; i < len; i++)
    if ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] >= 0x7f)
      return FALSE;
  return TRUE;
}

/* Appends `s` as valid UTF-8 with every control character replaced by a space. */
static void
append_printable (GString *out, const char *s)
{
  /* most text (ids, names, reasons) is plain printable ASCII: appended as it is */
  gsize len = strlen (s);
  if (rt_text_is_printable_ascii (s, len))
    {
      rt_string_put (out, s, len);
      return;
    }
  g_autoptr (GString) valid = g_string_new (NULL);
  rt_utf8_append (valid, s, -1);
  for (gsize i = 0; i < valid->len; i++)
    {
      unsigned char c = (unsigned char) valid->str[i];
      g_string_append_c (out, c < 0x20 || c == 0x7f ? ' ' : (char) c);
    }
}

char *
rt_gnuplot_quote (const char *s)
{
  g_autoptr (GString) text = g_string_new (NULL);
  append_printable (text, s ? s : "");
  GString *q = g_string_sized_new (text->len + 2);
  g_string_append_c (q, '\'');
  for (gsize i = 0; i < text->len; i++)
    {
      if (text->str[i] == '\'')
        g_string_append_c (q, '\'');
      g_string_append_c (q, text->str[i]);
    }
  g_string_append_c (q, '\'');
  return g_string_free (q, FALSE);
}

void
rt_sql_append_literal (GString *out, const char *s)
{
  g_autoptr (GString) text = g_string_new (NULL);
  rt_utf8_append (text, s ? s : "", -1);
  g_string_append_c (out, '\'');
  for (gsize i = 0; i < text->len; i++)
    {
      if (text->str[i] == '\'')
        g_string_append_c (out, '\'');
      g_string_append_c (out, text->str[i]);
    }
  g_string_append_c (out, '\'');
}

void
rt_tsv_append_text (GString *out, const char *s)
{
  append_printable (out, s ? s : "");
}

void
rt_html_append_text (GString *out, const char *s)
{
  g_autoptr (GString) text = g_string_new (NULL);
  append_printable (text, s ? s : "");
  for (gsize i = 0; i < text->len; i++)
    switch (text->str[i])
      {
      case '&': g_string_append (out, "&amp;"); break;
      case '<': g_string_append (out, "&lt;"); break;
      case '>': g_string_append (out, "&gt;"); break;
      case '"': g_string_append (out, "&quot;"); break;
      case '\'': g_string_append (out, "&#39;"); break;
      default: g_string_append_c (out, text->str[i]);
      }
}

guint
rt_edit_distance (const char *a, const char *b, guint most)
{
  gsize la = strlen (a), lb = strlen (b);
  if ((la > lb ? la - lb : lb - la) > most)
    return most + 1;
  g_autofree guint *row = g_new (guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diagonal = row[0];
      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint above = row[j];
          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diagonal + (a[i - 1] != b[j - 1]));
          diagonal = above;
        }
    }
  return MIN (row[lb], most + 1);
}
