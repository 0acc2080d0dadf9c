/* sort-private.h: a stable merge sort of an array of one type, its comparison inlined.
 * Where an analysis sorts thousands of small runs (each request's lines, turns and cuts),
 * qsort's call through a pointer and byte-wise copies per element were a fifth of a cached
 * rt-timeline. The merge is top-down, the left half of n / 2 elements, an element of the left
 * taken first unless the comparison says the right one is smaller: the order of libc's own
 * merging qsort, tie for tie, so that no answer moves (even under a comparison that is not
 * a strict order, e.g. with a NaN). */
#pragma once

#include <glib.h>

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
