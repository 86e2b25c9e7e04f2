/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "zoo-private.h"

/* Convolutional networks in NCHW, written as torchvision (and the U-Net
 * paper) run them in eval mode: conv, batchnorm reading its running
 * statistics, in-place ReLU (a view of its input: no new storage), new
 * tensors for pools, sums and concatenations, flatten as a view. */

#define N(...) g_strdup_printf (__VA_ARGS__)

typedef struct
{
  gint64 kh, kw;
  gint64 stride;
  gint64 ph, pw;
  gint64 groups;
  gboolean bias;
} Conv;

static gint
conv (Zoo *z, gint x, const char *name, gint64 cout, Conv c)
{
  g_autofree char *w = N ("%s.weight", name), *b = N ("%s.bias", name), *o = N ("%s.out", name);
  gint64 n = zoo_dim (z, x, 0), cin = zoo_dim (z, x, 1);
  gint64 h = (zoo_dim (z, x, 2) + 2 * c.ph - c.kh) / c.stride + 1;
  gint64 wd = (zoo_dim (z, x, 3) + 2 * c.pw - c.kw) / c.stride + 1;
  gint64 groups = MAX (c.groups, 1);
  gint   wt = zoo_param (z, w, SHAPE (cout, cin / groups, c.kh, c.kw));
  gint   y = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, o, SHAPE (n, cout, h, wd));

  if (c.bias)
    zoo_op (z, ZOO_OP_OTHER, name, TENSORS (x, wt, zoo_param (z, b, SHAPE (cout))), TENSORS (y));
  else
    zoo_op (z, ZOO_OP_OTHER, name, TENSORS (x, wt), TENSORS (y));
  return y;
}

#define K(k, s, p) ((Conv) { k, k, s, p, p, 1, FALSE })

static gint
batchnorm (Zoo *z, gint x, const char *name)
{
  gint64 c = zoo_dim (z, x, 1);
  g_autofree char *w = N ("%s.weight", name), *b = N ("%s.bias", name);
  g_autofree char *m = N ("%s.running_mean", name), *v = N ("%s.running_var", name);
  g_autofree char *o = N ("%s.out", name);
  gint ins[] = { x, zoo_param (z, w, SHAPE (c)), zoo_param (z, b, SHAPE (c)),
                 zoo_param (z, m, SHAPE (c)), zoo_param (z, v, SHAPE (c)) };
  gint y = zoo_like (z, x, o);

  zoo_op (z, ZOO_OP_OTHER, name, ins, G_N_ELEMENTS (ins), TENSORS (y));
  return y;
}

/* in place: the result is the input's storage */
static gint
relu (Zoo *z, gint x, const char *name)
{
  g_autofree char *o = N ("%s.out", name);
  guint            n_dims;
  const gint64    *shape = zoo_shape (z, x, &n_dims);
  gint             y = zoo_view (z, x, o, 0, shape, n_dims);

  zoo_op (z, ZOO_OP_OTHER, name, TENSORS (x), TENSORS (y));
  return y;
}

static gint
conv_bn_relu (Zoo *z, gint x, const char *conv_name, const char *bn_name, const char *relu_name,
              gint64 cout, Conv c)
{
  gint y = batchnorm (z, conv (z, x, conv_name, cout, c), bn_name);

  return relu_name ? relu (z, y, relu_name) : y;
}

static gint
pool (Zoo *z, gint x, const char *name, gint64 k, gint64 stride, gint64 pad)
{
  g_autofree char *o = N ("%s.out", name);
  gint64 h = (zoo_dim (z, x, 2) + 2 * pad - k) / stride + 1;
  gint64 w = (zoo_dim (z, x, 3) + 2 * pad - k) / stride + 1;
  gint   y = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, o,
                         SHAPE (zoo_dim (z, x, 0), zoo_dim (z, x, 1), h, w));

  zoo_op (z, ZOO_OP_OTHER, name, TENSORS (x), TENSORS (y));
  return y;
}

static gint
add (Zoo *z, gint a, gint b, const char *name)
{
  g_autofree char *o = N ("%s.out", name);
  gint y = zoo_like (z, a, o);

  zoo_op (z, ZOO_OP_OTHER, name, TENSORS (a, b), TENSORS (y));
  return y;
}

static gint
cat (Zoo *z, const gint *xs, guint n, const char *name)
{
  g_autofree char *o = N ("%s.out", name);
  gint64 c = 0;
  gint   y;

  for (guint i = 0; i < n; i++)
    c += zoo_dim (z, xs[i], 1);
  y = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, o,
                  SHAPE (zoo_dim (z, xs[0], 0), c, zoo_dim (z, xs[0], 2), zoo_dim (z, xs[0], 3)));
  zoo_op (z, ZOO_OP_OTHER, name, xs, n, TENSORS (y));
  return y;
}

