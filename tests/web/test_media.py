"""Images served to the pages that show them: the right type, cached by hash, nothing else."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content.compile import images
from app.web.assets import IMMUTABLE, REVALIDATE
from tests.support.content_files import WriteContent
from tests.support.images import png
from tests.support.web_bank import TOPICS

DECK = """
---
title: 图示
slug: figures
language: zh
---

## 图

### Q：roofline 图怎么读？ {#roofline-figure}

**面试回答。** 看图：

![Roofline：三个 kernel 的位置](../assets/roofline.png)

**继续读。** 线性层与 GEMM
"""


@pytest.fixture
def bank_dir(write_content: WriteContent) -> Path:
    root = write_content({"decks/figures.md": DECK, **TOPICS})
    (root / "assets").mkdir()
    (root / "assets" / "roofline.png").write_bytes(png())
    (root / "assets" / "icon.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    )
    (root / "notes.txt").write_text("not an image")
    return root


def test_a_card_shows_its_image_served_with_its_type_and_cached_for_good(
    client: TestClient, bank_dir: Path
) -> None:
    page = client.get("/cards/roofline-figure")
    image = images.load(bank_dir, "assets/roofline.png")
    tag = f'<img src="{image.url}" alt="Roofline：三个 kernel 的位置" width="2" height="1"'
    assert tag in page.text
    served = client.get(image.url)
    assert served.status_code == 200
    assert served.headers["content-type"] == "image/png"
    assert served.headers["cache-control"] == IMMUTABLE
    assert served.content == png()


def test_an_outdated_hash_is_served_but_revalidated(client: TestClient) -> None:
    served = client.get("/media/assets/roofline.png", params={"v": "0" * 16})
    assert served.status_code == 200
    assert served.headers["cache-control"] == REVALIDATE


@pytest.mark.parametrize(
    "path",
    [
        "/media/notes.txt",
        "/media/decks/figures.md",
        "/media/assets/missing.png",
        "/media/../pyproject.toml",
        "/media/%2e%2e/%2e%2e/pyproject.toml",
        "/media/assets/..%2f..%2f..%2fetc%2fpasswd",
        "/media//etc/passwd",
    ],
)
def test_nothing_but_images_inside_the_content_directory(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404, path
    assert "not an image" not in response.text
    assert "root:" not in response.text


def test_an_svg_opened_on_its_own_runs_nothing(client: TestClient) -> None:
    served = client.get("/media/assets/icon.svg")
    assert served.status_code == 200
    assert served.headers["content-type"].startswith("image/svg+xml")
    assert "sandbox" in served.headers["content-security-policy"]
    assert "script-src" not in served.headers["content-security-policy"]
