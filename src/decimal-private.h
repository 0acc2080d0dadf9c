/* SPDX-License-Identifier: Apache-2.0 */
/* decimal-private.h: reads the numbers of a trace line (JSON numbers as Python's repr writes
 * them) faster than a general parser, correctly rounded; any other shape is left to the caller.
 * The reader is inline, so that each build of the line parser (json-line.cpp) has its own copy,
 * compiled for its instruction set; decimal.c holds the table and the reader for C callers. */
#pragma once

#include <glib.h>
#include <string.h>
/* SSE2 where the processor has it (every x86-64), else 64-bit words; RT_DECIMAL_SWAR asks for
 * the words anyway (tests/unit/test-json-numbers.c checks them so) */
#if defined(__SSE2__) && !defined(RT_DECIMAL_SWAR)
#define RT_DECIMAL_SSE2 1
#include <emmintrin.h>
#endif
#if defined(__SSSE3__) && !defined(RT_DECIMAL_SWAR)
#include <tmmintrin.h>
#endif
#ifdef __BMI__   /* the wider kernels of json-line.cpp */
#include <immintrin.h>
#endif

G_BEGIN_DECLS

/* Reads the number at the start of the token tok[0, len): `-`?, `0` or a digit 1-9 and more
 * digits, then `.` and digits or not, then an exponent (`e` or `E`, a sign or not, 1 to 4
 * digits) or not, with at most 19 digits from the first that is not 0. Sets *out to the double
 * nearest to it (ties to even), as strtod does, and returns how many bytes it took: the byte
 * after them, tok[returned], is where the number ends (within the token, or the byte just after
 * it). Returns 0, and leaves *out alone, for a token of any other shape or a number beyond a
 * double's range, and on the very rare numbers it cannot round with certainty: the caller reads
 * those another way. Reads no byte past tok + len + 24 (the line's padding makes that safe). */
gsize rt_decimal_read_double (const char *tok, gsize len, double *out);

/* The same for a count: `0` or a digit 1-9 and up to 14 more digits (no sign, fraction or
 * exponent); returns 0 for anything else. */
gsize rt_decimal_read_count (const char *tok, gsize len, gint64 *out);


/* The table of powers of five (decimal.c, written by tools/gen-pow5.c, which also checks
 * RT_POW10_EXP2 against it): rt_pow5_128[q - RT_POW5_MIN_Q] = floor (5^q / 2^b), the 128 bits
 * of 5^q, high word first. RT_POW10_EXP2 (q) = floor (q * log2 (10)) in that range. */
#define RT_POW5_MIN_Q (-342)   /* below: any 19-digit significand times 10^q rounds to zero */
#define RT_POW5_MAX_Q 308      /* above: any nonzero significand times 10^q overflows */
#define RT_POW10_EXP2(q) (((q) * 217706) >> 16)
extern const guint64 rt_pow5_128[RT_POW5_MAX_Q - RT_POW5_MIN_Q + 1][2];

#ifndef RT_DECIMAL_CONSTANTS_ONLY   /* (tools/gen-pow5.c, which makes the table, takes only the above) */

/* How it reads the numbers of a trace line into doubles, correctly rounded, eight digits at
 * a time; the shapes it does not read (rare in a trace) are left to simdjson and strtod.
 *
 * Almost every trace line has a duration written by Python's repr: the fewest digits that read
 * back as the double, up to 17 of them (0.00019567119561548146, 11.626323250366179,
 * 9.297944485836619e-05). Such a number is w * 10^q with w a 64-bit integer. The digits are
 * gathered into w eight at a time (SWAR: one 64-bit load, a few multiplications), then:
 * - when w < 2^53 and |q| <= 22, w and 10^|q| are both exact doubles, and one multiplication or
 *   division rounds correctly (Clinger's fast path);
 * - else w * 5^q * 2^q is computed with a 128-bit approximation of 5^q (rt-pow5.h, made at build
 *   time by tools/gen-pow5.c) in the manner of Eisel and Lemire: the product is known to within
 *   two units of its 128th bit, and unless a rounding boundary lies within those two units (a
 *   true tie, like 2^53 + 1, or about one number in 2^70) that fixes the double. Then, and for
 *   whatever is not of the shape, 0 is returned and the caller reads the number another way. */
