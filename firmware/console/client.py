"""Talking to the table daemon's API from a technician's shell (blocking client)."""

from __future__ import annotations

import itertools
import json
import socket
from pathlib import Path
from typing import Any

from firmware import i18n, words
from firmware.api import protocol as p
from firmware.i18n import _


class ConsoleError(Exception):
    """Something the technician reads; `exit_code` is what the command returns."""

    def __init__(self, message: str, exit_code: int = 1, code: str | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.code = code


EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_NO_DAEMON = 3


class ApiClient:
    """One connection to the daemon; `call` sends a request and waits for its reply."""

    def __init__(self, socket_path: str | Path | None = None,
                 tcp: tuple[str, int] | None = None, timeout: float = 30.0,
                 technician: tuple[str, str] | None = None) -> None:
        self.where = f"tcp {tcp[0]}:{tcp[1]}" if tcp else str(socket_path)
        self.technician = technician
        self.logged_in = False
        self._ids = itertools.count(1)
        try:
            if tcp is not None:
                self.sock = socket.create_connection(tcp, timeout=timeout)
            else:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.settimeout(timeout)
                self.sock.connect(str(socket_path))
        except (FileNotFoundError, ConnectionRefusedError):
            raise ConsoleError(_("no table daemon at {where} — is `mjtable run` running?")
                               .format(where=self.where), EXIT_NO_DAEMON) from None
        except PermissionError:
            raise ConsoleError(_("not allowed to open {where}: join the table daemon's "
                                 "group (or run as its user)").format(where=self.where),
                               EXIT_NO_DAEMON) from None
        except OSError as exc:
            raise ConsoleError(_("cannot reach the table daemon at {where}: {reason}").format(
                where=self.where, reason=exc.strerror or exc), EXIT_NO_DAEMON) from None
        self.file = self.sock.makefile("rb")

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def __enter__(self) -> ApiClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def call(self, method: str, params: dict[str, Any] | None = None,
             auth: bool = False) -> Any:
        """The result, or ConsoleError carrying the daemon's error message."""
        if auth or self.technician is not None:
            if self.technician is None:
                raise ConsoleError(_("{method} needs a technician: pass --technician NAME "
                                     "(token in MJTABLE_TOKEN or at the prompt)")
                                   .format(method=words.method(method)), EXIT_REFUSED)
            if not self.logged_in:
                # The token travels once, in `login`; the session covers this connection.
                name, token = self.technician
                self._request({"id": next(self._ids), "method": "login", "params": {},
                               "auth": {"name": name, "token": token}}, "login")
                self.logged_in = True
        # "lang": the texts in the reply in the console's language (docs/console.md).
        return self._request({"id": next(self._ids), "method": method,
                              "params": params or {}, "lang": i18n.current()}, method)

    def _request(self, request: dict[str, Any], method: str) -> Any:
        data = p.encode(request)
        if len(data) > p.MAX_LINE:
            # The daemon would skip it, and answer without our id: say it here.
            raise ConsoleError(_("{verb}: the request is {size} KiB, over the daemon's "
                                 "{limit} KiB; say it in fewer words").format(
                verb=method, size=len(data) // 1024, limit=p.MAX_LINE // 1024), EXIT_USAGE)
        try:
            self.sock.sendall(data)
            while True:
                line = self.file.readline(p.MAX_LINE * 64)
                if not line:
                    raise ConsoleError(_("the table daemon at {where} closed the connection")
                                       .format(where=self.where), EXIT_NO_DAEMON)
                message = json.loads(line)
                if "stream" in message:
                    continue
                # A line the daemon could not read is answered without an id; one
                # request is out at a time, so that answer is ours.
                if message.get("id") == request["id"] or (
                        message.get("id") is None and not message.get("ok")):
                    break
        except TimeoutError:
            raise ConsoleError(_("no reply from the table daemon at {where}")
                               .format(where=self.where), EXIT_NO_DAEMON) from None
        except OSError as exc:
            raise ConsoleError(_("lost the table daemon at {where}: {reason}")
                               .format(where=self.where, reason=exc), EXIT_NO_DAEMON) from None
        if not message.get("ok"):
            error = message.get("error", {})
            raise ConsoleError(_("{verb} refused: {message}").format(
                verb=words.method(method), message=error.get("message") or _("no reason given")),
                EXIT_REFUSED, error.get("code"))
        return message.get("result")
