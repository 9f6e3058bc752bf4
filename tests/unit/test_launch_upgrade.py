"""`reins launch` after a reins update: the extension's old service worker is dropped from every
Chrome profile of reins's own data directory, once, so Chrome runs the new extension code."""

from __future__ import annotations

from pathlib import Path

from reins.setup.extension import extension_digest, extension_dir
from reins.setup.launch import _fresh_extension_worker


def _stores(data_dir: Path) -> list[Path]:
    stores = [data_dir / "Default" / "Service Worker", data_dir / "Profile 1" / "Service Worker"]
    for store in stores:
        (store / "Database").mkdir(parents=True, exist_ok=True)
        (store / "Database" / "CURRENT").write_text("old worker")
    return stores


def test_changed_extension_files_drop_every_profiles_worker_store_once(tmp_path: Path) -> None:
    pdir, data_dir = tmp_path / "profile", tmp_path / "user-data"
    pdir.mkdir()
    (pdir / "extension.sha256").write_text("the digest of an older extension")
    cookies = data_dir / "Profile 1" / "Cookies"
    stores = _stores(data_dir)
    cookies.write_text("kept")
    _fresh_extension_worker(pdir, data_dir)
    assert not any(store.exists() for store in stores)
    assert cookies.read_text() == "kept"  # only the service workers go
    assert (pdir / "extension.sha256").read_text() == extension_digest(extension_dir())
    # The same files at the next launch: the workers Chrome registered since are kept.
    stores = _stores(data_dir)
    _fresh_extension_worker(pdir, data_dir)
    assert all(store.exists() for store in stores)
