/* SPDX-License-Identifier: Apache-2.0 */
/* test-json-numbers.c: every number of a trace line is read as C's strtod reads it, bit for bit,
 * by every kernel and by the reader of Python's shapes (decimal.c) on its own; what is no finite
 * number (NaN, Infinity, a broken token) keeps its meaning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "rolltrace/rt-json.h"
/* the reader of 64-bit words, which processors without SSE2 run, inline here; the library's
 * rt_decimal_read_double is the one this processor runs */
#define RT_DECIMAL_SWAR 1
#include "decimal-private.h"

typedef struct {
  RtJsonParser *parsers[8];
  const char *names[8];
  guint n;
} Kernels;

/* A parser of every kernel this processor runs. */
static void
kernels_open (Kernels *k)
{
  k->n = 0;
  for (const char *const *name = rt_json_kernels (); *name != NULL && k->n < G_N_ELEMENTS (k->parsers); name++)
    {
      RtJsonParser *p = rt_json_parser_new_kernel (*name);
      if (p == NULL)
        continue;
      k->names[k->n] = *name;
      k->parsers[k->n++] = p;
    }
  g_assert_cmpuint (k->n, >=, 1);
}

static void
kernels_close (Kernels *k)
{
  for (guint i = 0; i < k->n; i++)
    rt_json_parser_free (k->parsers[i]);
}

/* The duration_sec a line holding `number` gives; FALSE when the field has a type problem. */
static gboolean
read_duration (RtJsonParser *p, const char *number, double *out)
{
  static char buf[4096];
  gsize len = (gsize) g_snprintf (buf, sizeof buf - RT_JSON_PADDING,
                                  "{\"event\": \"e\", \"duration_sec\": %s}", number);
  g_assert_cmpuint (len, <, sizeof buf - RT_JSON_PADDING);
  memset (buf + len, '7', RT_JSON_PADDING);   /* digits after the line must not be read as its own */
  RtLineFields f;
  const char *reason = NULL;
  g_assert_cmpint (rt_json_parse_line (p, buf, len, &f, &reason), ==, RT_LINE_OK);
  *out = f.duration_s;
  return f.type_problem == NULL;
}

static gboolean
same_double (double a, double b)
{
  return memcmp (&a, &b, sizeof a) == 0 || (isnan (a) && isnan (b));
}

/* `number` (a JSON number) reads as strtod reads it, in every kernel; one too large for a
 * double makes the field absent. */
static void
assert_reads_as_strtod (Kernels *k, const char *number)
{
  double want = g_ascii_strtod (number, NULL);
  for (guint i = 0; i < k->n; i++)
    {
      double got;
      gboolean clean = read_duration (k->parsers[i], number, &got);
      if (!isfinite (want))
        {
          if (!isnan (got))
            g_error ("%s kernel: %s, too large for a double, reads as %.17g", k->names[i], number, got);
          continue;
        }
      if (!clean || !same_double (got, want))
        g_error ("%s kernel: %s reads as %.17g%s, strtod as %.17g", k->names[i], number, got,
                 clean ? "" : " (a type problem)", want);
    }
}

/* A decimal of every shape JSON allows: sign, integer part, fraction with or without
 * leading zeros, exponent of either case and sign. The significand has up to 43 digits;
 * its fraction at most max_zero_point_digits when the integer part is 0. */
