"""A throwaway PostgreSQL server for the database tests: Debian's binaries, a temporary cluster
on a free port, stopped at the end of the run (one per pytest-xdist worker)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator

import pytest


def binaries() -> str | None:
    """The directory of the newest installed ``initdb`` and ``pg_ctl``, if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: p.split("/")[4])
    return os.path.dirname(found[-1]) if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of an empty database on a server started for this run."""
    bin_dir = binaries()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    as_user: list[str] = []
    root = tempfile.mkdtemp(prefix="abstractgames-pg-")
    if os.getuid() == 0:
        if shutil.which("runuser") is None:
            pytest.skip("running PostgreSQL as root needs runuser")
        shutil.chown(root, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data = os.path.join(root, "data")
    port = _free_port()

    def run(*command: str) -> None:
        subprocess.run([*as_user, *command], check=True, capture_output=True, timeout=60)

    run(f"{bin_dir}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8")
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    run(f"{bin_dir}/pg_ctl", "-D", data, "-o", options, "-l", f"{root}/log", "-w", "start")
    try:
        run(f"{bin_dir}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "test")
        yield f"postgresql://postgres@127.0.0.1:{port}/test"
    finally:
        run(f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)
