/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth's random numbers: a generator of our own, seeded per (step, worker, request) stream,
 * so that the same seed gives the same bytes on every machine and with any number of threads. */
#include "synth.h"

#include <math.h>

/* Our own generator (xoshiro256** seeded through splitmix64) instead of rand() or GRand, whose
 * algorithms are not ours to pin: the same seed must give the same bytes on every machine and
 * GLib version. Every (step, worker, request) gets its own stream derived from the seed, so the
 * output does not depend on which thread generates what, nor on the order of the work. */
static guint64
splitmix64_next (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void
rng_seed_stream (Rng *r, guint64 seed, StreamKind kind, gint64 a, gint64 b, gint64 c)
{
  guint64 key = seed;
  const guint64 parts[] = { (guint64) kind, (guint64) a, (guint64) b, (guint64) c };
  for (gsize i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      guint64 state = key ^ parts[i];
      key = splitmix64_next (&state);
    }
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64_next (&key);
}

static inline guint64
rotl64 (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

guint64
rng_next (Rng *r)
{
  guint64 *s = r->s;
  const guint64 result = rotl64 (s[1] * 5, 7) * 9;
  const guint64 t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl64 (s[3], 45);
  return result;
}

/* Uniform in [0, 1). */
double
rng_uniform (Rng *r)
{
  return (double) (rng_next (r) >> 11) * 0x1.0p-53;
}

double
rng_range (Rng *r, double lo, double hi)
{
  return lo + (hi - lo) * rng_uniform (r);
}

/* Uniform integer in [lo, hi]; the modulo bias is far below anything a trace could show. */
gint64
rng_int (Rng *r, gint64 lo, gint64 hi)
{
  return lo + (gint64) (rng_next (r) % (guint64) (hi - lo + 1));
}

gboolean
rng_chance (Rng *r, double p)
{
  return rng_uniform (r) < p;
}

static double
rng_normal (Rng *r)
{
  double u1 = ((double) (rng_next (r) >> 11) + 1.0) * 0x1.0p-53; /* (0, 1]: log is finite */
  double u2 = rng_uniform (r);
  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

/* Timings of real systems are skewed with a long right tail; a lognormal around a median
 * reproduces that, and the clamp keeps the rare extreme draw plausible. */
double
rng_lognormal (Rng *r, double median, double sigma, double lo, double hi)
{
  return CLAMP (median * exp (sigma * rng_normal (r)), lo, hi);
}

gint64
rng_duration_us (Rng *r, double median_s, double sigma, double lo_s, double hi_s)
{
  return (gint64) llround (rng_lognormal (r, median_s, sigma, lo_s, hi_s) * 1e6);
}
