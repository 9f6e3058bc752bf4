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
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

build_scripts = Distribution().get_command_class("build_scripts")  # distutils' (setuptools' copy)

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


CLIENT = Path(__file__).resolve().parent / "host" / "reins" / "cli" / "warmclient.c"


def _compiled_client() -> str | None:
    """The compiled `reins` client (cli/warmclient.c) built for this platform, or None where it
    cannot be: Windows (no fork, no descriptor passing: the console script is `reins` there), no
    C compiler, or REINS_NO_CLIENT set. Built into ``build/client/reins``, installed as a script."""
    if sys.platform == "win32" or os.environ.get("REINS_NO_CLIENT"):
        return None
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    out = Path("build") / "client" / "reins"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [*shlex.split(cc), "-O2", "-o", str(out), str(CLIENT)],
            capture_output=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return str(out) if done.returncode == 0 and out.is_file() else None


class _CopyClient(build_scripts):  # type: ignore[misc,valid-type]
    """The client as it was compiled: distutils would read a script as Python source."""

    def copy_scripts(self) -> tuple[list[str], list[str]]:
        self.mkpath(self.build_dir)
        outfiles: list[str] = []
        for script in self.scripts or []:
            out = os.path.join(self.build_dir, os.path.basename(script))
            self.copy_file(script, out)
            os.chmod(out, 0o755)
            outfiles.append(out)
        return outfiles, outfiles


class _Wheel(bdist_wheel):
    """With the compiled client the wheel is one platform's (tagged py3-none-<platform>), but
    not one Python's: the client links to nothing of Python's. The package itself stays at the
    wheel's root (purelib)."""

    def get_tag(self) -> tuple[str, str, str]:
        tag = super().get_tag()
        if _CLIENT is None:
            return tag
        plat = self.plat_name if self.plat_name_supplied else sysconfig.get_platform()
        return ("py3", "none", plat.replace("-", "_").replace(".", "_"))


_CLIENT = _compiled_client()
# `reins-py` is always the Python console script; `reins` is the compiled client where one was
# built (it runs `reins-py`, beside it, whenever no warm CLI answers), else the console script.
_SCRIPTS = ["reins-py = reins.cli:console"]
if _CLIENT is None:
    _SCRIPTS.append("reins = reins.cli:console")

setup(
    cmdclass={"build_py": BuildWithExtension, "bdist_wheel": _Wheel, "build_scripts": _CopyClient},
    entry_points={"console_scripts": _SCRIPTS},
    scripts=[_CLIENT] if _CLIENT else [],
)
