/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw.c: writes JSON documents into a GString, commas and escapes handled in one place.
 * Numbers use the shortest round-trip form so that output is both exact and readable. */
#include "rolltrace/rt-jsonw.h"
#include "rolltrace/rt-text.h"

#include <math.h>
#include <string.h>

/* 5^k and 10^k, exactly, for the rounding below */
static const guint64 pow5[28] = {
  1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull, 1953125ull,
  9765625ull, 48828125ull, 244140625ull, 1220703125ull, 6103515625ull, 30517578125ull,
  152587890625ull, 762939453125ull, 3814697265625ull, 19073486328125ull, 95367431640625ull,
  476837158203125ull, 2384185791015625ull, 11920928955078125ull, 59604644775390625ull,
  298023223876953125ull, 1490116119384765625ull, 7450580596923828125ull,
};
static const guint64 pow10[19] = {
  1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
  1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
  100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
  1000000000000000000ull,
};

/* The bits of a positive, normal, finite a, its binary exponent e2 (2^e2 <= a < 2^(e2 + 1))
 * and a decimal one e from it (10^e <= a < 10^(e + 2)). FALSE for 0, a subnormal, an
 * infinity or a NaN. */
static G_ALWAYS_INLINE inline gboolean
split_double (double a, guint64 *bits, int *e2, int *e)
{
  memcpy (bits, &a, sizeof *bits);
  int biased = (int) ((*bits >> 52) & 0x7FF);
  if (biased == 0 || biased == 0x7FF)
    return FALSE;
  *e2 = biased - 1023;
  *e = (*e2 * 78913) >> 18;
  return TRUE;
}

/* The P significant digits of a > 0 as an integer d (10^(P-1) <= d < 10^P), with
 * a = d * 10^(e10 - P + 1) rounded as printf rounds (to nearest, a tie to even), in
 * exact integer arithmetic: a is m 2^q with an integer m < 2^53, and a 10^k is
 * m 5^k 2^(q+k), or m 2^(q-j) / 5^j for k = -j. FALSE for an a too large or too small
 * for that (|k| > 27), which is then left to printf. `reads_back`: whether that decimal
 * reads back as a (strtod takes the double nearest to it, a tie to the even one). */
static gboolean
round_digits (double a, int precision, guint64 *d, int *e10, gboolean *reads_back)
{
  typedef unsigned __int128 u128;
  guint64 bits;
  int e2, e;
  if (!split_double (a, &bits, &e2, &e))
    return FALSE;   /* subnormal, or not finite */
  guint64 m = (bits & ((1ull << 52) - 1)) | (1ull << 52);   /* a = m 2^(e2 - 52) */
  /* the decimal exponent: from the binary one (78913 / 2^18 is log10 2 to 6 digits), one
   * less than it at most, which the powers of ten then tell; should the digits still say
   * otherwise (a rounding up to the next power), the next try corrects it */
  static const double pow10_d[] = {
    1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21, 1e-20, 1e-19,
    1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6,
    1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
    1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24,
    1e25, 1e26, 1e27, 1e28, 1e29, 1e30,
  };
  if (e >= -30 && e < 30 && a >= pow10_d[e + 31])
    e++;
  for (int tries = 0; tries < 4; tries++)
    {
      int k = precision - 1 - e;   /* a 10^k has `precision` digits before the point */
      if (k > 27 || k < -27)
        return FALSE;
      u128 whole, rem, den;        /* a 10^k = whole + rem / den */
      u128 gap;                    /* a's ulp times 10^k, in units of 1 / den */
      if (k >= 0)
        {
          u128 x = (u128) m * pow5[k];
          int s = e2 - 52 + k;
          if (s >= 0)
            {
              if (s > 40)
                return FALSE;
              whole = x << s;
              rem = 0;
              den = 1;
              gap = (u128) pow5[k] << s;
            }
          else
            {
              if (s < -120)
                return FALSE;
              whole = x >> -s;
              den = (u128) 1 << -s;
              rem = x & (den - 1);
              gap = pow5[k];
            }
        }
      else
        {
          int q = e2 - 52 + k;     /* a 10^k = m 2^q / 5^j */
          if (q > 60 || q < -60)
            return FALSE;
          u128 num = q >= 0 ? (u128) m << q : (u128) m;
          den = q >= 0 ? (u128) pow5[-k] : (u128) pow5[-k] << -q;
          whole = num / den;
          rem = num % den;
          gap = q >= 0 ? (u128) 1 << q : 1;
        }
      if (whole >= (u128) pow10[precision + 1])
        {
          e++;
          continue;
        }
      guint64 digits = (guint64) whole;
      if (2 * rem > den || (2 * rem == den && (digits & 1)))
        digits++;
      if (digits < pow10[precision - 1])
        e--;
      else if (digits >= pow10[precision])
        e++;
      else
        {
          *d = digits;
          *e10 = e;
          if (reads_back == NULL)
            return TRUE;
          /* a 10^k = (whole den + rem) / den and the decimal is digits den / den: it reads
           * back as a while nearer to a than half the gap to a's neighbour on its side
           * (below a power of two, the neighbour is half as far) */
          u128 at = whole * den + rem, dec = (u128) digits * den;
          gboolean below = dec < at;
          u128 diff = below ? at - dec : dec - at;
          gboolean power_of_two = m == (1ull << 52) && e2 > -1022;
          u128 twice = below && power_of_two ? 4 * diff : 2 * diff;
          *reads_back = twice < gap || (twice == gap && (m & 1) == 0);
          return TRUE;
        }
    }
  return FALSE;
}