static void
random_decimal (GRand *r, GString *s, guint max_zero_point_digits)
{
  g_string_truncate (s, 0);
  if (g_rand_boolean (r))
    g_string_append_c (s, '-');
  guint n_int = g_rand_int_range (r, 0, 3) == 0 ? 0 : (guint) g_rand_int_range (r, 1, 21);
  if (n_int == 0)
    g_string_append_c (s, '0');
  for (guint i = 0; i < n_int; i++)
    g_string_append_c (s, (char) ('0' + (i == 0 ? g_rand_int_range (r, 1, 10) : g_rand_int_range (r, 0, 10))));
  if (n_int == 0 || g_rand_int_range (r, 0, 4) != 0)
    {
      g_string_append_c (s, '.');
      guint zeros = g_rand_int_range (r, 0, 3) == 0 ? (guint) g_rand_int_range (r, 0, 30)
                                                     : (guint) g_rand_int_range (r, 0, 5);
      guint n_frac = (guint) g_rand_int_range (r, 1, 24);
      if (n_int == 0)
        n_frac = MIN (n_frac, max_zero_point_digits);
      for (guint i = 0; i < zeros; i++)
        g_string_append_c (s, '0');
      for (guint i = 0; i < n_frac; i++)
        g_string_append_c (s, (char) ('0' + g_rand_int_range (r, 0, 10)));
    }
  if (g_rand_int_range (r, 0, 3) == 0)
    {
      g_string_append_c (s, g_rand_boolean (r) ? 'e' : 'E');
      const char *signs[] = { "", "+", "-" };
      g_string_append (s, signs[g_rand_int_range (r, 0, 3)]);
      guint digits = (guint) g_rand_int_range (r, 1, 4);
      if (g_rand_int_range (r, 0, 8) == 0)
        g_string_append_c (s, '0');
      for (guint i = 0; i < digits; i++)
        g_string_append_c (s, (char) ('0' + g_rand_int_range (r, 0, 10)));
    }
}

/* x as Python's repr writes it: the fewest digits that read back as x, in positional
 * notation from 1e-4 up to 1e16 (with ".0" when whole), else as 1.5e-05 or 1e+16. */
static void
python_repr (double x, GString *s)
{
  char buf[64];
  int prec = 1;
  for (; prec < 17; prec++)
    {
      g_snprintf (buf, sizeof buf, "%.*e", prec - 1, x);
      if (g_ascii_strtod (buf, NULL) == x)
        break;
    }
  g_snprintf (buf, sizeof buf, "%.*e", prec - 1, x);
  g_string_truncate (s, 0);
  const char *p = buf;
  if (*p == '-')
    g_string_append_c (s, *p++);
  GString *digits = g_string_new (NULL);
  for (; *p != 'e'; p++)
    if (*p != '.')
      g_string_append_c (digits, *p);
  int exp10 = atoi (p + 1);
  if (exp10 >= -4 && exp10 < 16)
    {
      if (exp10 < 0)
        {
          g_string_append (s, "0.");
          for (int i = 0; i < -exp10 - 1; i++)
            g_string_append_c (s, '0');
          g_string_append (s, digits->str);
        }
      else
        {
          for (int i = 0; i <= exp10; i++)
            g_string_append_c (s, i < (int) digits->len ? digits->str[i] : '0');
          g_string_append_c (s, '.');
          g_string_append (s, (int) digits->len > exp10 + 1 ? digits->str + exp10 + 1 : "0");
        }
    }
  else
    {
      g_string_append_c (s, digits->str[0]);
      if (digits->len > 1)
        g_string_append_printf (s, ".%s", digits->str + 1);
      g_string_append_printf (s, "e%c%02d", exp10 < 0 ? '-' : '+', ABS (exp10));
    }
  g_string_free (digits, TRUE);
}

static GRand *
test_rand (void)
{
  guint32 seed = g_test_rand_int ();
  g_test_message ("random seed %u", seed);
  return g_rand_new_with_seed (seed);
}

static void
test_random_decimals_read_as_strtod (void)
{
  Kernels k;
  kernels_open (&k);
  g_autoptr (GRand) r = test_rand ();
  g_autoptr (GString) s = g_string_new (NULL);
  guint n = g_test_thorough () ? 4000000 : 250000;
  for (guint i = 0; i < n; i++)
    {
      random_decimal (r, s, 23);
      assert_reads_as_strtod (&k, s->str);
    }
  kernels_close (&k);
}

/* A fraction of more than 19 digits after its leading zeros: simdjson 3.0.1 takes its digits
 * as if they had not overflowed (0.12345678901234567890123 read as 4.8e-05); they read as
 * strtod reads them, with an exponent too, and negative. */
