"""Git's binary patch format as wikitui writes it: `git apply` must make exactly the bytes meant."""

from __future__ import annotations

import os
import subprocess

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wikitui.core.changes.assets import format_binary_patch, git_blob_id

PATH = "wiki/assets/x.png"


def _git(cwd, *args, data: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, check=False)


def test_the_blob_id_is_gits():
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # `echo hello | git hash-object --stdin`


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=st.one_of(st.none(), st.binary(max_size=300)), new=st.binary(max_size=3000))
def test_git_apply_makes_the_new_bytes_from_the_old(tmp_path_factory, old, new):
    root = tmp_path_factory.mktemp("repo")
    _git(root, "init", "-q")
    target = root / PATH
    if old is not None:
        os.makedirs(target.parent, exist_ok=True)
        target.write_bytes(old)
    patch = format_binary_patch("create" if old is None else "edit", PATH, old, new)
    result = _git(root, "apply", "-", data=patch.encode("ascii"))
    assert result.returncode == 0, result.stderr.decode()
    assert target.read_bytes() == new


def test_a_patch_against_other_bytes_is_refused_by_git(tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / "wiki/assets").mkdir(parents=True)
    (tmp_path / PATH).write_bytes(b"\x00edited since")
    patch = format_binary_patch("edit", PATH, b"\x00as proposed", b"\x00new")
    assert _git(tmp_path, "apply", "--check", "-", data=patch.encode("ascii")).returncode != 0
    assert (tmp_path / PATH).read_bytes() == b"\x00edited since"
