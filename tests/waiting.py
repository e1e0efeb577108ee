"""Waiting on a child process's side effect without a timing assumption.

Tests that kill or interrupt a run must first see it reach a point (a first
checkpoint, a lock, finished tasks). The wait ends as soon as it gets there or
the process exits; the limit only guards against a hang. It is long because a
loaded machine (CI niced beside a solve) once took more than 120 s to start
and compile, and the kill came too early.
"""
from __future__ import annotations

import subprocess
import time
from typing import Callable

LOADED_WAIT_S = 900


def wait_until(done: Callable[[], bool], proc: subprocess.Popen, *, timeout: float = LOADED_WAIT_S,
               poll: float = 0.02) -> bool:
    """Poll ``done()`` until it holds, ``proc`` exits or ``timeout`` seconds pass; return ``done()``."""
    deadline = time.monotonic() + timeout
    while not done() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(poll)
    return done()


def why_not(proc: subprocess.Popen, what: str, timeout: float = LOADED_WAIT_S) -> str:
    """The message for a wait that ended without ``what``: the process's stderr if it exited."""
    if proc.poll() is not None and proc.stderr is not None:
        err = proc.stderr.read()
        err = err.decode() if isinstance(err, bytes) else err
        return f"the process exited ({proc.returncode}) before {what}: {err[-3000:]}"
    return f"no {what} in {timeout:g} s"