static inline guint64
dec_load8 (const char *p)
{
  guint64 w;
  memcpy (&w, p, 8);
  return GUINT64_FROM_LE (w);   /* byte 0, the first character, lowest */
}

/* The index of the first byte of x that is not zero, 8 when there is none. In a kernel built
 * for processors with BMI, a count of trailing zero bits (tzcnt counts 64 in a zero x). Else
 * not with ctz: on x86-64 its quick form is that instruction, which older processors lack (see
 * tests/wide-insn-check.py); x & -x keeps x's lowest set bit; one less sets every bit below it,
 * so that the bytes before that bit's byte are 0xff and no other byte has its top bit set; their
 * top bits are summed. */
static inline guint
dec_first_nonzero_byte (guint64 x)
{
#ifdef __BMI__
  return (guint) (_tzcnt_u64 (x) >> 3);
#else
  guint64 below = (x & (0 - x)) - 1;
  return (guint) ((((below >> 7) & 0x0101010101010101ull) * 0x0101010101010101ull) >> 56);
#endif
}

static const guint64 dec_pow10_u64[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };

/* How many of the eight bytes of v, from the first, are digits. A byte is a digit when its
 * high nibble is 3 and stays 3 once 6 is added (0x3a-0x3f become 0x40-0x45). Adding 6 may
 * carry into the next byte only from a byte of 0xfa or more, which is no digit: the carry
 * can spoil only bytes after the first one that is not a digit. */
static inline guint
dec_leading_digits (guint64 v)
{
  const guint64 high = 0xf0f0f0f0f0f0f0f0ull, threes = 0x3030303030303030ull;
  guint64 not_digit = ((v & high) ^ threes) | (((v + 0x0606060606060606ull) & high) ^ threes);
  return dec_first_nonzero_byte (not_digit);
}

/* The number written by eight digit values d (byte 0 the first, most significant digit): pairs
 * of digits, then pairs of pairs, then the two halves, each step one multiplication; no lane
 * overflows into the next (99, 9999 and 99999999 fit their lanes). */
static inline guint64
dec_eight_digits (guint64 d)
{
  d = ((d * 10) + (d >> 8)) & 0x00ff00ff00ff00ffull;
  d = ((d * 100) + (d >> 16)) & 0x0000ffff0000ffffull;
  return ((d * 10000) + (d >> 32)) & 0xffffffffull;
}

/* Appends the digits at *p (none at or past end) to *w, eight at a time: *w = *w * 10^n + the
 * digits. Returns n, or more than 19 (and stops) once there are too many for *w. */
static inline guint
dec_read_digits (const char **p, const char *end, guint64 *w)
{
  guint n = 0;
  while (*p < end)
    {
      guint64 v = dec_load8 (*p);
      guint k = dec_leading_digits (v);
      if (k > (gsize) (end - *p))
        k = (guint) (end - *p);
      if (k == 0)
        break;
      /* the k digits' values moved to the top of the word, zeros before them: subtracting '0'
       * borrows only from bytes after the digits, which the shift drops */
      guint64 d = (v - 0x3030303030303030ull) << (8 * (8 - k));
      *w = *w * dec_pow10_u64[k] + dec_eight_digits (d);
      *p += k;
      n += k;
      if (k < 8 || n > 19)
        break;
    }
  return n;
}

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 dec_u128;

/* w * 5^q / 2^(b + 64), where T(q) = 5^q / 2^b truncated to 128 bits: c, the top 128 bits of the
 * 192-bit w' * T with w' = w << lz in [2^63, 2^64), falls short of the true value by less than 2:
 * one for the product's low word left out, one for the truncation of T (w' * (5^q / 2^b - T) is
 * below 2^64). c >= 2^126, as w' >= 2^63 and T >= 2^127; c < 2^128, as w' * T < 2^192. */
