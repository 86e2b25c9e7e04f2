/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `import memplan`: the engine from Python, a client of libmemplan-1's
 * public API like any other. Buffers go from Python ints straight into C
 * arrays (no object per buffer), planning runs without the GIL, and every
 * failure is a memplan.Error carrying the engine's own message. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "memplan-render.h"

static PyObject     *memplan_error;
static PyTypeObject *result_type;
static PyTypeObject *tensor_type;

static PyStructSequence_Field result_fields[] = {
  { "planner", "the planner's name" },
  { "offsets", "array.array('q'): the offset of each buffer, in the order given" },
  { "arena", "bytes the plan needs" },
  { "lower_bound", "the most bytes live at once: no plan needs less" },
  { "verdict", "\"valid\", or why the plan is invalid" },
  { "valid", "whether the validator accepted the plan" },
  { "seconds", "planning time" },
  { NULL, NULL }
};

static PyStructSequence_Desc result_desc = {
  "memplan.Result", "A plan: offsets, arena, lower bound and verdict.", result_fields, 7
};

static PyStructSequence_Field tensor_fields[] = {
  { "name", NULL }, { "size", "bytes" }, { "first", "first step (the input's units)" },
  { "last", "last step, inclusive" }, { "op", "the op that writes it, or None" }, { NULL, NULL }
};

static PyStructSequence_Desc tensor_desc = {
  "memplan.Tensor", "A planned buffer of a workload.", tensor_fields, 5
};

static PyObject *
raise_gerror (GError *error)
{
  PyErr_SetString (memplan_error, error ? error->message : "unknown error");
  return NULL;
}

/* ---- buffers: any iterable of (size, start, end) or objects with them ---- */

typedef struct
{
  guint64 *sizes;
  gint64  *starts;
  gint64  *ends;
  guint    n;
} Buffers;

static void
buffers_clear (Buffers *b)
{
  g_clear_pointer (&b->sizes, g_free);
  g_clear_pointer (&b->starts, g_free);
  g_clear_pointer (&b->ends, g_free);
}

static const char *const buffer_fields[] = { "size", "start", "end" };

static gboolean
int_field (PyObject *value, Py_ssize_t i, guint k, gint64 *out)
{
  int overflow = 0;

  if (!PyLong_Check (value))
    {
      PyErr_Format (PyExc_TypeError, "buffer %zd: %s must be an int, not %s", i,
                    buffer_fields[k], Py_TYPE (value)->tp_name);
      return FALSE;
    }
  *out = PyLong_AsLongLongAndOverflow (value, &overflow);
  if (overflow || (*out < 0 && k == 0))
    {
      PyErr_Format (memplan_error, "buffer %zd: %s must be from %d to 2^%d, got %S", i,
                    buffer_fields[k], k == 0 ? 1 : 0, k == 0 ? 48 : 53, value);
      return FALSE;
    }
  return !(*out == -1 && PyErr_Occurred ());
}

