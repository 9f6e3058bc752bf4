from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import replace

import pytest
from reins.observe.identity import (
    STRONG_MISMATCH_CAP,
    Identity,
    assign_refs,
    compare,
    normalize_ref_text,
    ref_for,
    ref_signal,
    resolve_collisions,
)

LEARN_MORE = Identity(
    role="link", name="Learn more", tag="a", parent_role="navigation", sibling_index=0
)
# Computed once with sha256; a change here breaks every ref agents hold.
LEARN_MORE_REF = "@ettk6l"


def record(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "i": 0,
        "frame": "f0",
        "tag": "button",
        "role": "button",
        "name": "Save",
        "testid": None,
        "id": None,
        "aria_label": None,
        "name_attr": None,
        "parent_role": "form",
        "sibling_index": 2,
    }
    base.update(overrides)
    return base


# -- normalization and ref priority ------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "ref"),
    [
        ({"testid": "submit-btn"}, "@submitbtn"),
        ({"id": "email-field"}, "@emailfield"),
        ({"aria_label": "Close dialog"}, "@closedialog"),
        ({"testid": "submit-btn", "id": "email-field", "aria_label": "x"}, "@submitbtn"),
        ({"id": "email-field", "aria_label": "Close dialog"}, "@emailfield"),
        ({"id": "Very_Long-Identifier-Name"}, "@verylongiden"),
        ({"id": "checkout:step.2[a]"}, "@checkoutstep"),
    ],
)
def test_strong_signals_in_priority_order(fields: dict[str, str], ref: str) -> None:
    assert ref_for(Identity.from_record(record(**fields))) == ref


def test_normalize_lowercases_strips_and_truncates() -> None:
    assert normalize_ref_text("Submit-BTN") == "submitbtn"
    assert normalize_ref_text("a" * 20) == "a" * 12
    assert normalize_ref_text("  ") == ""
    assert normalize_ref_text(None) == ""


def test_non_latin_id_falls_through() -> None:
    korean_id = Identity.from_record(record(id="이메일", aria_label="Email address"))
    assert ref_for(korean_id) == "@emailaddress"
    assert ref_signal(korean_id) == "aria_label"

    nothing_latin = Identity.from_record(record(id="이메일", aria_label="닫기"))
    assert ref_for(nothing_latin).startswith("@e")
    assert ref_signal(nothing_latin) == "hash"


def test_hash_ref_shape_and_known_value() -> None:
    ref = ref_for(LEARN_MORE)
    assert ref == LEARN_MORE_REF
    assert len(ref) == 7 and ref[:2] == "@e" and ref[2:].isalnum()


