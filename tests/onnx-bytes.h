/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <string.h>
#include <glib.h>

/* ONNX models written byte by byte (the protobuf wire format, with ONNX's
 * field numbers from onnx.proto), so that a test can make the models no
 * exporter writes: the crash inputs, invalid attributes, huge counts. */

#define PB_FLOAT 1
#define PB_INT64 7

static inline void
pb_varint (GByteArray *b, guint64 v)
{
  do
    {
      guint8 byte = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);

      g_byte_array_append (b, &byte, 1);
      v >>= 7;
    }
  while (v);
}

static inline void
pb_int (GByteArray *b, guint field, guint64 v)
{
  pb_varint (b, (guint64) field << 3);
  pb_varint (b, v);
}

static inline void
pb_bytes (GByteArray *b, guint field, const void *data, gsize n)
{
  pb_varint (b, (guint64) field << 3 | 2);
  pb_varint (b, n);
  g_byte_array_append (b, data, n);
}

static inline void
pb_str (GByteArray *b, guint field, const char *s)
{
  pb_bytes (b, field, s, strlen (s));
}

/* Appends m as a length-delimited field and frees it. */
static inline void
pb_msg (GByteArray *b, guint field, GByteArray *m)
{
  pb_bytes (b, field, m->data, m->len);
  g_byte_array_unref (m);
}

/* TypeProto of a tensor; dims "1,2,batch": numbers are dim_value (which
 * may be negative), other words dim_param; separated by ';' instead where
 * one holds a comma ("s0;Min(512, s1)"). */
static inline GByteArray *
pb_tensor_type (gint32 elem, const char *dims)
{
  GByteArray *tensor = g_byte_array_new (), *shape = g_byte_array_new ();
  GByteArray *type = g_byte_array_new ();
  g_auto (GStrv) parts = g_strsplit (dims, strchr (dims, ';') ? ";" : ",", -1);

  for (guint i = 0; *dims && parts[i]; i++)
    {
      GByteArray *dim = g_byte_array_new ();
      char       *end;
      gint64      v = g_ascii_strtoll (parts[i], &end, 10);

      if (*end == '\0' && end != parts[i])
        pb_int (dim, 1, (guint64) v);
      else
        pb_str (dim, 2, parts[i]);
      pb_msg (shape, 1, dim);
    }
  pb_int (tensor, 1, elem);
  pb_msg (tensor, 2, shape);
  pb_msg (type, 1, tensor);
  return type;
}

static inline GByteArray *
pb_value_info (const char *name, gint32 elem, const char *dims)
{
  GByteArray *v = g_byte_array_new ();

  pb_str (v, 1, name);
  if (dims)
    pb_msg (v, 2, pb_tensor_type (elem, dims));
  return v;
}

static inline GByteArray *
pb_attr_ints (const char *name, const gint64 *values, gsize n)
{
  GByteArray *a = g_byte_array_new (), *packed = g_byte_array_new ();

  for (gsize i = 0; i < n; i++)
    pb_varint (packed, (guint64) values[i]);
  pb_str (a, 1, name);
  pb_int (a, 20, 7); /* INTS */
  pb_msg (a, 8, packed);
  return a;
}

static inline GByteArray *
pb_attr_int (const char *name, gint64 value)
{
  GByteArray *a = g_byte_array_new ();

  pb_str (a, 1, name);
  pb_int (a, 20, 2); /* INT */
  pb_int (a, 3, (guint64) value);
  return a;
}

/* An INT64 tensor of dims [n_values] holding values as raw_data, of which
 * only raw_bytes bytes are kept (the whole when raw_bytes < 0). */
static inline GByteArray *
pb_int64_tensor (const char *name, const gint64 *values, gsize n_values, gssize raw_bytes)
{
  GByteArray *t = g_byte_array_new (), *dims = g_byte_array_new ();
  g_autofree gint64 *le = g_new (gint64, n_values + 1);

  for (gsize i = 0; i < n_values; i++)
    le[i] = GINT64_TO_LE (values[i]);
  pb_varint (dims, n_values);
  pb_msg (t, 1, dims);
  pb_int (t, 2, PB_INT64);
  pb_str (t, 8, name);
  pb_bytes (t, 9, le, raw_bytes < 0 ? n_values * 8 : (gsize) raw_bytes);
  return t;
}

/* A Constant node 'name' whose value is an INT64 tensor: of dims [n] or,
 * when scalar, of none. */
static inline GByteArray *
pb_constant (const char *name, const gint64 *values, gsize n, gboolean scalar)
{
  GByteArray *node = g_byte_array_new (), *attr = g_byte_array_new ();
  GByteArray *t = g_byte_array_new (), *data = g_byte_array_new ();

  if (!scalar)
    {
      GByteArray *dims = g_byte_array_new ();

      pb_varint (dims, n);
      pb_msg (t, 1, dims);
    }
  pb_int (t, 2, PB_INT64);
  for (gsize i = 0; i < n; i++)
    pb_varint (data, (guint64) values[i]);
  pb_msg (t, 7, data);
  pb_str (attr, 1, "value");
  pb_int (attr, 20, 4); /* TENSOR */
  pb_msg (attr, 5, t);
  pb_str (node, 2, name);
  pb_str (node, 3, name);
  pb_str (node, 4, "Constant");
  pb_msg (node, 5, attr);
  return node;
}

/* A node: inputs and outputs comma-separated; attributes NULL-terminated,
 * each freed. */
static inline GByteArray *
pb_node (const char *op, const char *inputs, const char *outputs, const char *name, ...)
{
  GByteArray *n = g_byte_array_new ();
  g_auto (GStrv) in = g_strsplit (inputs, ",", -1);
  g_auto (GStrv) out = g_strsplit (outputs, ",", -1);
  GByteArray *attr;
  va_list     ap;

  for (guint i = 0; *inputs && in[i]; i++)
    pb_str (n, 1, in[i]);
  for (guint i = 0; *outputs && out[i]; i++)
    pb_str (n, 2, out[i]);
  pb_str (n, 3, name);
  pb_str (n, 4, op);
  va_start (ap, name);
  while ((attr = va_arg (ap, GByteArray *)) != NULL)
    pb_msg (n, 5, attr);
  va_end (ap);
  return n;
}

/* A ModelProto (IR version 8, the default domain at opset) around graph,
 * which it frees. */
static inline GBytes *
pb_model (GByteArray *graph, guint opset)
{
  GByteArray *m = g_byte_array_new (), *ops = g_byte_array_new ();

  pb_int (m, 1, 8);
  pb_str (ops, 1, "");
  pb_int (ops, 2, opset);
  pb_msg (m, 8, ops);
  pb_msg (m, 7, graph);
  return g_byte_array_free_to_bytes (m);
}

/* GraphProto fields */
#define PB_NODE        1
#define PB_NAME        2
#define PB_INITIALIZER 5
#define PB_INPUT       11
#define PB_OUTPUT      12
#define PB_VALUE_INFO  13