static gboolean
buffer_from_object (PyObject *item, Py_ssize_t i, gint64 v[3])
{
  if (PyTuple_CheckExact (item) && PyTuple_GET_SIZE (item) == 3)
    {
      /* the fast path: a list of plain tuples */
      for (guint k = 0; k < 3; k++)
        if (!int_field (PyTuple_GET_ITEM (item, k), i, k, &v[k]))
          return FALSE;
      return TRUE;
    }
  if (PySequence_Check (item) && !PyUnicode_Check (item) && !PyBytes_Check (item))
    {
      if (PySequence_Size (item) != 3)
        {
          PyErr_Format (PyExc_TypeError, "buffer %zd: expected (size, start, end), got %R", i,
                        item);
          return FALSE;
        }
      for (guint k = 0; k < 3; k++)
        {
          PyObject *value = PySequence_GetItem (item, k);
          gboolean  ok = value && int_field (value, i, k, &v[k]);

          Py_XDECREF (value);
          if (!ok)
            return FALSE;
        }
      return TRUE;
    }
  for (guint k = 0; k < 3; k++)
    {
      PyObject *value = PyObject_GetAttrString (item, buffer_fields[k]);
      gboolean  ok;

      if (!value)
        {
          PyErr_Format (PyExc_TypeError, "buffer %zd: expected (size, start, end) or an object "
                        "with size, start and end attributes, got %R", i, item);
          return FALSE;
        }
      ok = int_field (value, i, k, &v[k]);
      Py_DECREF (value);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static gboolean
buffers_from_object (PyObject *obj, Buffers *b)
{
  PyObject   *seq = PySequence_Fast (obj, "buffers must be an iterable of (size, start, end)");
  Py_ssize_t  n;
  PyObject  **items;

  if (!seq)
    return FALSE;
  n = PySequence_Fast_GET_SIZE (seq);
  if (n > G_MAXINT / 2)
    {
      PyErr_Format (memplan_error, "%zd buffers: at most %d", n, G_MAXINT / 2);
      Py_DECREF (seq);
      return FALSE;
    }
  items = PySequence_Fast_ITEMS (seq);
  b->n = n;
  b->sizes = g_new (guint64, MAX (n, 1));
  b->starts = g_new (gint64, MAX (n, 1));
  b->ends = g_new (gint64, MAX (n, 1));
  for (Py_ssize_t i = 0; i < n; i++)
    {
      gint64 v[3];

      if (!buffer_from_object (items[i], i, v))
        {
          Py_DECREF (seq);
          buffers_clear (b);
          return FALSE;
        }
      b->sizes[i] = v[0];
      b->starts[i] = v[1];
      b->ends[i] = v[2];
    }
  Py_DECREF (seq);
  return TRUE;
}

/* ---- planners: "all", a name, or an iterable of names ---- */

static GPtrArray *
planners_from_object (PyObject *obj, const char *name_default, gboolean *single)
{
  g_autoptr (GPtrArray) infos = g_ptr_array_new ();
  PyObject *seq;

  if (obj == NULL || obj == Py_None)
    {
      *single = !g_str_equal (name_default, "all");
      if (!*single)
        {
          guint                n;
          const MpPlannerInfo *all = mp_planners (&n);

          for (guint i = 0; i < n; i++)
            g_ptr_array_add (infos, (gpointer) &all[i]);
        }
      else
        g_ptr_array_add (infos, (gpointer) mp_planner_lookup (name_default));
      return g_steal_pointer (&infos);
    }
  *single = PyUnicode_Check (obj);
  if (*single)
    {
      const char *name = PyUnicode_AsUTF8 (obj);

      if (!name)
        return NULL;
      if (g_str_equal (name, "all"))
        {
          guint                n;
          const MpPlannerInfo *all = mp_planners (&n);

          for (guint i = 0; i < n; i++)
            g_ptr_array_add (infos, (gpointer) &all[i]);
          *single = FALSE;
          return g_steal_pointer (&infos);
        }
      seq = PyTuple_Pack (1, obj);
    }
  else
    seq = PySequence_Fast (obj, "planner must be a name, \"all\" or an iterable of names");
  if (!seq)
    return NULL;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE (seq); i++)
    {
      PyObject            *item = PySequence_Fast_GET_ITEM (seq, i);
      const char          *name = PyUnicode_Check (item) ? PyUnicode_AsUTF8 (item) : NULL;
      const MpPlannerInfo *info = name ? mp_planner_lookup (name) : NULL;

      if (!info)
        {
          g_autofree char *known = mp_planner_names (", ");

          if (!PyErr_Occurred ())
            PyErr_Format (memplan_error, "unknown planner %R (known: %s, all)", item, known);
          Py_DECREF (seq);
          return NULL;
        }
      g_ptr_array_add (infos, (gpointer) info);
    }
  Py_DECREF (seq);
  return g_steal_pointer (&infos);
}

static gboolean
time_budget_from_object (PyObject *obj, gdouble *budget)
{
  *budget = 0;
  if (obj == NULL || obj == Py_None)
    return TRUE;
  *budget = PyFloat_AsDouble (obj);
  if (*budget == -1 && PyErr_Occurred ())
    return FALSE;
  if (!(*budget > 0 && *budget <= MP_OPTIMAL_MAX_BUDGET))
    {
      PyErr_Format (memplan_error, "time_budget must be from 0 to 1e9 seconds, got %R", obj);
      return FALSE;
    }
  return TRUE;
}

/* ---- results ---- */

/* Offsets per record of the workload's lifetimes (a multistream plan has
 * records of its own, matched through their tensors). */
static PyObject *
offsets_array (MpWorkload *w, const MpPlan *plan)
{
  g_autofree gint64 *offsets = g_new0 (gint64, MAX (w->lifetimes->n_records, 1));
  PyObject          *array_module, *array, *ok;

  for (guint r = 0; r < plan->n_records; r++)
    {
      gint rec = w->lifetimes->record_of[plan->records[r].tensor];

      if (rec >= 0)
        offsets[rec] = plan->offsets[r];
    }
  if (!(array_module = PyImport_ImportModule ("array")))
    return NULL;
  array = PyObject_CallMethod (array_module, "array", "s", "q");
  Py_DECREF (array_module);
  if (!array)
    return NULL;
  ok = PyObject_CallMethod (array, "frombytes", "y#", (const char *) offsets,
                            (Py_ssize_t) (w->lifetimes->n_records * sizeof (gint64)));
  if (!ok)
    {
      Py_DECREF (array);
      return NULL;
    }
  Py_DECREF (ok);
  return array;
}

static PyObject *
result_new (MpWorkload *w, const MpPlan *plan)
{
  PyObject        *result = PyStructSequence_New (result_type);
  PyObject        *offsets;
  g_autofree char *verdict = mp_plan_verdict (plan);

  if (!result)
    return NULL;
  if (!(offsets = offsets_array (w, plan)))
    {
      Py_DECREF (result);
      return NULL;
    }
  PyStructSequence_SET_ITEM (result, 0, PyUnicode_FromString (plan->planner));
  PyStructSequence_SET_ITEM (result, 1, offsets);
  PyStructSequence_SET_ITEM (result, 2, PyLong_FromUnsignedLongLong (plan->arena));
  PyStructSequence_SET_ITEM (result, 3, PyLong_FromUnsignedLongLong (plan->lower_bound));
  PyStructSequence_SET_ITEM (result, 4, PyUnicode_FromString (verdict));
  PyStructSequence_SET_ITEM (result, 5, PyBool_FromLong (plan->valid));
  PyStructSequence_SET_ITEM (result, 6, PyFloat_FromDouble (plan->seconds));
  if (PyErr_Occurred ())
    {
      Py_DECREF (result);
      return NULL;
    }
  return result;
}

/* Runs infos on w without the GIL; lock (a Workload's) keeps two Python
 * threads from running the same workload at once. */
static MpPlanRun *
run_planners (MpWorkload *w, GPtrArray *infos, gdouble time_budget, GMutex *lock)
{
  MpRunOptions     options = { 0 };
  g_autoptr (GError) error = NULL;
  MpPlanRun       *run;

  options.planner.time_budget = time_budget;
  options.n_threads = infos->len > 1 ? 0 : 1;
  Py_BEGIN_ALLOW_THREADS
  if (lock)
    g_mutex_lock (lock);
  run = mp_workload_run (w, (const MpPlannerInfo * const *) infos->pdata, infos->len, &options,
                         NULL, &error);
  if (lock)
    g_mutex_unlock (lock);
  Py_END_ALLOW_THREADS
  if (!run)
    raise_gerror (error);
  return run;
}

/* One planner named: its Result; several: a dict name -> Result of those
 * that ran (a planner that needs ops is left out on buffers). */
static PyObject *
results_new (MpWorkload *w, MpPlanRun *run, gboolean single)
{
  PyObject *dict;

  if (single)
    {
      for (guint i = 0; i < run->plans->len; i++)
        if (!((MpPlan *) run->plans->pdata[i])->observed)
          return result_new (w, run->plans->pdata[i]);
      PyErr_SetString (memplan_error, run->reasons->len ? run->reasons->pdata[0]
                                                         : "no plan was made");
      return NULL;
    }
  if (!(dict = PyDict_New ()))
    return NULL;
  for (guint i = 0; i < run->plans->len; i++)
    {
      MpPlan   *plan = run->plans->pdata[i];
      PyObject *result = result_new (w, plan);

      if (!result || PyDict_SetItemString (dict, plan->planner, result) < 0)
        {
          Py_XDECREF (result);
          Py_DECREF (dict);
          return NULL;
        }
      Py_DECREF (result);
    }
  return dict;
}

static MpWorkload *
workload_from_buffers (const Buffers *b, guint64 alignment)
{
  MpWorkloadOptions options = { 0 };
  g_autoptr (GError) error = NULL;
  MpWorkload       *w = NULL;
  MpGraph          *graph;

  options.alignment = alignment;
  Py_BEGIN_ALLOW_THREADS
  graph = mp_graph_new_buffers (NULL, b->sizes, b->starts, b->ends, b->n, &error);
  if (graph)
    w = mp_workload_new (graph, &options, &error);
  Py_END_ALLOW_THREADS
  if (!w)
    raise_gerror (error);
  return w;
}

static gboolean
alignment_from_object (PyObject *obj, guint64 *alignment)
{
  *alignment = PyLong_Check (obj) ? PyLong_AsUnsignedLongLong (obj) : 0;
  if (PyErr_Occurred ())
    PyErr_Clear ();
  if (!mp_alignment_valid (*alignment))
    {
      PyObject        *text = PyObject_Repr (obj);
      g_autofree char *message = mp_alignment_message ("alignment",
                                                       text ? PyUnicode_AsUTF8 (text) : "?");

      Py_XDECREF (text);
      PyErr_SetString (memplan_error, message);
      return FALSE;
    }
  return TRUE;
}

PyDoc_STRVAR (plan_doc,
"plan(buffers, planner=\"first-fit\", alignment=1, time_budget=None)\n--\n\n"
"Plans buffers, any iterable of (size, start, end) or of objects with size,\n"
"start and end attributes: size bytes live from step start up to, not\n"
"including, end. Returns a Result (planner, offsets, arena, lower_bound,\n"
"verdict, valid, seconds); planner=\"all\" or a list of names returns a dict\n"
"name -> Result. alignment rounds sizes up; time_budget bounds the optimal\n"
"planner's search in seconds. Raises memplan.Error with the engine's message.");

static PyObject *
memplan_plan (PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "buffers", "planner", "alignment", "time_budget", NULL };
  PyObject   *buffers, *planner = NULL, *align_obj = NULL, *budget_obj = NULL;
  Buffers     b = { 0 };
  guint64     alignment = 1;
  gdouble     budget;
  gboolean    single;
  g_autoptr (GPtrArray) infos = NULL;
  g_autoptr (MpWorkload) w = NULL;
  g_autoptr (MpPlanRun) run = NULL;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O|OOO:plan", kwlist, &buffers, &planner,
                                    &align_obj, &budget_obj))
    return NULL;
  infos = planners_from_object (planner, "first-fit", &single);
  if (!infos || (align_obj && !alignment_from_object (align_obj, &alignment))
      || !time_budget_from_object (budget_obj, &budget))
    return NULL;
  if (!buffers_from_object (buffers, &b))
    return NULL;
  w = workload_from_buffers (&b, alignment);
  buffers_clear (&b);
  if (!w || !(run = run_planners (w, infos, budget, NULL)))
    return NULL;
  return results_new (w, run, single);
}

