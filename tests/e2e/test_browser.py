"""``wikitui serve`` in a real headless browser: Chromium, driven by selenium through chromedriver (DESIGN §10).

The terminal in the page paints on a canvas, so the test reads what the app sends
it: a script installed before the page loads records every WebSocket frame the
page receives (the terminal output xterm.js draws). The browser opens the URL the
server prints (with its token), lands on the address without it, holding the
cookie; the test waits for the wiki tree to arrive, presses ``?`` in the page, and
waits for the help screen. Chromium's own network log shows the page asked no
other host for anything, and the page broke none of its content policy.
(The door's refusals, request by request: tests/core/test_serve_door.py.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

try:
    from selenium.webdriver.common.by import By
except ImportError:  # the browser fixture skips the tests
    By = None

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="headless Chromium is not installed (Debian: apt-get install chromium chromium-driver; .ci/run does)",
)

#: Records the text of every frame the page's WebSockets receive, in window.__wikituiFrames.
RECORDER = r"""
window.__wikituiFrames = [];
window.__wikituiViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__wikituiViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
});
const NativeWebSocket = window.WebSocket;
const decoder = new TextDecoder("utf-8");
window.WebSocket = function (...args) {
  const ws = new NativeWebSocket(...args);
  ws.addEventListener("message", async (event) => {
    let data = event.data;
    if (data instanceof Blob) data = await data.arrayBuffer();
    window.__wikituiFrames.push(typeof data === "string" ? data : decoder.decode(data));
  });
  return ws;
};
window.WebSocket.prototype = NativeWebSocket.prototype;
Object.assign(window.WebSocket, NativeWebSocket);
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(check, what: str, timeout: float = 120.0):
    """Poll ``check`` until it returns something true; fail naming ``what`` (a bound on a hang, not a speed test)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.25)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture
def served(sample_vault, tmp_path):
    """``wikitui serve`` on a free port, on a copy of the sample vault; yields the URL it prints (with its token)."""
    port = free_port()
    log = open(tmp_path / "serve.log", "w")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.Popen([sys.executable, "-m", "wikitui", "serve", "--port", str(port),
                             "--vault", str(sample_vault)], stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)

    def listening() -> str | None:
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()
        url = re.search(rf"http://127\.0\.0\.1:{port}/\?token=[A-Za-z0-9_-]+", (tmp_path / "serve.log").read_text())
        with socket.socket() as s:
            return url.group(0) if url and s.connect_ex(("127.0.0.1", port)) == 0 else None

    try:
        yield wait_until(listening, "wikitui serve to print its URL and listen")
    finally:
        os.killpg(proc.pid, 15)  # the server and the app it started for the page
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        log.close()


@pytest.fixture
def browser(tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the test extra")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1400,1000", f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})  # every request the page makes
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
        yield driver
    finally:
        driver.quit()


def received(driver) -> str:
    return "".join(driver.execute_script("return window.__wikituiFrames || []"))


def requested(driver) -> list[str]:
    """The URL of every request and WebSocket the browser made since the last call (Chromium's network log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            urls.append(message["params"].get("request", message["params"]).get("url"))
    return urls


def test_the_workspace_runs_in_a_browser_and_takes_keys(served, browser):
    base = served.split("?", 1)[0]
    requested(browser)  # the browser's own start (its new-tab page), before the page
    browser.get(served)
    # The token URL leaves a cookie the page's script cannot read, and the address without the token.
    wait_until(lambda: browser.current_url == base, "the address without the token")
    (cookie,) = browser.get_cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["value"] in served
    assert "token" not in browser.execute_script("return document.cookie")
    # The page tree (the sample wiki's folders and pages) reaches the browser's terminal.
    wait_until(lambda: "characters" in received(browser) and "Alice" in received(browser), "the wiki tree")
    assert "Everywhere" not in received(browser)

    # A key pressed in the page goes to the app: `?` opens the help.
    terminal_input = wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, ".xterm-helper-textarea"),
                                "the terminal's input")[0]
    terminal_input.send_keys("?")
    wait_until(lambda: "Everywhere" in received(browser), "the help screen after pressing ?")

    # The socket had no token in its URL (the cookie let it in), and everything the page asked for came from here.
    urls = requested(browser)
    ws_base = base.replace("http:", "ws:")
    sockets = [u for u in urls if u.startswith(f"{ws_base}ws?")]
    assert sockets and not any("token" in u for u in sockets), urls
    network = [u for u in urls if u.startswith(("http:", "https:", "ws:", "wss:"))]  # not chrome:// or data:
    assert [u for u in network if not u.startswith((base, ws_base))] == [], urls
    assert any(u.endswith(".ttf") for u in urls)  # the font, from here
    assert browser.execute_script("return window.__wikituiViolations") == []


def test_without_the_token_nothing_opens_and_a_link_on_another_site_to_its_url_does(served, browser):
    base = served.split("?", 1)[0]
    browser.get(base)
    assert "403" in browser.find_element(By.TAG_NAME, "body").text
    browser.get(served[:-1])  # a wrong token
    assert "403" in browser.find_element(By.TAG_NAME, "body").text
    assert browser.get_cookies() == [] and received(browser) == ""

    # The token URL clicked on another site's page (here a data: page, which has no origin): the browser sends no
    # Strict cookie along that navigation's redirects, but the page's own refresh to the address without the
    # token is this site's, so the cookie goes with it and with the socket.
    browser.get(f"data:text/html,<a id='open' href='{served}'>the workspace</a>")
    browser.find_element(By.ID, "open").click()
    wait_until(lambda: browser.current_url == base, "the address without the token")
    wait_until(lambda: "characters" in received(browser) and "Alice" in received(browser), "the wiki tree")
