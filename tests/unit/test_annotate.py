from __future__ import annotations

import io
import itertools

import pytest
from PIL import Image
from reins._errors import UsageError
from reins.observe.annotate import PALETTE, AnnotatedImage, Mark, annotate, mark_color

WHITE = (255, 255, 255)


def blank_png(width: int, height: int, color: tuple[int, int, int] = WHITE) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, format="PNG")
    return out.getvalue()


def decode(result: AnnotatedImage) -> Image.Image:
    image = Image.open(io.BytesIO(result.png))
    assert image.format == "PNG"
    return image.convert("RGB")


def intersects(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def inside(rect: tuple[int, int, int, int], width: int, height: int) -> bool:
    return 0 <= rect[0] < rect[2] <= width and 0 <= rect[1] < rect[3] <= height


def test_output_is_a_png_of_the_same_size() -> None:
    result = annotate(blank_png(320, 200), [Mark("@save", 40, 60, 80, 30)])
    image = decode(result)
    assert image.size == (320, 200)
    assert (result.width, result.height) == (320, 200)


def test_box_outline_is_drawn_in_the_marks_colour() -> None:
    result = annotate(blank_png(300, 200), [Mark("@save", 100, 80, 60, 40)])
    image = decode(result)
    [placement] = result.placements
    assert placement.box == (100, 80, 160, 120)
    assert placement.color == mark_color("@save")
    # Left, right and bottom edges (the label may sit on the top edge), and a 2 px width.
    for x, y in [(100, 110), (101, 110), (159, 110), (158, 110), (130, 119), (130, 118)]:
        assert image.getpixel((x, y)) == placement.color
    assert image.getpixel((102, 110)) == WHITE  # the outline is 2 px, not a fill
    assert image.getpixel((130, 100)) == WHITE
    assert image.getpixel((99, 110)) == WHITE


def test_label_is_a_filled_rectangle_with_contrasting_text() -> None:
    result = annotate(blank_png(300, 200), [Mark("@categorytrig", 100, 80, 60, 40)])
    image = decode(result)
    [placement] = result.placements
    x0, y0, x1, y1 = placement.label_box
    assert 11 <= y1 - y0 <= 16  # ~12-14 px at scale 1
    colours = {image.getpixel((x, y)) for x in range(x0, x1) for y in range(y0, y1)}
    assert placement.color in colours
    assert colours & {(0, 0, 0), (255, 255, 255)}  # the text pixels
    assert image.getpixel((x0, y0)) == placement.color  # corner: padding, no text


def test_label_goes_above_left_when_there_is_room() -> None:
    result = annotate(blank_png(300, 200), [Mark("@save", 100, 80, 60, 40)])
    [placement] = result.placements
    x0, _, _, y1 = placement.label_box
    assert (x0, y1) == (100, 80)


def test_same_label_keeps_its_colour_across_calls_and_positions() -> None:
    first = annotate(blank_png(200, 200), [Mark("@e7f3a2", 10, 30, 20, 20)])
    second = annotate(
        blank_png(400, 300, (30, 30, 30)),
        [Mark("@other", 0, 0, 50, 50), Mark("@e7f3a2", 200, 150, 90, 40)],
    )
    colour = first.placements[0].color
    assert colour in PALETTE
    assert [p.color for p in second.placements if p.label == "@e7f3a2"] == [colour]
    assert mark_color("@e7f3a2") == colour


def test_palette_spreads_labels_over_several_colours() -> None:
    colours = {mark_color(f"@e{n:05x}") for n in range(100)}
    assert len(colours) >= len(PALETTE) - 1


def test_crowded_grid_labels_do_not_overlap_and_stay_inside() -> None:
    # 40 boxes of 20x20 packed edge to edge: labels are wider than boxes, but there is room around.
    marks = [
        Mark(f"@e{(n * 2654435761) % 16**6:06x}", 120 + (n % 8) * 20, 100 + (n // 8) * 20, 20, 20)
        for n in range(40)
    ]
    result = annotate(blank_png(400, 300), marks)
    assert len(result.placements) == 40
    assert not result.skipped
    boxes = [p.label_box for p in result.placements]
    assert all(inside(b, 400, 300) for b in boxes)
    for a, b in itertools.combinations(boxes, 2):
        assert not intersects(a, b), (a, b)


def test_labels_stay_inside_when_there_is_no_room_at_all() -> None:
    marks = [Mark(f"@crowd{n}", (n % 6) * 10, (n // 6) * 10, 10, 10) for n in range(36)]
    result = annotate(blank_png(60, 60), marks)
    assert all(inside(p.label_box, 60, 60) for p in result.placements)


def test_label_wider_than_image_is_cut_to_the_image() -> None:
    result = annotate(blank_png(40, 30), [Mark("@averyveryverylongref", 5, 5, 10, 10)])
    [placement] = result.placements
    assert inside(placement.label_box, 40, 30)


def test_labels_at_the_edges_stay_inside() -> None:
    marks = [
        Mark("@topleft", 0, 0, 30, 20),
        Mark("@topright", 270, 0, 30, 20),
        Mark("@bottomleft", 0, 180, 30, 20),
        Mark("@bottomright", 270, 180, 30, 20),
    ]
    result = annotate(blank_png(300, 200), marks)
    assert len(result.placements) == 4
    assert all(inside(p.label_box, 300, 200) for p in result.placements)


def test_marks_entirely_outside_are_skipped_and_reported() -> None:
    marks = [
        Mark("@right", 400, 10, 20, 20),
        Mark("@below", 10, 250, 20, 20),
        Mark("@left", -50, 10, 50, 20),  # ends exactly at the left edge
        Mark("@empty", 10, 10, 0, 0),
        Mark("@shown", 10, 10, 20, 20),
    ]
    result = annotate(blank_png(300, 200), marks)
    assert [m.label for m in result.skipped] == ["@right", "@below", "@left", "@empty"]
    assert [p.label for p in result.placements] == ["@shown"]


def test_partially_outside_marks_are_clipped_and_drawn() -> None:
    result = annotate(blank_png(300, 200), [Mark("@half", 260, -20, 80, 60)])
    image = decode(result)
    [placement] = result.placements
    assert placement.box == (260, 0, 300, 40)
    assert image.getpixel((260, 30)) == placement.color  # the visible left edge
    assert image.getpixel((280, 39)) == placement.color  # the visible bottom edge
    assert inside(placement.label_box, 300, 200)


def test_scale_two_doubles_coordinates() -> None:
    mark = Mark("@save", 10, 20, 30, 40)
    one = annotate(blank_png(200, 150), [mark])
    two = annotate(blank_png(400, 300), [mark], scale=2.0)
    assert one.placements[0].box == (10, 20, 40, 60)
    assert two.placements[0].box == (20, 40, 80, 120)
    h1 = one.placements[0].label_box[3] - one.placements[0].label_box[1]
    h2 = two.placements[0].label_box[3] - two.placements[0].label_box[1]
    assert 1.7 <= h2 / h1 <= 2.3  # the label scales with the device pixels too
    image = decode(two)
    assert image.getpixel((20, 100)) == two.placements[0].color
    assert image.getpixel((23, 100)) == two.placements[0].color  # 2 CSS px = 4 device px
    assert image.getpixel((24, 100)) == WHITE


def test_fractional_scale_rounds_to_whole_pixels() -> None:
    result = annotate(blank_png(300, 300), [Mark("@x", 10, 10, 20, 20)], scale=1.5)
    assert result.placements[0].box == (15, 15, 45, 45)


@pytest.mark.parametrize(
    "data",
    [b"", b"not a png at all", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, blank_png(50, 50)[:60]],
)
def test_invalid_bytes_raise_a_typed_error(data: bytes) -> None:
    with pytest.raises(UsageError) as info:
        annotate(data, [Mark("@save", 0, 0, 10, 10)])
    assert info.value.code == "bad_request"


def test_non_screenshot_formats_are_refused() -> None:
    out = io.BytesIO()
    Image.new("RGB", (20, 20)).save(out, format="GIF")
    with pytest.raises(UsageError) as info:
        annotate(out.getvalue(), [])
    assert info.value.code == "bad_request"


@pytest.mark.parametrize("scale", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_scale_raises_a_typed_error(scale: float) -> None:
    with pytest.raises(UsageError):
        annotate(blank_png(20, 20), [], scale=scale)


@pytest.mark.parametrize(
    "mark",
    [
        Mark("@a", float("nan"), 0, 1, 1),
        Mark("@b", 0, 0, -5, 10),
        Mark("@c", 0, 0, 1, float("inf")),
    ],
)
def test_bad_marks_raise_a_typed_error(mark: Mark) -> None:
    with pytest.raises(UsageError):
        annotate(blank_png(20, 20), [mark])


def test_same_input_gives_the_same_bytes() -> None:
    png = blank_png(400, 300)
    marks = [Mark(f"@m{n}", (n * 37) % 380, (n * 53) % 280, 25, 18) for n in range(30)]
    first = annotate(png, marks)
    second = annotate(png, marks)
    assert first.png == second.png
    assert first.placements == second.placements


def test_no_marks_returns_the_image_unchanged_in_pixels() -> None:
    png = blank_png(64, 48, (10, 120, 200))
    result = annotate(png, [])
    assert decode(result).tobytes() == Image.open(io.BytesIO(png)).convert("RGB").tobytes()
    assert result.placements == () and result.skipped == ()


def test_rgba_screenshots_keep_their_mode() -> None:
    out = io.BytesIO()
    Image.new("RGBA", (100, 80), (255, 255, 255, 255)).save(out, format="PNG")
    result = annotate(out.getvalue(), [Mark("@save", 20, 30, 40, 20)])
    image = Image.open(io.BytesIO(result.png))
    assert image.mode == "RGBA"
    pixel = image.getpixel((20, 40))
    assert isinstance(pixel, tuple) and pixel[:3] == result.placements[0].color


def test_label_far_from_its_box_gets_a_leader_line() -> None:
    # A wall of boxes around the target forces its label away; a line must join them.
    marks = [
        Mark(f"@w{n:02d}", (n % 10) * 20 + 100, (n // 10) * 20 + 100, 20, 20) for n in range(50)
    ]
    result = annotate(blank_png(400, 300), marks)
    image = decode(result)
    away = [
        p
        for p in result.placements
        if not intersects(
            (p.label_box[0] - 1, p.label_box[1] - 1, p.label_box[2] + 1, p.label_box[3] + 1),
            p.box,
        )
    ]
    assert away  # the setup does force some labels away
    joined = 0
    for p in away:
        # The line leaves the label: a pixel of the mark's colour in the 1 px ring around it.
        lx0, ly0, lx1, ly1 = p.label_box
        ring = [(x, y) for x in (lx0 - 1, lx1) for y in range(ly0 - 1, ly1 + 1)]
        ring += [(x, y) for y in (ly0 - 1, ly1) for x in range(lx0, lx1)]
        ring = [(x, y) for x, y in ring if 0 <= x < 400 and 0 <= y < 300]
        joined += any(image.getpixel(xy) == p.color for xy in ring)
    # Leader lines may cross and hide one another's first pixel, so not every one is checkable.
    assert joined >= 0.8 * len(away)
