"""``wikitui serve``'s arguments: 127.0.0.1 unless told, a warning for any other address, no vault no server.

(Its door, request by request: test_serve_door.py; in a real browser: tests/e2e/test_browser.py.)
"""

from __future__ import annotations

import re
import shlex
import sys

import pytest

from wikitui.cli import main


@pytest.fixture
def started(monkeypatch):
    """Replace textual-serve's blocking serve() by a record of the server it was asked to run."""
    from textual_serve.server import Server

    servers = []
    monkeypatch.setattr(Server, "serve", lambda self, debug=False: servers.append(self))
    return servers


def test_it_listens_on_the_loopback_address_by_default(sample_vault, started, capsys):
    assert main(["serve", "--vault", str(sample_vault)]) == 0
    (server,) = started
    assert (server.host, server.port) == ("127.0.0.1", 8000)
    assert shlex.split(server.command) == [sys.executable, "-m", "wikitui", str(sample_vault.resolve())]
    err = capsys.readouterr().err
    assert "warning" not in err and "http://127.0.0.1:8000/?token=" in err


def test_each_server_prints_its_own_random_token(sample_vault, started, capsys):
    assert main(["serve", "--vault", str(sample_vault)]) == 0
    assert main(["serve", "--vault", str(sample_vault)]) == 0
    tokens = re.findall(r"/\?token=([A-Za-z0-9_-]+) ", capsys.readouterr().err)
    assert tokens == [server.door.token for server in started] and len(set(tokens)) == 2
    assert all(len(token) >= 40 for token in tokens)


def test_another_address_is_served_with_a_warning(sample_vault, started, capsys):
    assert main(["serve", "--vault", str(sample_vault), "--host", "0.0.0.0", "--port", "9123"]) == 0
    assert (started[0].host, started[0].port) == ("0.0.0.0", 9123)
    err = capsys.readouterr().err
    assert "warning: listening on 0.0.0.0" in err and "has the URL below (its token)" in err
    assert "http://0.0.0.0:9123/?token=" in err


def test_a_folder_that_is_not_a_vault_or_a_bad_port_starts_nothing(tmp_path, started, capsys):
    assert main(["serve", "--vault", str(tmp_path)]) == 2
    assert main(["serve", "--port", "70000"]) == 2
    assert started == []
    assert "a port is 1-65535" in capsys.readouterr().err
