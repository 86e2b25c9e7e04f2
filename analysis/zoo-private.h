/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "gen.h"
#include "graph.h"

G_BEGIN_DECLS

/* The model zoo writes each model op by op, as an eager framework runs it,
 * into a small builder; the builder can append the backward pass (autodiff)
 * and finally writes memplan.graph/1 JSON. */

/* What an op does matters only for its backward pass: which tensors it saves
 * for backward and whether its gradient is a new buffer or passes through. */
typedef enum
{
  ZOO_OP_OTHER,      /* no backward (inference-only models) */
  ZOO_OP_LINEAR,     /* saves x and W; grads for x, W, b */
  ZOO_OP_MATMUL,     /* saves both operands */
  ZOO_OP_ADD,        /* grad passes through (summed over broadcast dims) */
  ZOO_OP_COPY,       /* .contiguous(): grad passes through */
  ZOO_OP_SCALE,      /* multiply by a constant: grad is a new buffer */
  ZOO_OP_MASK,       /* masked_fill with a constant mask: saves the mask */
  ZOO_OP_LAYERNORM,  /* outputs y, mean, rstd; saves x, gamma, mean, rstd */
  ZOO_OP_GELU,       /* saves x */
  ZOO_OP_SOFTMAX,    /* saves its output */
  ZOO_OP_LOGSOFTMAX, /* saves its output */
  ZOO_OP_EMBEDDING,  /* saves the ids; grad for the table only */
  ZOO_OP_NLL,        /* saves the labels */
} ZooOpKind;

typedef struct _Zoo Zoo;

/* Shapes and tensor lists as literals: zoo_tensor (z, ..., SHAPE (8, 3, 224, 224)). */
#define SHAPE(...) (const gint64[]){ __VA_ARGS__ }, \
  (guint) (sizeof ((const gint64[]){ __VA_ARGS__ }) / sizeof (gint64))
#define SCALAR     NULL, 0
#define TENSORS(...) (const gint[]){ __VA_ARGS__ }, \
  (guint) (sizeof ((const gint[]){ __VA_ARGS__ }) / sizeof (gint))

Zoo         *zoo_new          (const char *graph_name, MpDType dtype);
void         zoo_free         (Zoo *z);
/* Ops created from now on run on this stream. */
void         zoo_set_stream   (Zoo *z, guint stream);
MpDType      zoo_dtype        (const Zoo *z);

/* A tensor of the model's dtype (dtype NONE) or of the given one. Names must
 * be unique: a duplicate is a bug in the generator and aborts. */
gint         zoo_tensor       (Zoo *z, MpTensorKind kind, MpDType dtype, const char *name,
                               const gint64 *shape, guint n_dims);
gint         zoo_param        (Zoo *z, const char *name, const gint64 *shape, guint n_dims);
/* A view (reshape, permute, slice) at a byte offset of base; no storage. */
gint         zoo_view         (Zoo *z, gint base, const char *name, guint64 offset,
                               const gint64 *shape, guint n_dims);
/* An activation shaped like another tensor. */
gint         zoo_like         (Zoo *z, gint like, const char *name);
gint         zoo_op           (Zoo *z, ZooOpKind kind, const char *name,
                               const gint *inputs, guint n_inputs,
                               const gint *outputs, guint n_outputs);

const gint64 *zoo_shape       (const Zoo *z, gint tensor, guint *n_dims);
gint64       zoo_dim          (const Zoo *z, gint tensor, gint dim); /* negative: from the end */
const char  *zoo_name         (const Zoo *z, gint tensor);
gint         zoo_find         (const Zoo *z, const char *name); /* -1 when absent */
void         zoo_set_kind     (Zoo *z, gint tensor, MpTensorKind kind);

/* Appends the backward pass of everything so far, starting from the scalar
 * loss: grads in reverse order, each saved activation read by its backward
 * op (so it lives until then), param grads accumulated and kept to the end. */
void         zoo_backward     (Zoo *z, gint loss);

char        *zoo_to_json      (const Zoo *z, gsize *length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Zoo, zoo_free)

/* The models, one function per family (gen-zoo-cnn.c, gen-zoo-transformer.c). */
void zoo_resnet50     (Zoo *z, const MpGenZooOptions *o);
void zoo_mobilenet_v2 (Zoo *z, const MpGenZooOptions *o);
void zoo_inception_v3 (Zoo *z, const MpGenZooOptions *o);
void zoo_unet         (Zoo *z, const MpGenZooOptions *o);
void zoo_bert_base    (Zoo *z, const MpGenZooOptions *o);
void zoo_gpt2         (Zoo *z, const MpGenZooOptions *o);

G_END_DECLS
