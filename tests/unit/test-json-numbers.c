/* test-json-numbers.c: every number of a trace line is read as C's strtod reads it, bit for bit,
 * by every kernel; what is no finite number (NaN, Infinity, a broken token) keeps its meaning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "rolltrace/rt-json.h"

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
  guint n = g_test_thorough () ? 4000000 : 1000000;
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
  guint n = g_test_thorough () ? 2000000 : 500000;
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
  guint in_fixtures = check_numbers_under (&k, RT_FIXTURES_DIR);
  g_autofree char *samples = g_build_filename (RT_FIXTURES_DIR, "..", "..", "shared", "samples", NULL);
  guint in_samples = check_numbers_under (&k, samples);
  g_test_message ("%u numbers in fixtures, %u in samples", in_fixtures, in_samples);
  g_assert_cmpuint (in_fixtures, >, 1000);
  g_assert_cmpuint (in_samples, >, 1000);
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
  return g_test_run ();
}
