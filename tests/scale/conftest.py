"""Real servers on 127.0.0.1 for the scale tests: moto's S3 server (a subprocess) and a
Dask LocalCluster with two worker processes, each started once per session and stopped
after. The fleets are uploaded with boto3, the client a user would use."""

from __future__ import annotations

import importlib.util
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_FLEET = ROOT / "sample_runs" / "fleet"
BUCKET = "sweeps"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class S3:
    endpoint: str
    client: Any

    @property
    def option(self) -> str:
        """The CLI flag value that points fsspec at this server."""
        return f"endpoint_url={self.endpoint}"

    def upload(self, folder: Path, prefix: str) -> str:
        """Upload every file under ``folder`` to ``s3://BUCKET/prefix/``; returns the URL."""
        files = [p for p in sorted(folder.rglob("*")) if p.is_file()]

        def put(path: Path) -> None:
            key = f"{prefix}/{path.relative_to(folder).as_posix()}"
            self.client.upload_file(str(path), BUCKET, key)

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(put, files))
        return f"s3://{BUCKET}/{prefix}"


@pytest.fixture(scope="session")
def s3() -> Iterator[S3]:
    """moto's S3 server on a free loopback port; credentials in the environment (the
    usual chain), so the toolkit and Dask workers started after it find them."""
    import boto3

    saved = {k: os.environ.get(k) for k in CREDENTIALS}
    os.environ.update(CREDENTIALS)
    port = free_port()
    code = (
        "import logging, sys; logging.getLogger('werkzeug').setLevel(logging.ERROR)\n"
        "from moto.server import main\n"
        f"main(['-H', '127.0.0.1', '-p', '{port}'])\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    endpoint = f"http://127.0.0.1:{port}"
    client = boto3.client("s3", endpoint_url=endpoint)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                client.list_buckets()
                break
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("moto's S3 server did not start") from None
                time.sleep(0.2)
        client.create_bucket(Bucket=BUCKET)
        yield S3(endpoint, client)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def dask_client(s3: S3) -> Iterator[Any]:
    """A LocalCluster of two worker processes on 127.0.0.1 (started after the S3
    server, so the workers inherit its credentials from the environment)."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@pytest.fixture(scope="session")
def generated_fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small fleet from the benchmark's seeded generator (bench/make_fleet.py)."""
    spec = importlib.util.spec_from_file_location("make_fleet", ROOT / "bench" / "make_fleet.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path_factory.mktemp("generated") / "fleet"
    module.write_fleet(out, runs=8, ticks=60, nights=4, seed=3)
    return out


@pytest.fixture(scope="session")
def s3_sample_fleet(s3: S3) -> str:
    """sample_runs/fleet uploaded to the S3 server."""
    return s3.upload(SAMPLE_FLEET, "sample")


@pytest.fixture(scope="session")
def s3_generated_fleet(s3: S3, generated_fleet: Path) -> str:
    """The generated fleet uploaded to the S3 server."""
    return s3.upload(generated_fleet, "generated")