/* Writes %g's exponent of e10 at p (e-05, e+17, e+308) and returns the byte after it. */
static inline char *
put_exponent (char *p, int e10)
{
  int x = ABS (e10);
  *p++ = 'e';
  *p++ = e10 < 0 ? '-' : '+';
  if (x >= 100)
    *p++ = (char) ('0' + x / 100);
  *p++ = (char) ('0' + x / 10 % 10);
  *p++ = (char) ('0' + x % 10);
  return p;
}

/* The eight decimal digits of v < 10^8 as the bytes 0..9 of a guint64, the most significant
 * in the lowest byte (first in memory): v split into two halves of four digits, each into
 * two pairs, each pair into two digits, all lanes at once; x * 10486 >> 20 is x / 100 for
 * x < 10^4 and x * 103 >> 10 is x / 10 for x < 100. */
static inline guint64
eight_digits (guint32 v)
{
  guint64 halves = (v / 10000) | ((guint64) (v % 10000) << 32);
  guint64 hundreds = ((halves * 10486) >> 20) & 0x0000007F0000007Full;
  guint64 pairs = hundreds | ((halves - hundreds * 100) << 16);
  guint64 tens = ((pairs * 103) >> 10) & 0x000F000F000F000Full;
  return tens | ((pairs - tens * 10) << 8);
}

/* Appends the text %.<precision>g makes of v's digits d < 10^17 and exponent e10: the digits
 * made eight at a time, their trailing zeros counted from the top zero bytes of each eight,
 * and every copy of a fixed size. Inlined in rt_format_double's fast path (the call was a
 * fair share of its instructions: bench/RESULTS.md, "Behind the code"), put_g elsewhere. */
