/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "file-util.h"
#include "graph-private.h"

#define CHUNK (64 * 1024)

/* A pipe or FIFO can be read only once, but a file is opened several times
 * (the gzip magic, the format's sniff, the parse): such a path is read
 * whole on its first open, and every open then reads the kept bytes. A
 * FIFO with no writer yet waits for one, as cat does. Devices and sockets
 * are refused. */
static GHashTable *streams; /* path -> GBytes */
static GMutex      streams_lock;

static GBytes *
stream_bytes (const char *path, GError **error)
{
  g_autoptr (GByteArray) data = NULL;
  GBytes  *bytes;
  GStatBuf st;
  int      fd;

  if (g_stat (path, &st) != 0 || S_ISREG (st.st_mode) || S_ISDIR (st.st_mode))
    return NULL;
  /* /dev/zero would fill the memory up to the limit before it is refused */
  if (!S_ISFIFO (st.st_mode))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: it is %s, "
                         "not a regular file or a pipe",
                         S_ISSOCK (st.st_mode) ? "a socket" : "a device");
      return NULL;
    }
  g_mutex_lock (&streams_lock);
  if (streams == NULL)
    streams = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify) g_bytes_unref);
  if ((bytes = g_hash_table_lookup (streams, path)))
    {
      g_bytes_ref (bytes);
      g_mutex_unlock (&streams_lock);
      return bytes;
    }
  if ((fd = g_open (path, O_RDONLY, 0)) < 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: %s",
                         g_strerror (errno));
      g_mutex_unlock (&streams_lock);
      return NULL;
    }
  data = g_byte_array_new ();
  for (;;)
    {
      gsize  old = data->len;
      gssize n;

      g_byte_array_set_size (data, old + CHUNK);
      n = read (fd, data->data + old, CHUNK);
      g_byte_array_set_size (data, old + MAX (n, 0));
      if (n < 0 && errno == EINTR)
        continue;
      if (n == 0)
        break;
      if (n < 0 || data->len > MP_MAX_INFLATED_SIZE)
        {
          if (n < 0)
            mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: %s",
                               g_strerror (errno));
          else
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path, "more than %" G_GSIZE_FORMAT
                               " bytes come from this stream, the most memplan reads from one "
                               "file", MP_MAX_INFLATED_SIZE);
          close (fd);
          g_mutex_unlock (&streams_lock);
          return NULL;
        }
    }
  close (fd);
  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&data));
  g_hash_table_insert (streams, g_strdup (path), g_bytes_ref (bytes));
  g_mutex_unlock (&streams_lock);
  return bytes;
}

FILE *
mp_file_open_input (const char *path, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GBytes) bytes = stream_bytes (path, &local);
  FILE *f;

  if (local)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (bytes == NULL)
    f = g_fopen (path, "rb");
  else if (g_bytes_get_size (bytes) == 0)
    f = fopen ("/dev/null", "rb"); /* fmemopen refuses an empty buffer */
  else
    /* the table keeps the bytes for as long as the process runs */
    f = fmemopen ((gpointer) g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "rb");
  if (f == NULL)
    mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: %s",
                       errno == ENOENT ? "no such file" : errno == EISDIR ? "it is a directory"
                       : errno == EACCES ? "permission denied" : g_strerror (errno));
  return f;
}

