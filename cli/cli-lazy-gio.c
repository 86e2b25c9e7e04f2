/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <gio/gio.h>

/* The light memplan-cli's GIO (issue 30). Debian links GIO and its
 * dependencies (libmount, libselinux, libblkid, libffi, libgobject) with
 * -z now: loading them resolves some 1,900 symbols, which cost a small plan
 * process as much as its planning. The engine needs GIO only for a
 * cancellable, GTask and the gzip reader's GFile; a plan without any of them
 * (no cancellable passed, one planner) never calls more than what GLib's own
 * rules answer for NULL below. So the program defines the few GIO and
 * GObject functions the engine calls (the linker then drops the libraries,
 * --as-needed), and the first call that needs the real one opens GIO. The
 * definitions are checked against GIO's own declarations; a new call in the
 * engine fails the link until it is added here. */

static gpointer
open_gio (gpointer data)
{
  void *gio = dlopen ("libgio-2.0.so.0", RTLD_NOW | RTLD_LOCAL);

  if (gio == NULL)
    {
      fprintf (stderr, "memplan-cli: cannot load GIO: %s\n", dlerror ());
      abort ();
    }
  return gio;
}

static gsize
lookup (const char *name)
{
  static GOnce once = G_ONCE_INIT;
  void        *gio = g_once (&once, open_gio, NULL);
  void        *symbol = dlsym (gio, name);

  if (symbol == NULL)
    {
      fprintf (stderr, "memplan-cli: cannot load GIO: %s\n", dlerror ());
      abort ();
    }
  return (gsize) symbol;
}

#define RESOLVE(fn, name)                                                                         \
  if (g_once_init_enter (&fn))                                                                    \
  g_once_init_leave (&fn, lookup (name))

/* Defines NAME, which calls GIO's (or GObject's) NAME, looked up once. */
#define FORWARD(ret, name, params, args)                                                          \
  ret (name) params                                                                               \
  {                                                                                               \
    static gsize fn;                                                                              \
                                                                                                  \
    RESOLVE (fn, #name);                                                                          \
    return ((ret (*) params) fn) args;                                                            \
  }

FORWARD (gpointer, g_object_ref, (gpointer object), (object))
FORWARD (void, g_object_unref, (gpointer object), (object))
FORWARD (GTypeInstance *, g_type_check_instance_cast, (GTypeInstance *instance, GType type),
         (instance, type))

FORWARD (GCancellable *, g_cancellable_new, (void), ())
FORWARD (gulong, g_cancellable_connect,
         (GCancellable *cancellable, GCallback callback, gpointer data,
          GDestroyNotify data_destroy_func),
         (cancellable, callback, data, data_destroy_func))

/* GIO's own answers for no cancellable (gcancellable.c), without GIO */
gboolean
g_cancellable_is_cancelled (GCancellable *cancellable)
{
  static gsize fn;

  if (cancellable == NULL)
    return FALSE;
  RESOLVE (fn, "g_cancellable_is_cancelled");
  return ((gboolean (*) (GCancellable *)) fn) (cancellable);
}

gboolean
g_cancellable_set_error_if_cancelled (GCancellable *cancellable, GError **error)
{
  static gsize fn;

  if (cancellable == NULL)
    return FALSE;
  RESOLVE (fn, "g_cancellable_set_error_if_cancelled");
  return ((gboolean (*) (GCancellable *, GError **)) fn) (cancellable, error);
}

void
g_cancellable_cancel (GCancellable *cancellable)
{
  static gsize fn;

  if (cancellable == NULL)
    return;
  RESOLVE (fn, "g_cancellable_cancel");
  ((void (*) (GCancellable *)) fn) (cancellable);
}

void
g_cancellable_disconnect (GCancellable *cancellable, gulong handler_id)
{
  static gsize fn;

  if (cancellable == NULL || handler_id == 0)
    return;
  RESOLVE (fn, "g_cancellable_disconnect");
  ((void (*) (GCancellable *, gulong)) fn) (cancellable, handler_id);
}

/* G_DEFINE_QUARK (g-io-error-quark, g_io_error): GLib's, so GIO's equal */
GQuark
g_io_error_quark (void)
{
  return g_quark_from_static_string ("g-io-error-quark");
}

FORWARD (GFile *, g_file_new_for_path, (const char *path), (path))
FORWARD (GFileInputStream *, g_file_read,
         (GFile *file, GCancellable *cancellable, GError **error), (file, cancellable, error))
FORWARD (GType, g_input_stream_get_type, (void), ())
FORWARD (gboolean, g_input_stream_read_all,
         (GInputStream *stream, void *buffer, gsize count, gsize *bytes_read,
          GCancellable *cancellable, GError **error),
         (stream, buffer, count, bytes_read, cancellable, error))
FORWARD (GType, g_seekable_get_type, (void), ())
FORWARD (gboolean, g_seekable_seek,
         (GSeekable *seekable, goffset offset, GSeekType type, GCancellable *cancellable,
          GError **error),
         (seekable, offset, type, cancellable, error))

FORWARD (GType, g_task_get_type, (void), ())
FORWARD (GTask *, g_task_new,
         (gpointer source_object, GCancellable *cancellable, GAsyncReadyCallback callback,
          gpointer callback_data),
         (source_object, cancellable, callback, callback_data))
FORWARD (const gchar *, g_task_get_name, (GTask *task), (task))
FORWARD (gpointer, g_task_get_task_data, (GTask *task), (task))
FORWARD (gboolean, g_task_is_valid, (gpointer result, gpointer source_object),
         (result, source_object))
FORWARD (gboolean, g_task_propagate_boolean, (GTask *task, GError **error), (task, error))
FORWARD (void, g_task_return_boolean, (GTask *task, gboolean result), (task, result))
FORWARD (void, g_task_return_error, (GTask *task, GError *error), (task, error))
FORWARD (void, g_task_run_in_thread, (GTask *task, GTaskThreadFunc task_func), (task, task_func))
FORWARD (void, g_task_set_name, (GTask *task, const gchar *name), (task, name))
FORWARD (gboolean, g_task_set_return_on_cancel, (GTask *task, gboolean return_on_cancel),
         (task, return_on_cancel))
FORWARD (void, g_task_set_source_tag, (GTask *task, gpointer source_tag), (task, source_tag))
FORWARD (void, g_task_set_task_data, (GTask *task, gpointer task_data,
                                      GDestroyNotify task_data_destroy),
         (task, task_data, task_data_destroy))
