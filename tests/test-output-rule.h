/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The output rule of every writer (analysis/file-util.h), checked on one
 * writer: DIR/NAME is a FIFO, a symbolic link to a FIFO, a symbolic link to
 * a character device and a symbolic link to a regular file in turn. A node
 * that is not a regular file must be written through and stay what it was;
 * a link must stay a link, its target hold the output with its mode kept.
 * The device is a pseudo-terminal of the test's own: even a broken writer
 * cannot replace it (devpts takes no new file, so no temporary file and no
 * rename), whereas a test through /dev/null could destroy the system's. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <poll.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <glib.h>
#include <glib/gstdio.h>

/* Writes the writer's output to path; TRUE when it succeeded. */
typedef gboolean (*TestWriter) (const char *path, gpointer data);

typedef struct
{
  int         fd;    /* the open end to read */
  gboolean    fifo;  /* fd is a FIFO's read end, opened before any writer */
  GByteArray *bytes;
  gint        stop;  /* the writer returned */
} TestDrain;

/* Reads fd to its end. A FIFO's end is a writer that came and left (Linux
 * raises POLLHUP only then), or no writer at all once the writer returned:
 * a writer that replaced the FIFO instead must fail the test, not hang it. */
static gpointer
test_drain_thread (gpointer data)
{
  TestDrain *d = data;
  guint8     buf[16384];

  for (;;)
    {
      struct pollfd p = { d->fd, POLLIN, 0 };
      gssize        n;

      if (d->fifo && poll (&p, 1, 50) == 0)
        {
          if (g_atomic_int_get (&d->stop))
            break;
          continue;
        }
      n = read (d->fd, buf, sizeof buf);
      if (n > 0)
        g_byte_array_append (d->bytes, buf, n);
      else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        break;
    }
  return NULL;
}

/* What write put through path into the FIFO fifo (path itself or a link). */
static inline GByteArray *
test_write_to_fifo (TestWriter write, gpointer data, const char *path, const char *fifo)
{
  TestDrain d = { open (fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC), TRUE, g_byte_array_new (), 0 };
  GThread  *thread;
  gboolean  ok;

  g_assert_cmpint (d.fd, >=, 0);
  thread = g_thread_new ("drain", test_drain_thread, &d);
  ok = write (path, data);
  g_atomic_int_set (&d.stop, 1);
  g_thread_join (thread);
  close (d.fd);
  g_assert_true (ok);
  return d.bytes;
}

/* What write put through path, a link to a new pseudo-terminal's slave;
 * NULL when the system has no pseudo-terminals. */
static inline GByteArray *
test_write_to_pty (TestWriter write, gpointer data, const char *path)
{
  int              master = open ("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
  g_autofree char *slave = NULL;
  TestDrain        d = { master, FALSE, NULL, 0 };
  struct termios   raw;
  GThread         *thread;
  GStatBuf         st;
  gboolean         ok;
  int              held, unlock = 0;
  unsigned int     number;

  /* posix_openpt and ptsname without _XOPEN_SOURCE: Linux's ioctls */
  if (master < 0 || ioctl (master, TIOCSPTLCK, &unlock) != 0 ||
      ioctl (master, TIOCGPTN, &number) != 0)
    {
      if (master >= 0)
        close (master);
      return NULL;
    }
  slave = g_strdup_printf ("/dev/pts/%u", number);
  /* held open until the writer is done, so that the master reads to the end;
   * raw, so that the bytes pass unchanged */
  held = open (slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
  g_assert_cmpint (held, >=, 0);
  g_assert_cmpint (tcgetattr (held, &raw), ==, 0);
  cfmakeraw (&raw);
  g_assert_cmpint (tcsetattr (held, TCSANOW, &raw), ==, 0);
  g_assert_cmpint (symlink (slave, path), ==, 0);
  d.bytes = g_byte_array_new ();
  thread = g_thread_new ("drain", test_drain_thread, &d);
  ok = write (path, data);
  close (held);
  g_thread_join (thread);
  close (master);
  g_assert_true (ok);
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  return d.bytes;
}

static inline void
test_assert_starts (const guint8 *data, gsize length, const char *head)
{
  g_assert_cmpuint (length, >=, strlen (head));
  g_assert_cmpmem (data, strlen (head), head, strlen (head));
}

static inline void
test_assert_kind (const char *path, guint kind)
{
  GStatBuf st;

  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & S_IFMT, ==, kind);
}

/* write must put output starting with head at dir/name (which it writes,
 * however it names it). */
static inline void
test_output_rule (TestWriter write, gpointer data, const char *dir, const char *name,
                  const char *head)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *fifo = g_build_filename (dir, "node.fifo", NULL);
  g_autofree char *target = g_build_filename (dir, "target.file", NULL);
  g_autofree char *text = NULL, *link = NULL;
  g_autoptr (GByteArray) bytes = NULL;
  g_autoptr (GDir) d = NULL;
  const char *entry;
  GStatBuf    st;
  gsize       length;

  /* a FIFO */
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  bytes = test_write_to_fifo (write, data, path, path);
  test_assert_starts (bytes->data, bytes->len, head);
  test_assert_kind (path, S_IFIFO);
  g_assert_cmpint (g_remove (path), ==, 0);
  g_clear_pointer (&bytes, g_byte_array_unref);

  /* a link to a FIFO */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink ("node.fifo", path), ==, 0);
  bytes = test_write_to_fifo (write, data, path, fifo);
  test_assert_starts (bytes->data, bytes->len, head);
  test_assert_kind (path, S_IFLNK);
  test_assert_kind (fifo, S_IFIFO);
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_remove (fifo), ==, 0);
  g_clear_pointer (&bytes, g_byte_array_unref);

  /* a link to a character device */
  if ((bytes = test_write_to_pty (write, data, path)))
    {
      test_assert_starts (bytes->data, bytes->len, head);
      g_assert_cmpint (g_remove (path), ==, 0);
    }
  else
    g_test_message ("no pseudo-terminal: the device case is left out");

  /* a link to a regular file: the link stays, the target is replaced with
   * its mode kept */
  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  g_assert_cmpint (g_chmod (target, 0640), ==, 0);
  g_assert_cmpint (symlink ("target.file", path), ==, 0);
  g_assert_true (write (path, data));
  link = g_file_read_link (path, NULL);
  g_assert_cmpstr (link, ==, "target.file");
  g_assert_cmpint (g_lstat (target, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_assert_cmpuint (st.st_mode & 07777, ==, 0640);
  g_assert_true (g_file_get_contents (target, &text, &length, NULL));
  test_assert_starts ((const guint8 *) text, length, head);
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_remove (target), ==, 0);

  /* and no temporary file left beside any of them */
  d = g_dir_open (dir, 0, NULL);
  while ((entry = g_dir_read_name (d)) != NULL)
    g_assert_false (g_str_has_prefix (entry, "memplan-") && g_str_has_suffix (entry, ".tmp"));
}
