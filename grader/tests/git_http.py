"""HTTP on loopback for the tests: a stand-in for GitHub's git server, and a listener playing a student's server.

* :class:`GitServer` serves the bare repositories under a folder with git's
  own ``git http-backend`` (a CGI program) behind a small threaded server on
  127.0.0.1, requiring HTTP Basic auth with ``x-access-token`` and a fake
  token, as GitHub does for a private repository. Configured like GitHub:
  protocol v2 (the ``Git-Protocol`` header reaches the backend), filters
  allowed, reachable commits fetchable by id (``allow_filter=False`` plays a
  server that ignores filters). It records every request (method, path,
  the Authorization header) in :attr:`GitServer.requests`.
* :class:`Listener` answers every request with ``401`` and a Basic
  challenge (what makes git-lfs ask for credentials) and records each
  request's first line and headers: a student's LFS server, or anything a
  repository names that must receive nothing.

Both bind to loopback only and run in daemon threads; use them as context managers.
"""

from __future__ import annotations

import base64
import os
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

USER = "x-access-token"


@dataclass
class Request:
    method: str
    path: str
    authorization: str  # the header as sent ("" without one)
    headers: str  # every header line, for a test that looks for a token anywhere
    sent: int = 0  # bytes of the answer's body


def basic(user: str, token: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()


class _Server:
    handler: type

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.requests: list[Request] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(self.handler):
            server_owner = outer

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def record(self, handler: BaseHTTPRequestHandler) -> Request:
        request = Request(handler.command, handler.path, handler.headers.get("Authorization", ""), str(handler.headers))
        with self.lock:
            self.requests.append(request)
        return request

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


class _GitHandler(BaseHTTPRequestHandler):
    server_owner: "GitServer"
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        self._serve()

    def do_POST(self):
        self._serve()

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _serve(self):
        owner = self.server_owner
        request = owner.record(self)
        body = self._body() if self.command == "POST" else b""
        if owner.token is not None and self.headers.get("Authorization", "") != basic(USER, owner.token):
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="test GitHub"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        parts = urlsplit(self.path)
        env = {"PATH": os.environ["PATH"], "HOME": str(owner.root), "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_PROJECT_ROOT": str(owner.root), "GIT_HTTP_EXPORT_ALL": "1",
               "PATH_INFO": unquote(parts.path), "QUERY_STRING": parts.query, "REQUEST_METHOD": self.command,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
               "REMOTE_USER": USER, "REMOTE_ADDR": "127.0.0.1", "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
               "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
               "GIT_CONFIG_COUNT": "3", "GIT_CONFIG_KEY_0": "uploadpack.allowFilter",
               "GIT_CONFIG_VALUE_0": "true" if owner.allow_filter else "false",
               "GIT_CONFIG_KEY_1": "uploadpack.allowReachableSHA1InWant", "GIT_CONFIG_VALUE_1": "true",
               "GIT_CONFIG_KEY_2": "safe.directory", "GIT_CONFIG_VALUE_2": "*"}
        done = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, timeout=120)
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = done.stdout.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.split()[0])
            elif key:
                headers.append((key, value.strip()))
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        request.sent = len(payload)


class GitServer(_Server):
    """``git http-backend`` for the bare repositories under ``root`` (``<root>/<owner>/<name>.git``).

    ``token``: the Basic auth password required (user ``x-access-token``);
    None serves without auth.
    """

    handler = _GitHandler

    def __init__(self, root: Path, token: str | None, allow_filter: bool = True, host: str = "127.0.0.1"):
        self.root, self.token, self.allow_filter = Path(root), token, allow_filter
        super().__init__(host)


class _ListenerHandler(BaseHTTPRequestHandler):
    server_owner: "Listener"
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _answer(self):
        self.server_owner.record(self)
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        status = 401 if not self.headers.get("Authorization") else 404
        self.send_response(status)
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="a student\'s server"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_PUT = _answer


class Listener(_Server):
    """A student's server on loopback: asks every request without credentials for them (401), records all."""

    handler = _ListenerHandler

    def carried_credentials(self) -> list[Request]:
        """The requests that carried an Authorization header."""
        return [r for r in self.requests if r.authorization]
