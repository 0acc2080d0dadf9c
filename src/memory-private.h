/* SPDX-License-Identifier: Apache-2.0 */
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

/* Room in s for `room` more bytes, in one allocation; a large one on transparent huge pages
 * (a text of megabytes written once: 2 MiB pages spare it a fault, and its unmapping a page
 * table entry, every 4 KiB). */
void rt_string_reserve_huge (GString *s, gsize room);

G_END_DECLS