static inline dec_u128
dec_scaled_product (guint64 w, int q, int *lz)
{
  *lz = __builtin_clzll (w);
  guint64 wn = w << *lz;
  const guint64 *t = rt_pow5_128[q - RT_POW5_MIN_Q];
  return (dec_u128) wn * t[0] + (((dec_u128) wn * t[1]) >> 64);
}

/* The general case of dec_to_double, subnormal results included: the bits of the double nearest
 * to c * 2^(e - top) where c lies in [2^top, 2^(top + 1)), or FALSE. */
G_NO_INLINE static gboolean
dec_round_general (dec_u128 c, int top, int e, guint64 *out)
{
  int kept = e >= -1022 ? 53 : e + 1075;   /* a subnormal keeps fewer bits */
  if (kept < 0)
    {
      if (e < -1076)   /* below 2^-1076 + a hair: nearer to zero than to 2^-1074 */
        {
          *out = 0;
          return TRUE;
        }
      return FALSE;
    }
  /* the bits kept, then the rounding bit at `round`, then the ones below it. The true value,
   * somewhere in [c, c + 2), rounds as c does unless a halfway point lies in that range:
   * the bits from the rounding bit down would then be 0111..1 or 1000..0. */
  int round = top - kept;   /* in [73, 127] */
  dec_u128 half = (dec_u128) 1 << round;
  dec_u128 below = c & ((half << 1) - 1);   /* half << 1 is 0 when round is 127: all of c */
  if (below == half || below == half - 1)
    return FALSE;
  guint64 m = (guint64) ((c >> round) >> 1) + (below > half);
  /* a normal double's fields: biased exponent e + 1023, then m without its top bit; adding m
   * whole to (e + 1022) << 52 does both, and a carry out of m (rounded up to 2^53) moves the
   * exponent up as it should. A subnormal's fields are m itself (its exponent field 0), and a
   * carry to 2^52 makes it the least normal double. */
  guint64 bits = e >= -1022 ? ((guint64) (e + 1022) << 52) + m : m;
  if (bits >= G_GUINT64_CONSTANT (0x7ff0000000000000))
    return FALSE;   /* infinite */
  *out = bits;
  return TRUE;
}
#endif

/* w * 10^q, rounded to the nearest double (ties to even), into *out as the double's bits (the
 * caller adds the sign and stores them: a double made here would go through the stack, in the
 * way of every number); FALSE when it overflows, lies out of the table's range, or cannot be
 * rounded with certainty. */
static inline gboolean
dec_to_double (guint64 w, int q, guint64 *out)
{
#ifdef __SIZEOF_INT128__
  if (G_UNLIKELY (w == 0))
    {
      *out = 0;
      return TRUE;
    }
  if (G_UNLIKELY (q < RT_POW5_MIN_Q || q > RT_POW5_MAX_Q))
    return FALSE;
  int lz;
  dec_u128 c = dec_scaled_product (w, q, &lz);
  guint64 hi = (guint64) (c >> 64), lo = (guint64) c;
  int top = 126 + (int) (hi >> 63);
  /* w * 10^q = w' * 2^-lz * T * 2^b * 2^q lies in [2^e, 2^(e + 1)), as b + 127 + q is
   * floor (q * log2 (10)) */
  int e = RT_POW10_EXP2 (q) + top - 63 - lz;
  if (G_UNLIKELY (e < -1022 || e > 1023))
    return dec_round_general (c, top, e, out);
  /* a normal double: the 53 bits kept and the rounding bit all lie in hi, with the s bits
   * below it (9 or 10) and lo after them. The true value, in [c, c + 2), rounds as c does
   * unless a halfway point lies in that range: the bits from the rounding bit down would then
   * be 0111..1 or 1000..0 (dec_round_general says the same at more cost). */
  int s = 9 + (int) (hi >> 63);
  guint64 from_round = hi & ((G_GUINT64_CONSTANT (2) << s) - 1), half = G_GUINT64_CONSTANT (1) << s;
  if (G_UNLIKELY ((from_round == half && lo == 0) || (from_round == half - 1 && lo == G_MAXUINT64)))
    return FALSE;
  guint64 m = ((hi >> s) + 1) >> 1;   /* rounded up when the rounding bit is set */
  /* the fields: biased exponent e + 1023, then m without its top bit; adding m whole to
   * (e + 1022) << 52 does both, and a carry out of m (rounded up to 2^53) moves the exponent
   * up as it should */
  guint64 bits = ((guint64) (e + 1022) << 52) + m;
  if (G_UNLIKELY (bits >= G_GUINT64_CONSTANT (0x7ff0000000000000)))
    return FALSE;   /* infinite */
  *out = bits;
  return TRUE;
#else
  (void) w, (void) q, (void) out;
  return FALSE;
#endif
}

