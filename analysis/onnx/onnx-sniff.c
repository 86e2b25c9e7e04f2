/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdio.h>

#include "file-util.h"
#include "onnx-private.h"
#include "onnx.h"

/* A serialized ModelProto starts with its lowest field, ir_version (field 1,
 * a varint; every ONNX writer emits it and emits fields in number order),
 * followed by another ModelProto field. That is enough to tell a model from
 * JSON, CSV, a pickle or text; the real parsing is protobuf-c's. */

#define SNIFF_BYTES 32

gboolean
mp_onnx_read_varint (const guchar *p, gsize length, gsize *pos, guint64 *value)
{
  *value = 0;
  for (guint shift = 0; *pos < length && shift < 64; shift += 7)
    {
      guchar b = p[(*pos)++];

      *value |= (guint64) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        return TRUE;
    }
  return FALSE;
}

/* ModelProto's fields and their wire types (0 varint, 2 length-delimited). */
static gboolean
is_model_field (guint64 tag)
{
  switch (tag >> 3)
    {
    case 1: case 5:
      return (tag & 7) == 0;
    case 2: case 3: case 4: case 6: case 7: case 8: case 14: case 20: case 25:
      return (tag & 7) == 2;
    default:
      return FALSE;
    }
}

gboolean
mp_onnx_sniff (const char *data, gsize length)
{
  const guchar *p = (const guchar *) data;
  gsize         pos = 1;
  guint64       ir_version, tag;

  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  if (length < 4 || p[0] != 0x08)
    return FALSE;
  /* IR versions are small: 3 (2017) to 10 (2024) */
  if (!mp_onnx_read_varint (p, length, &pos, &ir_version) || ir_version == 0 || ir_version > 64)
    return FALSE;
  return mp_onnx_read_varint (p, length, &pos, &tag) && is_model_field (tag) && (tag >> 3) != 1;
}

gboolean
mp_onnx_sniff_file (const char *path)
{
  char  buffer[SNIFF_BYTES];
  FILE *f = mp_file_open_input (path, NULL);
  gsize n;

  if (f == NULL)
    return FALSE;
  n = fread (buffer, 1, sizeof buffer, f);
  fclose (f);
  return mp_onnx_sniff (buffer, n);
}
