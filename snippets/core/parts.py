"""The provenance of a file several commands filled (``--append``): a part per command, what it
ran and measured, and whether it finished."""

from __future__ import annotations

from typing import Any


def complete_parts(old: dict[str, Any], new: dict[str, Any], parts: list[dict[str, Any]],
                   part: int, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """``parts`` each marked whether its command finished, and whether the file is complete:
    every part that still has rows finished (the first part takes ``old``'s word)."""
    marked = [{"complete": bool(old.get("complete")), **p} for p in parts]
    marked[part]["complete"] = bool(new.get("complete"))
    return marked, all(marked[r["part"]]["complete"] for r in rows)


def add_part(old: dict[str, Any], new: dict[str, Any], *, ran: tuple[str, ...],
             measured: tuple[str, ...] = ()) -> tuple[dict[str, Any], int]:
    """``old``'s provenance with a part for ``new`` (date, commit, the settings ``ran``, the
    keys ``measured``), and that part's index. List settings in ``ran`` become the union, so they
    describe the whole file."""
    def part(p: dict[str, Any]) -> dict[str, Any]:
        return {"date": p["date"], "commit": p["commit"], **{k: p.get(k) for k in measured},
                **({"note": p["note"]} if p.get("note") else {}),
                **{k: p["settings"].get(k) for k in ran}}

    parts = old.get("parts") or [part(old)]
    prov = {**old, "settings": dict(old["settings"]), "parts": [*parts, part(new)]}
    for key in ran:
        a, b = old["settings"].get(key), new["settings"].get(key)
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):  # names or sizes
            prov["settings"][key] = list(dict.fromkeys([*a, *b]))
    return prov, len(parts)
