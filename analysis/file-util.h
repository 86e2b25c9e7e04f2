/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

/* Every writer's words when standard output cannot take the output. */
#define MP_STDOUT_WRITE_ERROR "cannot write to standard output"

/* The output rule of every writer (CLI -o, render, suite --plans, the
 * app's export and screenshot), applied to the final target of path's
 * symbolic links, which stay links: a regular file is replaced atomically
 * (a temporary file memplan-NAME.XXXXXX.tmp in its folder, then rename) and
 * keeps its permissions; a missing one is created so, with 0666 less the
 * umask; a character device, FIFO or socket (/dev/null, /dev/stdout, a
 * pipe) is written through in place, never replaced; a directory or block
 * device is refused. */
typedef enum
{
  MP_OUTPUT_REPLACE, /* a regular file: atomic replacement */
  MP_OUTPUT_THROUGH, /* a character device, FIFO or socket: written in place */
  MP_OUTPUT_REFUSE,  /* a directory, block device or anything else */
} MpOutputKind;

/* The open descriptor path names (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N, when open), or -1. The rule writes such a path through
 * the descriptor at its own position, whatever it is open on: `-o
 * /dev/stdout >> log` appends. */
MP_AVAILABLE_IN_1_0
int          mp_output_descriptor (const char *path);

/* What the rule does with an existing node of this st_mode. */
MP_AVAILABLE_IN_1_0
MpOutputKind mp_output_kind_of (guint mode);

MP_AVAILABLE_IN_1_0
gboolean mp_write_file_atomic (const char *path, const char *contents, gssize length,
                               GError **error);
/* Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT that remove the
 * temporary files of writes in progress, then die of the signal (programs
 * call it once; a signal ignored by the parent stays ignored). SIGKILL
 * cannot be caught: its leftover is named memplan-*.tmp. */
MP_AVAILABLE_IN_1_0
void     mp_remove_temp_files_on_signal (void);

/* The same for output too large to hold: fill writes it to out (the
 * temporary file is renamed over path only when fill returns TRUE and every
 * write succeeded). NULL or "-" is standard output. */
typedef gboolean (*MpFileFill) (FILE *out, gpointer data);
MP_AVAILABLE_IN_1_0
gboolean mp_write_file_stream (const char *path, MpFileFill fill, gpointer data, GError **error);

/* The whole file in memory, or what it inflates to when it is gzip
 * (recognised by its magic bytes, not its name): the inflation streams in
 * chunks, so the file is never held twice; every member of a concatenated
 * file is read, zero padding after the last is ignored (with a note), other
 * trailing bytes and a gzip file inside the gzip file are refused. Inflated
 * data past
 * MP_MAX_INFLATED_SIZE is refused (a small file must not fill the memory).
 * Errors name the file. */
#define MP_MAX_INFLATED_SIZE ((gsize) G_MAXINT)

MP_AVAILABLE_IN_1_0
gboolean mp_read_file         (const char *path, char **contents, gsize *length, GError **error);
/* The same inflation as a stream, for a reader that never holds the
 * whole: every member, padding and limit as above, and past the size the
 * file's gzip trailer announces (what the memory estimate counted on) it
 * stops with an error naming that size. read is an MpPickleRead. */
typedef struct _MpGzipReader MpGzipReader;
MP_AVAILABLE_IN_1_0
MpGzipReader *mp_gzip_reader_open      (const char *path, GError **error);
/* The inflated size the trailer announces, or the file's size if more
 * (0: unknown), as the memory estimate reckons it. */
MP_AVAILABLE_IN_1_0
guint64       mp_gzip_reader_announced (const MpGzipReader *reader);
/* Up to n bytes into buf: how many, 0 at the end, -1 with error set. */
MP_AVAILABLE_IN_1_0
gssize        mp_gzip_reader_read      (gpointer reader, guint8 *buf, gsize n, GError **error);
MP_AVAILABLE_IN_1_0
void          mp_gzip_reader_free      (MpGzipReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpGzipReader, mp_gzip_reader_free)

/* Where the readers' notes go (zero padding after gzip data, ignored as
 * gzip -d does): text is one line without the path. NULL: g_debug. */
typedef void (*MpFileNoteFunc) (const char *path, const char *text);
MP_AVAILABLE_IN_1_0
void     mp_file_set_note_func (MpFileNoteFunc func);
/* At most max leading bytes, inflated when gzip, for sniffing a format;
 * FALSE when the file cannot be read. */
MP_AVAILABLE_IN_1_0
gboolean mp_read_file_head    (const char *path, gsize max, char **contents, gsize *length);
MP_AVAILABLE_IN_1_0
gboolean mp_file_is_gzip      (const char *path);
/* fopen (path, "rb"), except that a pipe or FIFO (a shell's <(…),
 * /dev/stdin from a pipe) is read whole on its first open and each open
 * reads those bytes again (formats are sniffed before they are read), and
 * a device or socket is refused. */
MP_AVAILABLE_IN_1_0
FILE    *mp_file_open_input   (const char *path, GError **error);
/* The name's suffix with a trailing ".gz" ignored: "x.csv.gz" has ".csv". */
MP_AVAILABLE_IN_1_0
gboolean mp_file_has_suffix   (const char *path, const char *suffix);

/* Human units for tables and titles: "1.31 MiB", "250 µs". */
MP_AVAILABLE_IN_1_0
char    *mp_format_bytes      (guint64 bytes);
MP_AVAILABLE_IN_1_0
char    *mp_format_seconds    (gdouble seconds);

G_END_DECLS
