"""Build the extension's zip for a Chrome Web Store upload (`scripts/package-extension [OUT]`).

The zip holds extension/'s regular files with manifest.json at its root, in a fixed order with
fixed timestamps, so the same sources give the same bytes. Its manifest has no ``key``: the Web
Store refuses an upload whose manifest has one ("key field is not allowed in manifest", its
uploader's error as users report it) and gives the item an ID of its own. The key stays in the
repo's manifest: it is what fixes the ID of the unpacked extension every `reins install` copy
and `reins launch` loads, the ID reins's host manifests allow (``allowed_origins``).

So a Web Store item gets another ID, and the host answers it only once that ID is added to the
allowed origins (not done: there is no store item yet). An enterprise force-install
(ExtensionInstallForcelist) names either that store item, or a CRX the administrator signs and
hosts with an update URL: packing this zip's folder with their own private key gives their key's
ID, with the same consequence for the allowed origins.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import stat
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "extension"
_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip can hold: no build time in the bytes


def extension_files(folder: Path) -> list[tuple[str, Path]]:
    """The folder's regular files (no symlinks, nothing hidden) by relative POSIX path, sorted."""
    out: list[tuple[str, Path]] = []
    for parent, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = Path(parent) / name
            if not name.startswith(".") and stat.S_ISREG(os.lstat(path).st_mode):
                out.append((path.relative_to(folder).as_posix(), path))
    return sorted(out)


def store_manifest(data: bytes) -> tuple[bytes, dict[str, object]]:
    """The manifest as the Web Store takes it: without ``key``."""
    manifest = json.loads(data)
    manifest.pop("key", None)
    return (json.dumps(manifest, indent=2) + "\n").encode(), manifest


def build(out: Path, folder: Path = EXTENSION) -> tuple[Path, dict[str, object]]:
    """Write the zip (``out``: a file, or a folder to put ``reins-extension-VERSION.zip`` in)."""
    files = extension_files(folder)
    raw = dict(files).get("manifest.json")
    if raw is None:
        raise SystemExit(f"package-extension: no manifest.json in {folder}")
    manifest_bytes, manifest = store_manifest(raw.read_bytes())
    if out.is_dir() or not out.suffix:
        out = out / f"reins-extension-{manifest['version']}.zip"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, path in files:
            entry = zipfile.ZipInfo(name, date_time=_EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = (stat.S_IFREG | 0o644) << 16
            body = manifest_bytes if name == "manifest.json" else path.read_bytes()
            archive.writestr(entry, body)
    os.replace(tmp, out)
    return out, manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "out", nargs="?", default=str(ROOT / "dist"), help="zip file or folder (default: dist/)"
    )
    args = parser.parse_args(argv)
    out, manifest = build(Path(args.out))
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    print(f"{out}\nsha256 {digest}\nversion {manifest['version']}, manifest without `key`")
    if not manifest.get("icons"):
        print(
            "note: the manifest names no icons; the Web Store asks for a 128x128 icon",
            file=sys.stderr,
        )
    print(
        "note: the store gives the item its own ID; reins's host answers it only once that ID "
        "is in the host manifest's allowed_origins",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
