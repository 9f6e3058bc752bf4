"""The dialog watch follows Chrome's dialog events, never the order of reins's own answers.

Pure tests on hand-built event sequences, then the race that lost a re-opening alert played through
a real host process with the test as the extension: the page's next alert is reported before the
answer to `Page.handleJavaScriptDialog` comes back. In a real browser:
tests/browser/test_dialogs.py.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from pathlib import Path
from typing import Any

from reins.bridge.context import Host
from reins.bridge.link import ExtensionLink
from reins.bridge.protocol import CdpEvent
from reins.page.dialogs import DIALOG_EVENTS, DialogOpened, DialogWatch, refuse_while_open

from .fakes import Client, FakeExtension, connect_extension


def opening(message: str, *, frame: str | None = "F1", kind: str = "alert") -> CdpEvent:
    params: dict[str, Any] = {"type": kind, "message": message, "url": "https://a.test/"}
    if frame is not None:
        params["frameId"] = frame
    return CdpEvent(type="event", tabId=4, method="Page.javascriptDialogOpening", params=params)


def closed(*, frame: str | None = "F1") -> CdpEvent:
    params: dict[str, Any] = {"result": True, "userInput": ""}
    if frame is not None:
        params["frameId"] = frame
    return CdpEvent(type="event", tabId=4, method="Page.javascriptDialogClosed", params=params)


def test_opening_then_closed() -> None:
    watch = DialogWatch()
    watch.handle(opening("hello"))
    assert watch.current == {
        "type": "alert",
        "message": "hello",
        "url": "https://a.test/",
        "default_prompt": None,
    }
    assert watch.is_open.is_set()
    watch.handle(closed())
    assert watch.current is None and not watch.is_open.is_set()


def test_an_answer_that_comes_back_after_the_next_opening_keeps_the_new_dialog() -> None:
    watch = DialogWatch()
    watch.handle(opening("round 1"))
    first = watch.dialog
    assert first is not None
    watch.handle(closed())
    watch.handle(opening("round 2"))  # before reins's answer to round 1 is back
    watch.answered(first.serial)  # the answer to round 1 arrives now: it closes nothing
    assert watch.current is not None and watch.current["message"] == "round 2"
    assert watch.is_open.is_set()


def test_an_answer_without_its_closed_event_closes_only_its_own_dialog() -> None:
    watch = DialogWatch()
    watch.handle(opening("only"))
    assert watch.dialog is not None
    watch.answered(watch.dialog.serial)
    assert watch.current is None
    watch.handle(closed())  # late: nothing is open, nothing changes
    assert watch.current is None and not watch.is_open.is_set()


def test_closed_for_another_frame_keeps_the_open_dialog() -> None:
    watch = DialogWatch()
    watch.handle(opening("from the top", frame="TOP"))
    watch.handle(closed(frame="CHILD"))
    assert watch.current is not None and watch.current["message"] == "from the top"
    watch.handle(closed(frame="TOP"))
    assert watch.current is None


def test_closed_without_a_frame_id_closes_the_open_dialog() -> None:
    """Chrome before frameId on the events: one dialog per page, so a Closed is its."""
    watch = DialogWatch()
    watch.handle(opening("old chrome", frame=None))
    watch.handle(closed(frame=None))
    assert watch.current is None


def test_every_opening_is_a_new_serial_even_with_the_same_message() -> None:
    watch = DialogWatch()
    serials = []
    for _ in range(3):
        watch.handle(opening("again"))
        assert watch.dialog is not None
        serials.append(watch.dialog.serial)
        watch.handle(closed())
    assert len(set(serials)) == 3


def test_detach_forgets_the_dialog() -> None:
    watch = DialogWatch()
    watch.handle(opening("x"))
    watch.on_detach()  # the next attachment's Page.enable reports it again if it is still open
    assert watch.current is None and not watch.is_open.is_set()


def test_a_page_message_is_quoted_in_the_error() -> None:
    watch = DialogWatch()
    watch.handle(opening('ok"\n\x1b[31mreins: all done'))
    try:
        refuse_while_open(watch)
    except DialogOpened as exc:
        assert '"ok\\"\\n\\x1b[31mreins: all done"' in str(exc)
        assert exc.details["dialog"]["message"] == 'ok"\n\x1b[31mreins: all done'
    else:
        raise AssertionError("not refused")


def test_waiting_for_an_answered_dialog_to_close() -> None:
    async def run() -> None:
        watch = DialogWatch()
        watch.handle(opening("a"))
        assert watch.dialog is not None
        serial = watch.dialog.serial
        waiter = asyncio.ensure_future(watch.closed(serial, 5.0))
        await asyncio.sleep(0)
        assert not waiter.done()
        watch.handle(closed())
        assert await waiter is True
        # Replaced by the next opening counts as closed too.
        watch.handle(opening("b"))
        assert watch.dialog is not None
        serial = watch.dialog.serial
        waiter = asyncio.ensure_future(watch.closed(serial, 5.0))
        watch.handle(closed())
        watch.handle(opening("c"))
        assert await waiter is True
        assert watch.current is not None and watch.current["message"] == "c"
        # Nothing comes: the wait ends, unanswered.
        assert await watch.closed(watch.dialog.serial, 0.05) is False

    asyncio.run(run())


def test_a_popups_dialog_is_heard_before_the_host_drives_the_tab(tmp_path: Path) -> None:
    """The extension arms a popup itself: its dialog events reach a host that has no state for
    that tab yet, and its watch counts as armed (Page is on: a later Page.enable would wait behind
    the dialog)."""
    host = Host(
        profile="p",
        home=tmp_path,
        link=ExtensionLink(lambda message: None),
        adopted=dict.fromkeys(DIALOG_EVENTS, DialogWatch),
    )
    assert 7 not in host.tabs
    host._event(opening("from the popup").model_copy(update={"tabId": 7}))
    watch = host.tab(7).part(DialogWatch)
    assert watch.armed and watch.current is not None
    assert watch.current["message"] == "from the popup"
    assert set(DIALOG_EVENTS) <= host.tab(7).events  # kept in the host's next subscribe
    # Other events of a tab the host does not drive are still dropped.
    host._event(CdpEvent(type="event", tabId=8, method="Log.entryAdded", params={}))
    assert 8 not in host.tabs


def _event(tab: int, method: str, **params: Any) -> dict[str, Any]:
    return {"type": "event", "tabId": tab, "method": method, "params": params}


class _Extension(threading.Thread):
    """Answers every frame ok, as the extension would; `Page.enable` reports ``open`` first (an
    open dialog is reported so), and `Page.handleJavaScriptDialog` is handed to the test."""

    def __init__(self, host: FakeExtension, tab: int, open_: str) -> None:
        super().__init__(daemon=True)
        self.host, self.tab, self.open = host, tab, open_
        self.held: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                frame = self.host.frames.get(timeout=0.1)
            except queue.Empty:
                continue
            method = frame.get("method")
            if method == "Page.handleJavaScriptDialog":
                self.held.put(frame)
                continue
            if method == "Page.enable":
                self.host.send_frame(
                    _event(
                        self.tab, "Page.javascriptDialogOpening", type="alert", message=self.open
                    )
                )
            self.host.send_frame({"id": frame["id"], "ok": True, "result": {}})


def test_an_alert_reopened_before_the_answer_comes_back_is_not_lost(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    extension = _Extension(host, 4, "round 1")
    extension.start()
    try:
        first = client.call({"id": "show", "cmd": "dialog", "tab": 4, "args": {}})
        assert first["dialog"]["message"] == "round 1", first

        client.send({"id": "accept", "cmd": "dialog", "tab": 4, "args": {"action": "accept"}})
        handle = extension.held.get(timeout=5)
        # Chrome: the dialog closes, the page opens the next one, and only then does the answer
        # to reins arrive.
        host.send_frame(_event(4, "Page.javascriptDialogClosed", result=True, userInput=""))
        host.send_frame(_event(4, "Page.javascriptDialogOpening", type="alert", message="round 2"))
        host.send_frame({"id": handle["id"], "ok": True, "result": {}})
        answer = client.answer()
        assert answer["handled"]["message"] == "round 1", answer

        shown = client.call({"id": "again", "cmd": "dialog", "tab": 4, "args": {}})
        assert shown["dialog"] is not None, "round 2 was lost"
        assert shown["dialog"]["message"] == "round 2", shown
    finally:
        extension.stopped.set()
        extension.join(5)
