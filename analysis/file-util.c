/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <gio/gio.h>
#include <zlib.h>
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

/* Notes on what a read accepted but a user may want to know (zero padding
 * after gzip data), once per file; the CLI prints them on stderr. */
static MpFileNoteFunc note_func;
static GHashTable    *noted; /* paths already noted */
static GMutex         note_lock;

void
mp_file_set_note_func (MpFileNoteFunc func)
{
  note_func = func;
}

static void
file_note (const char *path, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
file_note (const char *path, const char *format, ...)
{
  g_autofree char *text = NULL;
  gboolean         first;
  va_list          args;

  g_mutex_lock (&note_lock);
  if (noted == NULL)
    noted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  first = g_hash_table_add (noted, g_strdup (path));
  g_mutex_unlock (&note_lock);
  if (!first)
    return;
  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  if (note_func)
    note_func (path, text);
  else
    g_debug ("%s: %s", path, text);
}

/* f through zlib's gzip decoder, as gzip -d reads it: every member of a
 * concatenated file; zero bytes after the last member (padding some tools
 * write) are ignored with a note, anything else there is refused. With
 * cut, inflation stops at max bytes and takes what inflated before any
 * damage (sniffing); without, more than max is refused, and so is more
 * than announced (the size trailer's figure, which the memory estimate
 * counted on; 0: none). Error counts are the bytes inflated before the
 * fault. */
struct _MpGzipReader
{
  FILE       *f;
  char       *path;
  gsize       max;
  gboolean    cut;
  guint64     announced;
  z_stream    z;
  guint8     *in;
  gboolean    member_done, ended;
  guint64     padding, read_total, out_total;
};

static gboolean
gz_init (MpGzipReader *g, FILE *f, const char *path, gsize max, gboolean cut, GError **error)
{
  g->f = f;
  g->path = g_strdup (path);
  g->max = max;
  g->cut = cut;
  g->in = g_malloc (CHUNK);
  if (inflateInit2 (&g->z, 15 + 16) != Z_OK)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot inflate the gzip data: %s",
                         g->z.msg ? g->z.msg : "out of memory");
      g->ended = TRUE;
      return FALSE;
    }
  return TRUE;
}

static void
gz_clear (MpGzipReader *g)
{
  if (!g->ended)
    inflateEnd (&g->z);
  g->ended = TRUE;
  g_clear_pointer (&g->in, g_free);
  g_clear_pointer (&g->path, g_free);
}

static gssize
gz_fail (MpGzipReader *g, GError **error, MpAnalysisError code, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

static gssize
gz_fail (MpGzipReader *g, GError **error, MpAnalysisError code, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list          args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  inflateEnd (&g->z);
  g->ended = TRUE;
  mp_set_file_error (error, code, g->path, "%s", text);
  return -1;
}

/* The end of the input: was it whole? */
static gssize
gz_finish (MpGzipReader *g, GError **error)
{
  inflateEnd (&g->z);
  g->ended = TRUE;
  if (!g->member_done && !g->cut)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, g->path,
                         "the gzip data is truncated: the file ends inside the compressed "
                         "stream, after %" G_GUINT64_FORMAT " bytes inflated", g->out_total);
      return -1;
    }
  if (g->padding > 0 && !g->cut)
    file_note (g->path, "%" G_GUINT64_FORMAT " zero bytes after the gzip data ignored (padding)",
               g->padding);
  return 0;
}

