"""A read-only vault is read and searched; writing it says one line (issue 21 §13).

Root ignores permission bits, and the tests run as root, so a ``chmod -R a-w``
alone proves nothing. The vault is made read-only for real instead, in a child
process: either root without the capabilities that override permission bits
(``setpriv`` drops CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER), or a
read-only bind mount in a private mount namespace (``unshare -m``), which refuses
even root (``Read-only file system``). A user who is not root needs neither for the
chmod case. Where neither can be set up, the test says so and skips.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

CAPS = "-dac_override,-dac_read_search,-fowner"

CHECKS = """
import sys
from wikitui.core.vault.layout import Vault
from wikitui.core.changes.recovery import recover
from wikitui.core.changes.lock import write_lock
vault = Vault.open(sys.argv[1])
print("writable", vault.state_writable())
print("index", vault.index_dir)
print("recover", recover(vault))
try:
    with write_lock(vault):
        print("locked")
except Exception as exc:
    print("write", type(exc).__name__, exc)
"""


def _chmod_tree(root: Path, writable: bool) -> None:
    for folder, dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            mode = path.stat().st_mode
            path.chmod(mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        mode = Path(folder).stat().st_mode
        Path(folder).chmod(mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _wrapper(how: str, vault: Path) -> list[str]:
    """The command prefix that runs a child with ``vault`` read-only for real."""
    if how == "chmod":
        if os.geteuid() != 0:
            return []
        if shutil.which("setpriv") is None:
            pytest.skip("setpriv is not installed: as root, permission bits cannot be made to count")
        return ["setpriv", f"--inh-caps={CAPS}", f"--bounding-set={CAPS}"]
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs unshare and root")
    return ["unshare", "-m", "sh", "-c", f'mount --bind -o ro "$0" "$0" && exec "$@"', str(vault)]


@pytest.fixture(params=["chmod", "ro-mount"])
def read_only(request, sample_vault, tmp_path):
    """(run, vault, cache): ``run(args)`` runs Python in a child that cannot write ``vault``."""
    how = request.param
    cache = tmp_path / "cache"
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(cache)}
    if how == "chmod":
        _chmod_tree(sample_vault, writable=False)
    prefix = _wrapper(how, sample_vault)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*prefix, sys.executable, *args], capture_output=True, text=True, env=env, timeout=180)

    probe = run("-c", f"open({str(sample_vault / 'probe')!r}, 'w')")
    if probe.returncode == 0:
        (sample_vault / "probe").unlink()
        pytest.skip(f"could not make the vault read-only here ({how})")
    assert "Permission denied" in probe.stderr or "Read-only file system" in probe.stderr, probe.stderr
    yield run, sample_vault, cache
    _chmod_tree(sample_vault, writable=True)


def test_a_read_only_vault_is_searched_from_the_users_cache_and_nothing_claims_an_interrupted_apply(read_only):
    run, vault, cache = read_only
    search = run("-m", "wikitui", "search", "white rabbit", "--json", "--vault", str(vault))
    assert search.returncode == 0, search.stderr
    hits = json.loads(search.stdout)
    assert any(h["path"] == "wiki/characters/white-rabbit.md" for h in hits)
    assert search.stderr == ""
    checks = run("-c", CHECKS, str(vault))
    assert checks.returncode == 0, checks.stderr
    lines = checks.stdout.splitlines()
    assert lines[0] == "writable False"
    index = Path(lines[1].removeprefix("index "))
    assert index.is_relative_to(cache / "wikitui") and index.name == "index"
    assert lines[2] == "recover None"  # no "could not recover an interrupted apply: ... write.lock"
    assert lines[3] == f"write ReadOnlyVault {vault} is read-only: nothing was written"
    assert any(index.iterdir())  # the index was built there
    assert not (vault / ".wikitui" / "index").exists()
    # The second search opens the cached index (same folder for the same vault).
    again = run("-m", "wikitui", "search", "cheshire", "--json", "--vault", str(vault))
    assert again.returncode == 0 and json.loads(again.stdout), again.stderr


def test_a_writable_vault_keeps_its_index_in_its_own_folder(sample_vault):
    from wikitui.core.vault.layout import Vault

    vault = Vault.open(sample_vault)
    assert vault.state_writable()
    assert vault.index_dir == sample_vault / ".wikitui" / "index"
