/* SPDX-License-Identifier: Apache-2.0 */
/* test-jsonw.c: the JSON writer behind every --json: commas, escapes, null for NaN,
 * and numbers that read back to the very same double. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rolltrace/rt-jsonw.h"
#include "rolltrace/rt-views.h"

static void
test_nested_document (void)
{
  g_autoptr (GString) out = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_jw_begin_object (&w);
  rt_jw_member_int (&w, "a", 1);
  rt_jw_key (&w, "b");
  rt_jw_begin_array (&w);
  rt_jw_number (&w, 0.5);
  rt_jw_null (&w);
  rt_jw_begin_object (&w);
  rt_jw_end_object (&w);
  rt_jw_end_array (&w);
  rt_jw_member_string (&w, "c", "x\"y\\z\n");
  rt_jw_key (&w, "d");
  rt_jw_bool (&w, TRUE);
  rt_jw_end_object (&w);
  g_assert_cmpstr (out->str, ==, "{\"a\": 1, \"b\": [0.5, null, {}], \"c\": \"x\\\"y\\\\z\\n\", \"d\": true}");
}

static void
test_non_finite_numbers_are_null (void)
{
  g_autoptr (GString) out = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_jw_begin_array (&w);
  rt_jw_number (&w, NAN);
  rt_jw_number (&w, INFINITY);
  rt_jw_end_array (&w);
  g_assert_cmpstr (out->str, ==, "[null, null]");
}

static void
test_numbers_round_trip_in_shortest_form (void)
{
  const double values[] = { 0.1, 23.03253710964952, 1e-05, 4096, -2.5, 1.0 / 3.0, 6.02e23, 7.787102420906642e-05 };
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr (GString) out = g_string_new (NULL);
      rt_format_double (out, values[i]);
      g_assert_cmpfloat (g_ascii_strtod (out->str, NULL), ==, values[i]);
      g_assert_cmpuint (out->len, <=, 24);
    }
  g_autoptr (GString) s = g_string_new (NULL);
  rt_format_double (s, 0.1);
  g_assert_cmpstr (s->str, ==, "0.1");
  g_string_truncate (s, 0);
  rt_format_double (s, 4096);
  g_assert_cmpstr (s->str, ==, "4096.0");
}

/* Escapes at the edges of a string and next to each other: the escaper copies the runs between
 * them whole, so an off-by-one there would drop or repeat a byte. */
static void
test_escapes_at_every_position (void)
{
  static const struct { const char *in, *out; } cases[] = {
    { "", "\"\"" },
    { "plain", "\"plain\"" },
    { "\"", "\"\\\"\"" },
    { "\"a", "\"\\\"a\"" },
    { "a\\", "\"a\\\\\"" },
    { "\n\t\r", "\"\\n\\t\\r\"" },
    { "a\001b\037", "\"a\\u0001b\\u001f\"" },
    { "caf\xc3\xa9 \"x\"", "\"caf\xc3\xa9 \\\"x\\\"\"" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) out = g_string_new (NULL);
      RtJsonWriter w;
      rt_jw_init (&w, out);
      rt_jw_string (&w, cases[i].in);
      g_assert_cmpstr (out->str, ==, cases[i].out);
    }
}

static void
test_integers_as_printf_writes_them (void)
{
  const gint64 values[] = { 0, 7, -1, 10, 1234567890123, G_MAXINT64, G_MININT64 };
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr (GString) out = g_string_new ("x");
      rt_format_int (out, values[i]);
      g_autofree char *expected = g_strdup_printf ("x%" G_GINT64_FORMAT, values[i]);
      g_assert_cmpstr (out->str, ==, expected);
    }
}

/* rt_format_int counts the digits against the powers of ten and writes them two at a time,
 * into the string's buffer when it has room: every power of ten and its neighbours, both
 * signs, and random values of every length, into a string with room and one without. */
