/* timestamp-private.h: the usual case of rt_parse_timestamp_memo, inline for the loader, which
 * reads a timestamp on every line: the second of the line before, then six digits. */
#pragma once

#include <string.h>

#include "rolltrace/rt-trace.h"

G_BEGIN_DECLS

/* Whether the first n bytes (16 or 19) of a and b are the same: two or three loads each. */
static inline gboolean
rt_timestamp_same_prefix (const char *a, const char *b, gsize n)
{
  guint64 a0, a1, b0, b1;
  guint32 a2, b2;
  memcpy (&a0, a, 8);
  memcpy (&b0, b, 8);
  memcpy (&a1, a + 8, 8);
  memcpy (&b1, b + 8, 8);
  if (n == 16)
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  memcpy (&a2, a + 15, 4);
  memcpy (&b2, b + 15, 4);
  return ((a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2)) == 0;
}

/* The six digits at s as a number, or -1 when one of them is no digit: all at once,
 * as the logger writes six on nearly every line. */
static inline gint64
rt_timestamp_six_digits (const char *s)
{
  guint32 lo;
  guint16 hi;
  memcpy (&lo, s, 4);
  memcpy (&hi, s + 4, 2);
  guint64 v = (lo | (guint64) hi << 32) - 0x303030303030ull;
  /* a byte is no digit when it was below '0' (its high bit is then set; a borrow may
   * spoil the bytes after it, which no longer matter) or above '9' (+ 0x76 sets it) */
  if (((v | (v + 0x767676767676ull)) & 0x808080808080ull) != 0)
    return -1;
  v <<= 16;   /* as the last six of eight digits, behind two zeros */
  v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
  v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;
  return (gint64) ((v * 10000 + (v >> 32)) & 0xFFFFFFFFull);
}

/* rt_parse_timestamp_memo, the same answers bit for bit: "YYYY-MM-DDTHH:MM:SS.ffffff" of the
 * second the memo holds is read here (most lines of a file), anything else there. (Inline: the
 * call cost about as much as the reading.) */
static inline gboolean
rt_timestamp_memo_read (const char *s, gsize len, RtTimestampMemo *memo, double *out_s)
{
  gint64 micros;
  if (len == 26 && memo->second_valid && rt_timestamp_same_prefix (s, memo->text, 19) && s[19] == '.'
      && (micros = rt_timestamp_six_digits (s + 20)) >= 0)
    {
      *out_s = (double) memo->second_s + (double) micros / 1e6;
      return TRUE;
    }
  return rt_parse_timestamp_memo (s, len, memo, out_s);
}

G_END_DECLS
