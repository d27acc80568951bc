"""One multiprocessing forkserver per grading, shared by every probe's DataLoader workers.

With the "forkserver" start method, multiprocessing forks each worker from a
server process.  Left alone, every probe child would start its own server, a
fresh interpreter that imports torch (about a second of CPU each time).  The
zygote instead forks one server from itself, torch and numpy already
imported, switched to the probes' uid and limits, and every probe child is
told its address (:func:`use_in_probe`).  A worker is then a fork of a clean
server, as with a server of its own: it receives the dataset and the
collate function pickled, and imports the submission itself.

What stays per probe: the worker's working folder (the probe's, sent by
multiprocessing), and its stdout/stderr, which go to the probe's captured
output (the probe passes its stdout along with the worker's other fds).
After each probe the zygote kills the server's children, never the server;
if the server dies (a student's code may kill it: same uid), the zygote
starts another before the next probe.
"""

from __future__ import annotations

import os
import select
import socket
import stat
import sys
import time
from multiprocessing import forkserver as mp_forkserver
from multiprocessing import resource_tracker

from grader.shared.common import FORKSERVER_PROCESS_NAME

#: The fd number at which a probe child keeps the server's "alive" pipe.
ALIVE_FD = 4


class SharedForkServer:
    """The zygote's handle on the server: pid, socket address and the alive pipe's write end."""

    def __init__(self, folder: str):
        self.folder = folder
        self.address = os.path.join(folder, "forkserver.sock")
        self.pid: int | None = None
        self._pidfd = -1
        self.alive_w = -1
        self._socket_id: tuple[int, int] | None = None

    def running(self) -> bool:
        """True while the server process lives."""
        return self.pid is not None and not select.select([self._pidfd], [], [], 0)[0]

    def start(self, become_probe_user, uid: int | None, gid: int | None) -> None:
        """Fork the server from this (preloaded) process; ``become_probe_user()`` runs in it first."""
        self.stop()
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        if uid is not None:
            os.chown(self.folder, uid, gid)
        if os.path.exists(self.address):
            os.unlink(self.address)
        listener = socket.socket(socket.AF_UNIX)
        alive_r, alive_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(alive_w)
                become_probe_user()
                listener.bind(self.address)  # as the probes' user: its socket file is theirs
                listener.listen()
                _serve(listener.fileno(), alive_r, self.folder)
            finally:
                os._exit(0)
        listener.close()
        os.close(alive_r)
        self.pid, self._pidfd, self.alive_w = pid, os.pidfd_open(pid), alive_w
        self._socket_id = self._wait_for_socket()

    def _wait_for_socket(self, limit_s: float = 10.0) -> tuple[int, int] | None:
        """(device, inode) of the socket the server binds, once it is there (None if it never is)."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline and self.running():
            try:
                info = os.lstat(self.address)
                if stat.S_ISSOCK(info.st_mode):
                    return info.st_dev, info.st_ino
            except OSError:
                pass
            time.sleep(0.005)
        return None

    def owns_socket(self) -> bool:
        """Whether the address is still the socket the server bound (a probe may have replaced it)."""
        try:
            info = os.lstat(self.address)
        except OSError:
            return False
        return stat.S_ISSOCK(info.st_mode) and (info.st_dev, info.st_ino) == self._socket_id

    def stop(self) -> None:
        """Forget a server (the zygote's process-tree kill ends it)."""
        for fd in (self._pidfd, self.alive_w):
            if fd >= 0:
                os.close(fd)
        self.pid, self._pidfd, self.alive_w = None, -1, -1

    def hand_to_probe(self) -> None:
        """In a freshly forked probe child: keep the alive pipe at :data:`ALIVE_FD`."""
        os.dup2(self.alive_w, ALIVE_FD, inheritable=False)


#: The server's process name (/proc/<pid>/comm), so that tests can tell it from leftovers.
PROCESS_NAME = FORKSERVER_PROCESS_NAME


def _serve(listener_fd: int, alive_r: int, folder: str) -> None:
    """The server process: multiprocessing's own forkserver loop, workers' output redirected."""
    import ctypes
    ctypes.CDLL(None).prctl(15, ctypes.c_char_p(PROCESS_NAME), 0, 0, 0)  # PR_SET_NAME
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.chdir(folder)
    os.environ.update(HOME=folder, TMPDIR=folder)
    keep = {listener_fd, alive_r, 0, 1, 2}
    for fd in map(int, os.listdir("/proc/self/fd")):
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    serve_one = mp_forkserver._serve_one

    def serve_one_with_output(child_r, fds, unused_fds, handlers):
        *fds, output = fds  # the probe's stdout, appended by use_in_probe
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.close(output)
        return serve_one(child_r, fds, unused_fds, handlers)

    mp_forkserver._serve_one = serve_one_with_output
    mp_forkserver.main(listener_fd, alive_r, [])


def use_in_probe(address: str) -> None:
    """In a probe child, before any student code: send forkserver workers to the shared server."""
    server = mp_forkserver._forkserver
    server._forkserver_address = address
    server._forkserver_alive_fd = ALIVE_FD
    server._forkserver_pid = None
    server.ensure_running = resource_tracker.ensure_running  # the server runs: only the tracker may need starting
    connect = mp_forkserver.connect_to_new_process
    mp_forkserver.connect_to_new_process = lambda fds: connect([*fds, 1])
