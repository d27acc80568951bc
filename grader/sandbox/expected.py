"""The isolation a sandbox started here would get, decided without starting one (``batch`` checks it first)."""

from __future__ import annotations

import platform
import sys

from grader.isolation import Isolation
from grader.sandbox import jail as jail_module
from grader.sandbox.jail import Availability
from grader.shared import kernel


def expected_isolation(jail: str = "auto", kernel_layers: bool = True) -> Isolation:
    """The isolation a sandbox started here would get, decided without starting one (``batch`` checks it first).

    The uid layer is left out: whether probes get a uid of their own also
    depends on where the sandbox's folders are, and no level depends on it.
    """
    found = jail_module.availability() if jail == "auto" else Availability(False, "the jail was turned off (--jail off)")
    layers, missing = ({"namespaces": found.reason}, {}) if found.ok else ({}, {"namespaces": found.reason})
    if not kernel_layers:
        missing.update(landlock="the kernel's layers were turned off", seccomp="the kernel's layers were turned off")
        return Isolation.from_layers(layers, missing)
    if version := kernel.landlock_probe()[0]:
        layers["landlock"] = f"ABI {version}"
    else:
        missing["landlock"] = "this kernel has no Landlock (or it is disabled)"
    if kernel.seccomp_filter_here():
        layers["seccomp"] = f"a filter for {platform.machine()}"
    else:
        missing["seccomp"] = f"no seccomp filter for {sys.platform} on {platform.machine()}"
    return Isolation.from_layers(layers, missing)