static void
test_long_fractions_read_as_strtod (void)
{
  Kernels k;
  kernels_open (&k);
  const char *numbers[] = {
    "0.12345678901234567890123", "0.0012345678901234567890123", "-0.12345678901234567890123",
    "0.12345678901234567890123e3", "0.99999999999999999999999", "0.00000000000000000001234567890123456789012",
    "0.12345678901234567890", "0.1234567890123456789",
  };
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    assert_reads_as_strtod (&k, numbers[i]);
  kernels_close (&k);
}

/* Python's reprs of doubles of every magnitude, of durations as a trace has them
 * (0.00019567119561548146, 11.626323250366179), and of whole numbers (3.0). */
static void
test_python_reprs_read_back_exactly (void)
{
  Kernels k;
  kernels_open (&k);
  g_autoptr (GRand) r = test_rand ();
  g_autoptr (GString) s = g_string_new (NULL);
  guint n = g_test_thorough () ? 2000000 : 125000;
  for (guint i = 0; i < n; i++)
    {
      double x;
      switch (i % 4)
        {
        case 0:   /* any bits */
          {
            guint64 bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
            memcpy (&x, &bits, sizeof x);
            if (!isfinite (x))
              x = 1.0;
          }
          break;
        case 1:   /* seconds */
          x = g_rand_double_range (r, 0, 20);
          break;
        case 2:   /* short spans: 1e-7 .. 1 */
          x = g_rand_double (r) * pow (10, -g_rand_int_range (r, 0, 8));
          break;
        default:
          x = (double) g_rand_int_range (r, 0, 1 << 20);
        }
      python_repr (x, s);
      g_assert_cmpfloat (g_ascii_strtod (s->str, NULL), ==, x);   /* the repr is right */
      assert_reads_as_strtod (&k, s->str);
    }
  kernels_close (&k);
}

/* Decimals exactly halfway between two doubles round to the even one: 2^53 + 1, and
 * x + ulp/2 for doubles x of 50 to 63 bits, written as integers or with a fraction. */
static void
test_halfway_decimals_round_to_even (void)
{
  Kernels k;
  kernels_open (&k);
  assert_reads_as_strtod (&k, "9007199254740993");
  assert_reads_as_strtod (&k, "9007199254740993.0");
  assert_reads_as_strtod (&k, "9007199254740995");
  assert_reads_as_strtod (&k, "4503599627370497.5");
  assert_reads_as_strtod (&k, "9.007199254740993e15");
  g_autoptr (GRand) r = test_rand ();
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < 200000; i++)
    {
      int bits = g_rand_int_range (r, 50, 64);
      guint64 m = ((guint64) g_rand_int (r) << 32 | g_rand_int (r)) >> (64 - bits);
      m |= (guint64) 1 << (bits - 1);
      double x = (double) m;
      long double half_up = (long double) x + (long double) (nextafter (x, INFINITY) - x) / 2;
      g_string_printf (s, "%.4Lf", half_up);
      while (s->str[s->len - 1] == '0')
        g_string_truncate (s, s->len - 1);
      if (s->str[s->len - 1] == '.')
        g_string_truncate (s, s->len - 1);
      assert_reads_as_strtod (&k, s->str);
    }
  kernels_close (&k);
}

/* The shapes Python writes keep their meaning: -0.0 is a negative zero, 3 and 3.0 the same
 * count; NaN and the infinities make the field absent without a problem; a broken token, a
 * number beyond a double's range or a word of another case is absent with a type problem. */