static G_ALWAYS_INLINE inline void
put_g_inline (GString *out, gboolean negative, guint64 d, int e10, int precision)
{
  /* d as 17 digits, a leading one and two eights; slack for the copies of fixed size */
  char digits[48];
  guint64 top = d / 10000000000000000ull, rest = d % 10000000000000000ull;
  guint32 high = (guint32) (rest / 100000000), low = (guint32) (rest % 100000000);
  guint64 high_lanes = eight_digits (high), low_lanes = eight_digits (low);
  digits[0] = (char) ('0' + top);
  guint64 text = high_lanes + 0x3030303030303030ull;
  memcpy (digits + 1, &text, 8);
  text = low_lanes + 0x3030303030303030ull;
  memcpy (digits + 9, &text, 8);
  /* the zeros at the end of the 17, of which the top 17 - precision are zeros too */
  int zeros = low != 0 ? __builtin_clzll (low_lanes) / 8
              : high != 0 ? 8 + __builtin_clzll (high_lanes) / 8 : 16 + (top == 0);
  const char *first = digits + 17 - precision;
  /* the trailing zeros that %g drops (not from the integer part) */
  int keep = e10 < -4 || e10 >= precision ? 1 : MAX (e10 + 1, 1);
  int n = MAX (precision - zeros, keep);

  char *p = rt_string_room (out, 40);
  *p = '-';
  p += negative;
  if (e10 < -4 || e10 >= precision)
    {
      /* d.ddde+XX, without the fraction's trailing zeros, and its point with them */
      *p++ = first[0];
      if (n > 1)
        {
          *p++ = '.';
          memcpy (p, first + 1, 16);
          p += n - 1;
        }
      p = put_exponent (p, e10);
    }
  else if (e10 >= 0)
    {
      /* fixed: precision - 1 - e10 decimals, without trailing zeros */
      int int_digits = e10 + 1;
      memcpy (p, first, 17);
      p += int_digits;
      if (n > int_digits)
        {
          *p++ = '.';
          memcpy (p, first + int_digits, 16);
          p += n - int_digits;
        }
    }
  else
    {
      /* 0.000ddd: -e10 - 1 <= 3 zeros after the point */
      memcpy (p, "0.000", 5);
      p += 1 - e10;
      memcpy (p, first, 17);
      p += n;
    }
  rt_string_end_at (out, p);
}

static void
put_g (GString *out, gboolean negative, guint64 d, int e10, int precision)
{
  put_g_inline (out, negative, d, e10, precision);
}

/* round_digits for a precision of at most 9 and an a whose a 10^k (k = precision - 1 - e10,
 * 0 <= k <= 27) is the plots' durations and fractions, with one multiplication and no
 * division: a 10^k = m 5^k 2^(e2 - 52 + k), and m and 5^k each shifted up to their top bit
 * make a 128-bit product of which a 10^k is the top 64 bits shifted right by r (28 <= r
 * < 64 for such an a): the integer part, and the r bits shifted out with the low 64 bits
 * its fraction, so how to round is told exactly. The decimal exponent from the binary one
 * is right or one too small; in that case the integer part has one digit too many, and the
 * digit dropped joins the fraction. FALSE (leaving it to round_digits) for any other a, or
 * should the guess be off otherwise. */
static G_ALWAYS_INLINE inline gboolean
round_digits_short (double a, int precision, guint32 *d, int *e10)
{
  typedef unsigned __int128 u128;
  guint64 bits;
  int e2, e;
  if (!split_double (a, &bits, &e2, &e))
    return FALSE;
  int k = precision - 1 - e;
  if (k < 0 || k > 27)
    return FALSE;
  int z = __builtin_clzll (pow5[k]);
  int r = z - e2 - k - 1;   /* a 10^k = (m 2^11) (5^k 2^z) / 2^(64 + r) */
  if (r < 1 || r > 63)
    return FALSE;
  u128 product = (u128) ((bits << 11) | (1ull << 63)) * (pow5[k] << z);
  guint64 high = (guint64) (product >> 64), low = (guint64) product;
  guint64 whole = high >> r;
  guint64 rest = high & ((1ull << r) - 1), half = 1ull << (r - 1);
  if (whole < pow10[precision - 1] || whole >= pow10[precision + 1])
    return FALSE;
  gboolean up;
  if (whole >= pow10[precision])
    {
      /* one digit too many: the last one is the fraction's first */
      guint64 last = whole % 10;
      whole /= 10;
      e++;
      up = last > 5 || (last == 5 && (rest != 0 || low != 0 || (whole & 1)));
    }
  else
    up = rest > half || (rest == half && (low != 0 || (whole & 1)));
  whole += up;
  if (whole == pow10[precision])   /* rounded up to the next power of ten */
    {
      whole = pow10[precision - 1];
      e++;
    }
  *d = (guint32) whole;
  *e10 = e;
  return TRUE;
}

