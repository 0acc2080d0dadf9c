/* SPDX-License-Identifier: Apache-2.0 */
/* gen-pow5.c: writes, at build time, the table of 128-bit powers of five by which the number
 * reader (src/decimal.c) turns a decimal significand and exponent into a double.
 *
 * For every q of [RT_POW5_MIN_Q, RT_POW5_MAX_Q] the table holds T(q) = floor(5^q / 2^b), the
 * one b for which T(q) has exactly 128 bits (2^127 <= T(q) < 2^128), as two 64-bit words, high
 * first. So T(q) <= 5^q / 2^b < T(q) + 1: it falls short of the true value by less than one,
 * never more, which decimal.c's error bound counts on. The numbers are computed exactly with a
 * small big-integer type: 5^q by repeated multiplication by 5, and for q < 0, 2^-b / 5^-q by
 * repeated division by 5 (floor (floor (x / 5) / 5) = floor (x / 25)).
 *
 * The range, and RT_POW10_EXP2 (q) = floor (q * log2 (10)) (a multiply and a shift, for the binary
 * exponent), are the reader's own (src/decimal-private.h); this program checks the formula
 * against the exact exponents of the table for every q, and fails the build if it were wrong
 * for one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT_DECIMAL_CONSTANTS_ONLY
#include "decimal-private.h"

#define MIN_Q RT_POW5_MIN_Q
#define MAX_Q RT_POW5_MAX_Q
#define LIMBS 64       /* 2048 bits in 32-bit limbs: 5^342 has 795 bits, 2^923 is the largest dividend */

typedef struct {
  uint32_t limb[LIMBS];   /* least significant first */
} Big;

static void
big_set_pow2 (Big *x, int k)
{
  memset (x, 0, sizeof *x);
  x->limb[k / 32] = (uint32_t) 1 << (k % 32);
}

static void
big_mul_small (Big *x, uint32_t m)
{
  uint64_t carry = 0;
  for (int i = 0; i < LIMBS; i++)
    {
      uint64_t v = (uint64_t) x->limb[i] * m + carry;
      x->limb[i] = (uint32_t) v;
      carry = v >> 32;
    }
  if (carry != 0)
    {
      fprintf (stderr, "gen-pow5: big integer overflow\n");
      exit (1);
    }
}

static void
big_div_small (Big *x, uint32_t d)
{
  uint64_t rem = 0;
  for (int i = LIMBS - 1; i >= 0; i--)
    {
      uint64_t v = (rem << 32) | x->limb[i];
      x->limb[i] = (uint32_t) (v / d);
      rem = v % d;
    }
}

/* The number of bits of x (0 for zero). */
static int
big_bits (const Big *x)
{
  for (int i = LIMBS - 1; i >= 0; i--)
    if (x->limb[i] != 0)
      {
        int b = 32;
        while (!(x->limb[i] >> (b - 1)))
          b--;
        return 32 * i + b;
      }
  return 0;
}

/* Bit i of x. */
static int
big_bit (const Big *x, int i)
{
  return i < 0 ? 0 : (int) (x->limb[i / 32] >> (i % 32)) & 1;
}

/* The 128 bits of x from bit `low` up, as two words, high first (bits below 0 are zeros). */
static void
big_take128 (const Big *x, int low, uint64_t out[2])
{
  out[0] = out[1] = 0;
  for (int i = 127; i >= 0; i--)
    {
      int w = i >= 64 ? 0 : 1;
      out[w] = (out[w] << 1) | (uint64_t) big_bit (x, low + i);
    }
}

int
main (int argc, char **argv)
{
  /* a build tool, run by the build alone: any option (--help included) only shows its use,
   * so that no file named like an option is ever written */
  if (argc == 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      printf ("usage: rt-gen-pow5 OUTPUT.h\n"
              "Writes the table of powers of five of the number reader (run by the build).\n");
      return 0;
    }
  if (argc != 2 || argv[1][0] == '-' || argv[1][0] == '\0')
    {
      fprintf (stderr, "usage: rt-gen-pow5 OUTPUT.h (a build tool, run by the build)\n");
      return 2;
    }
  static uint64_t table[MAX_Q - MIN_Q + 1][2];
  Big x;
  for (int q = MIN_Q; q <= MAX_Q; q++)
    {
      int b;   /* T(q) = floor (5^q / 2^b) */
      if (q >= 0)
        {
          big_set_pow2 (&x, 0);
          for (int i = 0; i < q; i++)
            big_mul_small (&x, 5);
          b = big_bits (&x) - 128;
          big_take128 (&x, b, table[q - MIN_Q]);   /* b < 0: shifted up, exactly */
        }
      else
        {
          /* 5^-q has n bits and is no power of two, so 2^(127 + n) / 5^-q lies in (2^127, 2^128) */
          big_set_pow2 (&x, 0);
          for (int i = 0; i < -q; i++)
            big_mul_small (&x, 5);
          int n = big_bits (&x);
          b = -(127 + n);
          big_set_pow2 (&x, 127 + n);
          for (int i = 0; i < -q; i++)
            big_div_small (&x, 5);
          if (big_bits (&x) != 128)
            {
              fprintf (stderr, "gen-pow5: T(%d) has %d bits, not 128\n", q, big_bits (&x));
              return 1;
            }
          big_take128 (&x, 0, table[q - MIN_Q]);
        }
      if (!(table[q - MIN_Q][0] >> 63))
        {
          fprintf (stderr, "gen-pow5: T(%d) is not normalised\n", q);
          return 1;
        }
      /* 5^q = T(q) * 2^b with T(q) in [2^127, 2^128): floor (q * log2 (5)) = b + 127, and
       * floor (q * log2 (10)) = b + 127 + q */
      if (RT_POW10_EXP2 (q) != b + 127 + q)
        {
          fprintf (stderr, "gen-pow5: the formula for floor (q * log2 (10)) is wrong at q = %d\n", q);
          return 1;
        }
    }

  /* written whole to a temporary name, then renamed */
  size_t len = strlen (argv[1]);
  char *tmp = malloc (len + 5);
  if (tmp == NULL)
    return 1;
  memcpy (tmp, argv[1], len);
  memcpy (tmp + len, ".tmp", 5);
  FILE *f = fopen (tmp, "w");
  if (f == NULL)
    {
      perror (tmp);
      return 1;
    }
  fprintf (f, "/* rt-pow5.h: written by tools/gen-pow5.c at build time; do not edit.\n"
              " * rt_pow5_128[q - RT_POW5_MIN_Q] = floor (5^q / 2^b), 128 bits, high word first. */\n"
              "G_STATIC_ASSERT (RT_POW5_MIN_Q == (%d) && RT_POW5_MAX_Q == %d);\n\n"
              "const guint64 rt_pow5_128[%d][2] = {\n",
           MIN_Q, MAX_Q, MAX_Q - MIN_Q + 1);
  for (int q = MIN_Q; q <= MAX_Q; q++)
    fprintf (f, "  { 0x%016llxull, 0x%016llxull },   /* 5^%d */\n", (unsigned long long) table[q - MIN_Q][0],
             (unsigned long long) table[q - MIN_Q][1], q);
  fprintf (f, "};\n");
  if (ferror (f) || fclose (f) != 0 || rename (tmp, argv[1]) != 0)
    {
      perror (argv[1]);
      remove (tmp);
      return 1;
    }
  free (tmp);
  return 0;
}
