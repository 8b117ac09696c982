"""A renderer that remembers each formula's HTML, and cases written with the formulas collapsed."""

import html

from app.content.compile.render import Renderer


class RecordingRenderer(Renderer):
    """A real Renderer that remembers which HTML each formula became."""

    def __init__(self) -> None:
        super().__init__()
        self.outputs: dict[str, tuple[str, bool]] = {}

    def formula(self, tex: str, display: bool) -> str:
        out = super().formula(tex, display)
        self.outputs[out] = (tex, display)
        return out


def collapse_math(rendered: str, renderer: RecordingRenderer) -> str:
    """Replace each KaTeX fragment with `<katex>tex</katex>` so cases stay readable."""
    for out, (tex, display) in sorted(renderer.outputs.items(), key=lambda kv: -len(kv[0])):
        tag = "katex display" if display else "katex"
        rendered = rendered.replace(out, f"<{tag}>{html.escape(tex, quote=False)}</katex>")
    return rendered