/* Up to n inflated bytes into buf; 0 at the end, -1 with error set. */
static gssize
gz_read (MpGzipReader *g, guint8 *buf, gsize n, GError **error)
{
  z_stream *z = &g->z;

  while (!g->ended)
    {
      gsize got;
      int   ret;

      if (z->avail_in == 0)
        {
          gsize k = fread (g->in, 1, CHUNK, g->f);

          if (ferror (g->f))
            return gz_fail (g, error, MP_ANALYSIS_ERROR_IO, "cannot read the file: %s",
                            g_strerror (errno));
          if (k == 0)
            return gz_finish (g, error);
          z->next_in = g->in;
          z->avail_in = k;
          g->read_total += k;
        }
      if (g->member_done)
        {
          /* after a whole member: zero padding, another member (cat a.gz
           * b.gz) or something that is neither */
          while (z->avail_in > 0 && *z->next_in == 0)
            {
              g->padding++;
              z->next_in++;
              z->avail_in--;
            }
          if (z->avail_in == 0)
            continue;
          if (g->padding > 0 || *z->next_in != 0x1f)
            {
              if (g->cut)
                return gz_finish (g, error);
              return gz_fail (g, error, MP_ANALYSIS_ERROR_PARSE,
                              "after the gzip data (%" G_GUINT64_FORMAT " bytes inflated) comes "
                              "something that is neither gzip data nor zero padding, at byte %"
                              G_GUINT64_FORMAT, g->out_total, g->read_total - z->avail_in);
            }
          inflateReset (z);
          g->member_done = FALSE;
        }
      z->next_out = buf;
      z->avail_out = n;
      ret = inflate (z, Z_NO_FLUSH);
      got = n - z->avail_out;
      g->out_total += got;
      if (ret == Z_STREAM_END)
        g->member_done = TRUE;
      else if (ret != Z_OK && ret != Z_BUF_ERROR)
        {
          const char *why = z->msg ? z->msg : "";

          if (g->cut)
            {
              gz_finish (g, error);
              return got;
            }
          if (ret == Z_MEM_ERROR)
            return gz_fail (g, error, MP_ANALYSIS_ERROR_IO, "cannot inflate the gzip data: out "
                            "of memory after %" G_GUINT64_FORMAT " bytes", g->out_total);
          if (g_str_equal (why, "incorrect data check"))
            return gz_fail (g, error, MP_ANALYSIS_ERROR_PARSE, "the gzip data is corrupt: %"
                            G_GUINT64_FORMAT " bytes inflated, but their CRC-32 is not the one "
                            "stored after them", g->out_total);
          if (g_str_equal (why, "incorrect length check"))
            return gz_fail (g, error, MP_ANALYSIS_ERROR_PARSE, "the gzip data is corrupt: %"
                            G_GUINT64_FORMAT " bytes inflated, but the size stored after them "
                            "differs", g->out_total);
          return gz_fail (g, error, MP_ANALYSIS_ERROR_PARSE, "the gzip data is corrupt (%s) after "
                          "%" G_GUINT64_FORMAT " bytes inflated",
                          ret == Z_NEED_DICT ? "it needs a preset dictionary" : why,
                          g->out_total);
        }
      if (g->out_total > g->max)
        {
          if (g->cut)
            {
              got -= g->out_total - g->max;
              g->out_total = g->max;
              gz_finish (g, error);
              return got;
            }
          return gz_fail (g, error, MP_ANALYSIS_ERROR_PARSE,
                          "the gzip data inflates to more than %" G_GSIZE_FORMAT
                          " bytes, the most memplan reads from one file", g->max);
        }
      if (g->announced && g->out_total > g->announced)
        return gz_fail (g, error, MP_ANALYSIS_ERROR_PARSE,
                        "the gzip data inflates to more than the %" G_GUINT64_FORMAT " bytes its "
                        "size trailer announces, which the memory estimate (--max-memory) counted "
                        "on: the file is damaged or gzip files joined; inflate it (gzip -d) and "
                        "open the result", g->announced);
      if (got > 0)
        return got;
    }
  return 0;
}

/* Inflates f into one growing buffer. */
static gboolean
inflate_file (FILE *f, const char *path, gsize max, gboolean cut, char **contents, gsize *length,
              GError **error)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  MpGzipReader           g = { 0 };
  gssize                 got = 0;

  if (!gz_init (&g, f, path, max, cut, error))
    {
      gz_clear (&g);
      return FALSE;
    }
  do
    {
      gsize old = out->len;

      g_byte_array_set_size (out, old + CHUNK);
      got = gz_read (&g, out->data + old, CHUNK, error);
      g_byte_array_set_size (out, old + MAX (got, 0));
    }
  while (got > 0);
  gz_clear (&g);
  if (got < 0)
    return FALSE;
  *length = out->len;
  g_byte_array_append (out, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (g_steal_pointer (&out), FALSE);
  return TRUE;
}

