/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "mp-error.h"
#include "zoo-private.h"

typedef void (*ZooModelFunc) (Zoo *z, const MpGenZooOptions *o);

enum
{
  TAKES_SEQ = 1 << 0,
  TAKES_LAYERS = 1 << 1,
  TAKES_TRAINING = 1 << 2,
  TAKES_RANDOM = 1 << 3,
};

static const struct
{
  MpGenZooModel info;
  ZooModelFunc  func;
  guint         takes;
} models[] = {
  { { "resnet50", "ResNet-50 (torchvision v1.5), 224x224, 25.6 M parameters" }, zoo_resnet50, 0 },
  { { "mobilenet-v2", "MobileNet-v2, 224x224, inverted residuals, 3.5 M parameters" },
    zoo_mobilenet_v2, 0 },
  { { "bert-base", "BERT-base (uncased), --seq 128, 12 layers, 110 M parameters" },
    zoo_bert_base, TAKES_SEQ | TAKES_LAYERS },
  { { "gpt2", "GPT-2 small, --seq 1024, 12 layers, 124 M parameters; --training adds loss "
      "and backward" }, zoo_gpt2, TAKES_SEQ | TAKES_LAYERS | TAKES_TRAINING },
  { { "unet", "U-Net (Ronneberger 2015), 572x572 in, 388x388 out, cropped skip connections" },
    zoo_unet, 0 },
  { { "inception", "Inception-v3 (torchvision, no aux head), 299x299, branches on 4 streams" },
    zoo_inception_v3, 0 },
  { { "random", "random graph (--tensors N --streams S --seed K): short lifetimes, a tail of "
      "long ones" }, NULL, TAKES_RANDOM },
};

const MpGenZooModel *
mp_gen_zoo_models (guint *n_models)
{
  static MpGenZooModel infos[G_N_ELEMENTS (models)];

  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    infos[i] = models[i].info;
  *n_models = G_N_ELEMENTS (models);
  return infos;
}

char *
mp_gen_zoo (const char *model, const MpGenZooOptions *options, gsize *length, GError **error)
{
  MpGenZooOptions     o = *options;
  g_autoptr (Zoo)     z = NULL;
  g_autofree char    *name = NULL;
  guint               m;

  for (m = 0; m < G_N_ELEMENTS (models); m++)
    if (g_str_equal (model, models[m].info.name))
      break;
  if (m == G_N_ELEMENTS (models))
    {
      GString *known = g_string_new (NULL);

      for (guint i = 0; i < G_N_ELEMENTS (models); i++)
        g_string_append_printf (known, "%s%s", i ? ", " : "", models[i].info.name);
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                   "unknown model '%s' (known: %s)", model, known->str);
      g_string_free (known, TRUE);
      return NULL;
    }
  if ((o.seq && !(models[m].takes & TAKES_SEQ)) ||
      (o.layers && !(models[m].takes & TAKES_LAYERS)) ||
      (o.training && !(models[m].takes & TAKES_TRAINING)))
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                   "model '%s' takes no %s option", model,
                   o.seq && !(models[m].takes & TAKES_SEQ) ? "--seq"
                   : o.layers && !(models[m].takes & TAKES_LAYERS) ? "--layers" : "--training");
      return NULL;
    }
  if (o.dtype != MP_DTYPE_NONE && o.dtype != MP_DTYPE_F32 && o.dtype != MP_DTYPE_F16 &&
      o.dtype != MP_DTYPE_BF16)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                   "--dtype must be f32, f16 or bf16");
      return NULL;
    }
  if (o.seq > (g_str_equal (model, "gpt2") ? 1024u : 512u))
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                   "--seq %u is longer than the %s position table (%u)", o.seq, model,
                   g_str_equal (model, "gpt2") ? 1024 : 512);
      return NULL;
    }
  if (o.batch > 4096 || o.layers > 1000)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                   "--batch must be at most 4096 and --layers at most 1000");
      return NULL;
    }

  if (models[m].func == NULL)
    {
      if (o.random.n_tensors == 0)
        o.random.n_tensors = 1000;
      return mp_gen_random (&o.random, FALSE, length);
    }

  name = g_strdup_printf ("%s%s-b%u%s%s", model, o.training ? "-training" : "", MAX (o.batch, 1),
                          o.dtype && o.dtype != MP_DTYPE_F32 ? "-" : "",
                          o.dtype && o.dtype != MP_DTYPE_F32 ? mp_dtype_to_string (o.dtype) : "");
  z = zoo_new (name, o.dtype);
  models[m].func (z, &o);
  return zoo_to_json (z, length);
}
