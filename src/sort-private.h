/* SPDX-License-Identifier: Apache-2.0 */
/* sort-private.h: a stable merge sort of an array of one type, its comparison inlined.
 * Where an analysis sorts thousands of small runs (each request's lines, turns and cuts),
 * qsort's call through a pointer and byte-wise copies per element were a fifth of a cached
 * rt-timeline. The merge is top-down, the left half of n / 2 elements, an element of the left
 * taken first unless the comparison says the right one is smaller: the order of libc's own
 * merging qsort, tie for tie, so that no answer moves (even under a comparison that is not
 * a strict order, e.g. with a NaN). */
#pragma once

#include <glib.h>
#include <string.h>

/* Defines `static void NAME (TYPE *a, gsize n, TYPE *tmp)`: sorts a[0..n) by COMPARE
 * (int COMPARE (const TYPE *x, const TYPE *y), as qsort's), with tmp room for n elements. */
#define RT_DEFINE_MERGE_SORT(NAME, TYPE, COMPARE)                                              \
  static void NAME (TYPE *a, gsize n, TYPE *tmp)                                               \
  {                                                                                            \
    if (n <= 1)                                                                                \
      return;                                                                                  \
    gsize n1 = n / 2, n2 = n - n1;                                                             \
    TYPE *b1 = a, *b2 = a + n1;                                                                \
    NAME (b1, n1, tmp);                                                                        \
    NAME (b2, n2, tmp);                                                                        \
    TYPE *out = tmp;                                                                           \
    while (n1 > 0 && n2 > 0)                                                                   \
      {                                                                                        \
        if (COMPARE (b1, b2) <= 0)                                                             \
          {                                                                                    \
            *out++ = *b1++;                                                                    \
            n1--;                                                                              \
          }                                                                                    \
        else                                                                                   \
          {                                                                                    \
            *out++ = *b2++;                                                                    \
            n2--;                                                                              \
          }                                                                                    \
      }                                                                                        \
    for (; n1 > 0; n1--)                                                                       \
      *out++ = *b1++;                                                                          \
    /* what is left of the right half is in place already */                                   \
    for (gsize i = 0; i < (gsize) (out - tmp); i++)                                            \
      a[i] = tmp[i];                                                                           \
  }

/* Defines `static void NAME (TYPE *a, gsize n)`: a stable insertion sort (an element moves
 * past greater ones only), for the short runs that come nearly in order (a request's lines,
 * turns and cuts), where it does a fraction of the merge sort's work. Under a strict weak
 * order it puts every element where the merge sort does (a stable sort's result is then the
 * only one); under a comparison that is not one (a NaN among doubles) it need not, so its
 * callers take it only once they have seen that there is none. */
#define RT_DEFINE_INSERTION_SORT(NAME, TYPE, COMPARE)                                          \
  static void NAME (TYPE *a, gsize n)                                                          \
  {                                                                                            \
    for (gsize i = 1; i < n; i++)                                                              \
      {                                                                                        \
        if (COMPARE (&a[i - 1], &a[i]) <= 0)                                                   \
          continue;                                                                            \
        TYPE v = a[i];                                                                         \
        gsize j = i;                                                                           \
        for (; j > 0 && COMPARE (&a[j - 1], &v) > 0; j--)                                      \
          a[j] = a[j - 1];                                                                     \
        a[j] = v;                                                                              \
      }                                                                                        \
  }

/* The key of a double that orders as the double does, as an unsigned integer: its bits with
 * the sign bit set when it is positive, all of them flipped when it is negative; -0 as +0
 * (they compare equal). Not for NaN, which compares with nothing. */
static inline guint64
rt_double_order_key (double v)
{
  guint64 bits;
  v = v == 0 ? 0.0 : v;
  memcpy (&bits, &v, sizeof bits);
  return bits >> 63 ? ~bits : bits | (1ull << 63);
}

/* Defines `static void NAME (TYPE *a, gsize n, TYPE *tmp)`: a stable sort of a[0..n) by
 * KEY (guint64 KEY (const TYPE *x)), with tmp room for n elements: a radix sort, 11 bits of
 * the key at a time from the lowest (each key made once and moved with its element),
 * skipping the digits every key shares. For thousands of elements it does a fraction of the
 * merge sort's work, and as it is stable it puts every element where the merge sort does
 * under the comparison of the keys. */
#define RT_DEFINE_RADIX_SORT(NAME, TYPE, KEY)                                                  \
  static void NAME (TYPE *a, gsize n, TYPE *tmp)                                               \
  {                                                                                            \
    if (n <= 1)                                                                                \
      return;                                                                                  \
    enum { BITS = 11, DIGITS = (64 + BITS - 1) / BITS, MASK = (1 << BITS) - 1 };              \
    guint32 counts[DIGITS][1 << BITS] = { { 0 } };                                             \
    guint64 *keys = g_new (guint64, 2 * n);                                                    \
    for (gsize i = 0; i < n; i++)                                                              \
      {                                                                                        \
        guint64 key = keys[i] = KEY (&a[i]);                                                   \
        for (guint d = 0; d < DIGITS; d++)                                                     \
          counts[d][(key >> (BITS * d)) & MASK]++;                                             \
      }                                                                                        \
    TYPE *from = a, *to = tmp;                                                                 \
    guint64 *keys_from = keys, *keys_to = keys + n;                                            \
    for (guint d = 0; d < DIGITS; d++)                                                         \
      {                                                                                        \
        if (counts[d][(keys[0] >> (BITS * d)) & MASK] == n)                                    \
          continue;   /* every key has this digit */                                           \
        guint32 at = 0;                                                                        \
        for (guint b = 0; b <= MASK; b++)                                                      \
          {                                                                                    \
            guint32 c = counts[d][b];                                                          \
            counts[d][b] = at;                                                                 \
            at += c;                                                                           \
          }                                                                                    \
        for (gsize i = 0; i < n; i++)                                                          \
          {                                                                                    \
            guint32 j = counts[d][(keys_from[i] >> (BITS * d)) & MASK]++;                      \
            to[j] = from[i];                                                                   \
            keys_to[j] = keys_from[i];                                                         \
          }                                                                                    \
        TYPE *t = from;                                                                        \
        from = to;                                                                             \
        to = t;                                                                                \
        guint64 *k = keys_from;                                                                \
        keys_from = keys_to;                                                                   \
        keys_to = k;                                                                           \
      }                                                                                        \
    if (from != a)                                                                             \
      memcpy (a, from, n * sizeof (TYPE));                                                     \
    g_free (keys);                                                                             \
  }
