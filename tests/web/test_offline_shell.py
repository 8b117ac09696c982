"""The service worker's script: at the site's root, listing today's app shell, all of it served."""

import json


def test_the_worker_lists_the_shell_under_versioned_urls_that_exist(client):
    worker = client.get("/sw.js")
    assert worker.status_code == 200
    assert worker.headers["content-type"].startswith("text/javascript")
    assert worker.headers["cache-control"] == "no-cache"
    first = worker.text.splitlines()[0]
    assert first.startswith("const SHELL = ") and first.endswith(";")
    shell = json.loads(first.removeprefix("const SHELL = ").removesuffix(";"))
    urls = shell["urls"]
    assert urls
    assert all(url.startswith(f"/static/v/{shell['version']}/") for url in urls)
    names = {url.rsplit("/", 1)[1] for url in urls}
    assert {"app.css", "study.js", "queue.js", "manifest.json", "icon-512.png"} <= names
    assert "KaTeX_Main-Regular.woff2" in names
    assert not any(name.endswith((".ttf", ".woff")) for name in names), "woff2 only"
    for url in urls:
        assert client.get(url).status_code == 200, url


def test_every_page_links_the_manifest(client):
    page = client.get("/")
    assert 'rel="manifest"' in page.text
    manifest_url = page.text.split('rel="manifest" href="', 1)[1].split('"', 1)[0]
    manifest = client.get(manifest_url).json()
    assert manifest["start_url"] == "/study"
