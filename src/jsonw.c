/* jsonw.c: writes JSON documents into a GString, commas and escapes handled in one place.
 * Numbers use the shortest round-trip form so that output is both exact and readable. */
#include "rolltrace/rt-jsonw.h"
#include "rolltrace/rt-text.h"

#include <math.h>

void
rt_format_double (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (v == floor (v) && fabs (v) < 1e15)
    {
      rt_format_int (out, (gint64) v);
      RT_STRING_PUT_LITERAL (out, ".0");
      return;
    }
  /* the shortest of %.15g..%.17g that reads back exactly (locale-independent) */
  for (int prec = 15; prec <= 17; prec++)
    {
      char fmt[8];
      g_snprintf (fmt, sizeof fmt, "%%.%dg", prec);
      g_ascii_formatd (buf, sizeof buf, fmt, v);
      if (prec == 17 || g_ascii_strtod (buf, NULL) == v)
        break;
    }
  g_string_append (out, buf);
}

void
rt_format_int (GString *out, gint64 v)
{
  char digits[24];
  char *p = digits + sizeof digits;
  guint64 u = v < 0 ? -(guint64) v : (guint64) v;
  do
    *--p = (char) ('0' + u % 10);
  while ((u /= 10) > 0);
  if (v < 0)
    *--p = '-';
  rt_string_put (out, p, (gsize) (digits + sizeof digits - p));
}

void
rt_jw_init (RtJsonWriter *w, GString *buf)
{
  w->buf = buf;
  w->depth = 0;
  w->has_items[0] = FALSE;
  w->after_key = FALSE;
  w->replaced_texts = 0;
}

/* Writes the comma that separates this value from the previous one. */
static void
before_value (RtJsonWriter *w)
{
  if (w->after_key)
    {
      w->after_key = FALSE;
      return;
    }
  if (w->has_items[w->depth])
    g_string_append (w->buf, ", ");
  w->has_items[w->depth] = TRUE;
}

static void
open_container (RtJsonWriter *w, char c)
{
  before_value (w);
  g_string_append_c (w->buf, c);
  g_assert (w->depth + 1 < RT_JSON_MAX_DEPTH);
  w->has_items[++w->depth] = FALSE;
}

void
rt_jw_begin_object (RtJsonWriter *w)
{
  open_container (w, '{');
}

void
rt_jw_begin_array (RtJsonWriter *w)
{
  open_container (w, '[');
}

void
rt_jw_end_object (RtJsonWriter *w)
{
  g_assert (w->depth > 0);
  w->depth--;
  g_string_append_c (w->buf, '}');
}

void
rt_jw_end_array (RtJsonWriter *w)
{
  g_assert (w->depth > 0);
  w->depth--;
  g_string_append_c (w->buf, ']');
}

/* A JSON string of `s`. Text from the input need not be UTF-8 (a file name, a
 * finish reason): invalid bytes become U+FFFD, so the document stays valid. */
static void
append_escaped (RtJsonWriter *w, const char *s)
{
  GString *out = w->buf;
  g_autoptr (GString) repaired = NULL;
  if (!g_utf8_validate (s, -1, NULL))
    {
      repaired = g_string_new (NULL);
      rt_utf8_append (repaired, s, -1);
      s = repaired->str;
      w->replaced_texts++;
    }
  g_string_append_c (out, '"');
  /* the bytes that need no escape are copied a run at a time */
  const unsigned char *run = (const unsigned char *) s, *p = run;
  for (; *p; p++)
    {
      if (*p >= 0x20 && *p != '"' && *p != '\\')
        continue;
      rt_string_put (out, (const char *) run, (gsize) (p - run));
      run = p + 1;
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\r': g_string_append (out, "\\r"); break;
        default: g_string_append_printf (out, "\\u%04x", *p);
        }
    }
  rt_string_put (out, (const char *) run, (gsize) (p - run));
  g_string_append_c (out, '"');
}

void
rt_jw_key (RtJsonWriter *w, const char *key)
{
  before_value (w);
  append_escaped (w, key);
  g_string_append (w->buf, ": ");
  w->after_key = TRUE;
}

void
rt_jw_number (RtJsonWriter *w, double v)
{
  before_value (w);
  if (!isfinite (v))
    g_string_append (w->buf, "null");
  else
    rt_format_double (w->buf, v);
}

void
rt_jw_int (RtJsonWriter *w, gint64 v)
{
  before_value (w);
  rt_format_int (w->buf, v);
}

void
rt_jw_string (RtJsonWriter *w, const char *s)
{
  before_value (w);
  if (s == NULL)
    g_string_append (w->buf, "null");
  else
    append_escaped (w, s);
}

void
rt_jw_null (RtJsonWriter *w)
{
  before_value (w);
  g_string_append (w->buf, "null");
}

void
rt_jw_bool (RtJsonWriter *w, gboolean v)
{
  before_value (w);
  g_string_append (w->buf, v ? "true" : "false");
}

void
rt_jw_member_number (RtJsonWriter *w, const char *key, double v)
{
  rt_jw_key (w, key);
  rt_jw_number (w, v);
}

void
rt_jw_member_int (RtJsonWriter *w, const char *key, gint64 v)
{
  rt_jw_key (w, key);
  rt_jw_int (w, v);
}

void
rt_jw_member_string (RtJsonWriter *w, const char *key, const char *s)
{
  rt_jw_key (w, key);
  rt_jw_string (w, s);
}
