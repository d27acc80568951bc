"""The seccomp layer (grader/inside/seccomp.py): what each policy refuses, and what still works under it.

Each filter is installed in a freshly forked child (a filter can never be
removed).  Every refused call is made twice with the same arguments, in a
child without the filter (the control) and in one with it, and the two
answers must differ: the refusal is the filter's, not the kernel's.  The
arguments are chosen so that the control fails harmlessly (or, for unshare,
succeeds in a throwaway child).
"""

from __future__ import annotations

import ctypes
import errno
import json
import mmap
import os
import platform
import socket
import subprocess
import sys
import threading
import warnings

import pytest

from grader.inside import landlock, seccomp
from grader.paths import REPO
from grader.tests.layers_support import in_child

ARCH = platform.machine()
needs_filter = pytest.mark.skipif(ARCH not in seccomp.SYSCALLS or not sys.platform.startswith("linux"),
                                  reason=f"no seccomp table for {ARCH}")
CLONE_NEWNS, CLONE_THREAD, CLONE_NEWUSER, CLONE_NEWNET = 0x20000, 0x10000, 0x10000000, 0x40000000
DEAD_PID = 2**22 + 12345  # above pid_max's ceiling: no such process
NO_KEY, IPC_STAT = 0x7E57D0E5, 2  # a System V key no object has; shmctl/semctl/msgctl's IPC_STAT
_libc = ctypes.CDLL(None, use_errno=True)

#: (name, args): every call a policy refuses, with arguments that fail harmlessly without the filter.
CALLS = [("clone3", (0, 0)), ("io_uring_setup", (0, 0)), ("io_uring_enter", (-1, 0, 0, 0, 0, 0)),
         ("io_uring_register", (-1, 0, 0, 0)), ("ptrace", (2, DEAD_PID, 0, 0)), ("process_vm_readv", (DEAD_PID, 0, 0, 0, 0, 1)),
         ("process_vm_writev", (DEAD_PID, 0, 0, 0, 0, 1)), ("kexec_load", (0, 0, 0, 0xDEAD0000)),
         ("kexec_file_load", (-1, -1, 0, 0, 0xDEAD0000)), ("bpf", (9999, 0, 0)), ("perf_event_open", (0, 0, -1, -1, 0)),
         ("keyctl", (9999, 0, 0, 0, 0)), ("add_key", (0, 0, 0, 0, 0)), ("request_key", (0, 0, 0, 0)), ("mount", (0, 0, 0, 0, 0)),
         ("umount2", (b"/no/such/mount", 0)), ("pivot_root", (0, 0)), ("open_tree", (-1, 0, 0)), ("move_mount", (-1, 0, -1, 0, 0)),
         ("fsopen", (0, 0)), ("fsconfig", (-1, 0, 0, 0, 0)), ("fsmount", (-1, 0, 0)), ("fspick", (-1, 0, 0)),
         ("mount_setattr", (-1, 0, 0, 0, 0)), ("open_tree_attr", (-1, 0, 0, 0, 0)), ("setns", (-1, CLONE_NEWNET)),
         ("clone", (CLONE_NEWUSER | CLONE_THREAD, 0, 0, 0, 0)), ("unshare", (CLONE_NEWUSER | CLONE_NEWNS,)),
         # System V IPC and POSIX queues: a key no object has, without IPC_CREAT (ENOENT), or id/descriptor -1
         ("shmget", (NO_KEY, 4096, 0)), ("shmat", (-1, 0, 0)), ("shmctl", (-1, IPC_STAT, 0)), ("shmdt", (0,)),
         ("semget", (NO_KEY, 1, 0)), ("semop", (-1, 0, 0)), ("semtimedop", (-1, 0, 0, 0)), ("semctl", (-1, 0, IPC_STAT, 0)),
         ("msgget", (NO_KEY, 0)), ("msgsnd", (-1, 0, 0, 0)), ("msgrcv", (-1, 0, 0, 0, 0)), ("msgctl", (-1, IPC_STAT, 0)),
         ("mq_open", (b"no-such-grader-queue", 0, 0, 0)), ("mq_unlink", (b"no-such-grader-queue",)),
         ("mq_timedsend", (-1, 0, 0, 0, 0)), ("mq_timedreceive", (-1, 0, 0, 0, 0)), ("mq_notify", (-1, 0)),
         ("mq_getsetattr", (-1, 0, 0))]
