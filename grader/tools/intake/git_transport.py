"""Fetch one commit of a student repository into a fresh repository, trusting nothing of it.

Contracts
---------
* :func:`fetch_commit` makes a new bare repository (no work tree, no hooks,
  no templates) and fetches only the wanted commit into it: shallow
  (``--depth=1``), no tags, no submodules, protocol v2, blobs larger than
  the caller's cap left on the server (``--filter=blob:limit``, from a named
  remote; where the server ignores filters they come and the reader
  refuses them by size). Then the remote is removed, so that nothing is
  fetched lazily later: reading a missing blob fails instead.
* Every git command runs with the machine's and the user's git
  configuration off (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL=/dev/null``,
  so no LFS filter, no credential helper, no ``url.*.insteadOf`` of
  theirs), an empty ``HOME`` (no ``.netrc``), ``GIT_LFS_SKIP_SMUDGE=1``, no
  askpass and no terminal prompt, hooks at ``/dev/null``, only the URL's own
  protocol allowed, and none of the caller's ``GIT_*`` variables.
* A token is given to git only through :mod:`grader.tools.intake.git_credential`,
  configured for the URL's own ``scheme://host[:port]`` and checking it
  again: a redirect or an LFS server elsewhere gets nothing. Only over
  https (plain http on loopback only, for the tests).
* Every network step has a wall timeout (``subprocess`` timeout) and git's
  own low-speed abort (``http.lowSpeedLimit``/``lowSpeedTime``), and is
  tried at most :data:`ATTEMPTS` times, only again after a transient
  failure (a timeout, a dropped connection, an HTTP 5xx).
* Failures raise :class:`FetchError` with a sentence an instructor can act on.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from grader.tools.intake import git_credential

#: Seconds one fetch may take, and how often it is tried.
FETCH_TIMEOUT_S = 180.0
ATTEMPTS = 3
RETRY_PAUSES_S = (2.0, 5.0)
#: git aborts a transfer slower than LOW_SPEED_BYTES per second for LOW_SPEED_TIME_S seconds.
LOW_SPEED_BYTES = 1000
LOW_SPEED_TIME_S = 30
#: Seconds a local git command (ls-tree, cat-file) may take.
LOCAL_TIMEOUT_S = 60.0

#: Plain http gets a token only on these hosts (the tests' stand-in for GitHub); anywhere else only https.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
HELPER = Path(git_credential.__file__).resolve()
#: Variables of the caller that git may see: the path, the locale, proxies, CA certificates.
PASSED_VARIABLES = ("PATH", "TMPDIR", "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
                    "SSL_CERT_FILE", "SSL_CERT_DIR")
SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
TRANSIENT = re.compile(r"HTTP 5\d\d|RPC failed|[Cc]onnection (reset|timed out|was reset)|Operation too slow|early EOF"
                       r"|timed out|unexpected disconnect|Could not resolve host|Empty reply")
NO_SUCH_COMMIT = re.compile(r"not our ref|couldn't find remote ref|no such remote ref|unadvertised object")
REFUSED = re.compile(r"HTTP 40[13]|Authentication failed|could not read Username|terminal prompts disabled")
NOT_FOUND = re.compile(r"HTTP 404|[Rr]epository .*not found|does not appear to be a git repository")


class FetchError(RuntimeError):
    """A commit could not be fetched; the message says why and what to do."""


def check_want(want: str) -> str:
    """``want`` if git may be asked for it: a full commit id, or a branch or tag name; ValueError otherwise.

    A name never starts with "-" (git would read it as an option) and must be
    a valid ref name; an abbreviated commit id cannot be fetched.
    """
    if SHA.fullmatch(want) or want == "HEAD":
        return want
    if (not want or want.startswith("-") or re.fullmatch(r"[0-9a-f]{7,39}", want)
            or subprocess.run(["git", "check-ref-format", "--allow-onelevel", want], capture_output=True,
                              timeout=LOCAL_TIMEOUT_S).returncode != 0):
        raise ValueError(f"{want!r} is neither a full 40-character commit id nor a branch or tag name")
    return want


def git_environment(home: Path, token: str | None = None) -> dict[str, str]:
    """The whole environment of a git command: nothing of the caller's git settings."""
    env = {name: os.environ[name] for name in PASSED_VARIABLES if name in os.environ}
    env.update(HOME=str(home), LC_ALL="C", LANG="C", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
               GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="", GIT_LFS_SKIP_SMUDGE="1", GIT_NO_REPLACE_OBJECTS="1",
               GIT_PROTOCOL_FROM_USER="0", GIT_NO_LAZY_FETCH="1")
    if token:
        env[git_credential.TOKEN_VARIABLE] = token
    return env


