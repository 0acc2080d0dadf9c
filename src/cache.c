/* cache.c: the binary cache of an experiment's tables, so that later analyzers skip the JSON.
 * Never trusted blindly: version, byte order, size and checksums are checked before any use. */
#include "load-private.h"
#include "rolltrace/rt-error.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RT_VERSION
#define RT_VERSION "0.0"
#endif

/* Bump on any change of what is written below. */
#define CACHE_FORMAT 1
#define BYTE_ORDER_MARK 0x01020304u
#define ROWS_START 128

/* Layout: this header, the event rows of every file (each file's rows together,
 * as of its last newline), then the "meta" section: names, files, requests, turn
 * records and problems, serialized field by field. */
typedef struct {
  char magic[8];              /* "RTCACHE\n" */
  guint32 byte_order;         /* BYTE_ORDER_MARK as the writer saw it */
  guint32 format;             /* CACHE_FORMAT */
  guint32 event_size;         /* sizeof (RtEvent) */
  guint32 reserved;
  char version[16];           /* the rolltrace that wrote it */
  guint64 total_size;         /* of the whole file: a shorter one was cut */
  guint64 meta_offset, meta_size, meta_checksum;
  guint64 header_checksum;    /* of everything above */
} CacheHeader;

G_STATIC_ASSERT (sizeof (CacheHeader) <= ROWS_START);

/* One file as the cache describes it, found when the meta section is checked. */
typedef struct {
  const char *path;           /* in the mapping, NUL-terminated */
  guint64 size, inode, resume_offset;
  gint64 mtime_us;
  gsize meta_at;              /* where the rest of its record starts */
} CachedFile;

struct _RtCacheMap {
  const guint8 *data;
  gsize size;
  const guint8 *meta;
  gsize meta_size;
  GArray *files;              /* CachedFile */
  GHashTable *by_path;        /* path -> index + 1 */
};

/* ---- the checksum --------------------------------------------------------------- */

static inline guint64
mix (guint64 h, guint64 w)
{
  h ^= w * 0x9E3779B97F4A7C15ull;
  h = (h << 31) | (h >> 33);
  return h * 0xBF58476D1CE4E5B9ull;
}

guint64
rt_hash64 (const void *data, gsize len, guint64 seed)
{
  /* four independent lanes keep the multiplier busy: several GB/s per core */
  const guint8 *p = data;
  guint64 a = seed ^ 0x243F6A8885A308D3ull, b = seed ^ 0x13198A2E03707344ull;
  guint64 c = seed ^ 0xA4093822299F31D0ull, d = seed ^ 0x082EFA98EC4E6C89ull;
  gsize i = 0;
  for (; i + 32 <= len; i += 32)
    {
      guint64 w[4];
      memcpy (w, p + i, 32);
      a = mix (a, w[0]);
      b = mix (b, w[1]);
      c = mix (c, w[2]);
      d = mix (d, w[3]);
    }
  guint64 h = mix (mix (mix (a, b), c), d) ^ len;
  for (; i < len; i++)
    h = mix (h, p[i]);
  return mix (h, 0);
}

/* ---- reading the meta section, bounds-checked ------------------------------------ */

typedef struct {
  const guint8 *p;
  gsize pos, len;
  gboolean bad;
} Reader;

static void
take (Reader *r, void *out, gsize n)
{
  if (r->bad || n > r->len - r->pos)
    {
      r->bad = TRUE;
      memset (out, 0, n);
      return;
    }
  memcpy (out, r->p + r->pos, n);
  r->pos += n;
}

static guint32 get_u32 (Reader *r) { guint32 v; take (r, &v, 4); return v; }
static guint64 get_u64 (Reader *r) { guint64 v; take (r, &v, 8); return v; }
static double get_f64 (Reader *r) { double v; take (r, &v, 8); return v; }
static guint8 get_u8 (Reader *r) { guint8 v; take (r, &v, 1); return v; }

/* A string written with its length and a NUL: returned in place, or NULL if bad. */
static const char *
get_str (Reader *r)
{
  guint32 n = get_u32 (r);
  if (r->bad || (gsize) n + 1 > r->len - r->pos || r->p[r->pos + n] != '\0')
    {
      r->bad = TRUE;
      return NULL;
    }
  const char *s = (const char *) r->p + r->pos;
  r->pos += (gsize) n + 1;
  return s;
}

