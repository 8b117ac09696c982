"""Images in content: resolved beside the file that shows them, checked at check and import."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main
from app.content.bank.sync import check_content
from app.content.compile import images
from app.content.compile.render import Renderer
from app.content.errors import ContentError
from tests.support.content_files import WriteContent
from tests.support.images import png


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "assets").mkdir()
    (tmp_path / "decks").mkdir()
    (tmp_path / "assets" / "roofline.png").write_bytes(png())
    (tmp_path / "decks" / "figure.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    return tmp_path


def render(root: Path | None, text: str, line: int = 10) -> tuple[str, list[str]]:
    errors: list[ContentError] = []
    out = Renderer(root).render(text, path="decks/gpu.md", line=line, errors=errors)
    return out.html, [str(e) for e in errors]


def test_an_image_beside_the_content_gets_a_hashed_url_alt_text_and_lazy_loading(
    root: Path,
) -> None:
    html, errors = render(root, "见下图：\n\n![Roofline 图：A1 在斜坡下](../assets/roofline.png)")
    assert errors == []
    sha = images.load(root, "assets/roofline.png").sha
    assert (
        f'<img src="/media/assets/roofline.png?v={sha}" alt="Roofline 图：A1 在斜坡下" '
        'width="2" height="1" loading="lazy" decoding="async" />'
    ) in html


def test_an_image_in_the_same_folder_and_an_svg(root: Path) -> None:
    html, errors = render(root, "![示意](figure.svg)")
    assert errors == []
    assert 'src="/media/decks/figure.svg?v=' in html
    assert "width=" not in html  # this SVG does not say its size


@pytest.mark.parametrize(
    ("name", "data", "size"),
    [
        ("a.png", png(640, 480), (640, 480)),
        ("a.gif", b"GIF89a\x20\x03\x58\x02" + b"\0" * 20, (800, 600)),
        (
            "a.jpg",
            b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
            b"\xff\xc0\x00\x11\x08\x01\xe0\x02\x80\x03" + b"\0" * 20,
            (640, 480),
        ),
        (
            "a.svg",
            b'<svg xmlns="http://www.w3.org/2000/svg" width="420" height="260px"/>',
            (420, 260),
        ),
        ("a.webp", b"RIFF\0\0\0\0WEBPVP8 " + b"\0" * 20, None),
    ],
)
def test_the_size_an_image_file_states(
    root: Path, name: str, data: bytes, size: tuple[int, int] | None
) -> None:
    (root / "assets" / name).write_bytes(data)
    assert images.load(root, f"assets/{name}").size == size


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("![图](../assets/missing.png)", "image 'assets/missing.png' not found"),
        ("![图](../../etc/passwd.png)", "image '../../etc/passwd.png' is outside the content"),
        ("![图](/etc/x.png)", "image '/etc/x.png' must be a file in the content directory"),
        ("![图](https://example.com/x.png)", "is on the web; it is never fetched"),
        ("![图](data:image/png;base64,AAAA)", "must be a file in the content directory"),
        ("![图](../assets/roofline.bmp)", "image 'assets/roofline.bmp' is not a supported type"),
        ("![图](../.git/x.png)", "image '../.git/x.png' is in a hidden folder or file"),
        (
            "![](../assets/roofline.png)",
            "image '../assets/roofline.png' has no alt text; shown as 'roofline.png'",
        ),
    ],
)
def test_bad_images_are_errors_at_their_line(root: Path, text: str, message: str) -> None:
    _, errors = render(root, "第一行\n\n" + text, line=10)
    assert len(errors) == 1, errors
    assert errors[0].startswith("decks/gpu.md:12: ")
    assert message in errors[0]


def test_bytes_that_are_not_the_named_type(root: Path) -> None:
    (root / "assets" / "fake.png").write_text("not a picture")
    _, errors = render(root, "![图](../assets/fake.png)")
    assert errors == ["decks/gpu.md:10: image 'fake.png' is not a png file"]


def test_an_image_over_the_size_limit(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(images, "MAX_BYTES", 10)
    _, errors = render(root, "![图](../assets/roofline.png)")
    assert len(errors) == 1
    assert f"image 'assets/roofline.png' is {len(png())} bytes; the limit is 10 bytes" in errors[0]


def test_a_symlink_out_of_the_content_directory(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.png"
    outside.write_bytes(png())
    (root / "assets" / "link.png").symlink_to(outside)
    _, errors = render(root, "![图](../assets/link.png)")
    assert errors == ["decks/gpu.md:10: image 'assets/link.png' is outside the content directory"]


def test_without_a_content_directory_images_are_errors() -> None:
    _, errors = render(None, "![图](../assets/roofline.png)")
    assert len(errors) == 1
    assert "cannot be shown here" in errors[0]


DECK = """\
---
title: GPU
---