gboolean
mp_file_is_gzip (const char *path)
{
  guint8   magic[2];
  FILE    *f = mp_file_open_input (path, NULL);
  gboolean gzip;

  if (f == NULL)
    return FALSE;
  gzip = fread (magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  fclose (f);
  return gzip;
}

gboolean
mp_file_has_suffix (const char *path, const char *suffix)
{
  gsize n = strlen (path), k = strlen (suffix);

  if (n > 3 && g_ascii_strcasecmp (path + n - 3, ".gz") == 0)
    n -= 3;
  return n >= k && g_ascii_strncasecmp (path + n - k, suffix, k) == 0;
}

/* Fills in[] from f after keeping its unread bytes; FALSE on a read error. */
static gboolean
refill (FILE *f, guint8 *in, gsize *pos, gsize *n_in, gboolean *eof)
{
  memmove (in, in + *pos, *n_in - *pos);
  *n_in -= *pos;
  *pos = 0;
  *n_in += fread (in + *n_in, 1, CHUNK - *n_in, f);
  if (ferror (f))
    return FALSE;
  *eof = feof (f) != 0;
  return TRUE;
}

/* Streams f through the gzip decompressor into one growing buffer (every
 * member of a concatenated file). With cut, inflation stops at max bytes
 * (sniffing); without, more than max is refused. */
static gboolean
inflate_file (FILE *f, const char *path, gsize max, gboolean cut, char **contents, gsize *length,
              GError **error)
{
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autofree guint8     *in = g_malloc (CHUNK);
  gsize                  pos = 0, n_in = 0;
  gboolean               eof = FALSE, finished = FALSE;

  for (;;)
    {
      g_autoptr (GError) local = NULL;
      gsize            used = 0, written = 0, old = out->len;
      GConverterResult res;

      if (pos == n_in && !eof && !refill (f, in, &pos, &n_in, &eof))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: %s",
                             g_strerror (errno));
          return FALSE;
        }
      if (finished)
        {
          if (pos == n_in)
            break;
          /* another gzip member follows (cat a.gz b.gz) */
          g_converter_reset (G_CONVERTER (z));
          finished = FALSE;
        }
      g_byte_array_set_size (out, old + CHUNK);
      res = g_converter_convert (G_CONVERTER (z), in + pos, n_in - pos, out->data + old, CHUNK,
                                 eof ? G_CONVERTER_INPUT_AT_END : G_CONVERTER_NO_FLAGS, &used,
                                 &written, &local);
      g_byte_array_set_size (out, old + (res == G_CONVERTER_ERROR ? 0 : written));
      if (res == G_CONVERTER_ERROR)
        {
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT) && !eof &&
              n_in - pos < CHUNK)
            {
              if (!refill (f, in, &pos, &n_in, &eof))
                {
                  mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path,
                                     "cannot read the file: %s", g_strerror (errno));
                  return FALSE;
                }
              continue;
            }
          if (cut)
            break; /* a sniff takes what inflated before the damage */
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                               "the gzip data is truncated: the file ends inside the compressed "
                               "stream, after %u bytes inflated", out->len);
          else
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                               "the gzip data is corrupt (%s) after %u bytes inflated",
                               local->message, out->len);
          return FALSE;
        }
      pos += used;
      finished = res == G_CONVERTER_FINISHED;
      if (out->len > max)
        {
          if (cut)
            {
              g_byte_array_set_size (out, max);
              break;
            }
          mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                             "the gzip data inflates to more than %" G_GSIZE_FORMAT
                             " bytes, the most memplan reads from one file", max);
          return FALSE;
        }
    }
  *length = out->len;
  g_byte_array_append (out, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (g_steal_pointer (&out), FALSE);
  return TRUE;
}

static gboolean
read_gzip (const char *path, gsize max, gboolean cut, char **contents, gsize *length,
           GError **error)
{
  FILE    *f = mp_file_open_input (path, error);
  gboolean ok;

  if (f == NULL)
    return FALSE;
  ok = inflate_file (f, path, max, cut, contents, length, error);
  fclose (f);
  return ok;
}

gboolean
mp_read_file (const char *path, char **contents, gsize *length, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GBytes) bytes = NULL;

  if (mp_file_is_gzip (path))
    return read_gzip (path, MP_MAX_INFLATED_SIZE, FALSE, contents, length, error);
  if ((bytes = stream_bytes (path, error)))
    {
      *length = g_bytes_get_size (bytes);
      *contents = g_malloc (*length + 1);
      memcpy (*contents, g_bytes_get_data (bytes, NULL), *length);
      (*contents)[*length] = '\0';
      return TRUE;
    }
  if (error && *error)
    return FALSE;
  if (!g_file_get_contents (path, contents, length, &local))
    {
      const char *why = local->code == G_FILE_ERROR_NOENT   ? "no such file"
                        : local->code == G_FILE_ERROR_ISDIR ? "it is a directory"
                        : local->code == G_FILE_ERROR_ACCES ? "permission denied"
                                                            : local->message;

      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: %s", why);
      return FALSE;
    }
  return TRUE;
}

