"""A real `qbank serve` started by a test (`live_server` in tests/conftest.py), and a free port."""

import os
import signal
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class LiveServer:
    """A real `qbank serve` running in its own process group (uvicorn and any workers)."""

    process: "subprocess.Popen[bytes]"
    url: str
    log: Path

    def kill(self) -> None:
        """SIGKILL every process of the server at once, as the OOM killer or a power cut would."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def free_port() -> int:
    """A loopback port no one listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