/* adaptive average pool to 1x1, flatten (a view), dropout (identity in
 * eval), fully connected */
static gint
classifier (Zoo *z, gint x, const char *pool_name, const char *fc_name, gint64 classes)
{
  gint64 n = zoo_dim (z, x, 0), c = zoo_dim (z, x, 1);
  g_autofree char *po = N ("%s.out", pool_name), *fl = N ("flatten.out");
  g_autofree char *w = N ("%s.weight", fc_name), *b = N ("%s.bias", fc_name);
  gint   p = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, po, SHAPE (n, c, 1, 1));
  gint   f, y;

  zoo_op (z, ZOO_OP_OTHER, pool_name, TENSORS (x), TENSORS (p));
  f = zoo_view (z, p, fl, 0, SHAPE (n, c));
  y = zoo_tensor (z, MP_TENSOR_OUTPUT, MP_DTYPE_NONE, "logits", SHAPE (n, classes));
  zoo_op (z, ZOO_OP_OTHER, fc_name,
          TENSORS (f, zoo_param (z, w, SHAPE (classes, c)), zoo_param (z, b, SHAPE (classes))),
          TENSORS (y));
  return y;
}

static gint
image (Zoo *z, const MpGenZooOptions *o, gint64 channels, gint64 size)
{
  return zoo_tensor (z, MP_TENSOR_INPUT, MP_DTYPE_NONE, "image",
                     SHAPE (MAX (o->batch, 1), channels, size, size));
}

/* ---- ResNet-50 (torchvision v1.5: the stride sits on the 3x3 conv) ------ */

static gint
bottleneck (Zoo *z, gint x, const char *p, gint64 width, gint64 stride, gboolean downsample)
{
  g_autofree char *c1 = N ("%s.conv1", p), *b1 = N ("%s.bn1", p), *r1 = N ("%s.relu1", p);
  g_autofree char *c2 = N ("%s.conv2", p), *b2 = N ("%s.bn2", p), *r2 = N ("%s.relu2", p);
  g_autofree char *c3 = N ("%s.conv3", p), *b3 = N ("%s.bn3", p), *r3 = N ("%s.relu3", p);
  g_autofree char *d0 = N ("%s.downsample.0", p), *d1 = N ("%s.downsample.1", p);
  g_autofree char *a = N ("%s.add", p);
  gint y, identity = x;

  y = conv_bn_relu (z, x, c1, b1, r1, width, K (1, 1, 0));
  y = conv_bn_relu (z, y, c2, b2, r2, width, K (3, stride, 1));
  y = conv_bn_relu (z, y, c3, b3, NULL, 4 * width, K (1, 1, 0));
  if (downsample)
    identity = conv_bn_relu (z, x, d0, d1, NULL, 4 * width, K (1, stride, 0));
  return relu (z, add (z, y, identity, a), r3);
}

void
zoo_resnet50 (Zoo *z, const MpGenZooOptions *o)
{
  static const guint blocks[] = { 3, 4, 6, 3 };
  gint x = image (z, o, 3, 224);

  x = conv_bn_relu (z, x, "conv1", "bn1", "relu", 64, K (7, 2, 3));
  x = pool (z, x, "maxpool", 3, 2, 1);
  for (guint l = 0; l < 4; l++)
    for (guint b = 0; b < blocks[l]; b++)
      {
        g_autofree char *p = N ("layer%u.%u", l + 1, b);

        x = bottleneck (z, x, p, 64 << l, b == 0 && l > 0 ? 2 : 1, b == 0);
      }
  classifier (z, x, "avgpool", "fc", 1000);
}

/* ---- MobileNet-v2 ------------------------------------------------------- */