/* put_g for a precision of at most 9 (d < 10^9), written at p (which has room for 40 bytes):
 * the digits made all at once, their trailing zeros counted from the top zero bytes, and every
 * copy of a fixed size. Returns the byte after the text. */
static G_ALWAYS_INLINE inline char *
put_g_short_at (char *p, gboolean negative, guint32 d, int e10, int precision)
{
  typedef unsigned __int128 u128;
  guint32 low = precision <= 8 ? d : d % 100000000;
  guint64 lanes = eight_digits (low);
  guint64 text_lanes = lanes + 0x3030303030303030ull;
  /* the `precision` digits as text, the first in the lowest byte: kept in registers, as
   * copying them through a buffer on the stack stalled each read of it (the read of 8 bytes
   * spanning two writes cannot be forwarded from them) */
  u128 text = precision <= 8 ? (u128) (text_lanes >> (8 * (8 - precision)))
                             : ((u128) text_lanes << 8) | (guint8) ('0' + d / 100000000);
  /* the zeros at the end: every byte of `lanes` above its highest nonzero one; a d of
   * fewer than 9 digits has a nonzero `low` */
  int zeros = low == 0 ? 8 : __builtin_clzll (lanes) / 8;
  int keep = e10 < -4 || e10 >= precision ? 1 : MAX (e10 + 1, 1);
  int n = MAX (precision - zeros, keep);

  *p = '-';
  p += negative;
  if (e10 < -4 || e10 >= precision)
    {
      *p++ = (char) text;
      if (n > 1)
        {
          *p++ = '.';
          guint64 rest = (guint64) (text >> 8);
          memcpy (p, &rest, 8);
          p += n - 1;
        }
      p = put_exponent (p, e10);
    }
  else if (e10 >= 0)
    {
      int int_digits = e10 + 1;
      guint64 head = (guint64) text;
      memcpy (p, &head, 8);
      p[8] = (char) (text >> 64);
      p += int_digits;
      if (n > int_digits)
        {
          *p++ = '.';
          guint64 rest = (guint64) (text >> (8 * int_digits));
          memcpy (p, &rest, 8);
          p += n - int_digits;
        }
    }
  else
    {
      /* 0.000ddd: -e10 - 1 <= 3 zeros after the point */
      memcpy (p, "0.000", 5);
      p += 1 - e10;
      guint64 head = (guint64) text;
      memcpy (p, &head, 8);
      p[8] = (char) (text >> 64);
      p += n;
    }
  return p;
}

/* put_g_short_at into out's buffer */
static G_ALWAYS_INLINE inline void
put_g_short (GString *out, gboolean negative, guint32 d, int e10, int precision)
{
  rt_string_end_at (out, put_g_short_at (rt_string_room (out, 40), negative, d, e10, precision));
}

/* rt_format_g's fast path for one precision <= 9, a constant where it is inlined */
static G_ALWAYS_INLINE inline gboolean
format_g_short (GString *out, double v, int precision)
{
  guint32 d;
  int e10;
  if (v == 0 || !round_digits_short (fabs (v), precision, &d, &e10))
    return FALSE;
  put_g_short (out, v < 0, d, e10, precision);
  return TRUE;
}

void
rt_format_g (GString *out, double v, int precision)
{
  guint64 d;
  int e10;
  /* the plots' two precisions each with its own copy, their constants folded */
  if (precision == 9 ? format_g_short (out, v, 9)
      : precision == 6 ? format_g_short (out, v, 6)
      : precision >= 1 && precision <= 9 && format_g_short (out, v, precision))
    return;
  if (precision < 1 || precision > 17 || !isfinite (v) || v == 0
      || !round_digits (fabs (v), precision, &d, &e10, NULL))
    {
      char fmt[8], buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_snprintf (fmt, sizeof fmt, "%%.%dg", CLAMP (precision, 1, 17));
      g_string_append (out, g_ascii_formatd (buf, sizeof buf, fmt, v));
      return;
    }
  put_g (out, v < 0, d, e10, precision);
}