gboolean
mp_read_file_head (const char *path, gsize max, char **contents, gsize *length)
{
  FILE *f;

  if (mp_file_is_gzip (path))
    return read_gzip (path, max, TRUE, contents, length, NULL);
  if ((f = mp_file_open_input (path, NULL)) == NULL)
    return FALSE;
  *contents = g_malloc (max + 1);
  *length = fread (*contents, 1, max, f);
  (*contents)[*length] = '\0';
  fclose (f);
  return TRUE;
}

/* The temporary files being written now, for the signal handler: a list it
 * walks without allocating or locking. Nodes are added at the head with one
 * pointer store and taken out with the cleanup signals blocked. */
typedef struct MpTempFile MpTempFile;
struct MpTempFile
{
  MpTempFile *next;
  char        path[];
};

static MpTempFile *volatile temp_files;
static GMutex               temp_files_lock;
static const int            cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void
block_cleanup_signals (sigset_t *old)
{
  sigset_t set;

  sigemptyset (&set);
  for (guint i = 0; i < G_N_ELEMENTS (cleanup_signals); i++)
    sigaddset (&set, cleanup_signals[i]);
  pthread_sigmask (SIG_BLOCK, &set, old);
}

/* Creates DIR/memplan-NAME.XXXXXX.tmp beside path and lists it for the
 * signal handler before a byte is written. */
static int
temp_file_create (const char *path, MpTempFile **out)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *name = g_strdup_printf ("memplan-%s.XXXXXX.tmp", base);
  g_autofree char *tmpl = g_build_filename (dir, name, NULL);
  MpTempFile      *t;
  sigset_t         old;
  int              fd, saved;

  block_cleanup_signals (&old);
  fd = g_mkstemp_full (tmpl, O_WRONLY | O_CLOEXEC, 0666);
  saved = errno;
  if (fd >= 0)
    {
      t = g_malloc (sizeof (MpTempFile) + strlen (tmpl) + 1);
      strcpy (t->path, tmpl);
      g_mutex_lock (&temp_files_lock);
      t->next = temp_files;
      temp_files = t;
      g_mutex_unlock (&temp_files_lock);
      *out = t;
    }
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  errno = saved;
  return fd;
}

/* Takes t off the list; removes the file too unless it was renamed. */
static void
temp_file_done (MpTempFile *t, gboolean remove)
{
  MpTempFile *volatile *p;
  sigset_t              old;

  block_cleanup_signals (&old);
  g_mutex_lock (&temp_files_lock);
  for (p = &temp_files; *p != t; p = &(*p)->next)
    ;
  *p = t->next;
  g_mutex_unlock (&temp_files_lock);
  if (remove)
    g_unlink (t->path);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  g_free (t);
}

static void
remove_temp_files (int sig)
{
  int saved = errno;

  for (MpTempFile *t = temp_files; t; t = t->next)
    unlink (t->path);
  errno = saved;
  /* SA_RESETHAND restored the default: die of the same signal */
  raise (sig);
}

