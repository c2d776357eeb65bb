"""`mjtable board flash [--port PORT]`: put the board's firmware on a Pico and verify it."""

from __future__ import annotations

import argparse
import sys

from firmware.i18n import _

EXIT_FAILED = 1


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    board = sub.add_parser("board", help=_("the I/O board's firmware on a Raspberry Pi Pico"))
    what = board.add_subparsers(dest="board_command", required=True, metavar="COMMAND")
    flash_cmd = what.add_parser("flash", help=_("copy board/ to the Pico over its USB serial "
                                                "(MicroPython's raw REPL) and verify it"))
    flash_cmd.add_argument("--port", metavar="PORT",
                           help=_("the Pico's USB serial (default: the one Pico plugged in)"))
    flash_cmd.add_argument("--source", action="store_true",
                           help=_("copy the .py files as they are (no mpy-cross)"))
    flash_cmd.add_argument("--ram-disk", action="store_true",
                           help=_("the emulated Pico (it cannot write its flash): a "
                                  "filesystem in RAM, the board started without a reset"))


def run(args: argparse.Namespace) -> int:
    # Here, not at the top: every `mjtable` command builds this parser.
    from hal.board_flash import FlashError, board_files, flash

    try:
        done = flash(args.port, board_files(compile_mpy=not args.source), say=print,
                     ram_disk=args.ram_disk)
    except FlashError as exc:
        print(_("mjtable board flash: {why}").format(why=exc), file=sys.stderr)
        return EXIT_FAILED
    print(_("flashed {files} files ({size} bytes) to {port}, verified: sha256 {digest}")
          .format(files=done.files, size=done.size, port=done.port, digest=done.digest[:16]))
    return 0
