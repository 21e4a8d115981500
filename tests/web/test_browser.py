"""The web page in a real browser: Playwright driving the system's headless Chromium against
``tw-rl serve`` started as a user starts it.

Needs Playwright (``.[dev]``) and Chromium from the system's packages (``apt-get install
chromium``; ``.ci/run`` installs both). Without them the tests are skipped, unless
``TW_RL_REQUIRE_BROWSER=1`` (set by ``.ci/run``), when a missing browser is a failure.
Screenshots go to ``TW_RL_ARTIFACTS`` (default ``test-artifacts/``) and are kept.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tw_rl.cli import main

from .conftest import record_text

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(os.environ.get("TW_RL_ARTIFACTS", "test-artifacts"))


def _browser_or_skip() -> str:
    required = os.environ.get("TW_RL_REQUIRE_BROWSER") == "1"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright.sync_api  # noqa: F401
    except ModuleNotFoundError:
        chromium = None
    if chromium is None:
        message = "the browser tests need Playwright and the system's Chromium (apt-get install chromium)"
        if required:
            pytest.fail(message)
        pytest.skip(message)
    return chromium


@pytest.fixture
def server(results_db):
    """``tw-rl serve --port 0 --db DB`` in a child process; yields its address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tw_rl.cli", "serve", "--port", "0", "--db", str(results_db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = process.stdout.readline()
        match = re.search(r"http://[^ ]+/", line)
        assert match, f"tw-rl serve printed {line!r}"
        yield match.group(0)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def page():
    chromium = _browser_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        yield tab
        context.close()
        browser.close()


def _wait_idle(page) -> None:
    """Until the page is not waiting for the server (no 'thinking' / 'Starting' message)."""
    page.wait_for_function("() => !document.getElementById('message').classList.contains('busy')")


def _moves(page) -> int:
    return page.locator("#moves li").count()


def test_play_a_game_through_clicks(server, page, tmp_path, capsys):
    page.goto(server)
    page.wait_for_selector("g.cell[data-name='F6']")
    assert page.locator("g.cell").count() == 91
    page.fill("#bot", "bot@0.05")
    page.select_option("#colour", "red")
    page.click("#new")
    _wait_idle(page)
    page.wait_for_selector("g.cell.legal")
    assert "Red to move" in page.inner_text("#status") and "You are red" in page.inner_text("#status")

    # An illegal click: refused with the rules' reason, nothing played.
    illegal = page.locator("g.cell:not(.legal)").first
    name = illegal.get_attribute("data-name")
    illegal.click()
    page.wait_for_selector("#message.error")
    assert page.inner_text("#message").startswith(f"{name}: ")
    assert _moves(page) == 0

    # Two moves, an undo, then the game to its end.
    page.locator("g.cell.legal").first.click()
    _wait_idle(page)
    page.locator("g.cell.legal").first.click()
    _wait_idle(page)
    assert _moves(page) == 4
    page.click("#undo")
    _wait_idle(page)
    assert _moves(page) == 2
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.check("#aid-red")
    page.check("#aid-white")
    page.screenshot(path=str(ARTIFACTS / "web-play.png"))
    for _ in range(300):
        if "Game over" in page.inner_text("#status"):
            break
        legal = page.locator("g.cell.legal")
        if legal.count():
            legal.first.click()
        else:
            page.click("#pass")
        _wait_idle(page)
        assert not page.locator("#message.error").count(), page.inner_text("#message")
    status = page.inner_text("#status")
    assert "Game over" in status
    page.screenshot(path=str(ARTIFACTS / "web-game-over.png"))

    # The record downloads and reads back to the same result.
    with page.expect_download() as download:
        page.click("#download")
    path = tmp_path / "game.txt"
    download.value.save_as(path)
    capsys.readouterr()
    assert main(["analyze", str(path)]) == 0
    final = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert final["over"] and final["plies"] == _moves(page)
    assert f"red {final['score']['red']}, white {final['score']['white']}" in status


def test_step_through_stored_games_with_the_heat_map(server, page):
    page.goto(server)
    page.wait_for_selector("g.cell")
    page.click("#tab-study")
    page.wait_for_selector("#stored button[data-game='1']")
    assert "2 games in" in page.inner_text("#stored-note")
    page.click("#stored button[data-game='1']")
    page.wait_for_function("() => document.getElementById('ply-label').textContent.startsWith('ply 0 of')")
    page.wait_for_selector("#analysis:has-text('Value for')")
    page.click("#next")
    page.click("#next")
    page.wait_for_function("() => document.getElementById('ply-label').textContent.startsWith('ply 2 of')")
    page.wait_for_selector("#analysis:has-text('Value for')")
    page.wait_for_selector("g.cell text.heat")
    assert page.locator("g.cell.last").count() == 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web-study.png"))
    page.click("#last")
    page.wait_for_selector("#analysis:has-text('the game is over here')")
    assert "Game over" in page.inner_text("#status")

    # A damaged checkpoint: a visible message, the position stays.
    page.fill("#checkpoint", "/no/such/checkpoint.pt")
    page.dispatch_event("#checkpoint", "change")
    page.click("#prev")
    page.wait_for_selector("#analysis:has-text('No analysis: checkpoint /no/such/checkpoint.pt')")
    label = page.inner_text("#ply-label")
    assert page.locator("g.cell").count() == 91 and re.match(r"ply (\d+) of (\d+)", label)
    ply, plies = map(int, re.match(r"ply (\d+) of (\d+)", label).groups())
    assert ply == plies - 1
    page.fill("#checkpoint", "default")
    page.dispatch_event("#checkpoint", "change")
    page.wait_for_selector("#analysis:has-text('Value for')")

    # A pasted record, and a malformed one.
    text = record_text(9)
    page.fill("#record", text)
    page.click("#open-record")
    page.wait_for_function("() => document.getElementById('study-title').textContent === 'pasted record'")
    page.fill("#record", "E4\nQ99\n")
    page.click("#open-record")
    page.wait_for_selector("#message.error:has-text('start: white')")


def test_a_late_analysis_leaves_a_newer_error_in_view(server, page):
    """An analysis answer that arrives after a record failed to open neither clears the error
    nor draws over the position (CI once met this race: the error was wiped)."""
    held = []
    page.route("**/analysis/**", lambda route: held.append(route))
    page.goto(server)
    page.wait_for_selector("g.cell")
    page.click("#tab-study")
    page.fill("#record", record_text(9))
    page.click("#open-record")
    page.wait_for_function("() => document.getElementById('study-title').textContent === 'pasted record'")
    page.wait_for_function("() => document.getElementById('analysis').textContent.startsWith('Analysing')")
    page.fill("#record", "E4\nQ99\n")
    page.click("#open-record")
    page.wait_for_selector("#message.error:has-text('start: white')")
    assert held, "the analysis request was not made"
    for route in held:
        route.continue_()
    page.wait_for_selector("#analysis:has-text('Value for')")
    assert "start: white" in page.inner_text("#message")
    assert "error" in page.get_attribute("#message", "class")
