/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "zoo-private.h"

/* Transformers as Hugging Face's eager implementations run them: head
 * reshapes and permutes are views, the merge of heads is a .contiguous()
 * copy, layer norm also returns its mean and rstd (kept for backward),
 * dropout is off (eval, or p = 0 as nanoGPT pretrains GPT-2). Matmuls read
 * strided views directly, as a strided-batched GEMM does. */

#define N(...) g_strdup_printf (__VA_ARGS__)

static gint
new_like_shape (Zoo *z, gint like, const char *name, gint64 last_dim)
{
  guint         n_dims;
  const gint64 *s = zoo_shape (z, like, &n_dims);
  gint64        shape[8];

  memcpy (shape, s, sizeof (gint64) * n_dims);
  shape[n_dims - 1] = last_dim;
  return zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, name, shape, n_dims);
}

static gint
linear (Zoo *z, gint x, const char *name, gint64 out, gboolean bias)
{
  g_autofree char *w = N ("%s.weight", name), *b = N ("%s.bias", name), *o = N ("%s.out", name);
  gint64 in = zoo_dim (z, x, -1);
  gint   y = new_like_shape (z, x, o, out);
  gint   wt = zoo_param (z, w, SHAPE (out, in));

  if (bias)
    zoo_op (z, ZOO_OP_LINEAR, name, TENSORS (x, wt, zoo_param (z, b, SHAPE (out))), TENSORS (y));
  else
    zoo_op (z, ZOO_OP_LINEAR, name, TENSORS (x, wt), TENSORS (y));
  return y;
}

static gint
layernorm (Zoo *z, gint x, const char *name)
{
  g_autofree char *w = N ("%s.weight", name), *b = N ("%s.bias", name), *o = N ("%s.out", name);
  g_autofree char *m = N ("%s.mean", name), *r = N ("%s.rstd", name);
  gint64 d = zoo_dim (z, x, -1);
  gint   y = zoo_like (z, x, o);
  gint   mean, rstd;
  guint  n_dims;
  const gint64 *xs = zoo_shape (z, x, &n_dims);
  gint64 shape[8];

  memcpy (shape, xs, sizeof (gint64) * n_dims);
  shape[n_dims - 1] = 1;
  /* statistics stay f32 under f16 and bf16 */
  mean = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_F32, m, shape, n_dims);
  rstd = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_F32, r, shape, n_dims);
  zoo_op (z, ZOO_OP_LAYERNORM, name,
          TENSORS (x, zoo_param (z, w, SHAPE (d)), zoo_param (z, b, SHAPE (d))),
          TENSORS (y, mean, rstd));
  return y;
}

static gint
unary (Zoo *z, ZooOpKind kind, gint x, const char *name)
{
  g_autofree char *o = N ("%s.out", name);
  gint y = zoo_like (z, x, o);

  zoo_op (z, kind, name, TENSORS (x), TENSORS (y));
  return y;
}

static gint
binary (Zoo *z, ZooOpKind kind, gint a, gint b, const char *name)
{
  g_autofree char *o = N ("%s.out", name);
  gint y = zoo_like (z, a, o);

  zoo_op (z, kind, name, TENSORS (a, b), TENSORS (y));
  return y;
}

static gint
embedding (Zoo *z, gint ids, const char *name, gint64 rows, gint64 dim)
{
  g_autofree char *w = N ("%s.weight", name), *o = N ("%s.out", name);
  gint y = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, o,
                       SHAPE (zoo_dim (z, ids, 0), zoo_dim (z, ids, 1), dim));

  zoo_op (z, ZOO_OP_EMBEDDING, name, TENSORS (zoo_param (z, w, SHAPE (rows, dim)), ids),
          TENSORS (y));
  return y;
}

/* Columns [offset, offset + width) of base [B, S, *] as [B, H, S, D] views
 * (a reshape, then a permute) */
static gint
split_heads (Zoo *z, gint base, const char *name, gint64 heads, gint64 width, guint64 offset)
{
  g_autofree char *v = N ("%s.view", name), *p = N ("%s.permute", name);
  gint64 b = zoo_dim (z, base, 0), s = zoo_dim (z, base, 1), d = width / heads;
  gint   view;

  view = zoo_view (z, base, v, offset, SHAPE (b, s, heads, d));
  return zoo_view (z, view, p, 0, SHAPE (b, heads, s, d));
}

/* scores, scale, mask (additive for BERT, causal where() for GPT-2),
 * softmax, context, merge of heads; returns [B, S, H*D] */