/* Whether %.<p>g of a reads back, a 10^k being w + rest / 2^sh exactly (rest < 2^sh) and
 * the digits of %.<p>g w with its last t digits rounded off, unit = 10^t (a constant where
 * it is inlined, so that the division is by one): q = w / unit rounded to nearest, a tie
 * to even. That decimal reads back while its distance to a, doubled (quadrupled below a
 * power of two, where the neighbour below is half as near), is under the gap between a
 * and its neighbour: a's ulp 10^k, which is 5^k in units of 2^-sh. Never a tie there: a
 * midpoint between two doubles below 2^52 is an odd multiple of 2^-j (j >= 2) of 54 bits,
 * which takes more than 17 digits. */
static G_ALWAYS_INLINE inline gboolean
reads_back_rounded (guint64 w, unsigned __int128 rest, int sh, unsigned __int128 gap, gboolean power_of_two,
                    guint64 unit, guint64 *q_out)
{
  typedef unsigned __int128 u128;
  guint64 q = w / unit, r = w % unit;
  u128 half_ulp = (u128) 1 << (sh - 1);   /* half of one unit of w, in units of 2^-sh */
  gboolean up = unit == 1 ? rest > half_ulp || (rest == half_ulp && (q & 1))
                          : r > unit / 2 || (r == unit / 2 && (rest != 0 || (q & 1)));
  q += up;
  *q_out = q;
  /* the decimal q unit against a 10^k = w + rest / 2^sh: off by delta units of w, less rest */
  gint64 delta = (gint64) (q * unit - w);
  u128 diff = delta > 0 ? ((u128) delta << sh) - rest : ((u128) -delta << sh) + rest;
  gboolean below = delta < 0 || (delta == 0 && rest != 0);
  u128 twice = below && power_of_two ? 4 * diff : 2 * diff;
  return twice < gap;
}

/* rt_format_double's choice for an a of 10^-11 <= a < 2^52 or so (a plot's times and
 * shares), with one product: a 10^k for k = 16 - e (e from the binary exponent, one too
 * small at most) is w + rest / 2^sh exactly, w of 17 or 18 digits. FALSE (leaving it to the
 * general way) outside that range, or when the rounding carries into a new digit. */
static gboolean
choose_digits (double a, guint64 *d, int *e10, int *precision)
{
  typedef unsigned __int128 u128;
  guint64 bits;
  int e2, e;
  if (!split_double (a, &bits, &e2, &e))
    return FALSE;
  guint64 m = (bits & ((1ull << 52) - 1)) | (1ull << 52);   /* a = m 2^(e2 - 52) */
  int k = 16 - e;
  int sh = 52 - e2 - k;           /* a 10^k = m 5^k / 2^sh */
  if (k < 0 || k > 27 || sh < 1 || sh > 90)
    return FALSE;
  u128 x = (u128) m * pow5[k];
  guint64 w = (guint64) (x >> sh);   /* 10^16 <= w < 10^18 */
  u128 rest = x & (((u128) 1 << sh) - 1);
  gboolean power_of_two = m == (1ull << 52) && e2 > -1022;
  u128 gap = pow5[k];
  /* the first of %.15g, %.16g that reads back, else %.17g (taken whether or not it does): 2,
   * 1, 0 digits of a w of 17 rounded off, or 3, 2, 1 of a w of 18 (the exponent one more).
   * %.16g is tried first: when %.15g reads back, so does %.16g (the nearest decimal of 16
   * digits is at least as near as one of 15, itself one of 16), so a %.16g that does not
   * (most of a plot's times, differences of two timestamps) spares trying %.15g. */
  gboolean short_w = w < pow10[17];
  *e10 = short_w ? e : e + 1;
  guint64 q, q15;
  if (!(short_w ? reads_back_rounded (w, rest, sh, gap, power_of_two, 10, &q)
                : reads_back_rounded (w, rest, sh, gap, power_of_two, 100, &q)))
    {
      if (short_w)
        reads_back_rounded (w, rest, sh, gap, power_of_two, 1, &q);
      else
        reads_back_rounded (w, rest, sh, gap, power_of_two, 10, &q);
      *precision = 17;
    }
  else if (short_w ? reads_back_rounded (w, rest, sh, gap, power_of_two, 100, &q15)
                   : reads_back_rounded (w, rest, sh, gap, power_of_two, 1000, &q15))
    {
      q = q15;
      *precision = 15;
    }
  else
    *precision = 16;
  *d = q;
  return q < pow10[*precision];   /* not rounded up into a new digit (all nines) */
}