static void
test_integers_at_every_length_as_printf_writes_them (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (19);
  g_autoptr (GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  gint64 power = 1;
  for (int k = 0; k <= 18; k++, power = k <= 18 ? power * 10 : power)
    for (gint64 d = -1; d <= 1; d++)
      for (int sign = -1; sign <= 1; sign += 2)
        {
          gint64 *v = g_new (gint64, 1);
          *v = sign * (power + d);
          g_ptr_array_add (values, v);
        }
  for (int i = 0; i < 20000; i++)
    {
      gint64 *v = g_new (gint64, 1);
      guint64 bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
      *v = (gint64) (bits >> g_rand_int_range (r, 0, 64));
      if (i & 1)
        *v = -*v;
      g_ptr_array_add (values, v);
    }
  for (guint i = 0; i < values->len; i++)
    {
      gint64 v = *(gint64 *) g_ptr_array_index (values, i);
      g_autofree char *want = g_strdup_printf ("x%" G_GINT64_FORMAT, v);
      g_autoptr (GString) tight = g_string_new ("x");   /* no room: the buffer grows */
      g_autoptr (GString) roomy = g_string_sized_new (256);
      g_string_append_c (roomy, 'x');
      rt_format_int (tight, v);
      rt_format_int (roomy, v);
      g_assert_cmpstr (tight->str, ==, want);
      g_assert_cmpstr (roomy->str, ==, want);
      g_assert_cmpuint (roomy->len, ==, strlen (want));
    }
}

/* rt_format_g against printf's %.Ng: the plots' data files must not change by a byte. Ties
 * (0.125 to 2 digits: printf rounds them to even), powers of ten and the edges of the fixed
 * and exponent forms by hand; then durations, fractions i/n and arbitrary doubles. */
static void
test_g_format_as_printf_writes_it (void)
{
  static const double edges[] = {
    0.125, 0.375, 2.5, 1.5, 0.5, 1e-5, 1e-4, 9.9999999995e-5, 0.0001, 123456789, 999999999.5,
    999999.5, 1e9, 1e15, 1e16, 1e-300, 5e-324, 1.7976931348623157e308, -0.0, 0.0, 1, 10, 100,
    0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 12345.6789, -12345.6789, 3.14159265358979, 65536.0,
    0.000276931, 4.99999999999e-5, INFINITY, -INFINITY, NAN,
  };
  g_autoptr (GString) out = g_string_new (NULL);
  char want[64];
  guint checked = 0;
  for (int prec = 1; prec <= 17; prec++)
    for (guint i = 0; i < G_N_ELEMENTS (edges); i++)
      {
        g_string_truncate (out, 0);
        rt_format_g (out, edges[i], prec);
        g_ascii_formatd (want, sizeof want, prec == 6 ? "%.6g" : prec == 9 ? "%.9g" : "%.3g", edges[i]);
        if (prec == 6 || prec == 9 || prec == 3)
          g_assert_cmpstr (out->str, ==, want);
        snprintf (want, sizeof want, "%.*g", prec, edges[i]);
        if (isfinite (edges[i]))   /* printf spells infinities its own way; C locale here */
          g_assert_cmpstr (out->str, ==, want);
        checked++;
      }
  GRand *r = g_rand_new_with_seed (16);
  for (guint i = 0; i < 2000000; i++)
    {
      double v;
      guint32 n;
      guint64 bits;
      switch (i % 4)
        {
        case 0: v = g_rand_double_range (r, 0, 1000); break;
        case 1: n = (guint32) g_rand_int_range (r, 1, 400000); v = (double) g_rand_int_range (r, 1, (gint32) n + 1) / n; break;
        case 2:
          bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
          memcpy (&v, &bits, sizeof v);
          if (!isfinite (v))
            continue;
          break;
        default: v = round (g_rand_double_range (r, -1e6, 1e6)) / pow (10, g_rand_int_range (r, 0, 12)); break;
        }
      int prec = i % 7 == 0 ? g_rand_int_range (r, 1, 18) : (i & 1) ? 9 : 6;
      g_string_truncate (out, 0);
      rt_format_g (out, v, prec);
      snprintf (want, sizeof want, "%.*g", prec, v);
      if (strcmp (out->str, want) != 0)
        g_error ("%.17g to %d digits: %s, printf %s", v, prec, out->str, want);
      checked++;
    }
  g_rand_free (r);
  g_assert_cmpuint (checked, >, 1900000);
}

/* One double to `prec` digits against printf; a failure names the value. */
static void
check_g (GString *out, double v, int prec)
{
  char want[64];
  g_string_truncate (out, 0);
  rt_format_g (out, v, prec);
  snprintf (want, sizeof want, "%.*g", prec, v);
  if (strcmp (out->str, want) != 0)
    g_error ("%.17g (%a) to %d digits: %s, printf %s", v, v, prec, out->str, want);
}

/* rt_format_g's short path (up to 9 digits, exact integer rounding with the decimal
 * exponent guessed from the binary one) against printf where it can go wrong: every binary
 * exponent the path takes and those around it, the doubles next to each rounding boundary
 * below a power of ten (where the guess is one too small, or the digits round up to the
 * next power), exact ties (odd / 2^j, which printf rounds half to even in the default
 * rounding mode), and the plots' fractions i / n for n up to 10^6. */
static void
test_g_short_path_as_printf_writes_it (void)
{
  g_autoptr (GString) out = g_string_new (NULL);
  GRand *r = g_rand_new_with_seed (1616);
  guint checked = 0;
  /* every exponent: random mantissas from 2^-90 to 2^60, both signs */
  for (int e2 = -90; e2 <= 60; e2++)
    for (int i = 0; i < 700; i++)
      {
        double v = ldexp (1.0 + g_rand_double (r), e2) * (i & 1 ? -1 : 1);
        check_g (out, v, 1 + i % 9);
        checked++;
      }
  /* next to the boundaries (10^P - 1/2) 10^(E - P + 1), where the digits round up to
   * 10^P, and to the powers of ten themselves */
  for (int prec = 1; prec <= 9; prec++)
    for (int e10 = -22; e10 <= 22; e10++)
      {
        double boundary = (pow (10, prec) - 0.5) * pow (10, e10 - prec + 1);
        double power = pow (10, e10);
        for (int side = 0; side < 2; side++)
          {
            double v = side ? boundary : power;
            double below = v, above = v;
            for (int step = 0; step < 4; step++)
              {
                check_g (out, below, prec);
                check_g (out, above, prec);
                below = nextafter (below, 0);
                above = nextafter (above, INFINITY);
                checked += 2;
              }
          }
      }
  /* exact ties: odd / 2^j has j decimals, the last a 5, so to one digit fewer it is a tie */
  for (guint i = 0; i < 200000; i++)
    {
      guint32 odd = (guint32) g_rand_int_range (r, 0, 1 << 20) | 1;
      double v = ldexp (odd, -g_rand_int_range (r, 0, 24));
      check_g (out, v, 1 + i % 9);
      checked++;
    }
  for (guint d = 1; d < 20000; d++)   /* d + 1/2 to as many digits as d has */
    for (int prec = 1; prec <= 5; prec++)
      {
        check_g (out, d + 0.5, prec);
        checked++;
      }
  /* fractions: every i / n for n up to 700, then random ranks of n up to 10^6 */
  for (guint n = 1; n <= 700; n++)
    for (guint i = 1; i <= n; i++)
      {
        check_g (out, (double) i / n, 6);
        check_g (out, (double) i / n, 9);
        checked += 2;
      }
  for (guint k = 0; k < 500000; k++)
    {
      guint32 n = (guint32) g_rand_int_range (r, 1, 1000001);
      guint32 i = (guint32) g_rand_int_range (r, 1, (gint32) n + 1);
      check_g (out, (double) i / n, k & 1 ? 6 : 9);
      checked++;
    }
  g_rand_free (r);
  g_assert_cmpuint (checked, >, 1000000);
}

/* A CDF block of the plots keeps ranks 0, stride, 2 stride, ... and always the last, each as
 * %.9g of the value and %.6g of the rank's fraction: built here with printf, by testing
 * every rank, for samples of every size against limits of points that do and do not
 * divide them. */
static void
test_cdf_block_as_printf_writes_it (void)
{
  double sorted[300];
  for (guint i = 0; i < G_N_ELEMENTS (sorted); i++)
    sorted[i] = 0.01 * exp (i / 25.0) + i * 1e-7;
  for (guint n = 0; n <= G_N_ELEMENTS (sorted); n++)
    for (guint max_points = 1; max_points <= 40; max_points++)
      {
        g_autoptr (GString) got = g_string_new (NULL);
        rt_view_tsv_cdf_block (got, "lbl", sorted, n, max_points);
        g_autoptr (GString) want = g_string_new ("# lbl\n");
        guint stride = n > max_points ? (n + max_points - 1) / max_points : 1;
        for (guint i = 0; i < n; i++)
          if (i % stride == 0 || i == n - 1)
            g_string_append_printf (want, "%.9g\t%.6g\n", sorted[i], (double) (i + 1) / n);
        g_string_append (want, "\n\n");
        g_assert_cmpstr (got->str, ==, want->str);
      }
}

/* Blocks written in two halves, on two threads when there are enough points, read as the same
 * blocks written one after another: in order, each whole in one half, whatever their sizes. */
static void
test_cdf_blocks_in_two_halves_as_one_after_another (void)
{
  GRand *r = g_rand_new_with_seed (41);
  const guint max_n = 60000;
  double *values = g_new (double, max_n);
  for (guint i = 0; i < max_n; i++)
    values[i] = 0.001 * exp (i / 5000.0) + i * 1e-9;
  guint split = 0;   /* rounds whose text came in two halves */
  for (guint round = 0; round < 40; round++)
    {
      guint n_blocks = round < 3 ? round : (guint) g_rand_int_range (r, 1, 120);
      RtCdfBlock *blocks = g_new0 (RtCdfBlock, MAX (n_blocks, 1));
      g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GString) want = g_string_new ("# header\n");
      for (guint b = 0; b < n_blocks; b++)
        {
          char *label = g_strdup_printf ("step %u", b);
          g_ptr_array_add (labels, label);
          guint n = round % 2 ? (guint) g_rand_int_range (r, 0, (gint32) max_n) : (guint) g_rand_int_range (r, 0, 3000);
          guint start = (guint) g_rand_int_range (r, 0, (gint32) (max_n - n + 1));
          blocks[b] = (RtCdfBlock) { label, values + start, n, (guint) g_rand_int_range (r, 1, 5000) };
          rt_view_tsv_cdf_block (want, label, blocks[b].sorted, blocks[b].n, blocks[b].max_points);
        }
      g_autoptr (GString) head = g_string_new ("# header\n");
      g_autoptr (GString) tail = g_string_new (NULL);
      rt_view_tsv_cdf_blocks (head, tail, blocks, n_blocks);
      split += tail->len > 0;
      g_string_append_len (head, tail->str, (gssize) tail->len);
      g_assert_cmpuint (head->len, ==, want->len);
      g_assert_true (memcmp (head->str, want->str, want->len) == 0);
      g_free (blocks);
    }
  /* in two halves whenever there are points enough and a second processor to write them */
  if (g_get_num_processors () > 1)
    g_assert_cmpuint (split, >, 10);
  else
    g_assert_cmpuint (split, ==, 0);
  g_free (values);
  g_rand_free (r);
}