static void
test_python_words_and_broken_tokens (void)
{
  Kernels k;
  kernels_open (&k);
  const char *absent[] = { "NaN", "Infinity", "-Infinity" };
  const char *broken[] = { "01", "1.", ".5", "-", "1e", "+1", "1.5.2", "00", "-01.5", "1e5000",
                           "1e400", "1x", "1.5\"x\"", "nan", "-NaN", "true", "\"3\"", "3.5abc", "0x10",
                           "1e+", "--1", "1.e5" };
  for (guint i = 0; i < k.n; i++)
    {
      double d;
      g_assert_true (read_duration (k.parsers[i], "-0.0", &d));
      g_assert_true (d == 0 && signbit (d));
      g_assert_true (read_duration (k.parsers[i], "-0", &d));
      g_assert_true (d == 0 && signbit (d));
      g_assert_true (read_duration (k.parsers[i], "0.0", &d));
      g_assert_true (d == 0 && !signbit (d));
      g_assert_true (read_duration (k.parsers[i], "3", &d));
      g_assert_cmpfloat (d, ==, 3);
      g_assert_true (read_duration (k.parsers[i], "3.0", &d));
      g_assert_cmpfloat (d, ==, 3);
      g_assert_true (read_duration (k.parsers[i], "1e-05", &d));
      g_assert_cmpfloat (d, ==, 1e-5);
      g_assert_true (read_duration (k.parsers[i], "1.5e+16", &d));
      g_assert_cmpfloat (d, ==, 1.5e16);
      for (guint j = 0; j < G_N_ELEMENTS (absent); j++)
        {
          g_assert_true (read_duration (k.parsers[i], absent[j], &d));
          g_assert_true (isnan (d));
        }
      for (guint j = 0; j < G_N_ELEMENTS (broken); j++)
        if (read_duration (k.parsers[i], broken[j], &d) || !isnan (d))
          g_error ("%s kernel: %s reads as %.17g, with no type problem", k.names[i], broken[j], d);
    }
  kernels_close (&k);
}

/* Every number token of a JSONL file (outside strings) that is a JSON number reads as strtod
 * reads it; returns how many there were. */
static guint
check_numbers_of_file (Kernels *k, const char *path)
{
  g_autofree char *text = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  g_autoptr (GRegex) json_number = g_regex_new ("^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$", 0, 0, NULL);
  guint n = 0;
  gboolean in_string = FALSE;
  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];
      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"' || c == '\n')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        {
          in_string = TRUE;
          continue;
        }
      if (c != '-' && !g_ascii_isdigit (c))
        continue;
      gsize end = i;
      while (end < len && strchr (",:[]{}\" \t\r\n", text[end]) == NULL)
        end++;
      g_autofree char *token = g_strndup (text + i, end - i);
      i = end - 1;
      if (!g_regex_match (json_number, token, 0, NULL))
        continue;   /* -Infinity, a cut token */
      assert_reads_as_strtod (k, token);
      n++;
    }
  return n;
}

static guint
check_numbers_under (Kernels *k, const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  guint n = 0;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        n += check_numbers_under (k, path);
      else if (g_str_has_suffix (name, ".jsonl"))
        n += check_numbers_of_file (k, path);
    }
  return n;
}

static void
test_every_number_of_fixtures_and_samples (void)
{
  Kernels k;
  kernels_open (&k);
  /* fixtures/samples is walked with the rest, and counted on its own too */
  guint in_fixtures = check_numbers_under (&k, RT_FIXTURES_DIR);
  g_autofree char *samples = g_build_filename (RT_FIXTURES_DIR, "samples", NULL);
  guint in_samples = check_numbers_under (&k, samples);
  g_test_message ("%u numbers in fixtures, %u of them in samples", in_fixtures, in_samples);
  g_assert_cmpuint (in_fixtures - in_samples, >, 1000);
  g_assert_cmpuint (in_samples, >, 1000);
  kernels_close (&k);
}

/* decimal.c on its own: `number` (followed by a comma, as in a line) is either declined or read
 * whole as strtod reads it, alike by its SSE2 form and its form in 64-bit words. Returns whether
 * it was read. */
