/* SPDX-License-Identifier: Apache-2.0 */
/* test-memory.c: the large buffers of memory.c hold what they are given, whichever way they
 * are made (on huge pages or not), and GLib frees them as its own. */
#include <string.h>

#include "memory-private.h"

/* Room reserved keeps the text, gives at least the room asked, and the string grows and is
 * freed as any other: small rooms and large (huge pages), from an empty string and a long one. */
static void
test_reserved_room_keeps_the_text (void)
{
  const gsize rooms[] = { 0, 1, 100, (2u << 20) - 200, 2u << 20, (5u << 20) + 3 };
  for (guint i = 0; i < G_N_ELEMENTS (rooms); i++)
    for (guint start = 0; start < 3; start++)
      {
        g_autoptr (GString) s = g_string_new (NULL);
        for (guint k = 0; k < start * 40000; k++)
          g_string_append_c (s, (char) ('a' + k % 26));
        g_autofree char *before = g_strdup (s->str);
        gsize len = s->len;
        rt_string_reserve_huge (s, rooms[i]);
        g_assert_cmpuint (s->len, ==, len);
        g_assert_cmpuint (s->allocated_len, >=, len + rooms[i] + 1);
        g_assert_cmpstr (s->str, ==, before);
        if (rooms[i] >= (2u << 20))
          g_assert_cmpuint ((guintptr) s->str % (2u << 20), ==, 0);   /* on huge pages */
        gsize at = s->allocated_len;
        char *str = s->str;
        /* the room is there: filling it moves nothing */
        for (gsize k = 0; k < rooms[i]; k++)
          g_string_append_c (s, 'z');
        g_assert_true (s->str == str);
        g_assert_cmpuint (s->allocated_len, ==, at);
        /* and past it the string grows as GLib grows it */
        g_string_append (s, "!end");
        g_assert_true (g_str_has_suffix (s->str, "z!end") || rooms[i] == 0);
        g_assert_cmpuint (s->len, ==, len + rooms[i] + 4);
        g_assert_true (strncmp (s->str, before, len) == 0);
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory/reserved-room-keeps-the-text", test_reserved_room_keeps_the_text);
  return g_test_run ();
}
