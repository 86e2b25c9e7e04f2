/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "onnx-check.h"

/* Symbolic dimensions as exporters write them. TorchScript writes names
 * ("batch", "seq"); PyTorch's dynamo exporter writes sympy expressions of
 * its input symbols: "s0", "Min(512, s1)", "((s0*s1)//s1)", "2*s0 + 1".
 * An expression is evaluated once its names are bound, never asked for as
 * a name itself. Integer arithmetic only: + - * // (floor) % (floor
 * modulo), exact /, Min, Max, Mod, FloorDiv, unary minus, parentheses.
 * What does not parse as such is a plain name (a dimension may be called
 * "a=b"). */

#define MAX_DEPTH 64

typedef struct
{
  const char *p;
  GHashTable *bindings; /* name -> gint64 *, or NULL: names only */
  GPtrArray  *names;    /* the names read, or NULL */
  gboolean    unbound;  /* a name had no value */
  gboolean    failed;   /* not an expression, or arithmetic out of range */
  guint       depth;
} Parser;

static void
skip_space (Parser *ps)
{
  while (*ps->p == ' ' || *ps->p == '\t')
    ps->p++;
}

static gboolean
eat (Parser *ps, const char *token)
{
  skip_space (ps);
  if (!g_str_has_prefix (ps->p, token))
    return FALSE;
  ps->p += strlen (token);
  return TRUE;
}

static gint64
floor_div (Parser *ps, gint64 a, gint64 b)
{
  gint64 q;

  if (b == 0 || (a == G_MININT64 && b == -1))
    {
      ps->failed = TRUE;
      return 0;
    }
  q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static gint64
arith (Parser *ps, char op, gint64 a, gint64 b)
{
  gint64 r = 0;

  if (ps->unbound) /* no value to compute, only names to find */
    return 0;
  switch (op)
    {
    case '+':
      ps->failed |= __builtin_add_overflow (a, b, &r);
      return r;
    case '-':
      ps->failed |= __builtin_sub_overflow (a, b, &r);
      return r;
    case '*':
      ps->failed |= __builtin_mul_overflow (a, b, &r);
      return r;
    case '/': /* exact only */
      r = floor_div (ps, a, b);
      ps->failed |= !ps->failed && r * b != a;
      return r;
    case 'f':
      return floor_div (ps, a, b);
    case '%':
      r = floor_div (ps, a, b);
      return ps->failed ? 0 : a - r * b;
    case 'm':
      return MIN (a, b);
    case 'M':
      return MAX (a, b);
    default:
      g_assert_not_reached ();
    }
}

static gint64 parse_sum (Parser *ps);

static gint64
parse_call (Parser *ps, char op)
{
  gint64 a, b;

  a = parse_sum (ps);
  if (!eat (ps, ","))
    {
      ps->failed = TRUE;
      return 0;
    }
  b = parse_sum (ps);
  if (!eat (ps, ")"))
    ps->failed = TRUE;
  return arith (ps, op, a, b);
}

static gint64
parse_atom (Parser *ps)
{
  static const struct
  {
    const char *name;
    char        op;
  } calls[] = { { "Min(", 'm' }, { "Max(", 'M' }, { "Mod(", '%' }, { "FloorDiv(", 'f' } };
  const char *start;
  gint64      v = 0;

  skip_space (ps);
  if (ps->failed || ++ps->depth > MAX_DEPTH)
    {
      ps->failed = TRUE;
      return 0;
    }
  if (eat (ps, "("))
    {
      v = parse_sum (ps);
      ps->failed |= !eat (ps, ")");
    }
  else if (eat (ps, "-"))
    v = arith (ps, '-', 0, parse_atom (ps));
  else if (g_ascii_isdigit (*ps->p))
    {
      guint64 u;

      start = ps->p;
      while (g_ascii_isdigit (*ps->p))
        ps->p++;
      g_autofree char *digits = g_strndup (start, ps->p - start);
      ps->failed |= !g_ascii_string_to_unsigned (digits, 10, 0, G_MAXINT64, &u, NULL);
      v = (gint64) u;
    }
  else if (g_ascii_isalpha (*ps->p) || *ps->p == '_')
    {
      for (guint i = 0; i < G_N_ELEMENTS (calls); i++)
        if (eat (ps, calls[i].name))
          {
            v = parse_call (ps, calls[i].op);
            ps->depth--;
            return v;
          }
      start = ps->p;
      while (g_ascii_isalnum (*ps->p) || *ps->p == '_')
        ps->p++;
      g_autofree char *name = g_strndup (start, ps->p - start);
      const gint64    *bound = ps->bindings ? g_hash_table_lookup (ps->bindings, name) : NULL;

      if (bound)
        v = *bound;
      else
        ps->unbound = TRUE;
      if (ps->names)
        g_ptr_array_add (ps->names, g_steal_pointer (&name));
    }
  else
    ps->failed = TRUE;
  ps->depth--;
  return v;
}

static gint64
parse_product (Parser *ps)
{
  gint64 v = parse_atom (ps);

  while (!ps->failed)
    {
      char op;

      if (eat (ps, "//"))
        op = 'f';
      else if (eat (ps, "*"))
        op = '*';
      else if (eat (ps, "/"))
        op = '/';
      else if (eat (ps, "%"))
        op = '%';
      else
        break;
      v = arith (ps, op, v, parse_atom (ps));
    }
  return v;
}

static gint64
parse_sum (Parser *ps)
{
  gint64 v = parse_product (ps);

  while (!ps->failed)
    {
      char op;

      if (eat (ps, "+"))
        op = '+';
      else if (eat (ps, "-"))
        op = '-';
      else
        break;
      v = arith (ps, op, v, parse_product (ps));
    }
  return v;
}

/* Parses text; TRUE when it is an expression (a plain name is one). */
static gboolean
parse (const char *text, GHashTable *bindings, GPtrArray *names, gint64 *value,
       gboolean *unbound)
{
  Parser ps = { .p = text, .bindings = bindings, .names = names };

  *value = parse_sum (&ps);
  skip_space (&ps);
  *unbound = ps.unbound;
  return !ps.failed && *ps.p == '\0';
}

void
mp_onnx_dim_names (const char *text, GPtrArray *names)
{
  g_autoptr (GPtrArray) read = g_ptr_array_new_with_free_func (g_free);
  gint64   value;
  gboolean unbound;

  if (!parse (text, NULL, read, &value, &unbound))
    {
      g_ptr_array_add (names, g_strdup (text));
      return;
    }
  for (guint i = 0; i < read->len; i++)
    g_ptr_array_add (names, g_strdup (read->pdata[i]));
}

gboolean
mp_onnx_dim_value (const char *text, GHashTable *bindings, gint64 *value)
{
  const gint64 *bound = g_hash_table_lookup (bindings, text);
  gboolean      unbound;

  if (bound) /* a name bound as a whole: "a=b=3" */
    {
      *value = *bound;
      return TRUE;
    }
  return parse (text, bindings, NULL, value, &unbound) && !unbound && *value >= 0;
}
