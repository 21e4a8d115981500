"""Hostile requests to every route (Hypothesis): any JSON body, query, path parameter, Host,
Origin and Content-Type. No answer is a 500, none carries a traceback, every refusal is one line
of JSON, and the server answers a plain request after each.

The count of requests and their statuses goes to ``TW_RL_ARTIFACTS/fuzz-summary.json``;
``TW_RL_FUZZ_EXAMPLES`` sets the examples per route group (default 150).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from tw_rl.rating.results_db import ResultsDB  # noqa: E402
from tw_rl.web.app import ServerSettings, create_app  # noqa: E402
from tw_rl.web.limits import Limits  # noqa: E402

from .conftest import record_text  # noqa: E402

LOCAL = "http://127.0.0.1:8000"
EXAMPLES = int(os.environ.get("TW_RL_FUZZ_EXAMPLES", "150"))
ARTIFACTS = Path(os.environ.get("TW_RL_ARTIFACTS", "test-artifacts"))
# Cheap work only: a fuzzed bot or hint must not make the suite slow.
LIMITS = Limits(searches=2, queue=4, bot_seconds=(0.1, 0.5), simulations=4, hint_seconds=0.02)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
spec_words = st.sampled_from(
    [
        "random",
        "greedy",
        "bot",
        "bot@0.1",
        "bot@0.5",
        "bot@5m",
        "bot@-1",
        "bot@1e9",
        "ckpt:default@2",
        "ckpt:0@1",
        "ckpt:9@1",
        "ckpt:/etc/passwd@1",
        "ckpt:../../x@1",
        "ckpt:@",
        "ckpt:default@99999999999999999999",
    ]
)
fields = {
    "size": st.sampled_from([6, 8, 7, 0, -1, 10**30, "6", "six", 6.5]) | json_values,
    "variant": st.sampled_from(["codecup", "official", "chess"]) | json_values,
    "setup": st.sampled_from(["", "pie", "judge", "free"]) | json_values,
    "colour": st.sampled_from(["red", "white", "green"]) | json_values,
    "bot": spec_words | json_values,
    "seed": st.integers(min_value=-(2**70), max_value=2**70) | json_values,
    "move": st.sampled_from(["F6", "Pass", "pass", "Z99", "", 0, 91, -1, 10**20, True]) | json_values,
    "ply": st.integers(min_value=-5, max_value=500) | json_values,
    "db_game": st.integers(min_value=-5, max_value=5) | json_values,
    "record": st.sampled_from([record_text(2), "E4\nQ99", "", "F6 " * 50]) | st.text(max_size=200),
    "title": json_values,
}
bodies = st.one_of(
    st.fixed_dictionaries({}, optional=fields),
    json_values,
    st.binary(max_size=200),
)
hosts = st.sampled_from(["127.0.0.1:8000", "localhost", "[::1]:8000", "evil.example", "", "127.0.0.1:80@x"])
origins = st.sampled_from([None, LOCAL, "http://evil.example", "null"])
types = st.sampled_from(["application/json", "application/json; charset=utf-8", "text/plain", None])
texts = st.text(max_size=20) | st.sampled_from(
    ["..", "%2e%2e", "0", "-1", "9" * 30, "default", "/etc/passwd"]
)


def check(response, statuses: Counter) -> None:
    statuses[response.status_code] += 1
    assert response.status_code < 500, (response.status_code, response.text[:300])
    assert "Traceback" not in response.text
    if response.status_code >= 400 and response.headers.get("content-type", "").startswith(
        "application/json"
    ):
        error = response.json()["error"]
        assert isinstance(error, str) and error and "\n" not in error


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    db = tmp_path_factory.mktemp("fuzz") / "results.sqlite"
    ResultsDB(db).close()
    app = create_app(ServerSettings(db=str(db), limits=LIMITS, bot="bot@0.2"))
    statuses: Counter = Counter()
    with TestClient(app, raise_server_exceptions=False, base_url=LOCAL) as client:
        game = client.post("/api/games", json={"bot": "random", "seed": 1}).json()["id"]
        study = client.post("/api/study", json={"record": record_text(3), "size": 6}).json()["id"]
        yield client, {"game": game, "study": study}, statuses
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    alive = statuses.pop("alive", 0)
    summary = {
        "fuzzed_requests": sum(statuses.values()),
        "statuses": dict(sorted(statuses.items())),
        "alive_checks": alive,
        "server_errors": sum(n for code, n in statuses.items() if code >= 500),
    }
    (ARTIFACTS / "fuzz-summary.json").write_text(json.dumps(summary, indent=1))
    print(f"\nfuzz: {summary}")


def send(fuzz, method, path, body, host, origin, content_type, params=None):
    client, _, statuses = fuzz
    headers = {"Host": host}
    if origin:
        headers["Origin"] = origin
    if content_type:
        headers["Content-Type"] = content_type
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    check(client.request(method, path, content=content, headers=headers, params=params), statuses)
    alive = client.get("/api/options")  # the server still answers
    assert alive.status_code == 200, alive.text
    statuses["alive"] += 1


POSTS = ["/api/games", "/api/study", "/api/games/{game}/move", "/api/games/{game}/undo",
         "/api/games/{game}/bot", "/api/games/{game}/hint"]  # fmt: skip
GETS = ["/", "/api/options", "/api/stored", "/api/games/{game}", "/api/games/{game}/record",
        "/api/games/{game}/ply/{k}", "/api/games/{game}/eval/{k}", "/api/study/{study}/ply/{k}",
        "/api/study/{study}/analysis/{k}", "/static/{name}"]  # fmt: skip
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(
    route=st.sampled_from(POSTS),
    real_id=st.booleans(),
    other_id=texts,
    body=bodies,
    host=hosts,
    origin=origins,
    content_type=types,
)
def test_fuzzed_posts(fuzz, route, real_id, other_id, body, host, origin, content_type):
    ids = fuzz[1] if real_id else {"game": other_id or "x", "study": other_id or "x"}
    path = route.format(game=_quote(ids["game"]), study=_quote(ids["study"]))
    send(fuzz, "POST", path, body, host, origin, content_type)


@FUZZ
@given(
    route=st.sampled_from(GETS),
    real_id=st.booleans(),
    other_id=texts,
    k=st.integers(min_value=-3, max_value=200) | texts,
    query=st.dictionaries(
        st.sampled_from(["checkpoint", "by", "token", "x"]), texts | spec_words, max_size=3
    ),
    host=hosts,
)
def test_fuzzed_gets(fuzz, route, real_id, other_id, k, query, host):
    ids = fuzz[1] if real_id else {"game": other_id or "x", "study": other_id or "x"}
    path = route.format(
        game=_quote(ids["game"]), study=_quote(ids["study"]), k=_quote(str(k)), name=_quote(str(other_id))
    )
    send(fuzz, "GET", path, b"", host, None, None, params=query)


@FUZZ
@given(
    method=st.sampled_from(["PUT", "DELETE", "PATCH", "OPTIONS", "GET", "POST"]),
    path=st.text(alphabet="abcdefgh/._-%?=&0123456789", max_size=40),
    body=bodies,
)
def test_fuzzed_methods_and_paths(fuzz, method, path, body):
    send(fuzz, method, "/" + path.lstrip("/"), body, "127.0.0.1:8000", None, "application/json")


def _quote(text: str) -> str:
    return quote(text, safe="") or "x"
