/* SPDX-License-Identifier: Apache-2.0 */
/* timestamp.c: turns the logger's zone-less ISO-8601 times into seconds.
 * Hand-written because it runs once per line and must not depend on the locale or TZ. */
#include "timestamp-private.h"

#include <string.h>

static gboolean
digits (const char *s, int n, int *out)
{
  int v = 0;
  for (int i = 0; i < n; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return FALSE;
      v = v * 10 + (s[i] - '0');
    }
  *out = v;
  return TRUE;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (the classic civil-from-days inverse; valid for any year >= 0). */
static gint64
days_from_civil (int y, int m, int d)
{
  y -= m <= 2;
  const gint64 era = y / 400;
  const int yoe = y - (int) (era * 400);
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DDTHH:MM" (a space may replace the T): seconds from 2020-01-01 to that minute.
 * Counting from 2020 rather than 1970 keeps ten times more of a double's precision for
 * the microseconds, which differences of timestamps need. */
static gboolean
parse_minute (const char *s, gint64 *secs)
{
  int year, mon, day, hour, min;
  if (s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':')
    return FALSE;
  if (!digits (s, 4, &year) || !digits (s + 5, 2, &mon) || !digits (s + 8, 2, &day)
      || !digits (s + 11, 2, &hour) || !digits (s + 14, 2, &min))
    return FALSE;
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59)
    return FALSE;
  *secs = (days_from_civil (year, mon, day) - days_from_civil (2020, 1, 1)) * 86400
          + hour * 3600 + min * 60;
  return TRUE;
}

/* ":SS" after the minute: the seconds. */
static gboolean
parse_second (const char *s, int *sec)
{
  return s[16] == ':' && digits (s + 17, 2, sec) && *sec <= 60;
}

/* The optional fraction after the seconds, to the end: the microseconds. */
static gboolean
parse_fraction (const char *s, gsize len, gint64 *micros)
{
  gsize i = 19;
  *micros = 0;
  if (len == 26 && s[19] == '.' && (*micros = rt_timestamp_six_digits (s + 20)) >= 0)
    return TRUE;   /* the usual ".ffffff", read as the loop below would */
  *micros = 0;
  if (i < len && s[i] == '.')
    {
      i++;
      int n = 0;
      while (i < len && s[i] >= '0' && s[i] <= '9')
        {
          if (n < 6)
            *micros = *micros * 10 + (s[i] - '0');
          n++;
          i++;
        }
      if (n == 0)
        return FALSE;
      for (int k = n; k < 6; k++)
        *micros *= 10;
    }
  return i == len;   /* a zone or trailing text: not what the logger writes */
}

gboolean
rt_parse_timestamp (const char *s, gsize len, double *out_s)
{
  RtTimestampMemo memo = { .valid = FALSE };
  return rt_parse_timestamp_memo (s, len, &memo, out_s);
}

gboolean
rt_parse_timestamp_memo (const char *s, gsize len, RtTimestampMemo *memo, double *out_s)
{
  /* YYYY-MM-DDTHH:MM:SS is 19 characters */
  if (len < 19)
    return FALSE;
  if (!(memo->second_valid && rt_timestamp_same_prefix (s, memo->text, 19)))
    {
      gint64 minute;
      int sec;
      if (memo->valid && rt_timestamp_same_prefix (s, memo->text, 16))
        minute = memo->minute_s;
      else
        {
          if (!parse_minute (s, &minute))
            return FALSE;
          memcpy (memo->text, s, 16);
          memo->minute_s = minute;
          memo->valid = TRUE;
          memo->second_valid = FALSE;
        }
      if (!parse_second (s, &sec))
        return FALSE;
      memcpy (memo->text + 16, s + 16, 3);
      memo->second_s = minute + sec;
      memo->second_valid = TRUE;
    }
  gint64 micros;
  if (!parse_fraction (s, len, &micros))
    return FALSE;
  *out_s = (double) memo->second_s + rt_timestamp_micros_s ((guint32) micros);
  return TRUE;
}

const char *
rt_finish_reason_short (const char *reason)
{
  if (reason == NULL)
    return NULL;
  const char *dot = strrchr (reason, '.');
  return dot ? dot + 1 : reason;
}
