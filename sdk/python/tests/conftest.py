"""The SDK against a real ``kaadxpay serve``: the cargo test (server/tests/integration/sdks)
passes the binary, a fresh database and a merchant's API key in the environment, and each test
starts the server it needs (a restart, or a fail point holding a request, is a real process)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from typing import Iterator

import httpx
import pytest

import kaadxpay


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_answering(url: str) -> None:
    """Waits (30 s at most) until ``url`` answers 200."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"nothing answered at {url}")


#: What the partner simulator signs its webhooks with, and the server checks them with.
PARTNER_WEBHOOK_SECRET = "whsec_sdk_tests_partner_secret"


class PartnerSim:
    """A ``kaadxpay partner-sim`` process whose webhooks go to ``webhook_url``: the suite's way
    to make money arrive (``POST /_sim/incoming``)."""

    def __init__(self, webhook_url: str, store: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, RUST_LOG="warn", KAADXPAY_PARTNER_WEBHOOK_SECRET=PARTNER_WEBHOOK_SECRET)
        command = [os.environ["KAADXPAY_BIN"], "partner-sim", "--addr", f"127.0.0.1:{self.port}"]
        command += ["--webhook-url", webhook_url, "--store", store]
        self.process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
        wait_until_answering(f"{self.url}/_sim/config")

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


class Server:
    """A ``kaadxpay serve`` process on a port of its own, to stop and start again."""

    def __init__(self, failpoints: str | None = None, partner_url: str | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.failpoints = failpoints
        self.partner_url = partner_url
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, wait: bool = True) -> None:
        env = dict(os.environ, RUST_LOG="warn", KAADXPAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS="true")
        env["DATABASE_URL"] = os.environ["KAADXPAY_TEST_DATABASE_URL"]
        if self.failpoints:
            env["FAILPOINTS"] = self.failpoints
        if self.partner_url:
            env["KAADXPAY_PARTNER_URL"] = self.partner_url
            env["KAADXPAY_PARTNER_WEBHOOK_SECRET"] = PARTNER_WEBHOOK_SECRET
        self.process = subprocess.Popen(
            [os.environ["KAADXPAY_BIN"], "serve", "--addr", f"127.0.0.1:{self.port}"],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        if wait:
            self.wait_until_answering()

    def wait_until_answering(self) -> None:
        wait_until_answering(f"{self.url}/healthz")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@pytest.fixture
def api_key() -> str:
    return os.environ["KAADXPAY_TEST_API_KEY"]


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    running = Server()
    running.start()
    yield running
    running.stop()


@pytest.fixture
def client(server: Server, api_key: str) -> Iterator[kaadxpay.Kaadxpay]:
    with kaadxpay.Kaadxpay(api_key, base_url=server.url) as made:
        yield made


def requests_with_key(client: kaadxpay.Kaadxpay, key: str, expected: int) -> list[kaadxpay.models.LoggedRequest]:
    """The request log's entries with ``key`` (they appear within a few seconds), once there
    are ``expected`` of them or after 10 s."""
    deadline = time.monotonic() + 10
    while True:
        found = list(client.requests.list(idempotency_key=key))
        if len(found) >= expected or time.monotonic() > deadline:
            return found
        time.sleep(0.2)