void
zoo_mobilenet_v2 (Zoo *z, const MpGenZooOptions *o)
{
  /* expansion t, channels c, repeats n, stride s (Sandler et al. 2018, table 2) */
  static const gint64 settings[][4] = {
    { 1, 16, 1, 1 }, { 6, 24, 2, 2 }, { 6, 32, 3, 2 }, { 6, 64, 4, 2 },
    { 6, 96, 3, 1 }, { 6, 160, 3, 2 }, { 6, 320, 1, 1 },
  };
  gint  x = image (z, o, 3, 224);
  guint f = 1;

  x = conv_bn_relu (z, x, "features.0.0", "features.0.1", "features.0.2", 32, K (3, 2, 1));
  for (guint s = 0; s < G_N_ELEMENTS (settings); s++)
    for (gint64 i = 0; i < settings[s][2]; i++, f++)
      {
        gint64 t = settings[s][0], cout = settings[s][1], stride = i == 0 ? settings[s][3] : 1;
        gint64 cin = zoo_dim (z, x, 1), hidden = cin * t;
        guint  k = 0;
        gint   y = x;

        if (t != 1)
          {
            g_autofree char *c = N ("features.%u.conv.0.0", f), *b = N ("features.%u.conv.0.1", f);
            g_autofree char *r = N ("features.%u.conv.0.2", f);

            y = conv_bn_relu (z, y, c, b, r, hidden, K (1, 1, 0));
            k = 1;
          }
        {
          g_autofree char *c = N ("features.%u.conv.%u.0", f, k);
          g_autofree char *b = N ("features.%u.conv.%u.1", f, k);
          g_autofree char *r = N ("features.%u.conv.%u.2", f, k);
          g_autofree char *pc = N ("features.%u.conv.%u", f, k + 1);
          g_autofree char *pb = N ("features.%u.conv.%u", f, k + 2);
          g_autofree char *a = N ("features.%u.add", f);

          y = conv_bn_relu (z, y, c, b, r, hidden, (Conv) { 3, 3, stride, 1, 1, hidden, FALSE });
          y = conv_bn_relu (z, y, pc, pb, NULL, cout, K (1, 1, 0));
          x = stride == 1 && cin == cout ? add (z, x, y, a) : y;
        }
      }
  x = conv_bn_relu (z, x, "features.18.0", "features.18.1", "features.18.2", 1280, K (1, 1, 0));
  classifier (z, x, "avgpool", "classifier.1", 1000);
}

/* ---- Inception-v3 (torchvision, eval: no auxiliary classifier) ---------- */

/* BasicConv2d: conv without bias, batchnorm, relu; n is the branch inside
 * module p, or NULL for a stem layer */
static gint
basic (Zoo *z, gint x, const char *p, const char *n, gint64 cout, Conv c)
{
  g_autofree char *q = n ? N ("%s.%s", p, n) : g_strdup (p);
  g_autofree char *cn = N ("%s.conv", q), *bn = N ("%s.bn", q), *rn = N ("%s.relu", q);

  return conv_bn_relu (z, x, cn, bn, rn, cout, c);
}

#define KHW(kh, kw, ph, pw) ((Conv) { kh, kw, 1, ph, pw, 1, FALSE })

/* Each branch of a module runs on its own stream; the concatenation waits
 * for all of them on stream 0. */
static gint
finish_module (Zoo *z, const char *p, const gint *branches, guint n)
{
  g_autofree char *c = N ("%s.cat", p);

  zoo_set_stream (z, 0);
  return cat (z, branches, n, c);
}

static gint
branch_pool (Zoo *z, gint x, const char *p, gboolean avg, gint64 stride)
{
  g_autofree char *n = N ("%s.%s_pool", p, avg ? "avg" : "max");

  return pool (z, x, n, 3, stride, avg ? 1 : 0);
}

static gint
inception_a (Zoo *z, gint x, const char *p, gint64 pool_features)
{
  gint b[4];

  zoo_set_stream (z, 0);
  b[0] = basic (z, x, p, "branch1x1", 64, K (1, 1, 0));
  zoo_set_stream (z, 1);
  b[1] = basic (z, basic (z, x, p, "branch5x5_1", 48, K (1, 1, 0)), p, "branch5x5_2", 64,
                K (5, 1, 2));
  zoo_set_stream (z, 2);
  b[2] = basic (z, x, p, "branch3x3dbl_1", 64, K (1, 1, 0));
  b[2] = basic (z, b[2], p, "branch3x3dbl_2", 96, K (3, 1, 1));
  b[2] = basic (z, b[2], p, "branch3x3dbl_3", 96, K (3, 1, 1));
  zoo_set_stream (z, 3);
  b[3] = basic (z, branch_pool (z, x, p, TRUE, 1), p, "branch_pool", pool_features, K (1, 1, 0));
  return finish_module (z, p, b, 4);
}

