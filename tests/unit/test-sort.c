/* SPDX-License-Identifier: Apache-2.0 */
/* test-sort.c: the merge sort the analyses use in place of qsort (sort-private.h) puts
 * elements in the same order as a stable sort, ties kept in their order, and where the
 * comparison is no strict order (NaN) in the same order as the C library's qsort, so that
 * no analysis's answer moves. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sort-private.h"

typedef struct {
  double key;
  guint32 row;   /* where it was: tells equal keys apart after the sort */
} Item;

static int
compare_items (const void *a, const void *b)
{
  const Item *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key;
}

RT_DEFINE_MERGE_SORT (sort_items, Item, compare_items)
RT_DEFINE_INSERTION_SORT (insertion_sort_items, Item, compare_items)

static inline guint64
item_key (const Item *x)
{
  return rt_double_order_key (x->key);
}

RT_DEFINE_RADIX_SORT (radix_sort_items, Item, item_key)

/* The reference: an insertion sort, stable (an element moves past greater ones only). */
static void
insertion_sort (Item *a, gsize n)
{
  for (gsize i = 1; i < n; i++)
    {
      Item v = a[i];
      gsize j = i;
      for (; j > 0 && compare_items (&a[j - 1], &v) > 0; j--)
        a[j] = a[j - 1];
      a[j] = v;
    }
}

static void
fill (Item *a, gsize n, GRand *rand, gint32 distinct, gboolean with_nan)
{
  for (gsize i = 0; i < n; i++)
    {
      a[i].key = (double) g_rand_int_range (rand, 0, distinct);
      if (with_nan && g_rand_int_range (rand, 0, 7) == 0)
        a[i].key = NAN;
      a[i].row = (guint32) i;
    }
}

static void
test_stable_like_insertion (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (16);
  for (gsize n = 0; n < 300; n++)
    for (gint32 distinct = 1; distinct <= 64; distinct *= 4)
      {
        g_autofree Item *a = g_new (Item, MAX (n, 1u)), *b = g_new (Item, MAX (n, 1u)), *tmp = g_new (Item, MAX (n, 1u));
        fill (a, n, rand, distinct, FALSE);
        memcpy (b, a, n * sizeof *a);
        sort_items (a, n, tmp);
        insertion_sort (b, n);
        for (gsize i = 0; i < n; i++)
          {
            g_assert_cmpfloat (a[i].key, ==, b[i].key);
            g_assert_cmpuint (a[i].row, ==, b[i].row);
          }
      }
}

/* The insertion sort the analyses take for short runs without NaN puts every element where
 * the merge sort does: runs in order, reversed, nearly in order (one element far out of
 * place, as an enclosing line logged last) and at random, with few and many equal keys. */
static void
test_insertion_like_merge (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (61);
  for (gsize n = 0; n < 200; n++)
    for (int shape = 0; shape < 4; shape++)
      for (gint32 distinct = 1; distinct <= 256; distinct *= 4)
        {
          g_autofree Item *a = g_new (Item, MAX (n, 1u)), *b = g_new (Item, MAX (n, 1u)), *tmp = g_new (Item, MAX (n, 1u));
          fill (a, n, rand, distinct, FALSE);
          for (gsize i = 0; shape > 0 && shape < 3 && i < n; i++)
            a[i].key = shape == 1 ? (double) (i / 3) : (double) (n - i / 3);
          if (shape == 1 && n > 2)
            a[n - 1].key = -1;   /* the last in file order, the first by key */
          memcpy (b, a, n * sizeof *a);
          sort_items (a, n, tmp);
          insertion_sort_items (b, n);
          for (gsize i = 0; i < n; i++)
            {
              g_assert_cmpfloat (a[i].key, ==, b[i].key);
              g_assert_cmpuint (a[i].row, ==, b[i].row);
            }
        }
}

/* The radix sort puts every element where the merge sort does, for keys without NaN: of
 * either sign, -0 beside +0 (equal, so kept in their order), infinities, the tiniest and
 * largest doubles, keys that share all but their low bits or their high bits, few and many
 * equal keys. */
static void
test_radix_like_merge (void)
{
  static const double special[] = { 0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, 5e-324, -5e-324,
                                     2.2250738585072014e-308, DBL_MAX, -DBL_MAX, 435.16283041238785 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (29);
  for (gsize n = 0; n < 600; n += 1 + n / 8)
    for (int shape = 0; shape < 5; shape++)
      {
        g_autofree Item *a = g_new (Item, MAX (n, 1u)), *b = g_new (Item, MAX (n, 1u)), *tmp = g_new (Item, MAX (n, 1u));
        g_autofree Item *room = g_new (Item, MAX (n, 1u));
        for (gsize i = 0; i < n; i++)
          {
            double v;
            switch (shape)
              {
              case 0: v = special[g_rand_int_range (rand, 0, G_N_ELEMENTS (special))]; break;
              case 1: v = (double) g_rand_int_range (rand, -3, 4); break;   /* many equal */
              case 2: v = 100 + g_rand_double (rand) * 1e-9; break;          /* the low bits differ */
              case 3: v = ldexp (g_rand_boolean (rand) ? 1 : -1, g_rand_int_range (rand, -1070, 1020)); break;
              default: v = (g_rand_double (rand) - 0.3) * 1000; break;
              }
            a[i] = (Item) { v, (guint32) i };
          }
        memcpy (b, a, n * sizeof *a);
        radix_sort_items (a, n, tmp);
        sort_items (b, n, room);
        for (gsize i = 0; i < n; i++)
          {
            g_assert_cmpuint (a[i].row, ==, b[i].row);
            g_assert_true (memcmp (&a[i].key, &b[i].key, sizeof (double)) == 0);
          }
      }
}

static void
test_nan_as_qsort (void)
{
  /* glibc's qsort merges as sort-private.h does; elsewhere only the strict orders above count */
#ifdef __GLIBC__
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);
  for (gsize n = 0; n < 300; n++)
    {
      g_autofree Item *a = g_new (Item, MAX (n, 1u)), *b = g_new (Item, MAX (n, 1u)), *tmp = g_new (Item, MAX (n, 1u));
      fill (a, n, rand, 9, TRUE);
      memcpy (b, a, n * sizeof *a);
      sort_items (a, n, tmp);
      qsort (b, n, sizeof *b, compare_items);
      for (gsize i = 0; i < n; i++)
        g_assert_cmpuint (a[i].row, ==, b[i].row);
    }
#else
  g_test_skip ("the order under NaN is compared with glibc's qsort only");
#endif
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sort/stable-like-insertion", test_stable_like_insertion);
  g_test_add_func ("/sort/nan-as-qsort", test_nan_as_qsort);
  g_test_add_func ("/sort/insertion-like-merge", test_insertion_like_merge);
  g_test_add_func ("/sort/radix-like-merge", test_radix_like_merge);
  return g_test_run ();
}