/* Any number of the shape dec_read_double reads, a digit at a time where need be. */
G_NO_INLINE static gsize
dec_read_general (const char *tok, gsize len, double *out)
{
  const char *p = tok, *end = tok + len;
  if (p == end)
    return 0;
  gboolean negative = *p == '-';
  p += negative;
  guint64 w = 0;
  guint n = 0;   /* digits in w, from the first that is not 0 */
  int q = 0;
  if (p < end && *p == '0')
    p++;
  else if (p < end && *p >= '1' && *p <= '9')
    n = dec_read_digits (&p, end, &w);
  else
    return 0;
  if (p < end && *p == '.')
    {
      p++;
      const char *first = p;
      if (w == 0)   /* 0.000123: the zeros only move the point */
        while (p < end && *p == '0')
          p++;
      guint frac = dec_read_digits (&p, end, &w);
      if (p == first)
        return 0;   /* `1.` */
      n += frac;
      q = -(int) (p - first);
    }
  if (n > 19)
    return 0;
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      gboolean exp_negative = p < end && *p == '-';
      if (p < end && (*p == '-' || *p == '+'))
        p++;
      int x = 0, digits = 0;
      for (; p < end && *p >= '0' && *p <= '9'; p++, digits++)
        {
          if (digits == 4)
            return 0;
          x = x * 10 + (*p - '0');
        }
      if (digits == 0)
        return 0;
      q += exp_negative ? -x : x;
    }
  guint64 bits;
  if (!dec_to_double (w, q, &bits))
    return 0;
  bits |= (guint64) negative << 63;
  memcpy (out, &bits, sizeof bits);
  return (gsize) (p - tok);
}

static inline gsize
dec_read_count (const char *tok, gsize len, gint64 *out)
{
  const char *p = tok, *end = tok + len;
  guint64 w = 0;
  if (p < end && *p == '0')
    p++;
  else if (p < end && *p >= '1' && *p <= '9')
    {
      if (dec_read_digits (&p, end, &w) > 15)
        return 0;
    }
  else
    return 0;
  *out = (gint64) w;
  return (gsize) (p - tok);
}

/* The first k bytes of v (k in [0, 8]), and '0' in place of the others. */
static inline guint64
dec_keep_digits (guint64 v, guint k)
{
  static const guint64 low_bytes[9] = {
    0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull, 0xffffffffffffull, 0xffffffffffffffull,
    0xffffffffffffffffull,
  };
  guint64 m = low_bytes[k];
  return (v & m) | (0x3030303030303030ull & ~m);
}

/* Whether all eight bytes of v are digits (dec_leading_digits tells the same at more cost). */
static inline gboolean
dec_all_digits (guint64 v)
{
  const guint64 high = 0xf0f0f0f0f0f0f0f0ull;
  return ((v & high) | (((v + 0x0606060606060606ull) & high) >> 4)) == 0x3333333333333333ull;
}

static inline guint
dec_clamp8 (int k)
{
  return k < 0 ? 0 : k > 8 ? 8 : (guint) k;
}