PyDoc_STRVAR (validate_doc,
"validate(buffers, offsets)\n--\n\n"
"Checks that no two buffers live at the same step overlap when placed at\n"
"offsets (one per buffer, in order). Returns the arena; raises memplan.Error\n"
"naming the overlapping buffers (by index) otherwise.");

static PyObject *
memplan_validate (PyObject *self, PyObject *args)
{
  PyObject  *buffers, *offsets_obj, *seq;
  Buffers    b = { 0 };
  g_autoptr (MpWorkload) w = NULL;
  g_autoptr (MpPlan) plan = NULL;
  gboolean   valid;

  if (!PyArg_ParseTuple (args, "OO:validate", &buffers, &offsets_obj))
    return NULL;
  if (!buffers_from_object (buffers, &b))
    return NULL;
  w = workload_from_buffers (&b, 1);
  buffers_clear (&b);
  if (!w)
    return NULL;
  if (!(seq = PySequence_Fast (offsets_obj, "offsets must be an iterable of ints")))
    return NULL;
  if ((guint) PySequence_Fast_GET_SIZE (seq) != w->lifetimes->n_records)
    {
      PyErr_Format (memplan_error, "%zd offsets for %u buffers", PySequence_Fast_GET_SIZE (seq),
                    w->lifetimes->n_records);
      Py_DECREF (seq);
      return NULL;
    }
  plan = mp_plan_new ("given", w->lifetimes);
  for (guint r = 0; r < plan->n_records; r++)
    {
      guint     t = plan->records[r].tensor; /* buffer t is tensor t */
      PyObject *item = PySequence_Fast_GET_ITEM (seq, t);
      gint64    v = PyLong_Check (item) ? PyLong_AsLongLong (item) : -1;

      if (v < 0)
        {
          PyErr_Clear ();
          PyErr_Format (memplan_error, "offset %u: must be a non-negative int, got %R", t, item);
          Py_DECREF (seq);
          return NULL;
        }
      plan->offsets[r] = v;
    }
  Py_DECREF (seq);
  mp_plan_finish (plan);
  Py_BEGIN_ALLOW_THREADS
  valid = mp_workload_judge (w, plan);
  Py_END_ALLOW_THREADS
  if (!valid)
    {
      PyErr_SetString (memplan_error, plan->problem ? plan->problem : "invalid plan");
      return NULL;
    }
  return PyLong_FromUnsignedLongLong (plan->arena);
}

