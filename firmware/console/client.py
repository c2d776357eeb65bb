"""Talking to the table daemon's API from a technician's shell (blocking client)."""

from __future__ import annotations

import itertools
import json
import socket
from pathlib import Path
from typing import Any

from firmware import i18n
from firmware.api import protocol as p


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
        self._ids = itertools.count(1)
        try:
            if tcp is not None:
                self.sock = socket.create_connection(tcp, timeout=timeout)
            else:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.settimeout(timeout)
                self.sock.connect(str(socket_path))
        except (FileNotFoundError, ConnectionRefusedError):
            raise ConsoleError(f"no table daemon at {self.where} — is `mjtable run` running?",
                               EXIT_NO_DAEMON) from None
        except PermissionError:
            raise ConsoleError(f"not allowed to open {self.where}: join the table daemon's "
                               "group (or run as its user)", EXIT_NO_DAEMON) from None
        except OSError as exc:
            raise ConsoleError(f"cannot reach the table daemon at {self.where}: "
                               f"{exc.strerror or exc}", EXIT_NO_DAEMON) from None
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
        # "lang": the texts in the reply in the console's language (docs/console.md).
        request: dict[str, Any] = {"id": next(self._ids), "method": method,
                                   "params": params or {}, "lang": i18n.current()}
        if auth or self.technician is not None:
            if self.technician is None:
                raise ConsoleError(f"{method} needs a technician: pass --technician NAME "
                                   "(token in MJTABLE_TOKEN or at the prompt)", EXIT_REFUSED)
            name, token = self.technician
            request["auth"] = {"name": name, "token": token}
        try:
            self.sock.sendall(p.encode(request))
            while True:
                line = self.file.readline(p.MAX_LINE * 64)
                if not line:
                    raise ConsoleError(f"the table daemon at {self.where} closed the "
                                       "connection", EXIT_NO_DAEMON)
                message = json.loads(line)
                if message.get("id") == request["id"] and "stream" not in message:
                    break
        except TimeoutError:
            raise ConsoleError(f"no reply from the table daemon at {self.where}",
                               EXIT_NO_DAEMON) from None
        except OSError as exc:
            raise ConsoleError(f"lost the table daemon at {self.where}: {exc}",
                               EXIT_NO_DAEMON) from None
        if not message.get("ok"):
            error = message.get("error", {})
            raise ConsoleError(f"{method} refused: {error.get('message', 'no reason given')}",
                               EXIT_REFUSED, error.get("code"))
        return message.get("result")
