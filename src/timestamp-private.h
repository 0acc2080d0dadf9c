/* SPDX-License-Identifier: Apache-2.0 */
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

/* x / 10^6 (0 <= x < 10^6: the microseconds) as the division rounds it, bit for bit, without
 * dividing: a division on every line cost a few percent of a first load (2 cores of an AMD
 * EPYC virtual machine). x * 1e-6, rounded, is q = m * 2^e within one unit in the last place
 * of x / 10^6, whose nearest double is then q, the double above or the one below: the exact
 * x / 10^6 = (m + d / (2 * 10^6)) * 2^e, with d = x * 2^(1 - e) - 2m * 10^6 an integer below
 * 2 * 10^6 in size, which 64-bit words hold (wrapping around in between); it is compared with
 * the midpoints, 10^6 above and below (10^6 / 2 below when m is a power of two: the double
 * below it is half as far). No tie: x / 10^6 has a finite binary expansion only when 5^6
 * divides x, and it then has fewer than 53 bits. tests/unit/test-timestamp.c checks every x
 * against the division. */
static inline double
rt_timestamp_micros_s (guint32 x)
{
  double q = (double) x * 1e-6;
  if (G_UNLIKELY (x == 0))
    return q;
  guint64 bits;
  memcpy (&bits, &q, sizeof bits);
  /* q in [1e-6, 1) is normal: m with its hidden bit, 1 - e in [54, 73] */
  int shift = 1075 + 1 - (int) (bits >> 52);
  guint64 m = (bits & ((G_GUINT64_CONSTANT (1) << 52) - 1)) | (G_GUINT64_CONSTANT (1) << 52);
  guint64 scaled = shift < 64 ? (guint64) x << shift : 0;   /* x * 2^(1 - e), modulo 2^64 */
  gint64 d = (gint64) (scaled - 2 * m * 1000000);
  gint64 below = m == G_GUINT64_CONSTANT (1) << 52 ? -500000 : -1000000;
  bits += (guint64) (d > 1000000) - (guint64) (d < below);
  memcpy (&q, &bits, sizeof bits);
  return q;
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
      *out_s = (double) memo->second_s + rt_timestamp_micros_s ((guint32) micros);
      return TRUE;
    }
  return rt_parse_timestamp_memo (s, len, memo, out_s);
}

G_END_DECLS