/* ---- memplan.open(path) -> Workload ---- */

typedef struct
{
  PyObject_HEAD
  MpWorkload *w;
  GMutex      lock;
} WorkloadObject;

static PyTypeObject workload_type;

static void
workload_dealloc (WorkloadObject *self)
{
  g_clear_pointer (&self->w, mp_workload_unref);
  g_mutex_clear (&self->lock);
  Py_TYPE (self)->tp_free ((PyObject *) self);
}

static PyObject *
workload_plan (WorkloadObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "planner", "time_budget", NULL };
  PyObject   *planner = NULL, *budget_obj = NULL;
  gdouble     budget;
  gboolean    single;
  g_autoptr (GPtrArray) infos = NULL;
  g_autoptr (MpPlanRun) run = NULL;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "|OO:plan", kwlist, &planner, &budget_obj))
    return NULL;
  infos = planners_from_object (planner, "first-fit", &single);
  if (!infos || !time_budget_from_object (budget_obj, &budget))
    return NULL;
  if (!(run = run_planners (self->w, infos, budget, &self->lock)))
    return NULL;
  return results_new (self->w, run, single);
}

/* planners=None: every planner that applies */
static MpPlanRun *
workload_run_named (WorkloadObject *self, PyObject *planners)
{
  gboolean single;
  g_autoptr (GPtrArray) infos = NULL;

  if (!(infos = planners_from_object (planners, "all", &single)))
    return NULL;
  return run_planners (self->w, infos, 0, &self->lock);
}