static gint
attention_core (Zoo *z, const char *p, gint q, gint k, gint v, gint mask, gboolean causal)
{
  g_autofree char *kt = N ("%s.key.transpose", p), *sc = N ("%s.scores", p);
  g_autofree char *scale = N ("%s.scale", p), *mk = N ("%s.mask", p), *sm = N ("%s.softmax", p);
  g_autofree char *cx = N ("%s.context", p), *pm = N ("%s.context.permute", p);
  g_autofree char *ct = N ("%s.context.contiguous", p), *mg = N ("%s.context.merge", p);
  g_autofree char *sco = N ("%s.out", sc), *cxo = N ("%s.out", cx), *cto = N ("%s.out", ct);
  gint64 b = zoo_dim (z, q, 0), h = zoo_dim (z, q, 1), s = zoo_dim (z, q, 2), d = zoo_dim (z, q, 3);
  gint   kT = zoo_view (z, k, kt, 0, SHAPE (b, h, d, s));
  gint   scores = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, sco, SHAPE (b, h, s, s));
  gint   context, contiguous, permuted;

  zoo_op (z, ZOO_OP_MATMUL, sc, TENSORS (q, kT), TENSORS (scores));
  scores = unary (z, ZOO_OP_SCALE, scores, scale);
  scores = binary (z, causal ? ZOO_OP_MASK : ZOO_OP_ADD, scores, mask, mk);
  scores = unary (z, ZOO_OP_SOFTMAX, scores, sm);
  context = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, cxo, SHAPE (b, h, s, d));
  zoo_op (z, ZOO_OP_MATMUL, cx, TENSORS (scores, v), TENSORS (context));
  permuted = zoo_view (z, context, pm, 0, SHAPE (b, s, h, d));
  contiguous = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, cto, SHAPE (b, s, h, d));
  zoo_op (z, ZOO_OP_COPY, ct, TENSORS (permuted), TENSORS (contiguous));
  return zoo_view (z, contiguous, mg, 0, SHAPE (b, s, h * d));
}

/* ---- BERT-base (Devlin et al. 2019; bert-base-uncased) ------------------ */

void
zoo_bert_base (Zoo *z, const MpGenZooOptions *o)
{
  gint64 b = MAX (o->batch, 1), s = o->seq ? o->seq : 128, hidden = 768, heads = 12;
  guint  layers = o->layers ? o->layers : 12;
  gint   ids = zoo_tensor (z, MP_TENSOR_INPUT, MP_DTYPE_I64, "input_ids", SHAPE (b, s));
  gint   types = zoo_tensor (z, MP_TENSOR_INPUT, MP_DTYPE_I64, "token_type_ids", SHAPE (b, s));
  gint   pos = zoo_tensor (z, MP_TENSOR_INPUT, MP_DTYPE_I64, "position_ids", SHAPE (1, s));
  gint   amask = zoo_tensor (z, MP_TENSOR_INPUT, MP_DTYPE_I64, "attention_mask", SHAPE (b, s));
  gint   mask, x, pooled, first;

  g_assert (s <= 512);
  /* (1 - mask) * min: an additive mask broadcast over heads and queries */
  mask = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, "extended_attention_mask",
                     SHAPE (b, 1, 1, s));
  zoo_op (z, ZOO_OP_OTHER, "get_extended_attention_mask", TENSORS (amask), TENSORS (mask));

  x = embedding (z, ids, "embeddings.word_embeddings", 30522, hidden);
  x = binary (z, ZOO_OP_ADD, x, embedding (z, types, "embeddings.token_type_embeddings", 2, hidden),
              "embeddings.add_token_type");
  x = binary (z, ZOO_OP_ADD, x, embedding (z, pos, "embeddings.position_embeddings", 512, hidden),
              "embeddings.add_position");
  x = layernorm (z, x, "embeddings.LayerNorm");

  for (guint l = 0; l < layers; l++)
    {
      g_autofree char *p = N ("encoder.layer.%u", l);
      g_autofree char *sp = N ("%s.attention.self", p);
      g_autofree char *qn = N ("%s.query", sp), *kn = N ("%s.key", sp), *vn = N ("%s.value", sp);
      g_autofree char *od = N ("%s.attention.output.dense", p);
      g_autofree char *oa = N ("%s.attention.output.add", p);
      g_autofree char *ol = N ("%s.attention.output.LayerNorm", p);
      g_autofree char *id = N ("%s.intermediate.dense", p), *ig = N ("%s.intermediate.gelu", p);
      g_autofree char *fd = N ("%s.output.dense", p), *fa = N ("%s.output.add", p);
      g_autofree char *fl = N ("%s.output.LayerNorm", p);
      gint q, k, v, qh, kh, vh, h;

      q = linear (z, x, qn, hidden, TRUE);
      k = linear (z, x, kn, hidden, TRUE);
      v = linear (z, x, vn, hidden, TRUE);
      /* one statement each: as arguments of one call their order would be
       * the compiler's (GCC's, value first, is what data/zoo holds) */
      vh = split_heads (z, v, vn, heads, hidden, 0);
      kh = split_heads (z, k, kn, heads, hidden, 0);
      qh = split_heads (z, q, qn, heads, hidden, 0);
      h = attention_core (z, sp, qh, kh, vh, mask, FALSE);
      h = linear (z, h, od, hidden, TRUE);
      x = layernorm (z, binary (z, ZOO_OP_ADD, h, x, oa), ol);
      h = unary (z, ZOO_OP_GELU, linear (z, x, id, 4 * hidden, TRUE), ig);
      h = linear (z, h, fd, hidden, TRUE);
      x = layernorm (z, binary (z, ZOO_OP_ADD, h, x, fa), fl);
    }
  zoo_set_kind (z, x, MP_TENSOR_OUTPUT);

  /* the pooler reads the first token of every sequence: a strided view */
  first = zoo_view (z, x, "pooler.first_token", 0, SHAPE (b, hidden));
  pooled = unary (z, ZOO_OP_OTHER, linear (z, first, "pooler.dense", hidden, TRUE),
                  "pooler.activation");
  zoo_set_kind (z, pooled, MP_TENSOR_OUTPUT);
}

