"""Run inside the simulated container by :func:`grader.tests.container.probe_container`; prints what it finds as JSON.

Standard library only (it is passed with ``python -I -c``).  Argument: a TCP
port on the host's 127.0.0.1 to connect to (0: none).
"""

import ctypes
import errno
import json
import os
import shutil
import socket
import subprocess
import sys

CLONE_NEWUSER = 0x10000000
PRIVATE_UID, NOGROUP = 1234567, 65534
libc = ctypes.CDLL(None, use_errno=True)


def outcome(action) -> str:
    try:
        action()
        return "ok"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))


def raw(nr: int, *args: int) -> str:
    result = libc.syscall(ctypes.c_long(nr), *(ctypes.c_long(a) for a in args))
    return "ok" if result != -1 else errno.errorcode[ctypes.get_errno()]


def in_child(nr: int, *args: int) -> str:
    """``raw()`` in a throwaway child: a call that succeeds (unshare) must not change this process."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write_fd, raw(nr, *args).encode())
        os._exit(0)
    os.close(write_fd)
    answer = os.read(read_fd, 100).decode()
    os.waitpid(pid, 0)
    return answer


def run(argv: list[str]) -> dict:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    return {"rc": proc.returncode, "stdout": proc.stdout.strip()[-200:], "stderr": proc.stderr.strip()[-300:]}


def status() -> dict:
    with open("/proc/self/status") as fh:
        fields = dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)
    caps = {name: int(fields[name], 16) for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
    return {"caps": caps, "no_new_privs": fields["NoNewPrivs"].strip(), "seccomp": fields["Seccomp"].strip()}


def main(port: int) -> dict:
    bwrap, numbers = shutil.which("bwrap") or "bwrap", {"x86_64": (435, 272), "aarch64": (435, 97)}[os.uname().machine]
    facts = {"uid": os.getuid(), "euid": os.geteuid(), "pid": os.getpid(), **status(),
             "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
             "clone3": raw(numbers[0], 0, 0), "unshare(CLONE_NEWUSER)": in_child(numbers[1], CLONE_NEWUSER)}
    facts["commands"] = {
        "unshare -U": run(["unshare", "-U", "true"]),
        "bwrap --unshare-user": run([bwrap, "--unshare-user", "--ro-bind", "/", "/", "true"]),
        "bwrap --unshare-user --unshare-pid": run([bwrap, "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/", "true"]),
        "bwrap --unshare-net": run([bwrap, "--unshare-net", "--ro-bind", "/", "/", "true"]),
        "bwrap (mount namespace only)": run([bwrap, "--ro-bind", "/", "/", "true"]),
        "private uid runs python": run(["setpriv", f"--reuid={PRIVATE_UID}", f"--regid={NOGROUP}", "--clear-groups",
                                        sys.executable, "-I", "-c", "import os; print(os.getuid())"]),
    }
    facts["write results"] = outcome(lambda: open("/autograder/results/probe.txt", "w").write("x"))
    facts["write submission"] = outcome(lambda: open("/autograder/submission/probe.txt", "w").write("x"))
    facts["write source"] = outcome(lambda: open("/autograder/source/probe.txt", "w").write("x"))
    facts["read source"] = outcome(lambda: open("/autograder/source/setup.sh").read())
    facts["write /tmp"] = outcome(lambda: open("/tmp/probe.txt", "w").write("x"))
    if port:
        facts["tcp connect"] = outcome(lambda: socket.create_connection(("127.0.0.1", port), timeout=10).close())
    return facts


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]))))