DOCKER_CALLS = {"clone3", "mount", "umount2", "pivot_root", "setns", "clone", "unshare"}
SOCKETS = {"inet stream": (socket.AF_INET, socket.SOCK_STREAM), "inet dgram (UDP)": (socket.AF_INET, socket.SOCK_DGRAM),
           "inet6 stream": (socket.AF_INET6, socket.SOCK_STREAM), "netlink": (socket.AF_NETLINK, socket.SOCK_RAW),
           "packet (raw)": (socket.AF_PACKET, socket.SOCK_RAW), "unix stream": (socket.AF_UNIX, socket.SOCK_STREAM),
           "unix dgram": (socket.AF_UNIX, socket.SOCK_DGRAM)}


def _name(err: int) -> str:
    return errno.errorcode.get(err, str(err))


def _call(name: str, args: tuple) -> str:
    """A raw system call: "ok" or the errno's name."""
    args = [ctypes.c_char_p(a) if isinstance(a, bytes) else ctypes.c_long(a) for a in args]
    result = _libc.syscall(ctypes.c_long(seccomp.SYSCALLS[ARCH][name]), *args)
    return "ok" if result != -1 else _name(ctypes.get_errno())


def _attempt(action) -> str:
    try:
        action()
        return "ok"
    except OSError as exc:
        return _name(exc.errno)


def _answers(policy: str | None) -> dict:
    """In a child: install ``policy`` (None: the control), then make every call and open every socket."""
    if policy:
        status = seccomp.install(policy)
        assert status.applied, status
    # Sockets first: the control's unshare (the last call) moves it into a user namespace without CAP_NET_RAW.
    answers = {kind: _attempt(lambda f=family, t=type_: socket.socket(f, t).close()) for kind, (family, type_) in SOCKETS.items()}
    answers["socketpair inet"] = _attempt(lambda: socket.socketpair(socket.AF_INET))
    answers["socketpair unix"] = _attempt(lambda: [s.close() for s in socket.socketpair(socket.AF_UNIX)])
    answers.update({name: _call(name, args) for name, args in CALLS})
    if ARCH == "x86_64":
        answers["x32 getpid"] = _x32_getpid()
    return answers


def _x32_getpid() -> str:
    result = _libc.syscall(ctypes.c_long(seccomp.X32_SYSCALL_BIT | 39))
    return "ok" if result != -1 else _name(ctypes.get_errno())


@pytest.fixture(scope="module")
def control():
    return in_child(_answers, None)


@needs_filter
def test_sandbox_policy_refuses_each_call(control):
    refused = in_child(_answers, "sandbox")
    same = []
    for name, _args in CALLS:
        expected = "ENOSYS" if name == "clone3" else "EPERM"
        assert (name, refused[name]) == (name, expected)
        if control[name] == expected:
            same.append(name)
    if same:  # on this machine (root, user namespaces allowed) there is none
        warnings.warn(f"the kernel alone already refuses {same} with the filter's errno: for those the test proves less")
    for kind in SOCKETS:
        assert refused[kind] == ("ok" if kind.startswith("unix") else "EPERM"), kind
    assert (refused["socketpair inet"], refused["socketpair unix"]) == ("EPERM", "ok")
    if ARCH == "x86_64":
        assert refused["x32 getpid"] == "EPERM" and control["x32 getpid"] != "EPERM"


@needs_filter
@pytest.mark.skipif(os.geteuid() != 0, reason="the docker policy installs without no_new_privs: needs CAP_SYS_ADMIN")
def test_docker_policy_refuses_only_namespaces(control):
    def attempt():
        answers = _answers("docker")
        with open("/proc/self/status") as status:
            answers["no_new_privs"] = next(line.split()[1] for line in status if line.startswith("NoNewPrivs"))
        answers["landlock abi"] = landlock.abi()
        return answers

    answers = in_child(attempt)
    for name, _args in CALLS:
        expected = ("ENOSYS" if name == "clone3" else "EPERM") if name in DOCKER_CALLS else control[name]
        assert (name, answers[name]) == (name, expected)
    assert all(answers[kind] == control[kind] for kind in SOCKETS), "sockets stay as they are (Gradescope leaves the network open)"
    assert answers["no_new_privs"] == "0", "Docker does not set no_new_privs"
    assert answers["landlock abi"] == landlock.abi(), "the Landlock calls stay allowed (moby pull request 43199)"