/* A CDF point is "%.9g\t%.6g\n" of its two numbers, whichever way it is written: in one go
 * (numbers of the plots' range, room in the buffer) or number by number (zeros, negatives,
 * the very large and small, a buffer about to grow), whatever the buffer held before. */
static void
test_cdf_point_as_printf_writes_it (void)
{
  GRand *r = g_rand_new_with_seed (31);
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GString) want = g_string_new (NULL);
  for (guint i = 0; i < 400000; i++)
    {
      double x, f;
      guint64 bits;
      switch (i % 4)
        {
        case 0: x = g_rand_double_range (r, 1e-4, 1e4); break;
        case 1: x = ldexp (g_rand_double_range (r, -1, 1), g_rand_int_range (r, -80, 80)); break;
        case 2: x = i % 8 == 2 ? 0.0 : -0.0; break;
        default:
          bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
          memcpy (&x, &bits, sizeof x);
          if (!isfinite (x))
            x = 1e300;
          break;
        }
      guint32 n = (guint32) g_rand_int_range (r, 1, 2000001);
      f = i % 16 == 5 ? 0.0 : (double) g_rand_int_range (r, 1, (gint32) n + 1) / n;
      /* the buffer empty, full, or anywhere between: every length from 0 to 200 past a
       * size of its own */
      if (i % 1000 == 0)
        {
          g_assert_cmpstr (out->str, ==, want->str);
          g_string_free (out, TRUE);
          out = g_string_sized_new (g_rand_int_range (r, 1, 300));
          g_string_truncate (want, 0);
        }
      rt_format_cdf_point (out, x, f);
      g_string_append_printf (want, "%.9g\t%.6g\n", x, f);
      g_assert_cmpuint (out->len, ==, want->len);
      g_assert_cmpint (out->str[out->len], ==, '\0');
    }
  g_assert_cmpstr (out->str, ==, want->str);
  g_rand_free (r);
}