static void
skip (Reader *r, gsize n)
{
  if (r->bad || n > r->len - r->pos)
    r->bad = TRUE;
  else
    r->pos += n;
}

#define TURN_RECORD_SIZE (4 + 4 + 5 * 8)
#define COUNTERS_SIZE (5 * 8 + 4 + 8 + RT_N_STEP_EVENTS * 8 + 4)

/* Walks a file's record after its identity: to check it, or to restore it. */
static void
skip_file_rest (Reader *r)
{
  skip (r, 16 + COUNTERS_SIZE + 8 + 4 + 8);   /* resume, counters, rows */
  guint32 n_req = get_u32 (r);
  for (guint32 i = 0; i < n_req && !r->bad; i++)
    {
      get_str (r);
      if (get_u8 (r))
        get_str (r);
      skip (r, 1 + 8 + 8 + 4 + 4 + 1);
    }
  for (int k = 0; k < 2; k++)
    {
      guint32 n = get_u32 (r);
      skip (r, (gsize) n * TURN_RECORD_SIZE);
    }
  guint32 n_prob = get_u32 (r);
  for (guint32 i = 0; i < n_prob && !r->bad; i++)
    {
      get_u64 (r);
      get_str (r);
    }
}

static gboolean
header_ok (const CacheHeader *h, gsize file_size, const char **why)
{
  if (memcmp (h->magic, "RTCACHE\n", 8) != 0)
    *why = "not a rolltrace cache";
  else if (h->byte_order != BYTE_ORDER_MARK)
    *why = "written on a machine of another byte order";
  else if (h->format != CACHE_FORMAT || h->event_size != sizeof (RtEvent)
           || strncmp (h->version, RT_VERSION, sizeof h->version) != 0)
    *why = "written by another version of rolltrace";
  else if (h->total_size != file_size)
    *why = "truncated";
  else if (h->header_checksum != rt_hash64 (h, offsetof (CacheHeader, header_checksum), 0))
    *why = "damaged header";
  else if (h->meta_offset > file_size || h->meta_size > file_size - h->meta_offset)
    *why = "damaged header";
  else
    return TRUE;
  return FALSE;
}

RtCacheMap *
rt_cache_open (const char *path, const char *exp_canonical, RtEventRegistry *reg, const char **why)
{
  *why = NULL;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;   /* no cache yet: not a rejection */
  struct stat st;
  if (fstat (fd, &st) != 0 || (gsize) st.st_size < sizeof (CacheHeader))
    {
      close (fd);
      *why = "truncated";
      return NULL;
    }
  void *data = mmap (NULL, (gsize) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  if (data == MAP_FAILED)
    {
      *why = "unreadable";
      return NULL;
    }

  g_autofree RtCacheMap *map = g_new0 (RtCacheMap, 1);
  map->data = data;
  map->size = (gsize) st.st_size;
  CacheHeader h;
  memcpy (&h, data, sizeof h);
  if (!header_ok (&h, map->size, why))
    goto reject;
  map->meta = map->data + h.meta_offset;
  map->meta_size = h.meta_size;
  if (rt_hash64 (map->meta, map->meta_size, 1) != h.meta_checksum)
    {
      *why = "damaged tables";
      goto reject;
    }

  Reader r = { map->meta, 0, map->meta_size, FALSE };
  const char *exp = get_str (&r);
  if (exp == NULL || strcmp (exp, exp_canonical) != 0)
    {
      *why = "made for another experiment";
      goto reject;
    }
  /* names in id order: interned into a fresh registry they get the same ids */
  guint32 n_names = get_u32 (&r);
  for (guint32 i = 0; i < n_names && !r.bad; i++)
    {
      const char *name = get_str (&r);
      RtSchemaFlags schema;
      if (name == NULL || rt_event_registry_intern (reg, name, strlen (name), TRUE, &schema) != i)
        r.bad = TRUE;
    }
  map->files = g_array_new (FALSE, FALSE, sizeof (CachedFile));
  map->by_path = g_hash_table_new (g_str_hash, g_str_equal);
  guint32 n_files = get_u32 (&r);
  for (guint32 i = 0; i < n_files && !r.bad; i++)
    {
      CachedFile cf;
      cf.path = get_str (&r);
      get_u32 (&r);   /* step */
      get_u32 (&r);   /* worker */
      cf.size = get_u64 (&r);
      cf.mtime_us = (gint64) get_u64 (&r);
      cf.inode = get_u64 (&r);
      cf.meta_at = r.pos;
      cf.resume_offset = get_u64 (&r);
      r.pos = cf.meta_at;
      skip_file_rest (&r);
      if (!r.bad)
        {
          g_array_append_val (map->files, cf);
          g_hash_table_insert (map->by_path, (gpointer) cf.path, GUINT_TO_POINTER (map->files->len));
        }
    }
  if (r.bad || r.pos != r.len)
    {
      *why = "damaged tables";
      goto reject;
    }
  return g_steal_pointer (&map);

reject:
  munmap ((void *) map->data, map->size);
  if (map->files)
    g_array_unref (map->files);
  if (map->by_path)
    g_hash_table_unref (map->by_path);
  return NULL;
}

void
rt_cache_close (RtCacheMap *map)
{
  if (map == NULL)
    return;
  munmap ((void *) map->data, map->size);
  g_array_unref (map->files);
  g_hash_table_unref (map->by_path);
  g_free (map);
}

void
rt_cache_release_meta (RtCacheMap *map)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  guintptr start = ((guintptr) map->meta + page - 1) & ~(guintptr) (page - 1);
  guintptr end = (guintptr) map->data + map->size;
  if (end > start)
    madvise ((void *) start, end - start, MADV_DONTNEED);
}