def origin(url: str) -> tuple[str, str]:
    """(scheme, host[:port]) of a URL, as git's credential protocol names them."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        raise ValueError(f"{url}: a URL must not carry credentials")
    return parts.scheme, parts.netloc


def git_options(url: str, token: str | None) -> list[str]:
    """``-c`` options for every git command: the safe settings, and the helper for ``url``'s server only."""
    scheme, host = origin(url)
    settings = {
        "core.hooksPath": "/dev/null", "core.askPass": "", "core.fsmonitor": "false",
        "credential.helper": "",  # resets the list: only the scoped helper below is left
        "http.lowSpeedLimit": str(LOW_SPEED_BYTES), "http.lowSpeedTime": str(LOW_SPEED_TIME_S),
        "protocol.version": "2", "protocol.allow": "never", f"protocol.{scheme}.allow": "always",
        "fetch.recurseSubmodules": "false", "submodule.recurse": "false", "fetch.writeCommitGraph": "false",
        "gc.auto": "0", "maintenance.auto": "false",
    }
    if token and (scheme == "https" or (scheme == "http" and urlsplit(url).hostname in LOOPBACK)):
        helper = " ".join(shlex.quote(part) for part in (sys.executable, "-I", "-S", str(HELPER), scheme, host))
        settings[f"credential.{scheme}://{host}.helper"] = f"!{helper}"
    return [arg for key, value in settings.items() for arg in ("-c", f"{key}={value}")]


def run_git(repo: Path, args: list[str], *, options: list[str], env: dict[str, str], timeout: float = LOCAL_TIMEOUT_S,
            input: bytes | None = None) -> subprocess.CompletedProcess:
    """``git -C repo OPTIONS ARGS`` with bytes output; TimeoutExpired after ``timeout`` seconds."""
    return subprocess.run(["git", *options, "-C", str(repo), *args], capture_output=True, env=env, timeout=timeout,
                          input=input, stdin=None if input is not None else subprocess.DEVNULL)


def fetch_commit(url: str, want: str, repo: Path, *, cap_bytes: int, token: str | None = None,
                 where: str = "the server") -> tuple[str, list[str], dict[str, str]]:
    """Fetch ``want`` (a commit id or a ref) of ``url`` into a new bare repository at ``repo``.

    Returns (the commit id, the ``-c`` options, the environment) for reading
    it with :func:`run_git`. ``where`` names the source in messages ("the
    server", "the checkout"). Raises FetchError.
    """
    want = check_want(want)
    home = repo.parent / f"{repo.name}.home"
    home.mkdir(mode=0o700)
    options, env = git_options(url, token), git_environment(home, token)
    reading_env = git_environment(home)  # no token once fetched
    done = subprocess.run(["git", *options, "init", "-q", "--bare", "--template=", str(repo)], capture_output=True,
                          env=reading_env, timeout=LOCAL_TIMEOUT_S)
    if done.returncode != 0:
        raise FetchError(f"could not make a repository to fetch into: {_tail(done.stderr)}")
    run_git(repo, ["remote", "add", "origin", url], options=options, env=reading_env)
    fetch = ["fetch", "--quiet", "--depth=1", "--no-tags", "--no-recurse-submodules", "--no-auto-gc",
             f"--filter=blob:limit={cap_bytes + 1}", "origin", want]
    _fetch_with_retries(repo, fetch, options, env, url, want, where)
    # Forget the remote: a missing (filtered) blob must fail to read, never be fetched lazily.
    run_git(repo, ["remote", "remove", "origin"], options=options, env=reading_env)
    run_git(repo, ["config", "--unset-all", "extensions.partialclone"], options=options, env=reading_env)
    found = run_git(repo, ["rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}"], options=options, env=reading_env)
    commit = found.stdout.decode().strip()
    if found.returncode != 0 or not SHA.fullmatch(commit) or (SHA.fullmatch(want) and commit != want):
        raise FetchError(f"{where} answered {want[:40]} with something that is not that commit")
    return commit, options, reading_env


def _fetch_with_retries(repo: Path, fetch: list[str], options: list[str], env: dict[str, str], url: str, want: str,
                        where: str) -> None:
    stderr = full = ""
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(RETRY_PAUSES_S[min(attempt, len(RETRY_PAUSES_S)) - 1])
        try:
            done = run_git(repo, fetch, options=options, env=env, timeout=FETCH_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            stderr = full = f"timed out after {FETCH_TIMEOUT_S:.0f} s"
            continue
        if done.returncode == 0:
            return
        full = done.stderr.decode(errors="replace")
        stderr = _tail(full)
        if not TRANSIENT.search(full):
            break
    raise FetchError(_explain(stderr, full, url, want, where, attempt + 1))


def _explain(stderr: str, full: str, url: str, want: str, where: str, attempts: int) -> str:
    """A sentence for a failed fetch: ``stderr`` is the tail of git's message, ``full`` all of it (to classify)."""
    if NO_SUCH_COMMIT.search(full):
        return (f"{where} has no commit {want[:12]} (force-pushed away, or never pushed); for a local checkout, "
                "clone the whole history")
    if REFUSED.search(full):
        return (f"{where} refused access to {url} ({stderr}): the token (CLASSROOM_TOKEN) needs read access to "
                "this repository's contents")
    if NOT_FOUND.search(full):
        return f"{where} has no git repository at {url} (or the token cannot see it): {stderr}"
    tries = f" ({attempts} attempts)" if attempts > 1 else ""
    return f"could not fetch {want[:12]} from {url}{tries}: {stderr}"


def _tail(stderr: bytes | str, limit: int = 300) -> str:
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " / ".join(lines[-3:])[-limit:] or "no message"
