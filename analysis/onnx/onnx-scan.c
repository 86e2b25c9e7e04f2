/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>

#include "file-util.h"
#include "memory-estimate.h"
#include "mp-error.h"
#include "onnx-check.h"
#include "onnx-private.h"

/* The pre-scan reads the wire format as protobuf-c will, field by field,
 * with the descriptors protoc-c generated, and counts what protobuf-c would
 * allocate: a message struct per message, an array slot per repeated
 * element, a copy of every string, bytes and unknown field, and a scanned
 * member per field occurrence while its message is being read. Measured on
 * an 8 MB model of 4M empty nodes: 945 MB peak, 236 bytes a node; the
 * costs below give 248. */

/* malloc's chunk: 8 bytes of header, 16-byte granules, 32 at least */
#define CHUNK(n)            MAX (32, ((guint64) (n) + 8 + 15) & ~(guint64) 15)
/* protobuf-c's ScannedMember, per field occurrence, kept until its message
 * is done (its slabs double, so up to twice that) */
#define SCANNED_MEMBER_COST 64
/* protobuf-c, libonnx (C++ protobuf, no smaller) and protobuf-c again on
 * the model that inference filled in */
#define READS               3

typedef struct
{
  const guint8 *base;
  guint64       messages;
  guint64       fields;
  guint64       bytes;
  gsize         deep_at; /* offset of the message past the limit, or 0 */
} Scan;

static guint
scalar_size (ProtobufCType type)
{
  switch (type)
    {
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE:
      return 8;
    case PROTOBUF_C_TYPE_BYTES:
      return 16;
    default:
      return 4;
    }
}

/* Elements in a packed run: varints end at a byte below 0x80. */
static guint64
packed_count (const guint8 *p, gsize length, ProtobufCType type)
{
  guint64 n = 0;

  switch (type)
    {
    case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_DOUBLE:
      return length / 8;
    case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FLOAT:
      return length / 4;
    default:
      for (gsize i = 0; i < length; i++)
        n += p[i] < 0x80;
      return n;
    }
}

/* One length-delimited field of a known type. */
static gboolean scan_message (const guint8 *p, gsize length,
                              const ProtobufCMessageDescriptor *desc, guint depth, Scan *s);

static gboolean
scan_delimited (const guint8 *p, gsize length, const ProtobufCFieldDescriptor *field,
                guint depth, Scan *s)
{
  gboolean repeated = field->label == PROTOBUF_C_LABEL_REPEATED;

  switch (field->type)
    {
    case PROTOBUF_C_TYPE_MESSAGE:
      s->bytes += repeated ? 8 : 0;
      return scan_message (p, length, field->descriptor, depth + 1, s);
    case PROTOBUF_C_TYPE_STRING:
      s->bytes += CHUNK (length + 1) + (repeated ? 8 : 0);
      return TRUE;
    case PROTOBUF_C_TYPE_BYTES:
      s->bytes += CHUNK (length) + (repeated ? 16 : 0);
      return TRUE;
    default: /* a packed run of scalars */
      s->bytes += packed_count (p, length, field->type) * scalar_size (field->type);
      return TRUE;
    }
}

static gboolean
scan_message (const guint8 *p, gsize length, const ProtobufCMessageDescriptor *desc,
              guint depth, Scan *s)
{
  gsize pos = 0;

  if (depth > MP_ONNX_MAX_DEPTH)
    {
      s->deep_at = p - s->base;
      return FALSE;
    }
  s->messages++;
  s->bytes += CHUNK (desc->sizeof_message);
  while (pos < length)
    {
      const ProtobufCFieldDescriptor *field;
      guint64                         tag, n;

      if (!mp_onnx_read_varint (p, length, &pos, &tag) || tag >> 3 == 0 ||
          tag >> 3 > G_MAXUINT32)
        return FALSE;
      field = protobuf_c_message_descriptor_get_field (desc, (unsigned) (tag >> 3));
      s->fields++;
      s->bytes += SCANNED_MEMBER_COST;
      switch (tag & 7)
        {
        case 0:
          if (!mp_onnx_read_varint (p, length, &pos, &n))
            return FALSE;
          break;
        case 1: case 5:
          n = (tag & 7) == 1 ? 8 : 4;
          if (length - pos < n)
            return FALSE;
          pos += n;
          break;
        case 2:
          if (!mp_onnx_read_varint (p, length, &pos, &n) || n > length - pos)
            return FALSE;
          if (field == NULL) /* an unknown field: protobuf-c keeps a copy */
            s->bytes += 24 + CHUNK (n);
          else if (!scan_delimited (p + pos, n, field, depth, s))
            return FALSE;
          pos += n;
          continue;
        default:
          return FALSE; /* groups: protobuf-c refuses them */
        }
      if (field == NULL)
        s->bytes += 24 + CHUNK (8);
      else if (field->label == PROTOBUF_C_LABEL_REPEATED)
        s->bytes += scalar_size (field->type);
    }
  return TRUE;
}

gboolean
mp_onnx_prescan (const char *data, gsize length, const char *path, guint64 limit,
                 GError **error)
{
  Scan             s = { .base = (const guint8 *) data };
  guint64          need, available;
  g_autofree char *need_text = NULL, *have_text = NULL, *what = NULL;

  scan_message (s.base, length, &onnx__model_proto__descriptor, 1, &s);
  if (s.deep_at)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "not a valid ONNX model: its protobuf messages are nested more than "
                         "%d deep (at byte %zu), deeper than memplan (and libprotobuf) reads",
                         MP_ONNX_MAX_DEPTH, s.deep_at);
      return FALSE;
    }
  need = s.bytes > G_MAXUINT64 / READS ? G_MAXUINT64 : s.bytes * READS;
  available = limit ? limit : mp_memory_available ();
  if (!limit && (available == 0 || available > MP_ONNX_DEFAULT_MEMORY_LIMIT))
    available = MP_ONNX_DEFAULT_MEMORY_LIMIT;
  if (need <= available)
    return TRUE;
  need_text = mp_format_bytes (need);
  have_text = mp_format_bytes (available);
  if (limit)
    what = g_strdup_printf ("the limit of %s set by --max-memory", have_text);
  else if (available < MP_ONNX_DEFAULT_MEMORY_LIMIT)
    what = g_strdup_printf ("the %s available (--max-memory=SIZE overrides the check)",
                            have_text);
  else
    what = g_strdup_printf ("the %s memplan allows without --max-memory", have_text);
  mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, path,
                     "the ONNX model holds %" G_GUINT64_FORMAT " protobuf messages and %"
                     G_GUINT64_FORMAT " fields in %zu bytes, which need about %s of memory to "
                     "read, more than %s", s.messages, s.fields, length, need_text, what);
  return FALSE;
}

static void *
allocator_alloc (void *data, size_t size)
{
  MpOnnxAllocator *a = data;
  void            *p = malloc (size);

  if (p == NULL && size > 0)
    a->failed = TRUE;
  return p;
}

static void
allocator_free (void *data, void *p)
{
  free (p);
}

void
mp_onnx_allocator_init (MpOnnxAllocator *allocator)
{
  *allocator = (MpOnnxAllocator) { { allocator_alloc, allocator_free, allocator }, FALSE };
}
