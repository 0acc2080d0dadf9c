/* SPDX-License-Identifier: Apache-2.0 */
// json-line.cpp: reads one trace line with simdjson's On-Demand API, behind a C interface.
// The only C++ in the project; it touches only the fields the tables need and skips the rest.
//
// simdjson compiles On-Demand for one instruction set only, the one the compiler may assume
// (its "builtin" kernel): without -march that is the portable fallback, which reads a byte at
// a time. So this file is compiled more than once (CMakeLists.txt): plain, the build every
// machine runs, and on x86-64 again with RT_JSON_KERNEL set to haswell (AVX2) and icelake
// (AVX-512) and those instructions allowed. json-kernels.cpp, compiled once, holds the public
// functions and picks, once, the best kernel the processor runs (simdjson's own runtime
// detection), so the binary still starts on any x86-64. The plain object comes first in the link, so the inline
// functions the builds share are taken from it (tests/e2e/t-json-kernels.sh checks that no
// wider instruction leaks out of the kernels).
#include "json-kernel-private.h"
#include "decimal-private.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <utility>
#include <string_view>

#include <simdjson.h>

#if defined(__AVX2__) || defined(__SSE2__)
#include <immintrin.h>
#endif

#ifdef RT_JSON_KERNEL
// the variant must really be the kernel it is named after, not a quiet fallback
static_assert (std::is_same<simdjson::builtin::ondemand::parser,
                            simdjson::RT_JSON_KERNEL::ondemand::parser>::value,
               "the flags of this build do not select the kernel it is named after");
#define RT_KERNEL_SYMBOL_(a, b) a##b
#define RT_KERNEL_SYMBOL(a, b) RT_KERNEL_SYMBOL_ (a, b)
#define RT_THIS_KERNEL RT_KERNEL_SYMBOL (rt_json_kernel_, RT_JSON_KERNEL)
#define RT_KERNEL_NAMESPACE RT_KERNEL_SYMBOL (rt_json_, RT_JSON_KERNEL)
#else
#define RT_THIS_KERNEL rt_json_kernel_plain
#define RT_KERNEL_NAMESPACE rt_json_plain
#endif

using namespace simdjson;

