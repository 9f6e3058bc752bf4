"""scripts/package-extension: the Web Store's zip is the repo's extension with manifest.json at
its root and without `key` (the store refuses one), the same bytes from the same sources."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "package_extension", ROOT / "scripts" / "package_extension.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_store_zip_is_the_extension_without_its_key(tmp_path: Path) -> None:
    script = _script()
    assert script.main([str(tmp_path / "a")]) == 0
    (made,) = (tmp_path / "a").glob("reins-extension-*.zip")
    repo = {
        p.relative_to(ROOT / "extension").as_posix(): p.read_bytes()
        for p in (ROOT / "extension").rglob("*")
        if p.is_file()
    }
    with zipfile.ZipFile(made) as archive:
        inside = {name: archive.read(name) for name in archive.namelist()}
    manifest = json.loads(inside.pop("manifest.json"))
    expected = json.loads(repo.pop("manifest.json"))
    assert "key" in expected and "key" not in manifest
    assert manifest == {k: v for k, v in expected.items() if k != "key"}
    assert inside == repo
    assert made.name == f"reins-extension-{expected['version']}.zip"
    # The same sources, the same bytes (no build time inside).
    again = tmp_path / "b.zip"
    script.main([str(again)])
    assert again.read_bytes() == made.read_bytes()
