"""The build hook that puts the browser extension into the wheel.

The extension lives at the repository's top (``extension/``), beside the Python package
(``host/reins``), so a checkout loads it from there. A wheel has no checkout: its build copies the
folder into the package as ``reins/extension/`` (plain package data), where
``reins.setup.extension.extension_path`` finds it. The copy is made in the build folder only; an
editable install writes nothing into ``host/reins`` and keeps reading the checkout's folder.
Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

EXTENSION = Path(__file__).resolve().parent / "extension"


def _extension_files() -> list[Path]:
    """The extension's regular files (no symlinks, nothing hidden), as the browser loads them."""
    out: list[Path] = []
    for folder, dirs, files in os.walk(EXTENSION):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if not name.startswith(".") and path.is_file() and not path.is_symlink():
                out.append(path)
    return out


class BuildWithExtension(build_py):
    """build_py, then the extension's files copied to ``<build>/reins/extension``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's extension/ (extension_path)
        if not (EXTENSION / "manifest.json").is_file():
            raise FileNotFoundError(f"no extension to package at {EXTENSION}")
        target = Path(self.build_lib) / "reins" / "extension"
        shutil.rmtree(
            target, ignore_errors=True
        )  # a file gone from extension/ leaves the wheel too
        for path in _extension_files():
            out = target / path.relative_to(EXTENSION)
            self.mkpath(str(out.parent))
            self.copy_file(str(path), str(out))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        if getattr(self, "editable_mode", False):
            return list(super().get_outputs(include_bytecode))
        target = Path(self.build_lib) / "reins" / "extension"
        extra = [str(target / p.relative_to(EXTENSION)) for p in _extension_files()]
        return [*super().get_outputs(include_bytecode), *extra]


setup(cmdclass={"build_py": BuildWithExtension})