def test_hash_ref_is_the_same_in_another_process() -> None:
    script = textwrap.dedent(
        """
        from reins.observe.identity import Identity, ref_for
        print(ref_for(Identity(role="link", name="Learn more", tag="a",
                               parent_role="navigation", sibling_index=0)))
        """
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == LEARN_MORE_REF


def test_hash_ref_depends_on_each_hashed_signal() -> None:
    variants = [
        Identity(
            role="button", name="Learn more", tag="a", parent_role="navigation", sibling_index=0
        ),
        Identity(
            role="link", name="Learn less", tag="a", parent_role="navigation", sibling_index=0
        ),
        Identity(
            role="link", name="Learn more", tag="span", parent_role="navigation", sibling_index=0
        ),
        Identity(role="link", name="Learn more", tag="a", parent_role="main", sibling_index=0),
        Identity(
            role="link", name="Learn more", tag="a", parent_role="navigation", sibling_index=1
        ),
    ]
    refs = {ref_for(v) for v in variants}
    assert len(refs) == 5 and LEARN_MORE_REF not in refs


def test_from_record_tolerates_missing_and_odd_values() -> None:
    ax = Identity.from_record({"role": "button", "name": "  Save\n draft ", "backend_node_id": 7})
    assert ax == Identity(role="button", name="Save draft")
    odd = Identity.from_record({"id": 5, "sibling_index": True, "tag": "BUTTON", "testid": ""})
    assert odd == Identity(tag="button")


# -- collisions -----------------------------------------------------------------------------------


def test_collisions_resolve_in_document_order() -> None:
    save = Identity(id="save")
    assert assign_refs([save, save, save]) == ["@save", "@save2", "@save3"]


def test_collision_suffix_skips_names_already_taken() -> None:
    save, save2 = Identity(id="save"), Identity(id="save2")
    # The element whose own id is save2 keeps @save2; the duplicate save moves on to @save3.
    assert assign_refs([save, save, save2]) == ["@save", "@save3", "@save2"]
    assert resolve_collisions(["@save"], taken={"@save", "@save2"}) == ["@save3"]


def test_assign_refs_is_deterministic() -> None:
    identities = [Identity(id="a"), LEARN_MORE, Identity(id="a"), LEARN_MORE]
    assert assign_refs(identities) == assign_refs(list(identities))
    assert assign_refs(identities) == ["@a", LEARN_MORE_REF, "@a2", LEARN_MORE_REF + "2"]


# -- compare ----------------------------------------------------------------------------------------


def test_compare_identical_is_one() -> None:
    full = Identity.from_record(record(testid="t", id="i", aria_label="l"))
    assert compare(full, full) == 1.0


def test_compare_counts_only_signals_present_somewhere() -> None:
    a = Identity(role="button", name="Save", tag="button")
    b = Identity(role="button", name="Save", tag="span")
    # role 2 + name 2 match, tag 1 differs: 4/5.
    assert compare(a, b) == pytest.approx(4 / 5)


def test_signal_on_one_side_is_a_mismatch() -> None:
    a = Identity(aria_label="Close", role="button", name="X")
    b = Identity(role="button", name="X")
    # aria_label 2 counts against: (2+2)/(2+2+2).
    assert compare(a, b) == pytest.approx(4 / 6)


def test_weights() -> None:
    a = Identity(testid="x", role="r", name="n", tag="t", parent_role="p", sibling_index=1)
    # total 3+2+2+1+1+1 = 10; sibling_index (1) differs, then name (2).
    assert compare(a, replace(a, sibling_index=2)) == pytest.approx(9 / 10)
    assert compare(a, replace(a, name="m")) == pytest.approx(8 / 10)
    assert compare(a, replace(a, role="q", tag="u")) == pytest.approx(7 / 10)


SHARED = Identity(aria_label="a", role="r", name="n", tag="t", parent_role="p", sibling_index=0)


def test_strong_mismatch_caps_below_half() -> None:
    pairs = [
        (replace(SHARED, testid="one"), replace(SHARED, testid="two")),
        (replace(SHARED, id="one"), replace(SHARED, id="two")),
    ]
    for a, b in pairs:
        assert compare(a, b) == STRONG_MISMATCH_CAP < 0.5


def test_aria_label_mismatch_is_not_capped() -> None:
    # aria_label (2) of 9 differs, and no cap applies.
    assert compare(SHARED, replace(SHARED, aria_label="b")) == pytest.approx(7 / 9)


def test_compare_edge_cases() -> None:
    assert compare(Identity(), Identity()) == 0.0
    assert compare(Identity(role="button"), Identity(name="Save")) == 0.0
    a = Identity(role="button", name="Save")
    b = Identity(role="button", name="Cancel", id="cancel")
    assert 0.0 <= compare(a, b) <= 1.0
    assert compare(a, b) == compare(b, a)


def test_sibling_index_zero_is_present() -> None:
    assert compare(Identity(sibling_index=0), Identity(sibling_index=None)) == 0.0
    assert compare(Identity(sibling_index=0), Identity(sibling_index=0)) == 1.0


def test_from_record_puts_each_signal_in_its_own_field() -> None:
    got = Identity.from_record(
        {
            "testid": "t",
            "id": "i",
            "aria_label": "a",
            "role": "r",
            "name": "n",
            "tag": "DIV",
            "parent_role": "p",
            "sibling_index": 4,
            "name_attr": "na",
        }
    )
    assert got == Identity(
        testid="t",
        id="i",
        aria_label="a",
        role="r",
        name="n",
        tag="div",
        parent_role="p",
        sibling_index=4,
        name_attr="na",
    )
