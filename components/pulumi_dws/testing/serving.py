"""Run a stdlib HTTP server in a thread and stop it at once.

``socketserver``'s ``shutdown()`` only takes effect when the serving loop next wakes up, at the
end of its poll interval: every stop of a test server waited for it. Shutting the listening
socket down first wakes the loop at once (on Linux a shut listening socket is readable and its
``accept`` fails, which the loop ignores), so ``shutdown()`` returns as soon as the loop has
seen the request.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading

__all__ = ["serve_in_thread", "stop_server"]


def serve_in_thread(server: socketserver.BaseServer, name: str) -> threading.Thread:
    """Start serving ``server`` in a daemon thread named ``name``."""
    thread = threading.Thread(target=server.serve_forever, args=(0.5,), name=name, daemon=True)
    thread.start()
    return thread


def stop_server(server: socketserver.TCPServer, thread: threading.Thread | None = None) -> None:
    """Stop serving (without waiting out a poll interval) and close the listening socket."""
    with contextlib.suppress(OSError):  # not connected on some platforms: shutdown() still works
        server.socket.shutdown(socket.SHUT_RDWR)
    server.shutdown()
    server.server_close()
    if thread is not None:
        thread.join()