// every function of a kernel is named after it (rt_json_haswell::...), so that a look at the
// machine code can tell which functions may use its instructions
namespace RT_KERNEL_NAMESPACE {
namespace {

struct KernelParser {
  ondemand::parser parser;
  GArray *turn_timings = nullptr;
};

// Marks a field that is there but holds the wrong kind of value.
struct LineState {
  RtLineFields *out;
  bool unread_container = false;   // an array or object was left unread (see skip_unread)
};

// simdjson 3.0.1 (Debian 12's) reads a number 0.<digits> whose digits after the leading zeros
// number more than 19 as if they had not overflowed 64 bits: its check of that counts the
// leading zeros instead of the digits after them, so 0.12345678901234567890123 comes out as
// 4.8e-05. Whether `raw` (a token simdjson took for a number) is of that form.
bool
overflowing_fraction (std::string_view raw)
{
  size_t i = !raw.empty () && raw[0] == '-' ? 1 : 0;
  if (raw.size () < i + 2 || raw[i] != '0' || raw[i + 1] != '.')
    return false;
  i += 2;
  while (i < raw.size () && raw[i] == '0')
    i++;
  size_t first = i;
  while (i < raw.size () && raw[i] >= '0' && raw[i] <= '9')
    i++;
  return i - first > 19;
}

// Whether a number simdjson takes may end before byte c: of the bytes it allows there (white
// space and the structural characters), those that follow a number in a line.
inline bool
number_may_end_at (char c)
{
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// A number read without simdjson is stepped over as simdjson's get_double steps over one it
// has read (an unread value is skipped too, later, but at more cost). simdjson keeps that
// step to itself (protected, in value and in value_iterator): classes derived from theirs
// may name it.
struct ScalarStep : ondemand::value_iterator {
  static void over (ondemand::value_iterator &it)
  {
    (it.*(&ScalarStep::advance_non_root_scalar)) ("double");
  }
};
struct ValueStep : ondemand::value {
  // (v, a copy, is a handle: the step moves the document's iterator, which every copy shares)
  static void over_scalar (ondemand::value v)
  {
    ScalarStep::over (v.*(&ValueStep::iter));
  }
};

// Python writes NaN, Infinity and -Infinity as bare words, which simdjson rejects as
// numbers. Such a value, or any non-finite one, makes the field absent (NAN); a
// value that is no number at all (a string, an object) is a type problem as well.
// (The way of every token decimal.c does not read: simdjson's own.)
G_NO_INLINE double
read_number_slowly (ondemand::value value, LineState &st, const char *field)
{
  double d;
  std::string_view raw = value.raw_json_token ();
  if (value.get_double ().get (d) == SUCCESS)
    {
      // Such a number needs 22 characters at least ("0." and 20 digits): only a token that
      // long is looked at, and read again with strtod, which rounds it as simdjson's own
      // path for long numbers would have (both to the nearest double).
      if (G_UNLIKELY (raw.size () >= 22) && overflowing_fraction (raw))
        {
          g_autofree char *text = g_strndup (raw.data (), raw.size ());
          d = g_ascii_strtod (text, nullptr);
        }
      return std::isfinite (d) ? d : NAN;
    }
  while (!raw.empty () && (raw.back () == ' ' || raw.back () == '\t' || raw.back () == '\r'))
    raw.remove_suffix (1);
  if (raw != "NaN" && raw != "Infinity" && raw != "-Infinity")
    st.out->type_problem = field;
  return NAN;
}

// The common shapes (Python's reprs of durations) are read by decimal.c, which rounds as
// strtod does, and only when the number ends where simdjson would end it: then simdjson takes
// the same token as the same number, and steps over it alike. Every other token goes
// simdjson's way. (Inlined in its callers: a value passed to a function of its own is stored
// and loaded again, at a cost near that of reading the number.)
G_ALWAYS_INLINE inline double
read_number (ondemand::value value, LineState &st, const char *field)
{
  std::string_view raw = value.raw_json_token ();
  double d;
  gsize n = dec_read_double (raw.data (), raw.size (), &d);
  if (G_LIKELY (n > 0 && number_may_end_at (raw.data ()[n])))
    {
      ValueStep::over_scalar (value);
      return d;
    }
  return read_number_slowly (value, st, field);
}

// Integers may come as 3 or 3.0; anything else is absent (-1).
G_ALWAYS_INLINE inline gint64
read_count (ondemand::value value, LineState &st, const char *field)
{
  std::string_view raw = value.raw_json_token ();
  gint64 n;
  gsize used = dec_read_count (raw.data (), raw.size (), &n);
  if (G_LIKELY (used > 0 && number_may_end_at (raw.data ()[used])))
    {
      ValueStep::over_scalar (value);
      return n;   // at most 15 digits: below the 9.0e15 limit
    }
  double d = read_number (value, st, field);
  if (std::isnan (d) || d != std::floor (d) || d < 0 || d > 9.0e15)
    return -1;
  return (gint64) d;
}

// Where the first byte c is among the n bytes at p, or n. A block of 64 bytes (32 in the
// haswell kernel, 16 in the plain one) is compared at once, inline: a line's strings and the
// line itself are a few blocks long, shorter than what a call to memchr is worth (the line is
// searched for its newline whole, about 290 bytes). The last block may reach up to 63 bytes
// past p + n: the line's padding (RT_JSON_PADDING), whose bytes are ignored.
static_assert (RT_JSON_PADDING >= 64, "find_byte reads a block of 64 bytes past the end");
inline size_t
find_byte (const char *p, size_t n, char c)
{
#if defined(__AVX512BW__)
  const __m512i wanted = _mm512_set1_epi8 (c);
  for (size_t i = 0; i < n; i += 64)
    {
      guint64 hits = _mm512_cmpeq_epi8_mask (_mm512_loadu_si512 (p + i), wanted);
      if (hits != 0)
        return std::min (n, i + (size_t) __builtin_ctzll (hits));
    }
  return n;
#elif defined(__AVX2__)
  const __m256i wanted = _mm256_set1_epi8 (c);
  for (size_t i = 0; i < n; i += 32)
    {
      __m256i block = _mm256_loadu_si256 (reinterpret_cast<const __m256i *> (p + i));
      guint32 hits = (guint32) _mm256_movemask_epi8 (_mm256_cmpeq_epi8 (block, wanted));
      if (hits != 0)
        return std::min (n, i + (size_t) __builtin_ctz (hits));
    }
  return n;
#elif defined(__SSE2__)
  const __m128i wanted = _mm_set1_epi8 (c);
  for (size_t i = 0; i < n; i += 16)
    {
      __m128i block = _mm_loadu_si128 (reinterpret_cast<const __m128i *> (p + i));
      guint32 hits = (guint32) _mm_movemask_epi8 (_mm_cmpeq_epi8 (block, wanted));
      if (hits != 0)
        return std::min (n, i + (size_t) __builtin_ctz (hits));
    }
  return n;
#else
  const void *hit = memchr (p, c, n);
  return hit != nullptr ? (size_t) (static_cast<const char *> (hit) - p) : n;
#endif
}

// The string `tok` (a raw token: its quotes, and any white space after it) holds when it
// needs no unescaping, pointed to in the line itself.
inline bool
plain_string (std::string_view tok, RtStrView *view)
{
  if (tok.size () < 2 || tok.front () != '"' || tok.back () != '"'
      || find_byte (tok.data () + 1, tok.size () - 2, '\\') != tok.size () - 2)
    return false;
  view->str = tok.data () + 1;
  view->len = tok.size () - 2;
  return true;
}

// read_string for the rest: white space after the token, escapes, or no string at all.
G_GNUC_NO_INLINE bool
read_other_string (ondemand::value value, RtStrView *view, LineState &st, const char *field)
{
  std::string_view tok = value.raw_json_token ();
  while (!tok.empty () && (tok.back () == ' ' || tok.back () == '\t' || tok.back () == '\r' || tok.back () == '\n'))
    tok.remove_suffix (1);
  if (plain_string (tok, view))
    return true;
  std::string_view s;
  if (value.get_string ().get (s) != SUCCESS)
    {
      st.out->type_problem = field;
      return false;
    }
  view->str = s.data ();
  view->len = s.size ();
  return true;
}

// Most strings have nothing to unescape: they point into the line itself instead of being
// copied through the parser's string buffer. Inline: a line has three strings or four.
G_ALWAYS_INLINE inline bool
read_string (ondemand::value value, RtStrView *view, LineState &st, const char *field)
{
  // the token runs up to the next one; Python writes ", " so no white space ends it
  if (G_UNLIKELY (!plain_string (value.raw_json_token (), view)))
    return read_other_string (value, view, st, field);
  // taken, so that the walk checks what follows it (a value left unread is skipped: see
  // skip_unread)
  ondemand::raw_json_string taken;
  return value.get_raw_json_string ().get (taken) == SUCCESS;
}

// (constexpr: absent_fields below is made with it at compile time)
constexpr void
turn_figures_init (RtTurnFigures *t)
{
  t->turn = -1;
  t->total_s = t->pre_process_s = t->engine_call_s = NAN;
  t->post_process_s = t->tool_parsing_s = NAN;
}

inline guint64
load8 (const char *p)
{
  guint64 w;
  memcpy (&w, p, 8);
  return w;
}

// Keys are compared in place, without unescaping them first: every key we look
// for is a plain identifier, and a key spelled with escapes is not one of ours.
// KEY_IS (key, "name"): whether the raw key text (after its opening quote) is the name
// and then the closing quote. Both are compared eight bytes at a time with words made
// at compile time (the line's padding makes reading past a short key safe), and the
// key's first byte picks the few names worth comparing: each key of a line costs a
// branch or two, not one for every name we look for.
template <std::size_t N>
struct KeyWords {
  guint64 word[(N + 7) / 8];
  guint64 last_mask;
};

// The words of a name and its closing quote (N - 1 characters and the quote).
template <std::size_t N>
constexpr KeyWords<N>
key_words (const char (&name)[N])
{
  KeyWords<N> w{};
  for (std::size_t k = 0; k < N; k++)
    w.word[k / 8] |= (guint64) (guchar) (k < N - 1 ? name[k] : '"') << (8 * (k % 8));
  w.last_mask = N % 8 == 0 ? ~0ull : (1ull << (8 * (N % 8))) - 1;
  return w;
}

template <std::size_t N>
inline bool
key_matches (const char *key, const KeyWords<N> &w)
{
  bool same = true;
  for (std::size_t i = 0; i + 1 < (N + 7) / 8; i++)
    same &= load8 (key + 8 * i) == w.word[i];
  return same & ((load8 (key + 8 * ((N - 1) / 8)) & w.last_mask) == w.word[(N - 1) / 8]);
}

#define KEY_IS(key, name) \
  ([] (const char *k) { static constexpr auto w = key_words (name); return key_matches (k, w); } (key))

// Passes over a value the tables do not need. Left alone, simdjson skips it by counting
// brackets, and takes a string followed by ':' at its start for a key: it then skips on to
// the object's closing brace, so that `{"a": "b": 1, "c": 2}}` passed for one object. A
// string is taken instead (the walk then checks that ',' or the closing bracket follows it);
// a number or a word is left to simdjson, which checks what follows it. Inside an array or
// object simdjson checks nothing but the count of brackets: the line is noted, and its shape
// checked as a whole once it is read (see has_shape).
G_ALWAYS_INLINE inline void
skip_unread (ondemand::value value, LineState &st)
{
  char first = value.raw_json_token ()[0];
  if (first == '"')
    {
      ondemand::raw_json_string taken;
      (void) value.get_raw_json_string ().get (taken);
    }
  else if (first == '[' || first == '{')
    st.unread_container = true;
}

// Fills the *_duration figures shared by turn_end's extra and a turn_timings entry; the
// value of any other key is skipped unread. (Inlined, as read_number is: passed to a
// function of its own, the value would be stored and loaded.)
G_ALWAYS_INLINE inline void
read_turn_figure (const char *key, ondemand::value value, RtTurnFigures *t, LineState &st)
{
  switch (key[0])
    {
    case 'p':
      if (KEY_IS (key, "pre_process_duration"))
        t->pre_process_s = read_number (value, st, "wrong type: pre_process_duration");
      else if (KEY_IS (key, "post_process_duration"))
        t->post_process_s = read_number (value, st, "wrong type: post_process_duration");
      else
        skip_unread (value, st);
      break;
    case 'e':
      if (KEY_IS (key, "engine_call_duration"))
        t->engine_call_s = read_number (value, st, "wrong type: engine_call_duration");
      else
        skip_unread (value, st);
      break;
    case 't':
      if (KEY_IS (key, "tool_parsing_duration"))
        t->tool_parsing_s = read_number (value, st, "wrong type: tool_parsing_duration");
      else
        skip_unread (value, st);
      break;
    default:
      skip_unread (value, st);
      break;
    }
}

error_code
read_turn_timings (ondemand::value value, GArray *timings, LineState &st)
{
  ondemand::array arr;
  if (value.get_array ().get (arr) != SUCCESS)
    {
      st.out->type_problem = "wrong type: turn_timings";
      skip_unread (value, st);
      return SUCCESS;
    }
  for (auto elem : arr)
    {
      ondemand::value item;
      SIMDJSON_TRY (elem.get (item));
      ondemand::object obj;
      if (item.get_object ().get (obj) != SUCCESS)
        {
          st.out->type_problem = "wrong type: turn_timings";
          skip_unread (item, st);
          continue;
        }
      RtTurnFigures t;
      turn_figures_init (&t);
      for (auto field : obj)
        {
          ondemand::field fld;
          SIMDJSON_TRY (std::move (field).get (fld));
          const char *key = fld.key ().raw ();
          ondemand::value v = fld.value ();
          if (KEY_IS (key, "turn"))
            {
              gint64 n = read_count (v, st, "wrong type: turn_timings.turn");
              t.turn = n > G_MAXINT16 ? -1 : (gint32) n;
            }
          else if (KEY_IS (key, "total_duration"))
            t.total_s = read_number (v, st, "wrong type: turn_timings.total_duration");
          else
            read_turn_figure (key, v, &t, st);
        }
      g_array_append_val (timings, t);
    }
  return SUCCESS;
}

// A whole number written as digits alone, 0 to 2^31-1 (extra.actual_response_tokens): 3.0, -1
// or 1e3 are no count of tokens and read as absent (-1), as is anything else (some loggers write
// a list of the batch's counts there): silently, a value of its own kind.
G_ALWAYS_INLINE inline gint64
read_int32_count (ondemand::value value, LineState &st)
{
  std::string_view raw = value.raw_json_token ();
  gsize n = 0;
  while (n < raw.size () && n <= 10 && raw.data ()[n] >= '0' && raw.data ()[n] <= '9')
    n++;
  if (n > 0 && n <= 10 && number_may_end_at (raw.data ()[n]))
    {
      gint64 v = 0;
      for (gsize i = 0; i < n; i++)
        v = 10 * v + (raw.data ()[i] - '0');
      ValueStep::over_scalar (value);
      return v <= G_MAXINT32 ? v : -1;
    }
  skip_unread (value, st);
  return -1;
}

error_code
read_extra (ondemand::value value, GArray *timings, LineState &st)
{
  ondemand::object obj;
  if (value.get_object ().get (obj) != SUCCESS)
    {
      // `"extra": null` is harmless; anything else is a wrong type. is_null () fails
      // on a broken token (`"extra": n` of a cut line): read as a bool, it would throw.
      bool is_null = false;
      if (value.is_null ().get (is_null) != SUCCESS || !is_null)
        st.out->type_problem = "wrong type: extra";
      skip_unread (value, st);
      return SUCCESS;
    }
  RtLineFields *out = st.out;
  for (auto field : obj)
    {
      ondemand::field fld;
      SIMDJSON_TRY (std::move (field).get (fld));
      const char *key = fld.key ().raw ();
      ondemand::value v = fld.value ();
      switch (key[0])
        {
        case 'r':
          if (KEY_IS (key, "request_id"))
            read_string (v, &out->request_id, st, "wrong type: extra.request_id");
          else if (KEY_IS (key, "response_length"))
            out->response_length = read_count (v, st, "wrong type: extra.response_length");
          else
            skip_unread (v, st);
          break;
        case 't':
          if (KEY_IS (key, "turn"))
            out->turn = read_count (v, st, "wrong type: extra.turn");
          else if (KEY_IS (key, "turns"))
            out->turns = read_count (v, st, "wrong type: extra.turns");
          else if (KEY_IS (key, "turn_timings"))
            {
              out->has_turn_timings = TRUE;
              SIMDJSON_TRY (read_turn_timings (v, timings, st));
            }
          else
            read_turn_figure (key, v, &out->turn_end, st);
          break;
        case 'a':
          if (KEY_IS (key, "actual_response_tokens"))
            out->response_tokens = read_int32_count (v, st);
          else
            read_turn_figure (key, v, &out->turn_end, st);
          break;
        case 'f':
          if (KEY_IS (key, "finish_reason"))
            read_string (v, &out->finish_reason, st, "wrong type: extra.finish_reason");
          else
            skip_unread (v, st);
          break;
        default:
          read_turn_figure (key, v, &out->turn_end, st);
        }
      // Every other key (arrays of response lengths, flags...) is skipped unread.
    }
  return SUCCESS;
}

error_code
read_line (ondemand::object obj, GArray *timings, LineState &st)
{
  RtLineFields *out = st.out;
  for (auto field : obj)
    {
      ondemand::field fld;
      SIMDJSON_TRY (std::move (field).get (fld));
      const char *key = fld.key ().raw ();
      ondemand::value v = fld.value ();
      switch (key[0])
        {
        case 'e':
          if (KEY_IS (key, "event"))
            read_string (v, &out->event, st, "wrong type: event");
          else if (KEY_IS (key, "extra"))
            {
              SIMDJSON_TRY (read_extra (v, timings, st));
            }
          else
            skip_unread (v, st);
          break;
        case 't':
          if (KEY_IS (key, "timestamp"))
            read_string (v, &out->timestamp, st, "wrong type: timestamp");
          else
            skip_unread (v, st);
          break;
        case 'd':
          if (KEY_IS (key, "duration_sec"))
            out->duration_s = read_number (v, st, "wrong type: duration_sec");
          else
            skip_unread (v, st);
          break;
        default:   // workid, step and the rest: skipped unread
          skip_unread (v, st);
          break;
        }
    }
  return SUCCESS;
}

const char *
describe_non_object (const char *line, gsize len)
{
  gsize i = 0;
  while (i < len && g_ascii_isspace (line[i]))
    i++;
  char c = i < len ? line[i] : '\0';
  if (c == '[')
    return "a JSON array, not an object";
  if (c == '"')
    return "a JSON string, not an object";
  if (c == '-' || g_ascii_isdigit (c))
    return "a JSON number, not an object";
  return nullptr;
}

// The bytes simdjson takes for white space between tokens and documents.
inline bool
json_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// What a byte is to has_shape: part of a scalar (0), white space (1), or anything else.
struct ByteKinds {
  guint8 kind[256] = {};
  constexpr ByteKinds ()
  {
    for (char c : { ' ', '\t', '\r', '\n' })
      kind[(guchar) c] = 1;
    for (char c : { ',', ':', '"', '[', ']', '{', '}' })
      kind[(guchar) c] = 2;
  }
};
constexpr ByteKinds byte_kinds;

// Nesting deeper than this is left unchecked by has_shape.
constexpr int shape_depth_max = 256;

// Whether [p, end) holds exactly one JSON value, white space around it aside, as far as its
// structure goes: brackets that match, a comma between two values and nothing else, a string
// and a colon before each value of an object, strings closed. A scalar is any run of other
// bytes (simdjson checks the ones the tables read; its stage 1 has checked the strings and
// the bytes). For the rare line with an array or object nobody reads, which simdjson skips by
// counting brackets alone (skip_unread). Nesting deeper than shape_depth_max is taken as it is.
G_GNUC_NO_INLINE bool
has_shape (const char *p, const char *end)
{
  enum { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, AFTER_VALUE } want = VALUE;
  char closers[shape_depth_max];
  int depth = 0;
  for (;;)
    {
      if (want == AFTER_VALUE && depth == 0)
        break;
      while (p < end && byte_kinds.kind[(guchar) *p] == 1)
        p++;
      if (p == end)
        return false;
      char c = *p;
      if ((want == VALUE_OR_CLOSE || want == KEY_OR_CLOSE || want == AFTER_VALUE)
          && c == closers[depth - 1])
        {
          depth--;
          p++;
          want = AFTER_VALUE;
          continue;
        }
      switch (want)
        {
        case AFTER_VALUE:
          if (c != ',')
            return false;
          p++;
          want = closers[depth - 1] == '}' ? KEY : VALUE;
          break;
        case KEY:
        case KEY_OR_CLOSE:
          if (c != '"')
            return false;
          for (p++; p < end && *p != '"'; p++)
            if (*p == '\\')
              p++;
          if (p >= end)
            return false;
          for (p++; p < end && json_blank (*p); p++)
            ;
          if (p == end || *p != ':')
            return false;
          p++;
          want = VALUE;
          break;
        case VALUE:
        case VALUE_OR_CLOSE:
          if (c == '{' || c == '[')
            {
              if (depth == shape_depth_max)
                return true;
              closers[depth++] = c == '{' ? '}' : ']';
              p++;
              want = c == '{' ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
            }
          else if (c == '"')
            {
              for (p++; p < end && *p != '"'; p++)
                if (*p == '\\')
                  p++;
              if (p >= end)
                return false;
              p++;
              want = AFTER_VALUE;
            }
          else if (c == ',' || c == ':' || c == ']' || c == '}')
            return false;
          else
            {
              // a scalar; in an array, a run of them ("1, 2, 3": the response lengths) is
              // passed in this one loop
              for (;;)
                {
                  while (p < end && byte_kinds.kind[(guchar) *p] == 0)
                    p++;
                  if (depth == 0 || closers[depth - 1] != ']')
                    break;
                  const char *q = p;
                  while (q < end && byte_kinds.kind[(guchar) *q] == 1)
                    q++;
                  if (q == end || *q != ',')
                    break;
                  for (q++; q < end && byte_kinds.kind[(guchar) *q] == 1; q++)
                    ;
                  if (q == end || byte_kinds.kind[(guchar) *q] != 0)
                    break;
                  p = q;
                }
              want = AFTER_VALUE;
            }
          break;
        }
    }
  while (p < end && json_blank (*p))
    p++;
  return p == end;
}

void *
kernel_parser_new (void)
{
  auto *p = new (std::nothrow) KernelParser ();
  if (p == nullptr)
    g_error ("out of memory");
  p->turn_timings = g_array_new (FALSE, FALSE, sizeof (RtTurnFigures));
#ifdef SIMDJSON_THREADS_ENABLED
  // a document stream would find the structure of its next batch on a thread of its own:
  // the loader already keeps every core busy, and hands one batch at a time
  p->parser.threaded = false;
#endif
  return p;
}

void
kernel_parser_free (void *data)
{
  auto *p = static_cast<KernelParser *> (data);
  g_array_unref (p->turn_timings);
  delete p;
}

// Every field absent, made at compile time (no static constructor: one in a kernel's object
// could run its wide instructions on any processor, see tests/wide-insn-check.py).
constexpr RtLineFields
line_fields_absent (void)
{
  RtLineFields f{};
  f.duration_s = NAN;
  f.turn = f.turns = f.response_length = f.response_tokens = -1;
  turn_figures_init (&f.turn_end);
  return f;
}
constexpr RtLineFields absent_fields = line_fields_absent ();

// Every field absent, before a line is read: a copy of absent_fields, eleven 16-byte moves. (A
// memset and the stores after it were a rep stos on every line, slow to start; GCC makes a
// copy of a constant it can see into the same, so the empty asm hides which object it is.)
void
line_fields_reset (KernelParser *parser, RtLineFields *out)
{
  const RtLineFields *absent = &absent_fields;
  __asm__ ("" : "+r" (absent));
  *out = *absent;
  if (parser->turn_timings->len > 0)   // (a call into GLib saved on most lines)
    g_array_set_size (parser->turn_timings, 0);
  out->turn_timings = parser->turn_timings;
}

const char *const empty_line_reason = "empty line";

RtLineStatus
kernel_parse_line (void *data, const char *line, gsize len, RtLineFields *out, const char **reason)
{
  auto *parser = static_cast<KernelParser *> (data);
  line_fields_reset (parser, out);
  *reason = nullptr;

  gsize start = 0;
  while (start < len && g_ascii_isspace (line[start]))
    start++;
  if (start == len)
    {
      *reason = empty_line_reason;
      return RT_LINE_EMPTY;
    }

  ondemand::document doc;
  auto err = parser->parser.iterate (line, len, len + RT_JSON_PADDING).get (doc);
  if (err == SUCCESS)
    {
      ondemand::object obj;
      err = doc.get_object ().get (obj);
      if (err == SUCCESS)
        {
          LineState st{ out };
          if (read_line (obj, parser->turn_timings, st) == SUCCESS)
            {
              // On-Demand stops after the object: anything else on the line is
              // left for the caller (a lost newline glues two objects together).
              const char *next = nullptr;
              out->consumed = len;
              if (doc.current_location ().get (next) == SUCCESS && next > line
                  && next < line + len)
                out->consumed = (gsize) (next - line);
              if (G_LIKELY (!st.unread_container) || has_shape (line + start, line + out->consumed))
                return RT_LINE_OK;
            }
        }
    }
  if (line[start] == '{')
    {
      *reason = "invalid JSON object";
      return RT_LINE_INVALID;
    }
  // Telling a JSON scalar or array from prose by its first character is enough
  // for a diagnostic; both kinds of line are bad all the same.
  const char *what = describe_non_object (line + start, len - start);
  *reason = what != nullptr ? what : "not JSON";
  return what != nullptr ? RT_LINE_NOT_OBJECT : RT_LINE_INVALID;
}


// Whether [p, end) is all white space, as the per-line parse takes it.
inline bool
only_blanks (const char *p, const char *end)
{
  for (; p < end; p++)
    if (!g_ascii_isspace (*p))
      return false;
  return true;
}

// Hands every whole line of [line, limit) that is blank to `each` as an empty line; returns
// where the first line that is not blank, or does not end before limit, starts.
const char *
hand_blank_lines (const char *line, const char *limit, RtJsonLineFunc each, gpointer user_data)
{
  for (const char *p = line; p < limit; p++)
    if (*p == '\n')
      {
        each (user_data, nullptr, empty_line_reason);
        line = p + 1;
      }
    else if (!g_ascii_isspace (*p))
      break;
  return line;
}

// Reads complete lines as one stream of documents (simdjson's iterate_many), which finds the
// structure of the whole buffer in one pass instead of one pass per line. A document is taken
// as a line's object only when the line holds exactly it: it is an object, it starts at the
// line's first non-blank byte, its closing brace comes before the line's newline, and the next
// document starts after that newline (the bytes between two documents are white space to
// simdjson, so the line holds nothing else). The first line that is anything else (an error,
// two documents on one line, one spanning lines, not an object, the batch's last document,
// whose end cannot be seen) stops the stream: the caller reads that line on its own and starts
// a new stream after it. So every line is read either here, with the same walk of the same
// tokens the per-line parse makes, or by the per-line parse itself, and gives the same fields
// and the same problems.
//
// Why a damaged line cannot spoil the lines after it: simdjson tells strings apart by the
// parity of the quotes since the start of the batch, so a line with an odd number of unescaped
// quotes (one cut off inside a string) flips the string mask for the rest of the batch. Under a
// flipped mask a line's leading `{` is inside a "string" and is no structural character, so no
// document can start at a line's first non-blank byte: only blanks precede that byte on its line
// and a newline before them, so a document that starts there was found with the quote parity
// the line has on its own. Within the line the structure simdjson finds is then the one the
// per-line parse finds, and a document kept within its line is walked alike. (In fact a flip
// never gets that far: the batch ends with a newline, and a newline inside a "string" is an
// unescaped control character, which simdjson reports for the whole batch, as it does invalid
// UTF-8 anywhere in it: such a batch stops before its first document.)
gsize
kernel_parse_lines (void *data, const char *buf, gsize len, RtJsonLineFunc each, gpointer user_data)
{
  auto *parser = static_cast<KernelParser *> (data);
  const char *end = buf + len;
  const char *line = buf;   // the first line not handed over yet
  if (len == 0 || buf[len - 1] != '\n')
    return 0;
  // The stream ends before the last newline, as a line the per-line parse reads ends before
  // its own: the parser's end-of-input sentinels then point at that newline, which no
  // document can go on with, and not at whatever follows the batch (a `}` or `,` there lets
  // the walk of a broken last object run on through the sentinels and succeed).
  const char *stream_end = end - 1;
  // a batch as large as the parser already is: allocate () would resize it for any other size
  size_t batch = std::max<size_t> (std::max<size_t> (len, parser->parser.capacity ()), RT_JSON_BATCH);
  ondemand::document_stream stream;
  if (parser->parser.iterate_many (buf, len - 1, batch).get (stream) != SUCCESS)
    return 0;
  RtLineFields fields;
  for (auto it = stream.begin (); it != stream.end (); ++it)
    {
      ondemand::document_reference doc;
      const char *start, *next;
      if ((*it).get (doc) != SUCCESS || doc.current_location ().get (start) != SUCCESS)
        break;
      line = hand_blank_lines (line, start, each, user_data);
      if (*start != '{' || !only_blanks (line, start))
        break;
      line_fields_reset (parser, &fields);
      ondemand::object obj;
      LineState st{ &fields };
      if (doc.get_object ().get (obj) != SUCCESS || read_line (obj, parser->turn_timings, st) != SUCCESS)
        break;
      // the batch's last document: what follows it may have been cut from the stream
      if (doc.current_location ().get (next) != SUCCESS || next <= start || next >= stream_end)
        break;
      const char *last = next - 1;   // the object's closing brace: only blanks follow it
      while (last > start && json_blank (*last))
        last--;
      const char *newline = start + find_byte (start, (gsize) (next - start), '\n');
      if (*last != '}' || newline == next || newline < last)
        break;
      if (G_UNLIKELY (st.unread_container) && !has_shape (start, last + 1))
        break;
      fields.consumed = (gsize) (last + 1 - start);
      each (user_data, &fields, nullptr);
      line = newline + 1;
    }
  return (gsize) (hand_blank_lines (line, end, each, user_data) - buf);
}

}  // namespace
}  // namespace RT_KERNEL_NAMESPACE

using namespace RT_KERNEL_NAMESPACE;

extern "C" const RtJsonKernel RT_THIS_KERNEL = {
#ifdef RT_JSON_KERNEL
  G_STRINGIFY (RT_JSON_KERNEL),
#else
  "plain",
#endif
  kernel_parser_new, kernel_parser_free, kernel_parse_line, kernel_parse_lines,
};
