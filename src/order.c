/* SPDX-License-Identifier: Apache-2.0 */
/* order.c: the orders of strings and step numbers that the loader, the analyses and the report
 * share as g_array_sort / g_ptr_array_sort comparators (rt-trace.h). Apart, so that the files
 * that use them call nothing but this for them. */
#include "rolltrace/rt-trace.h"

#include <string.h>

int
rt_compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

int
rt_compare_gint32 (gconstpointer a, gconstpointer b)
{
  gint32 x = *(const gint32 *) a, y = *(const gint32 *) b;
  return x < y ? -1 : x > y;
}
