"""Talking to a language driver (PROTOCOL.md): `<driver> info` and `<driver> serve`.

A driver is an untrusted child: it may crash, hang or print garbage, and the harness must
survive all three with a clear account of what happened. Every read has a deadline, stderr is
drained continuously (a full pipe would otherwise block the driver), and a driver that
misbehaves is killed with its whole process group before `DriverFailure` is raised.
"""
from __future__ import annotations

import json
import os
import queue
import secrets
import shutil
import signal
import subprocess
import threading
from pathlib import Path

from ..paths import REPO


LANGUAGES = ("rust", "cpp", "java")
STATUSES = ("ok", "unsupported", "error")
BUILD_PATHS = {
    "rust": REPO / "drivers" / "rust" / "target" / "release" / "serbench-rust",
    "cpp": REPO / "drivers" / "cpp" / "build" / "serbench-cpp",
    "java": REPO / "drivers" / "java" / "serbench-java",
}
# the ops that write or read paged files: each carries its run's stamp (PROTOCOL.md 4.2)
STAMPED_OPS = ("encode", "scan", "run")
STDERR_TAIL_BYTES = 64 * 1024
INFO_TIMEOUT_S = 60.0
CLOSE_GRACE_S = 5.0


class DriverFailure(RuntimeError):
    """The driver process failed as a program, not a cell: kind is one of start, crash,
    hang or garbage; stderr_tail holds the end of what it logged."""

    def __init__(self, kind: str, message: str, stderr_tail: str = ""):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.stderr_tail = stderr_tail

    def __str__(self) -> str:
        tail = self.stderr_tail.strip()
        return f"{self.kind}: {self.message}" + (f"\n--- driver stderr ---\n{tail}" if tail else "")


def new_run_stamp() -> str:
    """A fresh run stamp: 16 random bytes as 32 lowercase hex digits. Every paged file a run's
    drivers write carries it, and a read that trusts its bytes opens only files of its own
    request's stamp, so it never sees bytes another run (or another program) left."""
    return secrets.token_bytes(16).hex()


def env_var(language: str) -> str:
    return f"SERBENCH_DRIVER_{language.upper()}"


def find_drivers() -> dict[str, Path]:
    """language -> executable: the environment variable wins, else the build path; only
    files that exist and are executable count."""
    found = {}
    for language in LANGUAGES:
        override = os.environ.get(env_var(language))
        path = Path(override) if override else BUILD_PATHS[language]
        if path.is_file() and os.access(path, os.X_OK):
            found[language] = path
    return found


class StderrTail:
    """Drains a pipe on a thread, keeping only the last STDERR_TAIL_BYTES."""

    def __init__(self, pipe):
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(pipe,), daemon=True)
        self._thread.start()

    def _drain(self, pipe) -> None:
        for chunk in iter(lambda: pipe.read1(65536), b""):
            with self._lock:
                self._buf += chunk
                if len(self._buf) > STDERR_TAIL_BYTES:
                    del self._buf[: len(self._buf) - STDERR_TAIL_BYTES]

    def text(self, settle_s: float = 0.0) -> str:
        if settle_s:
            self._thread.join(settle_s)  # let a dying driver's last words arrive
        with self._lock:
            return self._buf.decode("utf-8", errors="replace")