static gboolean
decimal_reads_as_strtod (const char *number)
{
  char buf[512];
  gsize len = strlen (number);
  g_assert_cmpuint (len + 1 + 64, <, sizeof buf);
  memset (buf, '7', sizeof buf);   /* digits after the token must not be taken as its own */
  memcpy (buf, number, len);
  buf[len] = ',';
  double got = -1234.5, got_words = -1234.5;
  gsize n = rt_decimal_read_double (buf, len, &got);
  gsize n_words = dec_read_double (buf, len, &got_words);
  if (n_words != n || !same_double (got_words, got))
    g_error ("%s: decimal.c reads %.17g from %" G_GSIZE_FORMAT " bytes, in 64-bit words %.17g from %" G_GSIZE_FORMAT,
             number, got, n, got_words, n_words);
  if (n == 0)
    {
      if (got != -1234.5)
        g_error ("%s: declined, but *out changed to %.17g", number, got);
      return FALSE;
    }
  double want = g_ascii_strtod (number, NULL);
  if (n != len || !same_double (got, want))
    g_error ("%s: decimal.c reads %.17g from %" G_GSIZE_FORMAT " bytes, strtod %.17g", number, got, n, want);
  return TRUE;
}

/* Appends n random digits, the first of them not 0 when `lead` is set. */
static void
append_digits (GRand *r, GString *s, guint n, gboolean lead)
{
  for (guint i = 0; i < n; i++)
    g_string_append_c (s, (char) ('0' + (i == 0 && lead ? g_rand_int_range (r, 1, 10) : g_rand_int_range (r, 0, 10))));
}

/* A decimal of the shapes decimal.c reads without a loop, and of their edges: 0.<zeros><1 to 20
 * digits> and <1 to 4 digits>.<0 to 17 digits>, with or without an exponent (up to 4 digits,
 * leading zeros allowed) reaching past both ends of the double range, sometimes negative. */
static void
random_python_shape (GRand *r, GString *s)
{
  g_string_truncate (s, 0);
  if (g_rand_int_range (r, 0, 4) == 0)
    g_string_append_c (s, '-');
  if (g_rand_boolean (r))
    {
      g_string_append (s, "0.");
      guint zeros = g_rand_int_range (r, 0, 3) == 0 ? (guint) g_rand_int_range (r, 0, 12) : (guint) g_rand_int_range (r, 0, 4);
      for (guint i = 0; i < zeros; i++)
        g_string_append_c (s, '0');
      append_digits (r, s, (guint) g_rand_int_range (r, 1, 21), TRUE);
    }
  else
    {
      append_digits (r, s, (guint) g_rand_int_range (r, 1, 5), TRUE);
      guint frac = (guint) g_rand_int_range (r, 0, 18);
      if (frac > 0)
        {
          g_string_append_c (s, '.');
          append_digits (r, s, frac, FALSE);
        }
    }
  if (g_rand_int_range (r, 0, 3) == 0)
    {
      int x = g_rand_int_range (r, 0, 3) == 0 ? g_rand_int_range (r, 280, 345) : g_rand_int_range (r, 0, 40);
      const char *sign = g_rand_boolean (r) ? "-" : g_rand_boolean (r) ? "+" : "";
      g_string_append_printf (s, "%c%s%0*d", g_rand_boolean (r) ? 'e' : 'E', sign, g_rand_int_range (r, 1, 5), x);
    }
}

/* decimal.c reads the shapes of Python's reprs, and numbers near them, as strtod does, and
 * takes nearly all of them itself (those it declines go simdjson's way, which the tests above
 * check); through every kernel too. */
static void
test_python_shapes_read_as_strtod (void)
{
  Kernels k;
  kernels_open (&k);
  g_autoptr (GRand) r = test_rand ();
  g_autoptr (GString) s = g_string_new (NULL);
  guint n = g_test_thorough () ? 8000000 : 500000, read = 0;
  for (guint i = 0; i < n; i++)
    {
      random_python_shape (r, s);
      read += decimal_reads_as_strtod (s->str);
      if (i % 8 == 0)
        assert_reads_as_strtod (&k, s->str);
    }
  g_test_message ("decimal.c read %u of %u", read, n);
  g_assert_cmpuint (read, >, n / 2);
  kernels_close (&k);
}

