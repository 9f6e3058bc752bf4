"""Profile names stay with their browser profile; a closed profile's name is not handed to another.

The registry on its own (claim_name, known_profiles), then real host processes that play two
browser profiles starting in either order, and the CLI's `no_host` advice for each kind of profile.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from reins._errors import ConnectionFailure, UsageError
from reins.bridge.client import connect, request
from reins.bridge.names import claim_name, known_profiles

from .fakes import Client, FakeExtension


def _none_live(_: str) -> bool:
    return False


def test_names_follow_the_profile_not_the_start_order(tmp_path: Path) -> None:
    first = claim_name(tmp_path, instance="a", wanted=None, launched=False, is_live=_none_live)
    second = claim_name(tmp_path, instance="b", wanted=None, launched=False, is_live=_none_live)
    assert (first, second) == ("default", "default-2")
    # Next day b starts first, with a closed: b is still default-2; default stays a's.
    assert (
        claim_name(tmp_path, instance="b", wanted=None, launched=False, is_live=_none_live)
        == "default-2"
    )
    assert (
        claim_name(tmp_path, instance="a", wanted=None, launched=False, is_live=_none_live)
        == "default"
    )


def test_a_name_from_install_profile_is_kept_and_shared_ones_get_a_stable_suffix(
    tmp_path: Path,
) -> None:
    # `reins install --profile work`: the user-level launcher every profile of the browser runs.
    assert (
        claim_name(tmp_path, instance="a", wanted="work", launched=False, is_live=_none_live)
        == "work"
    )
    assert (
        claim_name(tmp_path, instance="b", wanted="work", launched=False, is_live=_none_live)
        == "work-2"
    )
    assert (
        claim_name(tmp_path, instance="b", wanted="work", launched=False, is_live=_none_live)
        == "work-2"
    )
    # A profile known as default gets the installed name once it is installed with one.
    claim_name(tmp_path, instance="c", wanted=None, launched=False, is_live=_none_live)
    assert (
        claim_name(tmp_path, instance="c", wanted="home", launched=False, is_live=_none_live)
        == "home"
    )
    assert set(known_profiles(tmp_path)) == {"work", "work-2", "home"}


def test_a_launched_profile_takes_its_name_back_after_its_data_was_reset(tmp_path: Path) -> None:
    assert (
        claim_name(tmp_path, instance="old", wanted="solo", launched=True, is_live=_none_live)
        == "solo"
    )
    assert (
        claim_name(tmp_path, instance="new", wanted="solo", launched=True, is_live=_none_live)
        == "solo"
    )
    assert known_profiles(tmp_path)["solo"].instance == "new"
    # …but not from one that is running.
    assert (
        claim_name(
            tmp_path,
            instance="third",
            wanted="solo",
            launched=True,
            is_live=lambda name: name == "solo",
        )
        == "solo-2"
    )
    # …and never from the user's own profile.
    claim_name(tmp_path, instance="own", wanted="work", launched=False, is_live=_none_live)
    assert (
        claim_name(tmp_path, instance="launched", wanted="work", launched=True, is_live=_none_live)
        == "work-2"
    )


def test_a_bad_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        claim_name(tmp_path, instance="a", wanted="../x", launched=False, is_live=_none_live)


def test_an_unreadable_registry_counts_as_empty(tmp_path: Path) -> None:
    (tmp_path / "profiles.json").write_text("{not json")
    assert known_profiles(tmp_path) == {}
    assert (
        claim_name(tmp_path, instance="a", wanted=None, launched=False, is_live=_none_live)
        == "default"
    )
    assert (
        json.loads((tmp_path / "profiles.json").read_text())["profiles"]["default"]["instance"]
        == "a"
    )


# ---- real host processes -------------------------------------------------------------------


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix domain sockets")


def _run(home: Path, instance: str, name: str) -> FakeExtension:
    fake = FakeExtension(home, instance=instance, profile=None, name=name)
    try:
        fake.wait_for_socket()
        assert fake.next_frame()["profile"] == name
    except BaseException:
        fake.stop()
        raise
    return fake


def test_two_profiles_keep_their_names_whichever_starts_first(short_home: Path) -> None:
    a = _run(short_home, "profile-a", "default")
    b = _run(short_home, "profile-b", "default-2")
    a.stop()
    b.stop()
    b = _run(short_home, "profile-b", "default-2")  # b alone, first: still default-2
    a = _run(short_home, "profile-a", "default")
    a.stop()
    b.stop()


def test_when_the_chosen_profile_closes_commands_do_not_go_to_the_other(
    short_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REINS_HOME", str(short_home))
    a = _run(short_home, "profile-a", "default")
    b = _run(short_home, "profile-b", "default-2")
    try:
        with pytest.raises(ConnectionFailure) as several:
            connect(None, short_home)
        assert several.value.code == "ambiguous_profile"
        assert several.value.details["profiles"] == ["default", "default-2"]
        a.stop()
        with pytest.raises(ConnectionFailure) as gone:
            request("ping", profile="default")
        assert gone.value.code == "no_host"
        # The profile is the user's own browser: open it, not `reins launch`.
        assert "your own browser profile" in gone.value.message
        assert "reins launch" not in gone.value.message
    finally:
        a.stop()
        b.stop()


def test_no_host_says_how_each_kind_of_profile_comes_back(
    short_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REINS_HOME", str(short_home))
    with pytest.raises(ConnectionFailure) as nothing_yet:
        connect(None, short_home)
    assert (
        "reins launch" in nothing_yet.value.message
        and "reins extension" in nothing_yet.value.message
    )
    own = _run(short_home, "profile-a", "default")
    own.stop()
    launched = FakeExtension(short_home, instance="profile-l", profile="solo", launched=True)
    launched.wait_for_socket()
    launched.stop()
    with pytest.raises(ConnectionFailure) as closed:
        connect("solo", short_home)
    assert "`reins launch --profile solo`" in closed.value.message
    with pytest.raises(ConnectionFailure) as none_open:
        connect(None, short_home)
    assert "profile default: it is your own browser profile" in none_open.value.message
    assert "profile solo: `reins launch --profile solo`" in none_open.value.message


def test_a_new_host_of_the_same_profile_takes_the_socket_over_and_keeps_it(
    short_home: Path,
) -> None:
    old = _run(short_home, "profile-a", "default")
    old_inode = old.socket_path.stat().st_ino
    new = FakeExtension(short_home, instance="profile-a", profile=None, name="default")
    try:
        assert new.next_frame(timeout=10)["profile"] == "default"  # not default-2
        deadline = time.monotonic() + 10
        while new.socket_path.stat().st_ino == old_inode:  # the old one still answers: a wait
            assert time.monotonic() < deadline, "the new host never took the socket over"
            time.sleep(0.05)
        old.stop()  # leaving, it must not remove the newer host's socket
        conn = Client(new.socket_path)
        assert conn.call({"id": 1, "cmd": "ping"})["ok"] is True
        conn.close()
    finally:
        old.stop()
        new.stop()