guint
rt_cache_n_files (RtCacheMap *map)
{
  return map->files->len;
}

gboolean
rt_cache_find (RtCacheMap *map, const RtFile *f, guint *record)
{
  gpointer hit = g_hash_table_lookup (map->by_path, f->path);
  if (hit == NULL)
    return FALSE;
  const CachedFile *cf = &g_array_index (map->files, CachedFile, GPOINTER_TO_UINT (hit) - 1);
  /* another file under the same name, or one that was cut: read it again */
  if (cf->inode != f->inode || f->size < cf->resume_offset)
    return FALSE;
  *record = GPOINTER_TO_UINT (hit) - 1;
  return TRUE;
}

gboolean
rt_cache_unchanged (RtCacheMap *map, guint record, const RtFile *f)
{
  const CachedFile *cf = &g_array_index (map->files, CachedFile, record);
  return cf->size == f->size && cf->mtime_us == f->mtime_us;
}

static void
get_turn_records (Reader *r, GArray *out)
{
  guint32 n = get_u32 (r);
  g_array_set_size (out, 0);
  for (guint32 i = 0; i < n && !r->bad; i++)
    {
      RtTurnRecord t;
      t.request = get_u32 (r);
      t.figures.turn = (gint32) get_u32 (r);
      t.figures.total_s = get_f64 (r);
      t.figures.pre_process_s = get_f64 (r);
      t.figures.engine_call_s = get_f64 (r);
      t.figures.post_process_s = get_f64 (r);
      t.figures.tool_parsing_s = get_f64 (r);
      g_array_append_val (out, t);
    }
}

