#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Photographs the real memplan window with a real tooltip, under Xvfb.

usage: x11-hover-shot.py OUT.png -- memplan --hover TENSOR [options] [FILE]

The app prints "hover X Y" (window coordinates of the tensor) once it has
planned; this moves the X pointer there, waits for GTK's tooltip, grabs the
screen area of the window (tooltip included) and writes a PNG. Standard
library only: Xlib through ctypes, PNG through zlib.
"""
import ctypes
import ctypes.util
import struct
import subprocess
import sys
import time
import zlib


class XImage(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int),
                ("xoffset", ctypes.c_int), ("format", ctypes.c_int),
                ("data", ctypes.POINTER(ctypes.c_ubyte)),
                ("byte_order", ctypes.c_int), ("bitmap_unit", ctypes.c_int),
                ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int),
                ("depth", ctypes.c_int), ("bytes_per_line", ctypes.c_int),
                ("bits_per_pixel", ctypes.c_int)]


class XWindowAttributes(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int),
                ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("border_width", ctypes.c_int), ("depth", ctypes.c_int),
                ("visual", ctypes.c_void_p), ("root", ctypes.c_ulong),
                ("class_", ctypes.c_int), ("bit_gravity", ctypes.c_int),
                ("win_gravity", ctypes.c_int), ("backing_store", ctypes.c_int),
                ("backing_planes", ctypes.c_ulong), ("backing_pixel", ctypes.c_ulong),
                ("save_under", ctypes.c_int), ("colormap", ctypes.c_ulong),
                ("map_installed", ctypes.c_int), ("map_state", ctypes.c_int),
                ("all_event_masks", ctypes.c_long), ("your_event_mask", ctypes.c_long),
                ("do_not_propagate_mask", ctypes.c_long),
                ("override_redirect", ctypes.c_int), ("screen", ctypes.c_void_p)]


IS_VIEWABLE = 2
Z_PIXMAP = 2


def write_png(path, width, height, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\0" + r for r in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    out, cmd = sys.argv[1], sys.argv[3:]
    x11 = ctypes.CDLL(ctypes.util.find_library("X11"))
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                               ctypes.POINTER(ctypes.c_ulong),
                               ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)),
                               ctypes.POINTER(ctypes.c_uint)]
    x11.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong,
                                         ctypes.POINTER(XWindowAttributes)]
    x11.XWarpPointer.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong] + \
        [ctypes.c_int] * 2 + [ctypes.c_uint] * 2 + [ctypes.c_int] * 2
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XGetImage.restype = ctypes.POINTER(XImage)
    x11.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                              ctypes.c_uint, ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]

    app = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = app.stdout.readline().split()
        if len(line) != 3 or line[0] != "hover":
            sys.exit("x11-hover-shot: the app did not say where to hover")
        hx, hy = int(line[1]), int(line[2])
        dpy = x11.XOpenDisplay(None)
        if not dpy:
            sys.exit("x11-hover-shot: no X display")
        root = x11.XDefaultRootWindow(dpy)
        # the app's window: the largest viewable top-level window
        r, p = ctypes.c_ulong(), ctypes.c_ulong()
        children, n = ctypes.POINTER(ctypes.c_ulong)(), ctypes.c_uint()
        x11.XQueryTree(dpy, root, ctypes.byref(r), ctypes.byref(p), ctypes.byref(children),
                       ctypes.byref(n))
        best = None
        for i in range(n.value):
            attrs = XWindowAttributes()
            x11.XGetWindowAttributes(dpy, children[i], ctypes.byref(attrs))
            if attrs.map_state == IS_VIEWABLE and not attrs.override_redirect:
                if best is None or attrs.width * attrs.height > best[2] * best[3]:
                    best = (attrs.x, attrs.y, attrs.width, attrs.height)
        if best is None:
            sys.exit("x11-hover-shot: no window on the display")
        wx, wy, w, h = best
        # arrive from a pixel away so GTK sees motion, then rest for the tooltip
        x11.XWarpPointer(dpy, 0, root, 0, 0, 0, 0, wx + hx - 3, wy + hy - 3)
        x11.XFlush(dpy)
        time.sleep(0.3)
        x11.XWarpPointer(dpy, 0, root, 0, 0, 0, 0, wx + hx, wy + hy)
        x11.XFlush(dpy)
        time.sleep(2.0)
        img = x11.XGetImage(dpy, root, wx, wy, w, h, 0xFFFFFFFF, Z_PIXMAP).contents
        if img.bits_per_pixel != 32:
            sys.exit("x11-hover-shot: need a 24-bit screen (Xvfb -screen 0 WxHx24)")
        data = ctypes.string_at(img.data, img.bytes_per_line * h)
        rows = []
        for y in range(h):
            line_bytes = data[y * img.bytes_per_line:y * img.bytes_per_line + 4 * w]
            rgb = bytearray(3 * w)
            rgb[0::3] = line_bytes[2::4]
            rgb[1::3] = line_bytes[1::4]
            rgb[2::3] = line_bytes[0::4]
            rows.append(bytes(rgb))
        write_png(out, w, h, rows)
    finally:
        app.terminate()
        app.wait()


if __name__ == "__main__":
    main()
