/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth's text in the loggers' own forms: numbers as Python's json.dumps and repr() write them,
 * timestamps as datetime.isoformat(), request ids as uuid4. */
#include "synth.h"

#include <math.h>
#include <string.h>

void
append_int (GString *s, gint64 v)
{
  char buf[24];
  char *p = buf + sizeof buf;
  guint64 u = v < 0 ? -(guint64) v : (guint64) v;
  do
    *--p = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    *--p = '-';
  g_string_append_len (s, p, buf + sizeof buf - p);
}

void
append_bool (GString *s, gboolean v)
{
  if (v)
    append_lit (s, "true");
  else
    append_lit (s, "false");
}

/* A computed float (a mean, a percentage) the way Python's repr() writes it: the shortest of
 * %.15g/%.16g/%.17g that reads back exactly, ".0" on integral values, bare NaN/Infinity as
 * json.dumps writes them. g_ascii_formatd keeps the decimal point a '.' whatever the locale. */
void
append_float (GString *s, double v)
{
  if (isnan (v))
    {
      append_lit (s, "NaN");
      return;
    }
  if (isinf (v))
    {
      if (v > 0)
        append_lit (s, "Infinity");
      else
        append_lit (s, "-Infinity");
      return;
    }
  static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (gsize i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[i], v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  g_string_append (s, buf);
  if (strpbrk (buf, ".e") == NULL)
    append_lit (s, ".0");
}

/* Writes a duration of `us` microseconds the way the real logger does: a difference
 * of two float clock readings, so a 17-digit value off the whole microsecond by a
 * little (less than half a microsecond, so timestamp - duration_sec still rounds to
 * the start). The offset is a hash of `us`: deterministic, and the same duration
 * always prints the same. A zero duration stays 0.0 as the logger writes it. */
void
append_seconds (GString *s, gint64 us)
{
  if (us == 0)
    {
      append_lit (s, "0.0");
      return;
    }
  guint64 h = (guint64) us * 0x9E3779B97F4A7C15ull;
  double jitter_us = ((double) (h >> 11) / 9007199254740992.0 - 0.5) * 0.9;   /* -0.45 .. 0.45 */
  append_float (s, ((double) us + jitter_us) / 1e6);
}

static void
put_2digits (char *p, int v)
{
  p[0] = (char) ('0' + v / 10);
  p[1] = (char) ('0' + v % 10);
}

/* Days since 1970-01-01 to a civil date (H. Hinnant's algorithm, proleptic Gregorian). */
static void
civil_from_days (gint64 z, int *year, int *month, int *day)
{
  z += 719468;
  gint64 era = (z >= 0 ? z : z - 146096) / 146097;
  gint64 doe = z - era * 146097;
  gint64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  gint64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  gint64 mp = (5 * doy + 2) / 153;
  *day = (int) (doy - (153 * mp + 2) / 5 + 1);
  *month = (int) (mp < 10 ? mp + 3 : mp - 9);
  *year = (int) (yoe + era * 400 + (*month <= 2));
}

/* Naive wall-clock time as Python's datetime.isoformat() writes it: no zone, and no fraction at
 * all when the microseconds are zero. Times are kept as microseconds since 1970 on a clock
 * without a zone, so there is no DST jump to get wrong. */
void
append_timestamp (GString *s, gint64 us)
{
  gint64 days = us / USEC_PER_DAY;
  gint64 rem = us % USEC_PER_DAY;
  if (rem < 0)
    {
      rem += USEC_PER_DAY;
      days--;
    }
  int year, month, day;
  civil_from_days (days, &year, &month, &day);
  int secs = (int) (rem / USEC_PER_SEC);
  int frac = (int) (rem % USEC_PER_SEC);

  char buf[26] = "0000-00-00T00:00:00.000000";
  put_2digits (buf, (year / 100) % 100);
  put_2digits (buf + 2, year % 100);
  put_2digits (buf + 5, month);
  put_2digits (buf + 8, day);
  put_2digits (buf + 11, secs / 3600);
  put_2digits (buf + 14, secs / 60 % 60);
  put_2digits (buf + 17, secs % 60);
  if (frac == 0)
    {
      g_string_append_len (s, buf, 19);
      return;
    }
  for (int i = 25; i >= 20; i--, frac /= 10)
    buf[i] = (char) ('0' + frac % 10);
  g_string_append_len (s, buf, 26);
}

/* Python's str(uuid.uuid4()): random bits with the version nibble 4 and variant bits 10. */
void
format_uuid4 (char out[37], guint64 hi, guint64 lo)
{
  hi = (hi & ~G_GUINT64_CONSTANT (0xf000)) | G_GUINT64_CONSTANT (0x4000);
  lo = (lo & ~(G_GUINT64_CONSTANT (0x3) << 62)) | (G_GUINT64_CONSTANT (0x2) << 62);
  static const char hex[] = "0123456789abcdef";
  char *p = out;
  for (int i = 0; i < 32; i++)
    {
      if (i == 8 || i == 12 || i == 16 || i == 20)
        *p++ = '-';
      guint64 word = i < 16 ? hi : lo;
      *p++ = hex[(word >> (60 - 4 * (i % 16))) & 0xf];
    }
  *p = '\0';
}