/* What printf and strtod choose for v: the first of %.15g..%.17g that reads back. */
static void
check_shortest (GString *out, double v)
{
  char want[G_ASCII_DTOSTR_BUF_SIZE];
  if (v == floor (v) && fabs (v) < 1e15)
    g_snprintf (want, sizeof want, "%" G_GINT64_FORMAT ".0", (gint64) v);
  else
    for (int prec = 15; prec <= 17; prec++)
      {
        char fmt[8];
        g_snprintf (fmt, sizeof fmt, "%%.%dg", prec);
        g_ascii_formatd (want, sizeof want, fmt, v);
        if (prec == 17 || g_ascii_strtod (want, NULL) == v)
          break;
      }
  g_string_truncate (out, 0);
  rt_format_double (out, v);
  if (strcmp (out->str, want) != 0)
    g_error ("%a: %s, printf and strtod %s", v, out->str, want);
}

/* rt_format_double decides in integers which of %.15g..%.17g reads back: the same choice
 * as printing each and reading it back with strtod, on powers of two and their neighbours
 * (where the gap below is half the gap above), timestamps, fractions and any double. */
static void
test_shortest_form_as_printf_and_strtod_choose (void)
{
  g_autoptr (GString) out = g_string_new (NULL);
  GRand *r = g_rand_new_with_seed (23);
  guint n = g_test_thorough () ? 2400000 : 150000;   /* (-m thorough: the long run) */
  for (guint i = 0; i < n; i++)
    {
      double v;
      guint64 bits;
      switch (i % 5)
        {
        case 0: v = g_rand_double_range (r, 1.7e9, 1.8e9) + g_rand_int_range (r, 0, 1000000) / 1e6; break;
        case 1: v = (double) g_rand_int_range (r, 1, 100000) / g_rand_int_range (r, 1, 100000); break;
        case 2:
          v = ldexp (1.0, g_rand_int_range (r, -200, 200));
          v = g_rand_boolean (r) ? nextafter (v, 0) : g_rand_boolean (r) ? nextafter (v, INFINITY) : v;
          break;
        case 3: v = -g_rand_double_range (r, 0, 1e-3); break;
        default:
          bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
          memcpy (&v, &bits, sizeof v);
          if (!isfinite (v))
            continue;
          break;
        }
      check_shortest (out, v);
    }
  g_rand_free (r);
}

