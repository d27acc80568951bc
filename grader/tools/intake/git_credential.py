"""A git credential helper that answers for one server only.

git runs it as ``python -I -S git_credential.py PROTOCOL HOST ACTION``:
:mod:`grader.tools.intake.git_transport` configures it for the one server URL the
token is meant for (``credential.<url>.helper``), and the helper checks again
what git asks about. For ``get`` it reads git's description of the wanted
credential (``key=value`` lines on stdin) and prints
``username=x-access-token`` and ``password=$GRADER_GIT_TOKEN`` only when the
``protocol`` and ``host`` (with its port) are exactly PROTOCOL and HOST.
Asked about anything else (another host, another protocol, an LFS server a
student named in ``.lfsconfig``) it prints nothing, so git has no credential
to send, and says on stderr what it refused. ``store`` and ``erase`` do
nothing: the token is never written anywhere.

Standard library only, and nothing of the grader: it runs in a fresh
interpreter for every credential git asks for.
"""

from __future__ import annotations

import os
import sys

USERNAME = "x-access-token"
TOKEN_VARIABLE = "GRADER_GIT_TOKEN"


def parse(text: str) -> dict[str, str]:
    """git's credential description: ``key=value`` lines up to a blank line (later keys win)."""
    found = {}
    for line in text.splitlines():
        if not line:
            break
        key, sep, value = line.partition("=")
        if sep:
            found[key] = value
    return found


def answer(protocol: str, host: str, action: str, asked: dict[str, str], token: str) -> tuple[str, str]:
    """(what to print on stdout, what to say on stderr) for one request from git."""
    if action != "get":
        return "", ""
    if asked.get("protocol") != protocol or asked.get("host") != host:
        return "", (f"git_credential: no credential for {asked.get('protocol', '?')}://{asked.get('host', '?')}: "
                    f"the token is only for {protocol}://{host}\n")
    if not token or any(c in token for c in "\r\n\0"):
        return "", f"git_credential: {TOKEN_VARIABLE} is empty or not one line: no credential for {protocol}://{host}\n"
    return f"username={USERNAME}\npassword={token}\n", ""


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: git_credential.py PROTOCOL HOST get|store|erase", file=sys.stderr)
        return 2
    protocol, host, action = argv
    out, err = answer(protocol, host, action, parse(sys.stdin.read()),
                      os.environ.get(TOKEN_VARIABLE, ""))
    sys.stdout.write(out)
    sys.stderr.write(err)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
