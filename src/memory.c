/* SPDX-License-Identifier: Apache-2.0 */
/* memory.c: large buffers on transparent huge pages, and arrays that grow once, for the
 * loader, the file parser and the cache alike (see memory-private.h). */
#include "memory-private.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void
rt_advise_huge_pages (void *p, gsize len)
{
#ifdef MADV_HUGEPAGE
  const guintptr huge = 2u << 20;
  guintptr start = ((guintptr) p + huge - 1) & ~(huge - 1);
  guintptr end = ((guintptr) p + len) & ~(huge - 1);
  if (end > start)
    madvise ((void *) start, end - start, MADV_HUGEPAGE);
#else
  (void) p;
  (void) len;
#endif
}

void
rt_populate_write (void *p, gsize len)
{
#ifdef MADV_POPULATE_WRITE
  const guintptr page = 4096;
  guintptr start = ((guintptr) p + page - 1) & ~(page - 1);
  guintptr end = ((guintptr) p + len) & ~(page - 1);
  if (end > start)
    madvise ((void *) start, end - start, MADV_POPULATE_WRITE);
#else
  (void) p;
  (void) len;
#endif
}

void
rt_array_make_room (GArray *a, gsize n)
{
  guint len = a->len;
  gsize want = MIN ((gsize) len + n, (gsize) G_MAXUINT32 / 2);
  g_array_set_size (g_array_set_size (a, (guint) want), len);
  rt_advise_huge_pages (a->data, want * g_array_get_element_size (a));
}

void
rt_string_reserve_huge (GString *s, gsize room)
{
  const gsize huge = 2u << 20;
  gsize len = s->len, want = len + room + 1;
  if (want <= s->allocated_len)
    return;
  /* a large buffer of whole huge pages, aligned to them: its pages come in (and go back)
   * 2 MiB at a time. GLib frees a GString's text with free(), which takes this buffer too. */
  gsize size = (want + huge - 1) & ~(huge - 1);
  void *p = NULL;
  if (want < huge || posix_memalign (&p, huge, size) != 0)
    {
      g_string_truncate (g_string_set_size (s, want - 1), len);   /* grown once, as it is */
      return;
    }
  rt_advise_huge_pages (p, size);
  memcpy (p, s->str, len + 1);
  g_free (s->str);
  s->str = p;
  s->allocated_len = size;
}