/* rt_format_double's fast path (one exact product for 10^-11 <= v < 10^17, the three
 * precisions rounded off its 17 or 18 digits) where it can go wrong: the plots' times
 * (differences of two timestamps, a duration taken off), every binary exponent it takes
 * and those around it, the doubles next to each power of ten (where the decimal exponent
 * guessed from the binary one is one too small) and next to 10^P - 1/2 (where the digits
 * round up into a new one), powers of two and their neighbours (the gap below is half),
 * exact ties at the 15th and 16th digit, and numbers of 15 and 16 digits read in. */
static void
test_shortest_form_fast_path_as_printf_and_strtod_choose (void)
{
  g_autoptr (GString) out = g_string_new (NULL);
  GRand *r = g_rand_new_with_seed (1717);
  guint checked = 0, n = g_test_thorough () ? 1200000 : 75000;
  for (guint i = 0; i < n; i++)
    {
      double origin = 1.7e9 + g_rand_int_range (r, 0, 100000000) / 1e6;
      double end = origin + g_rand_double_range (r, 0, 2000), duration = g_rand_double_range (r, 0, 50);
      double from_start = end - origin;
      check_shortest (out, from_start);
      check_shortest (out, from_start - duration);
      check_shortest (out, duration / (from_start + 1));
      checked += 3;
    }
  for (int e2 = -45; e2 <= 62; e2++)
    for (int i = 0; i < 2000; i++)
      {
        check_shortest (out, ldexp (1.0 + g_rand_double (r), e2) * (i & 1 ? -1 : 1));
        checked++;
      }
  for (int e10 = -13; e10 <= 18; e10++)
    for (int prec = 15; prec <= 17; prec++)
      {
        double points[] = { pow (10, e10), (pow (10, prec) - 0.5) * pow (10, e10 - prec + 1) };
        for (guint j = 0; j < G_N_ELEMENTS (points); j++)
          {
            double below = points[j], above = points[j];
            for (int step = 0; step < 40; step++)
              {
                check_shortest (out, below);
                check_shortest (out, above);
                below = nextafter (below, 0);
                above = nextafter (above, INFINITY);
                checked += 2;
              }
          }
      }
  for (int e2 = -45; e2 <= 62; e2++)
    {
      double p = ldexp (1.0, e2);
      check_shortest (out, p);
      check_shortest (out, nextafter (p, 0));
      check_shortest (out, nextafter (p, INFINITY));
      checked += 3;
    }
  for (guint i = 0; i < 2 * n / 3; i++)
    {
      /* odd / 2^j with 16 or 17 significant digits ends in a 5: a tie one or two digits up */
      guint64 odd = (((guint64) g_rand_int (r) << 21) ^ g_rand_int (r)) | 1;
      odd &= (1ull << 53) - 1;
      check_shortest (out, ldexp ((double) odd, -g_rand_int_range (r, 1, 60)));
      /* a decimal of 15 or 16 digits, read as strtod reads it */
      char text[64];
      g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT "e%d",
                  (guint64) g_rand_int_range (r, 100000000, 999999999) * 10000000 + g_rand_int_range (r, 0, 9999999),
                  g_rand_int_range (r, -26, 2));
      check_shortest (out, g_ascii_strtod (text, NULL));
      checked += 2;
    }
  g_rand_free (r);
  g_assert_cmpuint (checked, >, 4 * n);
}

