"""Reading back what a plot drew, for tests of the figures: a figure's text is drawn as paths,
so a test asserts the values handed to matplotlib rather than the picture or its label."""

from __future__ import annotations

from typing import Any


def calls(monkeypatch: Any, owner: type, name: str) -> list[tuple[tuple, dict]]:
    """Every call of ``owner.name`` (``Axes.barh``, say) while the test runs, as (args, kwargs)
    without the instance; each call still draws."""
    seen: list[tuple[tuple, dict]] = []
    original = getattr(owner, name)

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append((args, kwargs))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, spy)
    return seen