void
mp_remove_temp_files_on_signal (void)
{
  struct sigaction sa = { 0 };

  sa.sa_handler = remove_temp_files;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset (&sa.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (cleanup_signals); i++)
    {
      struct sigaction old;

      /* a signal ignored on purpose (nohup) stays ignored */
      if (sigaction (cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      sigaction (cleanup_signals[i], &sa, NULL);
    }
}

/* Where path's chain of symbolic links ends (path itself when it is no
 * link): the file that -o replaces, so that the link stays a link. */
static char *
resolve_links (const char *path, GError **error)
{
  g_autofree char *current = g_strdup (path);

  for (guint hops = 0; hops < 40; hops++)
    {
      g_autofree char *target = g_file_read_link (current, NULL);
      g_autofree char *dir = NULL;

      if (target == NULL)
        return g_steal_pointer (&current);
      if (g_path_is_absolute (target))
        {
          g_free (current);
          current = g_steal_pointer (&target);
          continue;
        }
      dir = g_path_get_dirname (current);
      g_free (current);
      current = g_build_filename (dir, target, NULL);
    }
  mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path,
                     "cannot write the file: too many levels of symbolic links");
  return NULL;
}

static gboolean
write_all (int fd, const char *data, gsize length)
{
  while (length > 0)
    {
      gssize n = write (fd, data, MIN (length, (gsize) G_MAXSSIZE));

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      length -= n;
    }
  return TRUE;
}

typedef gboolean (*WriteFunc) (int fd, gpointer data);

/* Replaces path (through its symbolic links) with what write puts in a
 * temporary file beside it: the old file or the new one, never half. */
static gboolean
replace_file (const char *path, WriteFunc write, gpointer data, GError **error)
{
  g_autofree char *target = NULL;
  MpTempFile      *temp = NULL;
  GStatBuf         st;
  gboolean         exists, ok;
  int              fd, err = 0;

  if (!(target = resolve_links (path, error)))
    return FALSE;
  exists = g_stat (target, &st) == 0;
  if ((fd = temp_file_create (target, &temp)) < 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                         g_strerror (errno));
      return FALSE;
    }
  /* a replaced file keeps its permissions; on disk before the rename, so
   * that a crash leaves the old file or the new one (as GLib's CONSISTENT) */
  ok = write (fd, data) &&
       (!exists || (fchmod (fd, st.st_mode & 07777) == 0 && fsync (fd) == 0));
  if (!ok)
    err = errno;
  if (close (fd) != 0 && ok)
    {
      ok = FALSE;
      err = errno;
    }
  if (ok && g_rename (temp->path, target) != 0)
    {
      ok = FALSE;
      err = errno;
    }
  temp_file_done (temp, !ok);
  if (!ok)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                         g_strerror (err));
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  const char *contents;
  gsize       length;
} Contents;

static gboolean
write_contents (int fd, gpointer data)
{
  Contents *c = data;

  return write_all (fd, c->contents, c->length);
}

gboolean
mp_write_file_atomic (const char *path, const char *contents, gssize length, GError **error)
{
  Contents c = { contents, length < 0 ? strlen (contents) : (gsize) length };

  return replace_file (path, write_contents, &c, error);
}

static gboolean
stream_to (FILE *out, MpFileFill fill, gpointer data)
{
  gboolean ok = fill (out, data);

  return ok && fflush (out) == 0 && !ferror (out);
}

typedef struct
{
  MpFileFill fill;
  gpointer   data;
} Fill;

static gboolean
write_filled (int fd, gpointer data)
{
  Fill    *f = data;
  int      copy = dup (fd);
  FILE    *out = copy >= 0 ? fdopen (copy, "wb") : NULL;
  gboolean ok;

  if (out == NULL)
    {
      if (copy >= 0)
        close (copy);
      return FALSE;
    }
  ok = stream_to (out, f->fill, f->data);
  return fclose (out) == 0 && ok;
}

gboolean
mp_write_file_stream (const char *path, MpFileFill fill, gpointer data, GError **error)
{
  Fill     f = { fill, data };
  GStatBuf st;
  FILE    *out;
  gint     saved;
  gboolean ok;

  if (path == NULL || g_str_equal (path, "-"))
    {
      if (stream_to (stdout, fill, data))
        return TRUE;
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO, MP_STDOUT_WRITE_ERROR ": %s",
                   g_strerror (errno));
      return FALSE;
    }
  if (g_stat (path, &st) == 0 && (S_ISCHR (st.st_mode) || S_ISFIFO (st.st_mode)))
    {
      out = g_fopen (path, "wb");
      ok = out && stream_to (out, fill, data);
      saved = errno;
      if (out && fclose (out) != 0)
        ok = FALSE;
      if (!ok)
        mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                           g_strerror (saved));
      return ok;
    }
  return replace_file (path, write_filled, &f, error);
}

char *
mp_format_bytes (guint64 bytes)
{
  static const char *units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
  gdouble            v = bytes;
  guint              u = 0;

  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  v /= 1024.0;
  while (v >= 1024.0 && u + 1 < G_N_ELEMENTS (units))
    {
      v /= 1024.0;
      u++;
    }
  return g_strdup_printf (v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u]);
}

char *
mp_format_seconds (gdouble seconds)
{
  if (seconds < 1e-3)
    return g_strdup_printf ("%.0f µs", seconds * 1e6);
  if (seconds < 1.0)
    return g_strdup_printf ("%.1f ms", seconds * 1e3);
  return g_strdup_printf ("%.2f s", seconds);
}
