/* SPDX-License-Identifier: Apache-2.0 */
// json-kernels.cpp: the line parser's public functions (rt-json.h), and the choice, once, of
// the widest build of json-line.cpp the processor runs. Compiled once, with the plain build.
#include "json-kernel-private.h"

#include <cstring>

#include <simdjson.h>

using namespace simdjson;

struct _RtJsonParser {
  const RtJsonKernel *kernel;
  void *state;
};

// The kernels of this build, widest first; the plain one runs everywhere.
static const RtJsonKernel *const kernels[] = {
#ifdef RT_JSON_HAVE_ICELAKE
  &rt_json_kernel_icelake,
#endif
#ifdef RT_JSON_HAVE_HASWELL
  &rt_json_kernel_haswell,
#endif
  &rt_json_kernel_plain,
};

// Whether the processor runs kernel k. simdjson's library knows what each of its own
// implementations needs and whether this processor has it; ours need the same.
static bool
kernel_runs_here (const RtJsonKernel *k)
{
  if (k == &rt_json_kernel_plain)
    return true;
  const implementation *impl = get_available_implementations ()[k->name];
  return impl != nullptr && impl->supported_by_runtime_system ();
}

// The widest kernel this processor runs, chosen once. SIMDJSON_FORCE_IMPLEMENTATION (simdjson's
// own variable, for tests and comparisons) narrows the choice: the kernel of that name if it
// runs here, else the plain one.
static const RtJsonKernel *
choose_kernel (void)
{
  // simdjson's library finds each line's structure (its stage 1) with the implementation it
  // chose itself, at run time, honouring the same variable; with a name it does not know it
  // chooses one that fails every document, and with one the processor lacks it would stop
  // on an illegal instruction. Either way every line would be lost: take its best instead.
  const implementation *active = get_active_implementation ();
  if (!active->supported_by_runtime_system () || strcmp (active->name ().c_str (), "unsupported") == 0)
    get_active_implementation () = get_available_implementations ().detect_best_supported ();

  const char *forced = g_getenv ("SIMDJSON_FORCE_IMPLEMENTATION");
  if (forced != nullptr && *forced == '\0')
    forced = nullptr;
  for (const RtJsonKernel *k : kernels)
    if (kernel_runs_here (k) && (forced == nullptr || strcmp (forced, k->name) == 0))
      return k;
  return &rt_json_kernel_plain;
}

static const RtJsonKernel *
best_kernel (void)
{
  static const RtJsonKernel *const chosen = choose_kernel ();   // once, thread-safe
  return chosen;
}

extern "C" RtJsonParser *
rt_json_parser_new_kernel (const char *name)
{
  best_kernel ();   // simdjson's own choice made sound first
  for (const RtJsonKernel *k : kernels)
    if (strcmp (k->name, name) == 0 && kernel_runs_here (k))
      {
        auto *p = g_new (RtJsonParser, 1);
        p->kernel = k;
        p->state = k->parser_new ();
        return p;
      }
  return nullptr;
}

extern "C" const char *
rt_json_kernel (void)
{
  return best_kernel ()->name;
}

extern "C" RtJsonParser *
rt_json_parser_new (void)
{
  return rt_json_parser_new_kernel (best_kernel ()->name);
}

extern "C" void
rt_json_parser_free (RtJsonParser *parser)
{
  if (parser == nullptr)
    return;
  parser->kernel->parser_free (parser->state);
  g_free (parser);
}

extern "C" const char *
rt_json_parser_kernel (const RtJsonParser *parser)
{
  return parser->kernel->name;
}

struct KernelNames {
  const char *names[G_N_ELEMENTS (kernels) + 1] = {};
  KernelNames ()
  {
    for (gsize i = 0; i < G_N_ELEMENTS (kernels); i++)
      names[i] = kernels[i]->name;
  }
};

extern "C" const char *const *
rt_json_kernels (void)
{
  static const KernelNames list;   // once, thread-safe
  return list.names;
}

extern "C" RtLineStatus
rt_json_parse_line (RtJsonParser *parser,
                    const char *line,
                    gsize len,
                    RtLineFields *out,
                    const char **reason)
{
  return parser->kernel->parse_line (parser->state, line, len, out, reason);
}

extern "C" gsize
rt_json_parse_lines (RtJsonParser *parser, const char *buf, gsize len, RtJsonLineFunc each,
                     gpointer user_data)
{
  return parser->kernel->parse_lines (parser->state, buf, len, each, user_data);
}

extern "C" gsize
rt_json_object_end (const char *line, gsize len)
{
  gsize i = 0;
  while (i < len && g_ascii_isspace (line[i]))
    i++;
  if (i == len || line[i] != '{')
    return len;
  int depth = 0;
  bool in_string = false;
  for (; i < len; i++)
    {
      char c = line[i];
      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = false;
        }
      else if (c == '"')
        in_string = true;
      else if (c == '{' || c == '[')
        depth++;
      else if ((c == '}' || c == ']') && --depth == 0)
        return i + 1;
    }
  return len;
}