@needs_filter
def test_docker_policy_needs_cap_sys_admin_without_no_new_privs():
    def attempt():
        header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
        _libc.capget(header, data)
        data[0] &= ~(1 << 21)  # CAP_SYS_ADMIN out of the effective set
        assert _libc.capset(header, data) == 0
        return seccomp.install("docker").to_dict()

    if os.geteuid() != 0:
        pytest.skip("drops a capability as root")
    status = in_child(attempt)
    assert not status["applied"] and "no_new_privs or CAP_SYS_ADMIN" in status["reason"]


@needs_filter
def test_threads_fork_and_exec_still_work_under_the_sandbox_policy():
    def attempt():
        seccomp.install("sandbox")
        seen = []
        thread = threading.Thread(target=lambda: seen.append("thread"))  # glibc: clone3 ENOSYS, then clone
        thread.start()
        thread.join()
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        _pid, status = os.waitpid(pid, 0)
        true = subprocess.run(["/bin/true"]).returncode
        echo = subprocess.run(["/bin/sh", "-c", "echo $((6*7))"], capture_output=True, text=True).stdout.strip()
        udp = "import socket\ntry: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nexcept OSError as e: print(e.errno)"
        after_exec = subprocess.run([sys.executable, "-I", "-S", "-c", udp], capture_output=True, text=True).stdout.strip()
        return seen, os.waitstatus_to_exitcode(status), true, echo, after_exec

    assert in_child(attempt) == [["thread"], 7, 0, "42", str(errno.EPERM)]  # the filter survives execve


def test_unknown_architecture_is_a_status_not_an_error(monkeypatch):
    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    status = seccomp.install("sandbox")
    assert (status.applied, status.arch) == (False, "riscv64")
    assert "riscv64" in status.reason and json.dumps(status.to_dict())
    with pytest.raises(ValueError):
        seccomp.install("no-such-policy")


@pytest.mark.skipif(ARCH != "x86_64", reason="int 0x80 is x86's")
def test_a_32_bit_call_kills_the_process():
    """``int 0x80`` runs i386 system calls (other numbers): the arch check kills the process with SIGSYS."""
    def getpid_int80(filtered: bool) -> int:
        pid = os.fork()
        if pid == 0:
            if filtered:
                seccomp.install("sandbox")
            page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            page.write(bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3]))  # mov eax, 20 (i386 getpid); int 0x80; ret
            function = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
            os._exit(0 if function() == os.getpid() else 1)
        return os.waitpid(pid, 0)[1]

    control = getpid_int80(False)
    if not (os.WIFEXITED(control) and os.WEXITSTATUS(control) == 0):
        pytest.skip(f"no 32-bit system calls on this kernel (wait status {control:#x})")
    status = getpid_int80(True)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == 31  # SIGSYS


@pytest.mark.slow
@pytest.mark.workers
@pytest.mark.timeout(300)
@pytest.mark.skipif(landlock.abi() < 1 or ARCH not in seccomp.SYSCALLS, reason="needs both layers")
def test_dataloader_workers_run_under_both_layers(tmp_path):
    """fork, spawn and forkserver workers, 2 each, in a process under Landlock and the sandbox filter."""
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1")  # one thread: numpy's BLAS pool would be a second
    proc = subprocess.run([sys.executable, "-m", "grader.tests.layers_support", "loaders", str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=280)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert result["layers"]["landlock"]["applied"] and result["layers"]["seccomp"]["applied"], result["layers"]
    for method in ("fork", "spawn", "forkserver"):
        assert "error" not in result[method], (method, result[method])
        assert result[method]["batches"] == result["serial"], method
        pids = result[method]["worker_pids"]
        assert len(pids) == 2 and result["main_pid"] not in pids, (method, pids)