MpGzipReader *
mp_gzip_reader_open (const char *path, GError **error)
{
  MpGzipReader *g = g_new0 (MpGzipReader, 1);
  guint8        trailer[4];
  FILE         *f = mp_file_open_input (path, error);

  if (f == NULL)
    {
      g_free (g);
      return NULL;
    }
  /* as the estimate reckons it: the trailer's size, or the file's if more */
  if (fseek (f, -4, SEEK_END) == 0 && fread (trailer, 1, 4, f) == 4)
    g->announced = MAX ((guint64) trailer[0] | (guint64) trailer[1] << 8 |
                        (guint64) trailer[2] << 16 | (guint64) trailer[3] << 24,
                        (guint64) ftell (f));
  rewind (f);
  if (!gz_init (g, f, path, MP_MAX_INFLATED_SIZE, FALSE, error))
    {
      mp_gzip_reader_free (g);
      return NULL;
    }
  return g;
}

guint64
mp_gzip_reader_announced (const MpGzipReader *reader)
{
  return reader->announced;
}

gssize
mp_gzip_reader_read (gpointer reader, guint8 *buf, gsize n, GError **error)
{
  return gz_read (reader, buf, n, error);
}

void
mp_gzip_reader_free (MpGzipReader *reader)
{
  if (reader == NULL)
    return;
  if (reader->f)
    fclose (reader->f);
  gz_clear (reader);
  g_free (reader);
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
    {
      if (!read_gzip (path, MP_MAX_INFLATED_SIZE, FALSE, contents, length, error))
        return FALSE;
      /* one layer is inflated; a second is named rather than sniffed as junk */
      if (*length >= 2 && (guint8) (*contents)[0] == 0x1f && (guint8) (*contents)[1] == 0x8b)
        {
          g_clear_pointer (contents, g_free);
          mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                             "a gzip file inside a gzip file: memplan inflates one layer, so "
                             "inflate this file once (gzip -d) and open the result");
          return FALSE;
        }
      return TRUE;
    }
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

/* Replaces target (a regular file or none; path's final link target) with
 * what write puts in a temporary file beside it: the old file or the new
 * one, never half. */
static gboolean
replace_file (const char *path, const char *target, const GStatBuf *old, WriteFunc write,
              gpointer data, GError **error)
{
  MpTempFile *temp = NULL;
  GStatBuf    now;
  gboolean    ok;
  int         fd, err = 0;

  if ((fd = temp_file_create (target, &temp)) < 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                         g_strerror (errno));
      return FALSE;
    }
  /* a replaced file keeps its permissions; on disk before the rename, so
   * that a crash leaves the old file or the new one (as GLib's CONSISTENT) */
  ok = write (fd, data) &&
       (old == NULL || (fchmod (fd, old->st_mode & 07777) == 0 && fsync (fd) == 0));
  if (!ok)
    err = errno;
  if (close (fd) != 0 && ok)
    {
      ok = FALSE;
      err = errno;
    }
  /* what appeared at target while we wrote must be a regular file too */
  if (ok && g_lstat (target, &now) == 0 && !S_ISREG (now.st_mode))
    {
      ok = FALSE;
      err = EEXIST;
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

/* Writes into fd in place and closes it; errors name path. */
static gboolean
write_and_close (const char *path, int fd, WriteFunc write, gpointer data, GError **error)
{
  gboolean ok = write (fd, data);
  int      err = ok ? 0 : errno;

  if (close (fd) != 0 && ok)
    {
      ok = FALSE;
      err = errno;
    }
  if (!ok)
    mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                       g_strerror (err ? err : EIO));
  return ok;
}

/* A character device, FIFO or socket takes the bytes in place: opened
 * without O_CREAT, so nothing but the node itself is ever written. */