/* The n digits at s (n <= 16, known: the number's end is the token's), followed by 16 - n
 * zeros (trailing zeros cost nothing: the exponent takes them back), into *w; FALSE when one of
 * them is no digit. Reads s[0, 16). */
#ifdef RT_DECIMAL_SSE2
/* Sixteen bytes at once: the bytes past n cleared, each checked to be a digit value, then
 * pairs, groups of four and of eight made by multiply-adds of neighbouring lanes (10 and 1,
 * 100 and 1, 10000 and 1); the two groups of eight come out in one 64-bit word. */
static inline gboolean
dec_sixteen_digits (const char *s, guint n, guint64 *w)
{
  const __m128i index = _mm_setr_epi8 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m128i keep = _mm_cmplt_epi8 (index, _mm_set1_epi8 ((char) n));
  __m128i d = _mm_and_si128 (_mm_sub_epi8 (_mm_loadu_si128 ((const __m128i *) s), _mm_set1_epi8 ('0')), keep);
  if (_mm_movemask_epi8 (_mm_cmpeq_epi8 (_mm_min_epu8 (d, _mm_set1_epi8 (9)), d)) != 0xffff)
    return FALSE;
  const __m128i hundred_one = _mm_set1_epi32 (0x00010064), ten_thousand_one = _mm_set1_epi32 (0x00012710);
#ifdef __SSSE3__
  /* (the wider kernels: one multiply-add of bytes makes the pairs) */
  __m128i pairs = _mm_maddubs_epi16 (d, _mm_set1_epi16 (0x010a));
#else
  const __m128i zero = _mm_setzero_si128 (), ten_one = _mm_set1_epi32 (0x0001000a);
  __m128i pairs = _mm_packs_epi32 (_mm_madd_epi16 (_mm_unpacklo_epi8 (d, zero), ten_one),
                                   _mm_madd_epi16 (_mm_unpackhi_epi8 (d, zero), ten_one));
#endif
  __m128i fours = _mm_madd_epi16 (pairs, hundred_one);
  __m128i eights = _mm_madd_epi16 (_mm_packs_epi32 (fours, fours), ten_thousand_one);
  guint64 both = (guint64) _mm_cvtsi128_si64 (eights);
  *w = (both & 0xffffffff) * 100000000 + (both >> 32);
  return TRUE;
}
#else
static inline gboolean
dec_sixteen_digits (const char *s, guint n, guint64 *w)
{
  guint64 c0 = dec_keep_digits (dec_load8 (s), dec_clamp8 ((int) n));
  guint64 c1 = dec_keep_digits (dec_load8 (s + 8), dec_clamp8 ((int) n - 8));
  if (!(dec_all_digits (c0) & dec_all_digits (c1)))
    return FALSE;
  c0 -= 0x3030303030303030ull;
  c1 -= 0x3030303030303030ull;
  *w = dec_eight_digits (c0) * 100000000 + dec_eight_digits (c1);
  return TRUE;
}
#endif

/* The same for n <= 17 digits (the most a Python repr has), followed by 17 - n zeros. Reads
 * s[0, 17). The seventeenth digit is read whether there is one or not, and kept or not without
 * a branch: whether a number has 16 significant digits or 17 is a toss-up from one to the
 * next, and a branch on it was mispredicted often enough to cost more than the digit. */
static inline gboolean
dec_seventeen_digits (const char *s, guint n, guint64 *w)
{
  guint64 w16;
  guint d16 = (guchar) (s[16] - '0') & (0 - (guint) (n > 16));   /* (a mask: GCC makes ?: a branch) */
  if (!dec_sixteen_digits (s, MIN (n, 16), &w16) || d16 > 9)
    return FALSE;
  *w = w16 * 10 + d16;
  return TRUE;
}