/* The timeline's numbers, most of what a Gantt's TSV holds: offsets in seconds from the
 * step's start of timestamps logged to the microsecond (read from their text, as the parser
 * reads them), their phases' starts (a duration taken off) and the lengths between two, in
 * the millions, against printf and strtod. */
static void
test_timeline_offsets_as_printf_and_strtod_choose (void)
{
  g_autoptr (GString) out = g_string_new (NULL);
  GRand *r = g_rand_new_with_seed (2026);
  guint checked = 0, n = g_test_thorough () ? 4000000 : 250000;
  for (guint i = 0; i < n; i++)
    {
      char text[64];
      gint64 origin_us = (gint64) 1700000000 * 1000000 + g_rand_int_range (r, 0, 1 << 30) * (gint64) 64;
      gint64 end_us = origin_us + g_rand_int_range (r, 0, 2000000000);
      g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT ".%06d", origin_us / 1000000, (int) (origin_us % 1000000));
      double origin = g_ascii_strtod (text, NULL);
      g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT ".%06d", end_us / 1000000, (int) (end_us % 1000000));
      double end = g_ascii_strtod (text, NULL);
      g_snprintf (text, sizeof text, "%d.%06d", g_rand_int_range (r, 0, 60), g_rand_int_range (r, 0, 1000000));
      double duration = g_ascii_strtod (text, NULL);
      check_shortest (out, end - origin);
      check_shortest (out, end - duration - origin);
      check_shortest (out, duration);
      checked += 3;
    }
  g_rand_free (r);
  g_assert_cmpuint (checked, ==, 3 * n);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/jsonw/nested-document", test_nested_document);
  g_test_add_func ("/jsonw/non-finite-numbers-are-null", test_non_finite_numbers_are_null);
  g_test_add_func ("/jsonw/numbers-round-trip-in-shortest-form", test_numbers_round_trip_in_shortest_form);
  g_test_add_func ("/jsonw/escapes-at-every-position", test_escapes_at_every_position);
  g_test_add_func ("/jsonw/integers-as-printf-writes-them", test_integers_as_printf_writes_them);
  g_test_add_func ("/jsonw/integers-at-every-length-as-printf-writes-them",
                   test_integers_at_every_length_as_printf_writes_them);
  g_test_add_func ("/jsonw/g-format-as-printf-writes-it", test_g_format_as_printf_writes_it);
  g_test_add_func ("/jsonw/g-short-path-as-printf-writes-it", test_g_short_path_as_printf_writes_it);
  g_test_add_func ("/jsonw/cdf-block-as-printf-writes-it", test_cdf_block_as_printf_writes_it);
  g_test_add_func ("/jsonw/cdf-point-as-printf-writes-it", test_cdf_point_as_printf_writes_it);
  g_test_add_func ("/jsonw/cdf-blocks-in-two-halves-as-one-after-another",
                   test_cdf_blocks_in_two_halves_as_one_after_another);
  g_test_add_func ("/jsonw/shortest-form-as-printf-and-strtod-choose",
                   test_shortest_form_as_printf_and_strtod_choose);
  g_test_add_func ("/jsonw/timeline-offsets-as-printf-and-strtod-choose",
                   test_timeline_offsets_as_printf_and_strtod_choose);
  g_test_add_func ("/jsonw/shortest-form-fast-path-as-printf-and-strtod-choose",
                   test_shortest_form_fast_path_as_printf_and_strtod_choose);
  return g_test_run ();
}
