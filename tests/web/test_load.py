"""Load over loopback: 20 clients play whole games at once against ``tw-rl serve`` started as a
user starts it, each with its own connection and client cookie. Every game must finish with no
error inside a time bound; the human moves' response times (p50, p95, max) are reported and
written to ``TW_RL_ARTIFACTS/load-<name>.json``.

The default test plays the greedy bot (fast enough for the normal suite); the slow one plays the
CodeCup bot on its game clock (``bot@3``: 3 s a game), so searches queue for the 2 slots.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import stop_process

ARTIFACTS = Path(os.environ.get("TW_RL_ARTIFACTS", "test-artifacts"))


def _serve() -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tw_rl.cli",
            "serve",
            "--port",
            "0",
            "--max-searches",
            "2",
            "--max-queue",
            "32",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not match:
        process.kill()
        pytest.fail(f"tw-rl serve printed {line!r}")
    return process, int(match.group(1))


class Player:
    """One client: a connection, a cookie, one game played to its end with random legal moves."""

    def __init__(self, port: int, seed: int, bot: str, deadline: float) -> None:
        self.port, self.seed, self.bot, self.deadline = port, seed, bot, deadline
        self.latencies: list[float] = []
        self.error: str | None = None
        self.finished = False
        self.cookie = ""

    def request(self, connection, method: str, path: str, body: dict | None = None):
        headers = {"Cookie": self.cookie} if self.cookie else {}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body)
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        payload = response.read()
        cookie = response.getheader("Set-Cookie")
        if cookie and cookie.startswith("tw_rl_client="):
            self.cookie = cookie.split(";")[0]
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {payload[:200]!r}")
        return json.loads(payload) if path.startswith("/api") else payload

    def play(self) -> None:
        rng = random.Random(self.seed)
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            self.request(connection, "GET", "/")
            colour = "red" if self.seed % 2 == 0 else "white"
            view = self.request(
                connection, "POST", "/api/games", {"bot": self.bot, "colour": colour, "seed": self.seed}
            )
            while not view["position"]["over"]:
                if time.monotonic() > self.deadline:
                    raise RuntimeError(f"unfinished at ply {view['position']['ply']} when time ran out")
                legal = view["position"]["legal"]
                move = view["board"]["names"][rng.choice(legal)] if legal else "Pass"
                start = time.perf_counter()
                view = self.request(connection, "POST", f"/api/games/{view['id']}/move", {"move": move})
                self.latencies.append(time.perf_counter() - start)
            self.finished = True
        except Exception as err:  # reported by the test, with the others
            self.error = f"client {self.seed}: {type(err).__name__}: {err}"
        finally:
            connection.close()


def run_load(name: str, bot: str, clients: int, seconds: float) -> dict:
    process, port = _serve()
    try:
        started = time.monotonic()
        players = [Player(port, k, bot, started + seconds) for k in range(clients)]
        threads = [threading.Thread(target=p.play) for p in players]
        for t in threads:
            t.start()
        for t in threads:
            t.join(seconds + 60)
        wall = time.monotonic() - started
        alive = process.poll() is None
    finally:
        stop_process(process)
    latencies = sorted(x for p in players for x in p.latencies)
    summary = {
        "bot": bot,
        "clients": clients,
        "games_finished": sum(p.finished for p in players),
        "errors": [p.error for p in players if p.error],
        "human_moves": len(latencies),
        "p50_ms": round(1000 * statistics.median(latencies), 1) if latencies else None,
        "p95_ms": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1) if latencies else None,
        "max_ms": round(1000 * latencies[-1], 1) if latencies else None,
        "wall_s": round(wall, 1),
        "server_alive": alive,
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"load-{name}.json").write_text(json.dumps(summary, indent=1))
    print(f"\nload {name}: {summary}")
    return summary


def check(summary: dict, clients: int) -> None:
    assert summary["errors"] == [], summary["errors"]
    assert summary["games_finished"] == clients and summary["server_alive"]
    assert summary["human_moves"] >= 10 * clients  # whole games, not openings


def test_twenty_clients_play_whole_games_at_once():
    check(run_load("greedy", "greedy", 20, seconds=240), 20)


@pytest.mark.slow
def test_twenty_clients_play_the_searching_bot_at_once():
    check(run_load("bot3", "bot@3", 20, seconds=480), 20)