void
rt_string_grow (GString *out, gsize n)
{
  gsize len = out->len;
  g_string_set_size (out, len + n);
  g_string_truncate (out, len);
}

void
rt_format_cdf_point (GString *out, double x, double fraction)
{
  /* the two numbers and their separators written in one go, without a call or a check of
   * room for each: this is most of what a cached rt-cdf does */
  guint32 dx, df;
  int ex, ef;
  if (x != 0 && fraction != 0
      && round_digits_short (fabs (x), 9, &dx, &ex) && round_digits_short (fabs (fraction), 6, &df, &ef))
    {
      char *p = put_g_short_at (rt_string_room (out, 96), x < 0, dx, ex, 9);
      *p++ = '\t';
      p = put_g_short_at (p, fraction < 0, df, ef, 6);
      *p++ = '\n';
      rt_string_end_at (out, p);
      return;
    }
  rt_format_g (out, x, 9);
  RT_STRING_PUT_LITERAL (out, "\t");
  rt_format_g (out, fraction, 6);
  RT_STRING_PUT_LITERAL (out, "\n");
}

void
rt_format_double (GString *out, double v)
{
  /* a whole number (-0 too: "0.0"), told without a call to floor */
  if (fabs (v) < 1e15 && v == (double) (gint64) v)
    {
      rt_format_int (out, (gint64) v);
      RT_STRING_PUT_LITERAL (out, ".0");
      return;
    }
  {
    guint64 d;
    int e10, precision;
    if (choose_digits (fabs (v), &d, &e10, &precision))
      {
        put_g_inline (out, v < 0, d, e10, precision);
        return;
      }
  }
  /* the shortest of %.15g..%.17g that reads back exactly: told in integers, or failing
   * that (a value past 10^+-27 of its digits) by reading it back (locale-independent) */
  for (int prec = 15; prec <= 17; prec++)
    {
      guint64 d;
      int e10;
      gboolean reads_back;
      if (!isfinite (v) || !round_digits (fabs (v), prec, &d, &e10, &reads_back))
        break;
      if (reads_back || prec == 17)
        {
          put_g (out, v < 0, d, e10, prec);
          return;
        }
    }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
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

/* "00" to "99" */
static const char digit_pairs[] =
  "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
  "8081828384858687888990919293949596979899";

void
rt_format_int (GString *out, gint64 v)
{
  guint64 u = v < 0 ? -(guint64) v : (guint64) v;
  gsize n = 1;   /* its digits: at most 19 (|G_MININT64| < 10^19) */
  while (n < 19 && u >= pow10[n])
    n++;
  gsize len = n + (v < 0);
  /* written straight into out's buffer, from the last digit back, two at a time */
  char *end = rt_string_room (out, 24) + len;
  char *p = end;
  for (; u >= 100; u /= 100)
    {
      p -= 2;
      memcpy (p, digit_pairs + 2 * (u % 100), 2);
    }
  if (u >= 10)
    {
      p -= 2;
      memcpy (p, digit_pairs + 2 * u, 2);
    }
  else
    *--p = (char) ('0' + u);
  if (v < 0)
    *--p = '-';
  rt_string_end_at (out, end);
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