static gint
inception_b (Zoo *z, gint x, const char *p)
{
  gint b[3];

  zoo_set_stream (z, 0);
  b[0] = basic (z, x, p, "branch3x3", 384, K (3, 2, 0));
  zoo_set_stream (z, 1);
  b[1] = basic (z, x, p, "branch3x3dbl_1", 64, K (1, 1, 0));
  b[1] = basic (z, b[1], p, "branch3x3dbl_2", 96, K (3, 1, 1));
  b[1] = basic (z, b[1], p, "branch3x3dbl_3", 96, K (3, 2, 0));
  zoo_set_stream (z, 2);
  b[2] = branch_pool (z, x, p, FALSE, 2);
  return finish_module (z, p, b, 3);
}

static gint
inception_c (Zoo *z, gint x, const char *p, gint64 c7)
{
  gint b[4];

  zoo_set_stream (z, 0);
  b[0] = basic (z, x, p, "branch1x1", 192, K (1, 1, 0));
  zoo_set_stream (z, 1);
  b[1] = basic (z, x, p, "branch7x7_1", c7, K (1, 1, 0));
  b[1] = basic (z, b[1], p, "branch7x7_2", c7, KHW (1, 7, 0, 3));
  b[1] = basic (z, b[1], p, "branch7x7_3", 192, KHW (7, 1, 3, 0));
  zoo_set_stream (z, 2);
  b[2] = basic (z, x, p, "branch7x7dbl_1", c7, K (1, 1, 0));
  b[2] = basic (z, b[2], p, "branch7x7dbl_2", c7, KHW (7, 1, 3, 0));
  b[2] = basic (z, b[2], p, "branch7x7dbl_3", c7, KHW (1, 7, 0, 3));
  b[2] = basic (z, b[2], p, "branch7x7dbl_4", c7, KHW (7, 1, 3, 0));
  b[2] = basic (z, b[2], p, "branch7x7dbl_5", 192, KHW (1, 7, 0, 3));
  zoo_set_stream (z, 3);
  b[3] = basic (z, branch_pool (z, x, p, TRUE, 1), p, "branch_pool", 192, K (1, 1, 0));
  return finish_module (z, p, b, 4);
}

static gint
inception_d (Zoo *z, gint x, const char *p)
{
  gint b[3];

  zoo_set_stream (z, 0);
  b[0] = basic (z, x, p, "branch3x3_1", 192, K (1, 1, 0));
  b[0] = basic (z, b[0], p, "branch3x3_2", 320, K (3, 2, 0));
  zoo_set_stream (z, 1);
  b[1] = basic (z, x, p, "branch7x7x3_1", 192, K (1, 1, 0));
  b[1] = basic (z, b[1], p, "branch7x7x3_2", 192, KHW (1, 7, 0, 3));
  b[1] = basic (z, b[1], p, "branch7x7x3_3", 192, KHW (7, 1, 3, 0));
  b[1] = basic (z, b[1], p, "branch7x7x3_4", 192, K (3, 2, 0));
  zoo_set_stream (z, 2);
  b[2] = branch_pool (z, x, p, FALSE, 2);
  return finish_module (z, p, b, 3);
}

static gint
inception_e (Zoo *z, gint x, const char *p)
{
  g_autofree char *c1 = N ("%s.branch3x3.cat", p), *c2 = N ("%s.branch3x3dbl.cat", p);
  gint b[4], t, pair[2];

  zoo_set_stream (z, 0);
  b[0] = basic (z, x, p, "branch1x1", 320, K (1, 1, 0));
  zoo_set_stream (z, 1);
  t = basic (z, x, p, "branch3x3_1", 384, K (1, 1, 0));
  pair[0] = basic (z, t, p, "branch3x3_2a", 384, KHW (1, 3, 0, 1));
  pair[1] = basic (z, t, p, "branch3x3_2b", 384, KHW (3, 1, 1, 0));
  b[1] = cat (z, pair, 2, c1);
  zoo_set_stream (z, 2);
  t = basic (z, x, p, "branch3x3dbl_1", 448, K (1, 1, 0));
  t = basic (z, t, p, "branch3x3dbl_2", 384, K (3, 1, 1));
  pair[0] = basic (z, t, p, "branch3x3dbl_3a", 384, KHW (1, 3, 0, 1));
  pair[1] = basic (z, t, p, "branch3x3dbl_3b", 384, KHW (3, 1, 1, 0));
  b[2] = cat (z, pair, 2, c2);
  zoo_set_stream (z, 3);
  b[3] = basic (z, branch_pool (z, x, p, TRUE, 1), p, "branch_pool", 192, K (1, 1, 0));
  return finish_module (z, p, b, 4);
}