/* Python's reprs fill their token (a comma or brace follows) and come in two shapes, read here
 * without a loop over their digits: 0.<zeros><at most 17 digits> and <1 to 3 digits>.<at most
 * 16 digits> (or <1 to 3 digits>), then perhaps an exponent of the form e-05, e+16 or e-308.
 * Knowing where the number ends, the digits are taken eight at a time and checked after.
 * Every other token (more digits, other exponents, white space after the number, no number at
 * all) is read by dec_read_general. */
static inline gsize
dec_read_double (const char *tok, gsize len, double *out)
{
  if (len < 1 || len > 40)
    return dec_read_general (tok, len, out);
  const char *end = tok + len;
  gboolean negative = *tok == '-';
  const char *p = tok + negative;
  /* an exponent as Python writes it: `e`, a sign, then 2 or 3 digits */
  const char *mend = end;   /* where the significand ends */
  int x = 0;
  if (len >= 5 && (end[-4] | 0x20) == 'e')
    {
      if ((end[-3] != '-' && end[-3] != '+') || (guchar) (end[-2] - '0') > 9 || (guchar) (end[-1] - '0') > 9)
        return dec_read_general (tok, len, out);
      x = (end[-2] - '0') * 10 + (end[-1] - '0');
      x = end[-3] == '-' ? -x : x;
      mend = end - 4;
    }
  else if (len >= 6 && (end[-5] | 0x20) == 'e')
    {
      if ((end[-4] != '-' && end[-4] != '+') || (guchar) (end[-3] - '0') > 9 || (guchar) (end[-2] - '0') > 9
          || (guchar) (end[-1] - '0') > 9)
        return dec_read_general (tok, len, out);
      x = (end[-3] - '0') * 100 + (end[-2] - '0') * 10 + (end[-1] - '0');
      x = end[-4] == '-' ? -x : x;
      mend = end - 5;
    }
  if (mend <= p)
    return dec_read_general (tok, len, out);
  guint64 w;
  int q;
  if (p[0] == '0' && mend - p >= 2 && p[1] == '.')
    {
      const char *f = p + 2, *s = f;
      for (;;)   /* the zeros after the point */
        {
          guint64 z = dec_load8 (s) ^ 0x3030303030303030ull;
          guint k = dec_first_nonzero_byte (z);
          if (mend - s < (gssize) k)
            k = (guint) (mend - s);
          s += k;
          if (k < 8)
            break;
        }
      if (mend == f || mend - s > 17 || !dec_seventeen_digits (s, (guint) (mend - s), &w))
        return dec_read_general (tok, len, out);
      q = -(int) (s - f) - 17;
    }
  else if (p[0] >= '1' && p[0] <= '9')
    {
      guint64 v = dec_load8 (p);
      guint ni = dec_leading_digits (v);
      if (mend - p < (gssize) ni)
        ni = (guint) (mend - p);
      guint64 frac = 0;
      if (ni > 3)
        return dec_read_general (tok, len, out);
      if (p + ni < mend)
        {
          const char *f = p + ni + 1;
          if (p[ni] != '.' || mend == f || mend - f > 16 || !dec_sixteen_digits (f, (guint) (mend - f), &frac))
            return dec_read_general (tok, len, out);
        }
      guint64 d = v - 0x3030303030303030ull;
      guint64 d0 = d & 0xff, d1 = (d >> 8) & 0xff, d2 = (d >> 16) & 0xff;
      guint64 iv = ni == 1 ? d0 : ni == 2 ? d0 * 10 + d1 : d0 * 100 + d1 * 10 + d2;
      w = iv * G_GUINT64_CONSTANT (10000000000000000) + frac;   /* iv.frac * 10^16 */
      q = -16;
    }
  else
    return dec_read_general (tok, len, out);
  guint64 bits;
  if (!dec_to_double (w, q + x, &bits))
    return 0;
  bits |= (guint64) negative << 63;   /* the sign bit: -d, -0 included */
  memcpy (out, &bits, sizeof bits);
  return len;
}

#endif  /* !RT_DECIMAL_CONSTANTS_ONLY */

G_END_DECLS