void
rt_cache_restore (RtCacheMap *map, guint record, RtFileParse *p, const RtEvent **rows,
                  guint64 *rows_checksum, RtResume *resume)
{
  const CachedFile *cf = &g_array_index (map->files, CachedFile, record);
  Reader r = { map->meta, cf->meta_at, map->meta_size, FALSE };
  RtFile *f = p->file;

  resume->offset = get_u64 (&r);
  resume->line = get_u64 (&r);
  f->lines = get_u64 (&r);
  f->events = get_u64 (&r);
  f->bad_lines = get_u64 (&r);
  f->field_problems = get_u64 (&r);
  f->problems_total = get_u64 (&r);
  f->n_complete = get_u32 (&r);
  f->start_min_s = get_f64 (&r);
  for (int e = 0; e < RT_N_STEP_EVENTS; e++)
    f->step_sum_s[e] = get_f64 (&r);
  f->schema = get_u32 (&r);
  guint64 rows_at = get_u64 (&r);
  guint32 n_rows = get_u32 (&r);
  *rows_checksum = get_u64 (&r);
  *rows = (const RtEvent *) (map->data + rows_at);

  guint32 n_req = get_u32 (&r);
  for (guint32 i = 0; i < n_req; i++)
    {
      RtRequest q = { 0 };
      q.id = get_str (&r);
      q.finish_reason = get_u8 (&r) ? get_str (&r) : NULL;
      q.complete = get_u8 (&r);
      q.end_s = get_f64 (&r);
      q.total_s = get_f64 (&r);
      q.turns = (gint32) get_u32 (&r);
      q.response_length = (gint32) get_u32 (&r);
      q.turns_from_timings = get_u8 (&r);
      rt_file_parse_add_request (p, &q);
    }
  get_turn_records (&r, p->timing_turns);
  get_turn_records (&r, p->end_turns);
  guint64 problems_total = f->problems_total;
  guint32 n_prob = get_u32 (&r);
  for (guint32 i = 0; i < n_prob; i++)
    {
      guint64 line = get_u64 (&r);
      const char *reason = get_str (&r);
      rt_file_parse_add_problem (p, line, g_intern_string (reason ? reason : "?"));
    }
  f->problems_total = problems_total;   /* add_problem counted them again */
  g_assert (!r.bad);   /* the whole section was walked when the cache was opened */

  /* rows outside the mapping would be a bug in the writer, not damage: checked anyway */
  if (rows_at > map->size || (guint64) n_rows * sizeof (RtEvent) > map->size - rows_at
      || rows_at % 8 != 0)
    {
      *rows = NULL;
      n_rows = 0;
    }

  resume->counters = *f;
  resume->counters.path = NULL;
  resume->n_events = n_rows;
  resume->n_requests = p->requests->len;
  resume->n_timing = p->timing_turns->len;
  resume->n_end = p->end_turns->len;
  resume->n_problems = p->problems->len;
  resume->requests = NULL;
}

gboolean
rt_cache_rows_ok (const RtEvent *rows, guint32 n, guint64 checksum)
{
  if (rows == NULL)
    return n == 0;
  return rt_hash64 (rows, (gsize) n * sizeof (RtEvent), 2) == checksum;
}

/* ---- writing ------------------------------------------------------------------ */

static void put (GByteArray *b, const void *p, gsize n) { g_byte_array_append (b, p, (guint) n); }
static void put_u32 (GByteArray *b, guint32 v) { put (b, &v, 4); }
static void put_u64 (GByteArray *b, guint64 v) { put (b, &v, 8); }
static void put_f64 (GByteArray *b, double v) { put (b, &v, 8); }
static void put_u8 (GByteArray *b, guint8 v) { put (b, &v, 1); }

static void
put_str (GByteArray *b, const char *s)
{
  guint32 n = (guint32) strlen (s);
  put_u32 (b, n);
  put (b, s, (gsize) n + 1);
}

static void
put_turn_records (GByteArray *b, GArray *records, guint32 n)
{
  put_u32 (b, n);
  for (guint32 i = 0; i < n; i++)
    {
      const RtTurnRecord *t = &g_array_index (records, RtTurnRecord, i);
      put_u32 (b, t->request);
      put_u32 (b, (guint32) t->figures.turn);
      put_f64 (b, t->figures.total_s);
      put_f64 (b, t->figures.pre_process_s);
      put_f64 (b, t->figures.engine_call_s);
      put_f64 (b, t->figures.post_process_s);
      put_f64 (b, t->figures.tool_parsing_s);
    }
}

static gboolean
write_all (int fd, const void *p, gsize n, GError **error)
{
  const guint8 *c = p;
  while (n > 0)
    {
      gssize w = write (fd, c, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          int e = errno;
          g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write the cache: %s", g_strerror (e));
          return FALSE;
        }
      c += w;
      n -= (gsize) w;
    }
  return TRUE;
}