## 计算

### Q：roofline 图怎么读？ {#roofline-figure}

**面试回答。** 看图：

![Roofline：三个 kernel 的位置](../assets/{name})
"""


def test_check_and_import_report_a_missing_image_with_its_line(
    write_content: WriteContent, settings: object
) -> None:
    root = write_content({"decks/gpu.md": DECK.replace("{name}", "nowhere.png")})
    checked = CliRunner().invoke(main, ["check", "--strict", str(root)])
    assert checked.exit_code == 1
    assert "decks/gpu.md:11: image 'assets/nowhere.png' not found" in checked.stderr
    assert "Traceback" not in checked.output
    imported = CliRunner().invoke(main, ["import", "--strict", str(root)])
    assert imported.exit_code == 1
    assert "decks/gpu.md:11: image 'assets/nowhere.png' not found" in imported.stderr

    (root / "assets").mkdir()
    (root / "assets" / "nowhere.png").write_bytes(png())
    assert CliRunner().invoke(main, ["check", str(root)]).exit_code == 0
    assert CliRunner().invoke(main, ["import", str(root)]).exit_code == 0


def test_one_web_image_on_every_question_is_one_warning_and_a_count(
    tmp_path: Path,
) -> None:
    badge = "![Easy](https://example.com/badge.svg)"
    questions = "".join(
        f"## 第 {n} 个 warp 有几个线程？\n\n{badge}\n\n32 个。\n\n" for n in range(30)
    )
    other = "## 最后：什么是 bank？\n\n![图](https://example.com/other.png)\n\n共享内存的分区。\n"
    (tmp_path / "n.md").write_text("# 笔记\n\n" + questions + other, encoding="utf-8")
    report = check_content(tmp_path)
    words = [str(w) for w in report.warnings]
    assert sum("badge.svg" in w for w in words) == 1, words
    assert sum("other.png" in w for w in words) == 1, words
    repeated = [w for w in words if "the same again at line" in w]
    assert len(repeated) == 1, words
    lines = "11, 17, 23, 29, 35, 41, 47, 53, 59, 65…"
    assert repeated[0].startswith(f"n.md:5: the same again at lines {lines} of this")
    assert words.index(repeated[0]) == words.index(next(w for w in words if "badge.svg" in w)) + 1
    assert repeated[0].endswith("of this note (29 more)")


def test_a_warning_said_twice_names_its_second_line(tmp_path: Path) -> None:
    image = "![图](https://example.com/x.png)"
    text = f"# 笔记\n\n## 什么是 warp？\n\n{image}\n\n## 什么是 bank？\n\n{image}\n"
    (tmp_path / "n.md").write_text(text, encoding="utf-8")
    words = [str(w) for w in check_content(tmp_path).warnings]
    assert words[1:] == ["n.md:5: the same again at line 9 of this note"], words


def test_an_answer_that_is_only_a_figure_reads_as_its_alt_text(root: Path) -> None:
    """A figure shown, a web image (a link) and a missing one: none leaves the answer empty."""
    (root / "decks" / "gpu.md").write_text(
        "# GPU\n\n## Q: What does the roofline look like?\n\n"
        "![斜坡与屋顶](../assets/roofline.png)\n\n"
        "## Q: And on the web?\n\n![web roofline](https://example.org/roof.png)\n\n"
        "## Q: And one not in the folder?\n\n![lost figure](gone.png)\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["check", str(root), "--json"])
    report = json.loads(result.stdout)
    [deck] = [f for f in report["files"] if f["path"] == "decks/gpu.md"]
    answers = [card["answer"] for card in deck["cards"]]
    assert answers == ["斜坡与屋顶", "web roofline", "lost figure"]
