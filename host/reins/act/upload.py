"""Upload: attach files to a file input (also the hidden one behind a drop zone or an "Attach"
button), reading only from the directories the user allows.

The directory policy is enforced here, in the host: the extension only checks the shape of
``DOM.setFileInputFiles`` (absolute paths, the input), because it cannot see the user's
settings. Allowed: the directory the CLI runs in (it sends its cwd) and below, plus the
directories added with ``reins config upload-dirs add DIR``; never a hidden file or folder (a
path component starting with ``.``) below them. Paths are compared as realpaths, so a symlink
cannot lead out of an allowed directory; and Chrome gets a private copy of each checked file
(``act/staging.py``), so a file swapped after the check is not what it reads.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TypedDict

from reins._errors import ActionError, ResolutionError, UsageError
from reins.act.answers import ActionAnswer, Fields
from reins.act.effects import act_on
from reins.act.locate import Resolved
from reins.act.staging import staged_copies
from reins.bridge.context import CommandContext
from reins.page.call import call_function
from reins.setup.config import upload_dirs

__all__ = ["FileHeld", "UploadFields", "allowed_files", "checked_files", "upload_files"]


class FileHeld(TypedDict):
    """A file the input holds, as the page reads it (pagescripts: ``fileList``)."""

    name: str
    size: int
    type: str


class UploadFields(Fields, total=False):
    """upload's own answer field: the files the input holds now, read back."""

    files: list[FileHeld]


def _refused(message: str) -> ActionError:
    return ActionError(message, code="upload_refused")


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _hidden_below(path: str, root: str) -> bool:
    rel = os.path.relpath(path, root)
    return any(part.startswith(".") for part in rel.split(os.sep) if part not in ("", "."))


def allowed_files(files: Sequence[str], roots: Sequence[str]) -> list[str]:
    """The realpaths of ``files`` when each is a regular file under one of ``roots`` and not
    hidden below it; ``upload_refused`` (or ``bad_request`` for a missing file) otherwise."""
    return [path for path, _root in checked_files(files, roots)]


def checked_files(files: Sequence[str], roots: Sequence[str]) -> list[tuple[str, str]]:
    """``allowed_files``, each realpath with the realpath of the root that allows it."""
    real_roots = [(os.path.normpath(r), os.path.realpath(r)) for r in roots if os.path.isabs(r)]
    if not real_roots:
        raise _refused(
            "no directory is allowed for uploads here (run reins in the directory "
            "that holds the files)"
        )
    chosen = []
    for given in files:
        if not os.path.isabs(given):
            raise _refused(f"{given!r} is not an absolute path (the CLI resolves relative paths)")
        real = os.path.realpath(given)
        root = next((r for r in real_roots if _under(real, r[1])), None)
        if root is None:
            raise _refused(
                f"{given} is outside the directories reins may upload from "
                f"({', '.join(r[1] for r in real_roots)})"
            )
        plain = os.path.normpath(given)
        if _hidden_below(real, root[1]) or any(
            _under(plain, r[0]) and _hidden_below(plain, r[0]) for r in real_roots
        ):
            raise _refused(
                f"{given} is in a hidden file or folder (a name starting with '.'); "
                "reins does not upload those"
            )
        if not os.path.isfile(real):
            raise UsageError(f"{given}: no such file", code="bad_request")
        chosen.append((real, root[1]))
    return chosen


async def upload_files(
    ctx: CommandContext, el: Resolved, files: Sequence[str], cwd: str | None
) -> ActionAnswer[UploadFields]:
    """Attach ``files`` (checked against the allowed directories) to the file input for ``el``:
    the answer's ``files`` field is what the page's input received (names, sizes, types)."""
    roots = ([cwd] if cwd else []) + upload_dirs(ctx.host.profile, ctx.host.home)
    checked = checked_files(files, roots)
    remote = await call_function(
        ctx, el.object_id, "fileInputFor", session_id=el.session_id, by_value=False, what="upload"
    )
    if not remote.get("objectId"):
        raise ResolutionError(
            "no file input for this target (itself, inside it, its label or the control it names)",
            code="not_found",
            hint="target the drop zone or button that holds the input, or the "
            "<input type=file> itself (`reins state` may not list it when "
            "it is hidden; CSS like 'input[type=file]' works)",
        )
    field = Resolved(str(remote["objectId"]), session_id=el.session_id, via="upload")
    info = await call_function(
        ctx, field.object_id, "fileInputInfo", session_id=field.session_id, what="upload"
    )
    if info.get("disabled"):
        raise ResolutionError("the file input is disabled", code="disabled")
    if len(checked) > 1 and not info.get("multiple"):
        raise UsageError(
            f"this file input takes one file; {len(checked)} were given", code="bad_request"
        )
    # Chrome reads a private copy of the very file checked (act/staging.py).
    paths = staged_copies(checked, ctx.host.home)

    async def do(target: Resolved) -> UploadFields:
        await ctx.cdp(
            "DOM.setFileInputFiles",
            {"files": paths, "objectId": target.object_id},
            session_id=target.session_id,
        )
        received = await call_function(
            ctx, target.object_id, "fileList", session_id=target.session_id, what="upload"
        )
        return {"files": received}

    return await act_on(ctx, field, do)