/* The meta record of one file, as of its last newline. */
static void
put_file (GByteArray *m, const RtTrace *t, guint i, guint64 rows_at, guint64 rows_checksum)
{
  const RtFile *f = rt_trace_file (t, i);
  const RtFileState *fs = &t->priv->files[i];
  const RtResume *rp = &fs->resume;
  const RtFile *c = &rp->counters;

  put_str (m, f->path);
  put_u32 (m, (guint32) f->step);
  put_u32 (m, (guint32) f->worker);
  put_u64 (m, f->size);
  put_u64 (m, (guint64) f->mtime_us);
  put_u64 (m, f->inode);
  put_u64 (m, rp->offset);
  put_u64 (m, rp->line);
  put_u64 (m, c->lines);
  put_u64 (m, c->events);
  put_u64 (m, c->bad_lines);
  put_u64 (m, c->field_problems);
  put_u64 (m, c->problems_total);
  put_u32 (m, c->n_complete);
  put_f64 (m, c->start_min_s);
  for (int e = 0; e < RT_N_STEP_EVENTS; e++)
    put_f64 (m, c->step_sum_s[e]);
  put_u32 (m, c->schema);
  put_u64 (m, rows_at);
  put_u32 (m, rp->n_events);
  put_u64 (m, rows_checksum);

  put_u32 (m, rp->n_requests);
  for (guint32 k = 0; k < rp->n_requests; k++)
    {
      const RtRequest *q = rp->requests ? &g_array_index (rp->requests, RtRequest, k)
                                        : rt_trace_request (t, f->first_request + k);
      put_str (m, q->id);
      put_u8 (m, q->finish_reason != NULL);
      if (q->finish_reason)
        put_str (m, q->finish_reason);
      put_u8 (m, (guint8) q->complete);
      put_f64 (m, q->end_s);
      put_f64 (m, q->total_s);
      put_u32 (m, (guint32) q->turns);
      put_u32 (m, (guint32) q->response_length);
      put_u8 (m, (guint8) q->turns_from_timings);
    }
  put_turn_records (m, fs->timing_turns, rp->n_timing);
  put_turn_records (m, fs->end_turns, rp->n_end);
  put_u32 (m, rp->n_problems);
  for (guint32 k = 0; k < rp->n_problems; k++)
    {
      const RtProblem *pr = &g_array_index (fs->problems, RtProblem, k);
      put_u64 (m, pr->line);
      put_str (m, pr->reason);
    }
}

gboolean
rt_cache_write (const RtTrace *t, const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *tmp = g_build_filename (dir, ".rolltrace-XXXXXX", NULL);
  int fd = g_mkstemp (tmp);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create a file in %s: %s", dir, g_strerror (e));
      return FALSE;
    }

  g_autoptr (GByteArray) m = g_byte_array_new ();
  g_autofree char *exp = g_canonicalize_filename (t->path, NULL);
  put_str (m, exp);
  guint n_names = rt_event_registry_size (t->registry);
  put_u32 (m, n_names);
  for (guint i = 0; i < n_names; i++)
    put_str (m, rt_event_registry_name (t->registry, (guint16) i));
  put_u32 (m, t->files->len);

  /* the rows of every file, as of its last newline, right after the header */
  static const guint8 zeros[ROWS_START] = { 0 };
  gboolean ok = write_all (fd, zeros, ROWS_START, error);
  guint64 at = ROWS_START;
  for (guint i = 0; ok && i < t->files->len; i++)
    {
      const RtEvent *rows = rt_trace_file_events (t, i);
      gsize bytes = (gsize) t->priv->files[i].resume.n_events * sizeof (RtEvent);
      guint64 checksum = rt_hash64 (rows, bytes, 2);
      ok = write_all (fd, rows, bytes, error);
      put_file (m, t, i, at, checksum);
      at += bytes;
    }

  CacheHeader h = { .byte_order = BYTE_ORDER_MARK, .format = CACHE_FORMAT,
                    .event_size = sizeof (RtEvent) };
  memcpy (h.magic, "RTCACHE\n", 8);
  g_strlcpy (h.version, RT_VERSION, sizeof h.version);
  h.meta_offset = at;
  h.meta_size = m->len;
  h.meta_checksum = rt_hash64 (m->data, m->len, 1);
  h.total_size = at + m->len;
  h.header_checksum = rt_hash64 (&h, offsetof (CacheHeader, header_checksum), 0);
  ok = ok && write_all (fd, m->data, m->len, error)
       && pwrite (fd, &h, sizeof h, 0) == (gssize) sizeof h;
  if (close (fd) != 0)
    ok = FALSE;
  /* readers see the old cache or the new one, never half of one */
  if (ok && g_rename (tmp, path) != 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot rename %s: %s", tmp, g_strerror (e));
      ok = FALSE;
    }
  if (!ok)
    {
      if (error && *error == NULL)
        g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write %s", tmp);
      g_unlink (tmp);
    }
  return ok;
}
