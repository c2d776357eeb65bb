"""A flood of one API socket from another uid (stdlib only: a system interpreter runs
it where the bench's virtualenv may be unreadable). Used by bench/api/bench_floods.py.

    python3 bench/api/flood_child.py SOCKET PAYLOAD_FILE CONNECTIONS

Floods until its stdin closes, then prints {"sent": bytes, "closed": connections}.
"""

from __future__ import annotations

import json
import selectors
import socket
import sys
import threading
from pathlib import Path


def _connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(2)
    sock.connect(str(path))
    return sock


class Flood(threading.Thread):
    """`connections` sockets that write `data` whenever they can and read (and throw
    away) whatever comes back; one that is closed is opened again."""

    def __init__(self, path: Path, data: bytes, connections: int) -> None:
        super().__init__(daemon=True)
        self.path, self.data, self.connections = path, data, connections
        self.stop = threading.Event()
        self.sent = self.dropped = 0

    def _open(self, sel: selectors.BaseSelector) -> None:
        try:
            sock = _connect(self.path)
        except OSError:
            return
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, [0])

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        for _ in range(self.connections):
            self._open(sel)
        while not self.stop.is_set():
            for key, events in sel.select(0.05):
                sock = key.fileobj
                try:
                    if events & selectors.EVENT_READ and not sock.recv(1 << 20):
                        raise ConnectionError
                    if events & selectors.EVENT_WRITE:
                        at = key.data[0]
                        sent = sock.send(self.data[at:])
                        self.sent += sent
                        key.data[0] = (at + sent) % len(self.data)
                except BlockingIOError:
                    continue
                except OSError:
                    sel.unregister(sock)
                    sock.close()
                    self.dropped += 1
                    if not self.stop.is_set():
                        self._open(sel)
            missing = self.connections - len(sel.get_map())
            for _ in range(missing):
                self._open(sel)
        for key in list(sel.get_map().values()):
            key.fileobj.close()


def main() -> int:
    path, data, connections = Path(sys.argv[1]), Path(sys.argv[2]).read_bytes(), int(sys.argv[3])
    flood = Flood(path, data, connections)
    flood.start()
    sys.stdin.read()
    flood.stop.set()
    flood.join()
    print(json.dumps({"sent": flood.sent, "closed": flood.dropped}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
