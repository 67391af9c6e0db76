"""Package discovery that pyproject.toml alone cannot express.

The themes live in the repository's top-level ``themes/`` folder (DESIGN §7) and
are shipped as the ``wikitui.themes`` package, so a wheel, ``pipx install`` or
``uv tool install`` has them. The sample vault (``sample/``) ships the same way as
``wikitui/sample/`` (a data folder, no Python in it: the vault stays a plain vault),
because ``wikitui eval`` copies it; the eval's invented world (``evalworld/``) ships as
``wikitui/evalworld/`` for the same reason. ``[tool.setuptools.packages.find]`` only finds
packages under their own folders, and an explicit package list would silently drop
every subpackage added later; so the packages are found here and the mapped
folders are added to them. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["wikitui", "wikitui.*"]), "wikitui.themes", "wikitui.sample",
              "wikitui.evalworld"],
    package_dir={"wikitui.themes": "themes", "wikitui.sample": "sample", "wikitui.evalworld": "evalworld"},
)
