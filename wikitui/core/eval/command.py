"""``wikitui eval``: run the tasks, print the table (or the JSON), report progress on stderr.

The model comes from ``--model``, the environment, the vault's config (when run in a
vault, or with ``--vault``) or the user's config, as for every command; those files
are only read. Exit status: 0 when the run completed (whatever the score), 2 for a
user error, 3 when the model failed so that nothing could be scored (none
configured, unreachable at the first task, or failing every task).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.visible_text import json_visible, visible_stream
from wikitui.core.eval.runner import DEFAULT_TASK_TIMEOUT, RunStopped, run_eval
from wikitui.core.eval.tasks import select

EXIT_OK, EXIT_USER, EXIT_MODEL = 0, 2, 3


def _vault_folder(vault: Path | None) -> Path | None:
    """The folder whose ``.wikitui/config.toml`` may choose the model (read only; never opened as a Vault)."""
    from wikitui.core.vault.layout import Vault

    if vault is not None:
        if not vault.is_dir() or not Vault.is_vault(vault):
            raise WikituiError(f"{vault} is not a wikitui vault (no wiki/, WIKI.md, .wikitui/ or .obsidian/)")
        return vault
    cwd = Path.cwd()
    return cwd if Vault.is_vault(cwd) else None


def _task_timeout(flag: float | None, settings, err: TextIO) -> float:
    if flag is not None:
        if flag <= 0:
            raise WikituiError(f"--task-timeout must be more than 0 seconds, not {flag:g}")
        return flag
    configured = settings.eval_task_timeout
    if configured is not None and configured <= 0:
        err.write(f"wikitui: warning: eval_task_timeout = {configured:g} ignored (it must be more than 0); "
                  f"using {DEFAULT_TASK_TIMEOUT:g} s\n")
        return DEFAULT_TASK_TIMEOUT
    return configured or DEFAULT_TASK_TIMEOUT


def main(*, vault: Path | None = None, model: str | None = None, only: str | None = None, as_json: bool = False,
         task_timeout: float | None = None, keep: Path | None = None, out: TextIO | None = None,
         err: TextIO | None = None, client=None) -> int:
    """Run ``wikitui eval``; returns the exit status.

    Args:
        vault: A vault whose config may choose the model (default: the current folder when it is one).
        model: ``--model``.
        only: Run one group of tasks.
        as_json: Print the JSON object instead of the table.
        task_timeout: ``--task-timeout`` in seconds (default: config ``eval_task_timeout``, else 300).
        keep: Leave the eval's vaults in this new folder instead of deleting them.
        out: Where the result goes (stdout).
        err: Where progress and errors go (stderr).
        client: The model client (tests inject one with fast retries).
    """
    from wikitui.core.config.settings import NoModelConfigured, load_settings

    # What the model, a page or a source says reaches the terminal shown, never obeyed (DESIGN §8).
    out, err = visible_stream(out or sys.stdout), visible_stream(err or sys.stderr)
    try:
        tasks = select(only)
        settings = load_settings(_vault_folder(vault), model)
        timeout = _task_timeout(task_timeout, settings, err)
        if keep is not None and keep.exists():
            raise WikituiError(f"--keep {keep}: that folder exists already; name a new one")
    except (WikituiError, ValueError) as exc:
        err.write(f"wikitui: error: {exc}\n")
        return EXIT_USER
    for warning in settings.warnings:
        err.write(f"wikitui: warning: {warning}\n")

    def progress(line: str) -> None:
        err.write(line + "\n")
        err.flush()

    try:
        model_name = settings.require_model()
        progress(f"wikitui eval: {len(tasks)} tasks with {model_name} (at most {timeout:g} s each)")
        results = run_eval(tasks, settings, client=client, timeout=timeout, progress=progress, keep=keep)
    except (NoModelConfigured, RunStopped) as exc:
        err.write(f"wikitui: error: {exc}\n")
        return EXIT_MODEL
    except WikituiError as exc:
        err.write(f"wikitui: error: {exc}\n")
        return exc.exit_code
    from wikitui.core.eval import report

    if as_json:
        out.write(json_visible(json.dumps(report.to_json(model_name, results), ensure_ascii=False, indent=2)) + "\n")
    else:
        out.write(report.table(model_name, results) + "\n")
    if keep is not None:
        err.write(f"wikitui: the eval's vaults are in {keep}\n")
    out.flush()
    return EXIT_OK
