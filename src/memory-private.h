/* memory-private.h: the large buffers the loader, the file parser and the cache all ask for:
 * on transparent huge pages, grown once, brought in with one call rather than fault by fault. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Page faults are costly (very much so on virtual machines): large buffers are
 * asked for on transparent huge pages. A hint only. */
void rt_advise_huge_pages (void *p, gsize len);

/* Room for n more elements of a (it grows once, not step by step), on huge pages
 * where the room is large enough. */
void rt_array_make_room (GArray *a, gsize n);

/* Brings in the pages of a range now, in one call, rather than a fault at a time;
 * a hint only (older kernels ignore it). */
void rt_populate_write (void *p, gsize len);

G_END_DECLS