/* Every repr Python writes of a double below 2^53 (every duration) is read by decimal.c itself,
 * not handed back. (Above 2^53 the shortest repr may be a tie: 2.648377920642859e+16 lies halfway
 * between two doubles, and decimal.c leaves ties to simdjson.) */
static void
test_python_reprs_are_read_by_decimal (void)
{
  g_autoptr (GRand) r = test_rand ();
  g_autoptr (GString) s = g_string_new (NULL);
  guint n = g_test_thorough () ? 2000000 : 125000;
  for (guint i = 0; i < n; i++)
    {
      double x;
      if (i % 2 == 0)
        x = g_rand_double_range (r, 0, 20) * pow (10, -g_rand_int_range (r, 0, 8));
      else
        {
          guint64 bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
          memcpy (&x, &bits, sizeof x);
          if (!isfinite (x))
            x = 1.0;
          while (fabs (x) >= 0x1p53)
            x /= 1e10;
        }
      python_repr (x, s);
      if (!decimal_reads_as_strtod (s->str))
        g_error ("decimal.c declines %s", s->str);
    }
}

/* The edges: the largest double and the first decimals past it (too large: absent), the least
 * normal and subnormal doubles, the halfway point below the least subnormal (which rounds to 0),
 * significands of 17 to 20 digits and near 2^64, ties, long runs of zeros, negative zero. */
static void
test_edges_read_as_strtod (void)
{
  Kernels k;
  kernels_open (&k);
  const char *numbers[] = {
    "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1e308", "9.9e307",
    "0.17976931348623157e309", "17976931348623157e292", "1.8e308", "1e309", "9999e305",
    "2.2250738585072014e-308", "2.2250738585072011e-308", "2.2250738585072009e-308",
    "4.9406564584124654e-324", "5e-324", "2.4703282292062328e-324", "2.4703282292062327e-324",
    "2.470328229206232720882e-324", "1e-323", "3e-324", "7e-324", "1e-400", "0.0001e-320",
    "1e-342", "1e-343", "9.9999999999999999e-343", "0.000000000000000000001e-300",
    "18446744073709551615", "18446744073709551616", "18446744073709551615e-10", "9999999999999999999",
    "1.8446744073709551615", "0.18446744073709551615", "0.99999999999999999999", "0.9999999999999999999",
    "12345678901234567890.5", "0.12345678901234567", "123.45678901234567", "1234.5678901234567",
    "9007199254740993", "9007199254740992.5", "4503599627370496.5", "0.1", "0.3", "2.5", "1e23", "8.5e-15",
    "0.000000000000000000000000000000000000000000000000000000000000000001",
    "0.000000000000000000000000000000000000000000000000000000000000000000e99",
    "-0", "-0.0", "-0.000", "-0e5", "0e-999", "0.0e9999", "-1e-400", "1.5E+0005", "1.5e00005",
  };
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    {
      decimal_reads_as_strtod (numbers[i]);
      assert_reads_as_strtod (&k, numbers[i]);
    }
  /* subnormals of every size, and the decimals halfway between two of them */
  g_autoptr (GRand) r = test_rand ();
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < 200000; i++)
    {
      guint64 bits = (((guint64) g_rand_int (r) << 32) | g_rand_int (r)) >> g_rand_int_range (r, 12, 64);
      double x;
      memcpy (&x, &bits, sizeof x);
      if (i % 2 == 0)
        g_string_printf (s, "%.*e", g_rand_int_range (r, 0, 19), x);
      else
        {
          long double half_up = (long double) x + (long double) (nextafter (x, INFINITY) - x) / 2;
          g_string_printf (s, "%.40Le", half_up);
        }
      decimal_reads_as_strtod (s->str);
      if (i % 16 == 0)
        assert_reads_as_strtod (&k, s->str);
    }
  kernels_close (&k);
}

/* 0.<zeros><14 to 19 digits>: a repr's sixteenth and seventeenth significant digits (decimal.c
 * reads the seventeenth whether the number has one or not, and keeps it or not) and the digits
 * past them are read as strtod reads them; so are those of a token followed at once by more
 * digits, which are not its own (the byte after the token is a digit: kept, the number would
 * read ten times larger or with a digit too many). */