class DriverProcess:
    """One `<driver> serve` child; `request` sends one JSON line and waits for the answer.
    With a `run_stamp`, every request that writes or reads paged files carries it as
    `params.run_stamp`; without one, a read that trusts its bytes opens no file."""

    def __init__(self, language: str, path: Path, timeout_s: float = 600.0,
                 cpu_list: str | None = None, run_stamp: str | None = None):
        self.language = language
        self.path = Path(path)
        self.timeout_s = timeout_s
        self.cpu_list = cpu_list or None
        self.run_stamp = run_stamp
        self._methods: dict | None = None  # info.methods, asked for once
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: StderrTail | None = None
        self._next_id = 0
        self._waiting = False  # a request is outstanding: closing stdin would not stop it

    # -- lifecycle -------------------------------------------------------------------------

    def command(self, *args: str) -> list[str]:
        cmd = [str(self.path), *args]
        if self.cpu_list:
            taskset = shutil.which("taskset")
            if taskset is None:
                raise DriverFailure("start", "CPU pinning asked for but taskset is not installed")
            cmd = [taskset, "-c", self.cpu_list, *cmd]
        return cmd

    def start(self) -> "DriverProcess":
        try:
            # own session: Ctrl-C reaches the harness only, which then closes the driver
            self._proc = subprocess.Popen(
                self.command("serve"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            raise DriverFailure("start", f"cannot start {self.path}: {exc}") from None
        self._stderr = StderrTail(self._proc.stderr)
        threading.Thread(target=self._read_stdout, args=(self._proc.stdout, self._lines),
                         daemon=True).start()
        return self

    @staticmethod
    def _read_stdout(pipe, lines: queue.Queue) -> None:
        for line in iter(pipe.readline, b""):
            lines.put(line)
        lines.put(None)

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The driver's process id, which is also its process group's (its own session)."""
        return self._proc.pid if self._proc is not None else None

    def close(self) -> None:
        """Close stdin (the driver exits 0 by contract); kill it if it lingers, or at once
        when it is still busy with a request (the harness was interrupted)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if self._waiting:
            kill_group(proc)
            return
        try:
            proc.stdin.close()
        except OSError:
            pass
        # a blocking wait sees the exit at once; wait(timeout) polls with sleeps of up to
        # 50 ms, which doubled the wait for a JVM's exit (~300 of them in the default run)
        deadline = threading.Timer(CLOSE_GRACE_S, kill_group, (proc,))
        deadline.start()
        try:
            proc.wait()
        finally:
            deadline.cancel()

    def __enter__(self) -> "DriverProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- requests --------------------------------------------------------------------------

    def request(self, op: str, timeout_s: float | None = None, **fields) -> dict:
        """One request, one response with status ok, unsupported or error."""
        if not self.alive:
            raise self._failure("crash", "the driver is not running")
        self._next_id += 1
        rid = self._next_id
        if self.run_stamp and op in STAMPED_OPS:
            fields["params"] = {**fields.get("params", {}), "run_stamp": self.run_stamp}
        line = json.dumps({"id": rid, "op": op, **fields}, separators=(",", ":")) + "\n"
        try:
            self._proc.stdin.write(line.encode())
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._failure("crash", f"the driver closed its input before {op} request "
                                         f"{rid}{self._exit_note()}") from None
        timeout = self.timeout_s if timeout_s is None else timeout_s
        self._waiting = True  # stays set if Ctrl-C interrupts the wait
        try:
            answer = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise self._failure("hang", f"no answer to {op} request {rid} within {timeout:g} s")
        self._waiting = False
        if answer is None:
            raise self._failure("crash", f"the driver closed its output during {op} request "
                                         f"{rid}{self._exit_note()}")
        return self._parse(answer, rid, op)

    def validating_variant(self, method: str) -> str:
        """The variant of `method` that checks every byte it reads, for files whose bytes
        came from elsewhere: `validate` when the method lists it (its default trusts its
        bytes, PROTOCOL.md 3), else the default."""
        if self._methods is None:
            response = self.request("info")
            if response.get("status") != "ok":
                raise self._failure("garbage", f"info answered {response.get('status')}: "
                                               f"{response.get('error')}")
            self._methods = response["result"]["methods"]
        return "validate" if "validate" in self._methods[method]["variants"] else ""

    def _parse(self, answer: bytes, rid: int, op: str) -> dict:
        try:
            response = json.loads(answer)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise self._failure("garbage", f"answer to {op} request {rid} is not JSON: "
                                           f"{answer[:200]!r}") from None
        if not isinstance(response, dict):
            raise self._failure("garbage", f"answer to {op} request {rid} is not an object")
        if response.get("id") != rid:
            raise self._failure("garbage", f"answer has id {response.get('id')!r}, "
                                           f"expected {rid} ({op})")
        status = response.get("status")
        if status not in STATUSES:
            raise self._failure("garbage", f"answer to {op} request {rid} has status "
                                           f"{status!r}, expected one of {', '.join(STATUSES)}")
        if status == "ok" and not isinstance(response.get("result"), dict):
            raise self._failure("garbage", f"ok answer to {op} request {rid} has no result object")
        if status == "error" and not isinstance(response.get("error"), dict):
            raise self._failure("garbage", f"error answer to {op} request {rid} has no error object")
        return response

    def _exit_note(self) -> str:
        try:
            code = self._proc.wait(1.0)
        except subprocess.TimeoutExpired:
            return ""
        if code < 0:
            return f" (killed by signal {signal.Signals(-code).name})"
        return f" (exit status {code})"

    def _failure(self, kind: str, message: str) -> DriverFailure:
        """Kill the driver (a misbehaving driver is never trusted again) and describe it."""
        if self._proc is not None:
            kill_group(self._proc)
            self._proc = None
        tail = self._stderr.text(settle_s=0.5) if self._stderr else ""
        return DriverFailure(kind, f"{self.language} driver: {message}", tail)

    # -- info ------------------------------------------------------------------------------

    def info(self, timeout_s: float = INFO_TIMEOUT_S) -> dict:
        """`<driver> info`: the capability matrix and versions, checked for its shape."""
        try:
            proc = subprocess.run(self.command("info"), capture_output=True,
                                  timeout=timeout_s, start_new_session=True)
        except subprocess.TimeoutExpired as exc:
            raise DriverFailure("hang", f"{self.path} info: no answer within {timeout_s:g} s",
                                _tail(exc.stderr)) from None
        except OSError as exc:
            raise DriverFailure("start", f"cannot run {self.path} info: {exc}") from None
        stderr = _tail(proc.stderr)
        if proc.returncode != 0:
            raise DriverFailure("crash", f"{self.path} info exited with {proc.returncode}", stderr)
        try:
            info = json.loads(proc.stdout)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise DriverFailure("garbage", f"{self.path} info did not print one JSON object: "
                                           f"{proc.stdout[:200]!r}", stderr) from None
        problem = info_problem(info, self.language)
        if problem:
            raise DriverFailure("garbage", f"{self.path} info: {problem}", stderr)
        return info


def info_problem(info: object, language: str) -> str | None:
    """What is wrong with an info object, or None; the harness relies on these keys."""
    if not isinstance(info, dict):
        return "not a JSON object"
    if info.get("language") != language:
        return f"language is {info.get('language')!r}, expected {language!r}"
    for key in ("models", "tasks"):
        if not isinstance(info.get(key), list):
            return f"{key} is not a list"
    methods = info.get("methods")
    if not isinstance(methods, dict):
        return "methods is not an object"
    for name, method in methods.items():
        if not isinstance(method, dict):
            return f"methods.{name} is not an object"
        for key in ("depths", "variants", "models"):
            if not isinstance(method.get(key), list):
                return f"methods.{name}.{key} is not a list"
    return None


def _tail(data: bytes | None) -> str:
    return (data or b"")[-STDERR_TAIL_BYTES:].decode("utf-8", errors="replace")


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(CLOSE_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