static PyObject *
workload_render (WorkloadObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "path", "planners", "width", "height", NULL };
  PyObject   *path;
  PyObject   *planners = NULL;
  int         width = 1600, height = 0;
  gboolean    ok;
  MpRenderFormat  format;
  MpRenderOptions options = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPlanRun) run = NULL;
  g_autoptr (GPtrArray) indices = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                   mp_render_index_free);

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O&|Oii:render", kwlist,
                                    PyUnicode_FSConverter, &path, &planners, &width, &height))
    return NULL;
  if (!mp_render_format_from_path (PyBytes_AS_STRING (path), &format, &error))
    {
      Py_DECREF (path);
      return raise_gerror (error);
    }
  if (!(run = workload_run_named (self, planners)))
    {
      Py_DECREF (path);
      return NULL;
    }
  for (guint i = 0; i < run->plans->len; i++)
    g_ptr_array_add (indices, mp_render_index_new (self->w->graph, run->plans->pdata[i]));
  if (!self->w->graph->has_ops)
    options.color_by = MP_COLOR_BY_OP;
  if (height <= 0)
    height = run->plans->len == 1 ? 1000 : MIN (130 + 330 * (gint) run->plans->len, 20000);
  Py_BEGIN_ALLOW_THREADS
  ok = mp_render_write_file (PyBytes_AS_STRING (path), format,
                             (MpRenderIndex * const *) indices->pdata, indices->len, &options,
                             width, height, &error);
  Py_END_ALLOW_THREADS
  Py_DECREF (path);
  if (!ok)
    return raise_gerror (error);
  Py_RETURN_NONE;
}

static PyObject *
workload_to_json (WorkloadObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "planners", NULL };
  PyObject   *planners = NULL;
  g_autoptr (MpPlanRun) run = NULL;
  g_autofree char *json = NULL;
  g_autoptr (GPtrArray) skipped = g_ptr_array_new ();

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "|O:to_json", kwlist, &planners))
    return NULL;
  if (!(run = workload_run_named (self, planners)))
    return NULL;
  for (guint i = 0; i < run->skipped->len; i++)
    g_ptr_array_add (skipped, (gpointer) ((const MpPlannerInfo *) run->skipped->pdata[i])->name);
  json = mp_plan_to_json_skipping (self->w->graph, (MpPlan **) run->plans->pdata, run->plans->len,
                                   (const char *const *) skipped->pdata,
                                   (const char *const *) run->reasons->pdata, skipped->len);
  return PyUnicode_FromString (json);
}