void
zoo_inception_v3 (Zoo *z, const MpGenZooOptions *o)
{
  gint x = image (z, o, 3, 299);

  x = basic (z, x, "Conv2d_1a_3x3", NULL, 32, K (3, 2, 0));
  x = basic (z, x, "Conv2d_2a_3x3", NULL, 32, K (3, 1, 0));
  x = basic (z, x, "Conv2d_2b_3x3", NULL, 64, K (3, 1, 1));
  x = pool (z, x, "maxpool1", 3, 2, 0);
  x = basic (z, x, "Conv2d_3b_1x1", NULL, 80, K (1, 1, 0));
  x = basic (z, x, "Conv2d_4a_3x3", NULL, 192, K (3, 1, 0));
  x = pool (z, x, "maxpool2", 3, 2, 0);
  x = inception_a (z, x, "Mixed_5b", 32);
  x = inception_a (z, x, "Mixed_5c", 64);
  x = inception_a (z, x, "Mixed_5d", 64);
  x = inception_b (z, x, "Mixed_6a");
  x = inception_c (z, x, "Mixed_6b", 128);
  x = inception_c (z, x, "Mixed_6c", 160);
  x = inception_c (z, x, "Mixed_6d", 160);
  x = inception_c (z, x, "Mixed_6e", 192);
  x = inception_d (z, x, "Mixed_7a");
  x = inception_e (z, x, "Mixed_7b");
  x = inception_e (z, x, "Mixed_7c");
  classifier (z, x, "avgpool", "fc", 1000);
}

/* ---- U-Net (Ronneberger et al. 2015: 572x572 in, unpadded convs, skip
 * connections cropped and concatenated, 388x388 out) ---------------------- */

static gint
double_conv (Zoo *z, gint x, const char *p, gint64 cout)
{
  g_autofree char *c1 = N ("%s.conv1", p), *r1 = N ("%s.relu1", p);
  g_autofree char *c2 = N ("%s.conv2", p), *r2 = N ("%s.relu2", p);
  Conv             c = { 3, 3, 1, 0, 0, 1, TRUE };

  x = relu (z, conv (z, x, c1, cout, c), r1);
  return relu (z, conv (z, x, c2, cout, c), r2);
}

void
zoo_unet (Zoo *z, const MpGenZooOptions *o)
{
  gint  x = image (z, o, 1, 572);
  gint  skip[4];
  gint64 n = zoo_dim (z, x, 0);

  for (guint d = 0; d < 4; d++)
    {
      g_autofree char *p = N ("down%u", d + 1), *mp = N ("down%u.pool", d + 1);

      skip[d] = double_conv (z, x, p, 64 << d);
      x = pool (z, skip[d], mp, 2, 2, 0);
    }
  x = double_conv (z, x, "bottom", 1024);
  for (gint u = 3; u >= 0; u--)
    {
      g_autofree char *p = N ("up%d", u + 1), *up = N ("up%d.upconv", u + 1);
      g_autofree char *w = N ("%s.weight", up), *b = N ("%s.bias", up), *o_name = N ("%s.out", up);
      g_autofree char *crop = N ("up%d.crop", u + 1), *c = N ("up%d.cat", u + 1);
      gint64 cout = 64 << u, h = 2 * zoo_dim (z, x, 2);
      gint64 sh = zoo_dim (z, skip[u], 2), border = (sh - h) / 2;
      gint   y = zoo_tensor (z, MP_TENSOR_ACTIVATION, MP_DTYPE_NONE, o_name,
                             SHAPE (n, cout, h, h));
      gint   pair[2];

      /* 2x2 up-convolution halving the channels */
      zoo_op (z, ZOO_OP_OTHER, up,
              TENSORS (x, zoo_param (z, w, SHAPE (zoo_dim (z, x, 1), cout, 2, 2)),
                       zoo_param (z, b, SHAPE (cout))),
              TENSORS (y));
      /* the centre crop of the skip is a strided view starting at (border, border) */
      pair[0] = zoo_view (z, skip[u], crop, (border * sh + border) * mp_dtype_size (zoo_dtype (z)),
                          SHAPE (n, cout, h, h));
      pair[1] = y;
      x = double_conv (z, cat (z, pair, 2, c), p, cout);
    }
  {
    gint y = zoo_tensor (z, MP_TENSOR_OUTPUT, MP_DTYPE_NONE, "segmentation",
                         SHAPE (n, 2, zoo_dim (z, x, 2), zoo_dim (z, x, 3)));

    zoo_op (z, ZOO_OP_OTHER, "final",
            TENSORS (x, zoo_param (z, "final.weight", SHAPE (2, 64, 1, 1)),
                     zoo_param (z, "final.bias", SHAPE (2))),
            TENSORS (y));
  }
}