/* ---- GPT-2 small (Radford et al. 2019; Hugging Face gpt2) --------------- */

void
zoo_gpt2 (Zoo *z, const MpGenZooOptions *o)
{
  gint64 b = MAX (o->batch, 1), s = o->seq ? o->seq : 1024, d = 768, heads = 12, vocab = 50257;
  guint  layers = o->layers ? o->layers : 12;
  gint   ids = zoo_tensor (z, MP_TENSOR_INPUT, MP_DTYPE_I64, "input_ids", SHAPE (b, s));
  gint   pos = zoo_tensor (z, MP_TENSOR_INPUT, MP_DTYPE_I64, "position_ids", SHAPE (1, s));
  gint   causal = zoo_tensor (z, MP_TENSOR_INPUT, MP_DTYPE_BOOL, "causal_mask",
                              SHAPE (1, 1, s, s));
  gint   wte, x, logits;
  guint64 col = d * mp_dtype_size (zoo_dtype (z));

  g_assert (s <= 1024);
  x = embedding (z, ids, "transformer.wte", vocab, d);
  wte = zoo_find (z, "transformer.wte.weight");
  x = binary (z, ZOO_OP_ADD, x, embedding (z, pos, "transformer.wpe", 1024, d),
              "transformer.add_position");

  for (guint l = 0; l < layers; l++)
    {
      g_autofree char *p = N ("transformer.h.%u", l);
      g_autofree char *l1 = N ("%s.ln_1", p), *at = N ("%s.attn", p);
      g_autofree char *ca = N ("%s.attn.c_attn", p), *cp = N ("%s.attn.c_proj", p);
      g_autofree char *qn = N ("%s.attn.query", p), *kn = N ("%s.attn.key", p);
      g_autofree char *vn = N ("%s.attn.value", p), *ra = N ("%s.attn.residual", p);
      g_autofree char *l2 = N ("%s.ln_2", p), *fc = N ("%s.mlp.c_fc", p);
      g_autofree char *ge = N ("%s.mlp.gelu", p), *mp = N ("%s.mlp.c_proj", p);
      g_autofree char *rm = N ("%s.mlp.residual", p);
      gint qkv, qh, kh, vh, h;

      qkv = linear (z, layernorm (z, x, l1), ca, 3 * d, TRUE);
      /* q, k, v are column slices of one buffer: strided views at offsets 0,
       * d, 2d; made one statement each, value first (see zoo_bert_base) */
      vh = split_heads (z, qkv, vn, heads, d, 2 * col);
      kh = split_heads (z, qkv, kn, heads, d, col);
      qh = split_heads (z, qkv, qn, heads, d, 0);
      h = attention_core (z, at, qh, kh, vh, causal, TRUE);
      x = binary (z, ZOO_OP_ADD, x, linear (z, h, cp, d, TRUE), ra);
      h = unary (z, ZOO_OP_GELU, linear (z, layernorm (z, x, l2), fc, 4 * d, TRUE), ge);
      x = binary (z, ZOO_OP_ADD, x, linear (z, h, mp, d, TRUE), rm);
    }
  x = layernorm (z, x, "transformer.ln_f");

  /* the language-model head is tied to the token embedding */
  logits = zoo_tensor (z, o->training ? MP_TENSOR_ACTIVATION : MP_TENSOR_OUTPUT, MP_DTYPE_NONE,
                       "lm_head.out", SHAPE (b, s, vocab));
  zoo_op (z, ZOO_OP_LINEAR, "lm_head", TENSORS (x, wte), TENSORS (logits));
  if (o->training)
    {
      gint labels = zoo_tensor (z, MP_TENSOR_INPUT, MP_DTYPE_I64, "labels", SHAPE (b, s));
      gint logp = unary (z, ZOO_OP_LOGSOFTMAX, logits, "loss.log_softmax");
      gint loss = zoo_tensor (z, MP_TENSOR_OUTPUT, MP_DTYPE_F32, "loss", SCALAR);

      zoo_op (z, ZOO_OP_NLL, "loss.nll", TENSORS (logp, labels), TENSORS (loss));
      zoo_backward (z, loss);
    }
}