static PyObject *
workload_get_lower_bound (WorkloadObject *self, void *closure)
{
  /* the bound of the schedule its plans are made for, as the CLI reports */
  const MpLifetimes *lt = self->w->concurrent ? self->w->concurrent : self->w->lifetimes;

  return PyLong_FromUnsignedLongLong (lt->lower_bound);
}

static PyObject *
workload_get_name (WorkloadObject *self, void *closure)
{
  return PyUnicode_FromString (self->w->graph->name);
}

static PyObject *
workload_get_format (WorkloadObject *self, void *closure)
{
  return PyUnicode_FromString (mp_input_format_name (self->w->format));
}

static PyObject *
workload_get_tensors (WorkloadObject *self, void *closure)
{
  const MpGraph     *graph = self->w->graph;
  const MpLifetimes *lt = self->w->lifetimes;
  PyObject          *list = PyList_New (lt->n_records);

  for (guint r = 0; list && r < lt->n_records; r++)
    {
      const MpUsage  *rec = &lt->records[r];
      const MpTensor *t = &graph->tensors[rec->tensor];
      PyObject       *item = PyStructSequence_New (tensor_type);
      gint64          first, last;

      if (!item)
        {
          Py_CLEAR (list);
          break;
        }
      mp_usage_times (graph, rec, &first, &last);
      PyStructSequence_SET_ITEM (item, 0, PyUnicode_FromString (t->name));
      PyStructSequence_SET_ITEM (item, 1, PyLong_FromUnsignedLongLong (rec->bytes));
      PyStructSequence_SET_ITEM (item, 2, PyLong_FromLongLong (first));
      PyStructSequence_SET_ITEM (item, 3, PyLong_FromLongLong (last));
      if (t->producer >= 0)
        PyStructSequence_SET_ITEM (item, 4, PyUnicode_FromString (graph->ops[t->producer].name));
      else
        PyStructSequence_SET_ITEM (item, 4, Py_NewRef (Py_None));
      PyList_SET_ITEM (list, r, item);
    }
  if (PyErr_Occurred ())
    Py_CLEAR (list);
  return list;
}

static PyMethodDef workload_methods[] = {
  { "plan", (PyCFunction) (void (*) (void)) workload_plan, METH_VARARGS | METH_KEYWORDS,
    "plan(planner=\"first-fit\", time_budget=None): a Result, or a dict for \"all\" or a "
    "list; offsets follow .tensors" },
  { "render", (PyCFunction) (void (*) (void)) workload_render, METH_VARARGS | METH_KEYWORDS,
    "render(path, planners=None, width=1600, height=0): draws the plans (every planner that "
    "applies by default) to a .png, .svg or .pdf" },
  { "to_json", (PyCFunction) (void (*) (void)) workload_to_json, METH_VARARGS | METH_KEYWORDS,
    "to_json(planners=None): the plans as memplan.plan/1 JSON, as memplan-cli plan -f json" },
  { NULL }
};

static PyGetSetDef workload_getset[] = {
  { "lower_bound", (getter) workload_get_lower_bound, NULL,
    "the most bytes live at once (over the parallel groups where streams run concurrently)", NULL },
  { "tensors", (getter) workload_get_tensors, NULL,
    "the planned buffers: a list of Tensor(name, size, first, last, op)", NULL },
  { "name", (getter) workload_get_name, NULL, "the graph's name", NULL },
  { "format", (getter) workload_get_format, NULL, "what the file was read as", NULL },
  { NULL }
};

static PyTypeObject workload_type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "memplan.Workload",
  .tp_basicsize = sizeof (WorkloadObject),
  .tp_dealloc = (destructor) workload_dealloc,
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_doc = "An input opened by memplan.open(): a graph, ONNX model, CSV, trace or snapshot.",
  .tp_methods = workload_methods,
  .tp_getset = workload_getset,
};