static void
test_digits_past_the_sixteenth (void)
{
  g_autoptr (GRand) r = test_rand ();
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint zeros = 0; zeros <= 5; zeros++)
    for (guint n = 14; n <= 19; n++)
      for (guint i = 0; i < 2000; i++)
        {
          g_string_assign (s, i % 3 == 0 ? "-0." : "0.");
          for (guint z = 0; z < zeros; z++)
            g_string_append_c (s, '0');
          append_digits (r, s, n, TRUE);
          if (!decimal_reads_as_strtod (s->str))
            g_error ("decimal.c declines %s", s->str);
          char buf[128];
          memset (buf, '9', sizeof buf);
          memcpy (buf, s->str, s->len);
          double got = -1234.5;
          if (rt_decimal_read_double (buf, s->len, &got) != s->len || !same_double (got, g_ascii_strtod (s->str, NULL)))
            g_error ("%s followed by 9s reads as %.17g", s->str, got);
        }
}

/* Counts: a whole number is the same count however it is written, with up to 15 digits read
 * directly; others are absent. */
static void
test_counts (void)
{
  Kernels k;
  kernels_open (&k);
  static const struct {
    const char *text;
    gint64 count;
  } cases[] = {
    { "0", 0 }, { "7", 7 }, { "42", 42 }, { "100", 100 }, { "12345678", 12345678 }, { "123456789", 123456789 },
    { "999999999999999", 999999999999999 }, { "1000000000000000", 1000000000000000 }, { "3.0", 3 }, { "3e2", 300 },
    { "-0", 0 }, { "-3", -1 }, { "3.5", -1 }, { "9000000000000001", -1 }, { "1e400", -1 }, { "NaN", -1 },
  };
  for (guint i = 0; i < k.n; i++)
    for (guint j = 0; j < G_N_ELEMENTS (cases); j++)
      {
        char buf[256];
        gsize len = (gsize) g_snprintf (buf, sizeof buf - RT_JSON_PADDING, "{\"event\": \"e\", \"extra\": {\"turn\": %s}}", cases[j].text);
        memset (buf + len, '7', RT_JSON_PADDING);
        RtLineFields f;
        const char *reason = NULL;
        g_assert_cmpint (rt_json_parse_line (k.parsers[i], buf, len, &f, &reason), ==, RT_LINE_OK);
        if (f.turn != cases[j].count)
          g_error ("%s kernel: turn %s reads as %" G_GINT64_FORMAT ", not %" G_GINT64_FORMAT, k.names[i], cases[j].text,
                   (gint64) f.turn, cases[j].count);
      }
  kernels_close (&k);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-numbers/random-decimals-read-as-strtod", test_random_decimals_read_as_strtod);
  g_test_add_func ("/json-numbers/long-fractions-read-as-strtod", test_long_fractions_read_as_strtod);
  g_test_add_func ("/json-numbers/python-reprs-read-back-exactly", test_python_reprs_read_back_exactly);
  g_test_add_func ("/json-numbers/halfway-decimals-round-to-even", test_halfway_decimals_round_to_even);
  g_test_add_func ("/json-numbers/python-words-and-broken-tokens", test_python_words_and_broken_tokens);
  g_test_add_func ("/json-numbers/every-number-of-fixtures-and-samples", test_every_number_of_fixtures_and_samples);
  g_test_add_func ("/json-numbers/python-shapes-read-as-strtod", test_python_shapes_read_as_strtod);
  g_test_add_func ("/json-numbers/python-reprs-are-read-by-decimal", test_python_reprs_are_read_by_decimal);
  g_test_add_func ("/json-numbers/edges-read-as-strtod", test_edges_read_as_strtod);
  g_test_add_func ("/json-numbers/digits-past-the-sixteenth", test_digits_past_the_sixteenth);
  g_test_add_func ("/json-numbers/counts", test_counts);
  return g_test_run ();
}