static gboolean
write_through (const char *path, gboolean is_socket, WriteFunc write, gpointer data,
               GError **error)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int                fd, err;

  if (!is_socket)
    {
      GStatBuf st;

      /* a file put there since the caller looked would be overwritten in
       * place, neither old nor new: refused */
      if ((fd = g_open (path, O_WRONLY | O_NOCTTY | O_CLOEXEC, 0)) >= 0 &&
          (fstat (fd, &st) != 0 || S_ISREG (st.st_mode)))
        {
          close (fd);
          fd = -1;
          errno = EEXIST;
        }
    }
  else if (strlen (path) >= sizeof addr.sun_path)
    {
      fd = -1;
      errno = ENAMETOOLONG;
    }
  else if ((fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0)
    {
      strcpy (addr.sun_path, path);
      if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)
        {
          err = errno;
          close (fd);
          fd = -1;
          errno = err;
        }
    }
  if (fd < 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                         g_strerror (errno));
      return FALSE;
    }
  return write_and_close (path, fd, write, data, error);
}

/* Written through the descriptor, at its own position: `memplan-cli … -o
 * /dev/stdout >> log` appends, as every Unix tool does, instead of
 * replacing the file the shell opened. */
int
mp_output_descriptor (const char *path)
{
  static const char *const prefixes[] = { "/dev/fd/", "/proc/self/fd/" };
  guint64                  n;

  if (g_str_equal (path, "/dev/stdout"))
    return fcntl (STDOUT_FILENO, F_GETFD) != -1 ? STDOUT_FILENO : -1;
  if (g_str_equal (path, "/dev/stderr"))
    return fcntl (STDERR_FILENO, F_GETFD) != -1 ? STDERR_FILENO : -1;
  for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++)
    if (g_str_has_prefix (path, prefixes[i]) &&
        g_ascii_string_to_unsigned (path + strlen (prefixes[i]), 10, 0, G_MAXINT, &n, NULL))
      return fcntl ((int) n, F_GETFD) != -1 ? (int) n : -1;
  return -1;
}

static gboolean
write_descriptor (const char *path, int fd, WriteFunc write, gpointer data, GError **error)
{
  int copy;

  /* what stdio holds for it goes first */
  fflush (fd == STDOUT_FILENO ? stdout : fd == STDERR_FILENO ? stderr : NULL);
  if ((copy = dup (fd)) < 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                         g_strerror (errno));
      return FALSE;
    }
  return write_and_close (path, copy, write, data, error);
}

/* The one rule of every writer in memplan: path, through its symbolic
 * links, names a regular file (replaced atomically, keeping its mode) or
 * nothing yet (created the same way); a character device, FIFO or socket
 * is written through in place; a directory or block device is refused. A
 * link is never replaced: its final target is. */
static gboolean
write_output (const char *path, WriteFunc write, gpointer data, GError **error)
{
  g_autofree char *target = NULL;
  GStatBuf         st;

  int              fd = mp_output_descriptor (path);

  if (fd >= 0)
    return write_descriptor (path, fd, write, data, error);
  /* the kernel follows the links, /dev/stdout's /proc/self/fd/1 too */
  if (g_stat (path, &st) == 0 && mp_output_kind_of (st.st_mode) == MP_OUTPUT_THROUGH)
    return write_through (path, S_ISSOCK (st.st_mode), write, data, error);
  if (!(target = resolve_links (path, error)))
    return FALSE;
  if (g_lstat (target, &st) != 0)
    return replace_file (path, target, NULL, write, data, error);
  if (mp_output_kind_of (st.st_mode) == MP_OUTPUT_REPLACE)
    return replace_file (path, target, &st, write, data, error);
  mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: it is %s",
                     S_ISDIR (st.st_mode)   ? "a directory"
                     : S_ISBLK (st.st_mode) ? "a block device, which memplan neither replaces "
                                              "nor writes over"
                                            : "not a regular file, a device or a pipe");
  return FALSE;
}

MpOutputKind
mp_output_kind_of (guint mode)
{
  if (S_ISREG (mode))
    return MP_OUTPUT_REPLACE;
  if (S_ISCHR (mode) || S_ISFIFO (mode) || S_ISSOCK (mode))
    return MP_OUTPUT_THROUGH;
  return MP_OUTPUT_REFUSE;
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

  return write_output (path, write_contents, &c, error);
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
  Fill f = { fill, data };

  if (path == NULL || g_str_equal (path, "-"))
    {
      if (stream_to (stdout, fill, data))
        return TRUE;
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO, MP_STDOUT_WRITE_ERROR ": %s",
                   g_strerror (errno));
      return FALSE;
    }
  return write_output (path, write_filled, &f, error);
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