PyDoc_STRVAR (open_doc,
"open(path, dims=None)\n--\n\n"
"Opens any input memplan reads (graph JSON, ONNX, usage-record CSV, PyTorch\n"
"trace or snapshot, each also gzipped), recognised by its content. dims\n"
"binds an ONNX model's symbolic dimensions: {\"batch\": 8}. Returns a Workload.");

static PyObject *
memplan_open (PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "path", "dims", NULL };
  PyObject   *path_bytes, *dims = NULL;
  MpWorkloadOptions options = { 0 };
  g_autoptr (GPtrArray) bindings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  WorkloadObject *obj;
  MpWorkload     *w;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O&|O:open", kwlist, PyUnicode_FSConverter,
                                    &path_bytes, &dims))
    return NULL;
  if (dims && dims != Py_None)
    {
      PyObject  *key, *value;
      Py_ssize_t pos = 0;

      if (!PyDict_Check (dims))
        {
          Py_DECREF (path_bytes);
          PyErr_SetString (PyExc_TypeError, "dims must be a dict {name: int}");
          return NULL;
        }
      while (PyDict_Next (dims, &pos, &key, &value))
        {
          PyObject *text = PyUnicode_FromFormat ("%S=%S", key, value);

          if (!text)
            {
              Py_DECREF (path_bytes);
              return NULL;
            }
          g_ptr_array_add (bindings, g_strdup (PyUnicode_AsUTF8 (text)));
          Py_DECREF (text);
        }
      g_ptr_array_add (bindings, NULL);
      options.input.onnx.dims = (const char * const *) bindings->pdata;
    }
  Py_BEGIN_ALLOW_THREADS
  w = mp_workload_open (PyBytes_AS_STRING (path_bytes), &options, &error);
  Py_END_ALLOW_THREADS
  Py_DECREF (path_bytes);
  if (!w)
    return raise_gerror (error);
  if (!(obj = PyObject_New (WorkloadObject, &workload_type)))
    {
      mp_workload_unref (w);
      return NULL;
    }
  obj->w = w;
  g_mutex_init (&obj->lock);
  return (PyObject *) obj;
}

static PyObject *
memplan_planners (PyObject *self, PyObject *unused)
{
  guint                n;
  const MpPlannerInfo *all = mp_planners (&n);
  PyObject            *list = PyList_New (n);

  for (guint i = 0; list && i < n; i++)
    PyList_SET_ITEM (list, i, PyUnicode_FromString (all[i].name));
  return list;
}

static PyMethodDef memplan_methods[] = {
  { "plan", (PyCFunction) (void (*) (void)) memplan_plan, METH_VARARGS | METH_KEYWORDS,
    plan_doc },
  { "validate", memplan_validate, METH_VARARGS, validate_doc },
  { "open", (PyCFunction) (void (*) (void)) memplan_open, METH_VARARGS | METH_KEYWORDS,
    open_doc },
  { "planners", memplan_planners, METH_NOARGS, "planners(): every planner's name" },
  { NULL }
};

static struct PyModuleDef memplan_module = {
  PyModuleDef_HEAD_INIT,
  .m_name = "memplan",
  .m_doc = "Static memory planning of tensor programs (libmemplan-1).",
  .m_size = -1,
  .m_methods = memplan_methods,
};

PyMODINIT_FUNC PyInit_memplan (void);

PyMODINIT_FUNC
PyInit_memplan (void)
{
  PyObject *module = PyModule_Create (&memplan_module);

  if (!module)
    return NULL;
  memplan_error = PyErr_NewExceptionWithDoc ("memplan.Error",
                                             "A memplan failure; the message is the engine's.",
                                             NULL, NULL);
  result_type = PyStructSequence_NewType (&result_desc);
  tensor_type = PyStructSequence_NewType (&tensor_desc);
  if (!memplan_error || !result_type || !tensor_type || PyType_Ready (&workload_type) < 0
      || PyModule_AddObjectRef (module, "Error", memplan_error) < 0
      || PyModule_AddObjectRef (module, "Result", (PyObject *) result_type) < 0
      || PyModule_AddObjectRef (module, "Tensor", (PyObject *) tensor_type) < 0
      || PyModule_AddObjectRef (module, "Workload", (PyObject *) &workload_type) < 0
      || PyModule_AddStringConstant (module, "__version__", MEMPLAN_VERSION) < 0)
    {
      Py_DECREF (module);
      return NULL;
    }
  return module;
}
