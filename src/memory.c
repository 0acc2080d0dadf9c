/* memory.c: large buffers on transparent huge pages, and arrays that grow once, for the
 * loader, the file parser and the cache alike (see memory-private.h). */
#include "memory-private.h"

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
