"""The provenance of a results file that several commands filled (``--append``): one part per
command, what it ran and measured, and whether it finished. ``results.join`` adds the rows."""

from __future__ import annotations

from typing import Any


def complete_parts(old: dict[str, Any], new: dict[str, Any], parts: list[dict[str, Any]],
                   part: int, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """For a file that ``--append`` joined ``new`` to ``old``: its ``parts`` (from ``add_part``),
    each marked whether its command finished, and whether the file is complete. It is when every
    part that still has rows finished: an interrupted command's rows, all measured again later,
    leave none. The file's first command, whose part ``add_part`` made from ``old``'s provenance,
    takes ``old``'s word for it."""
    marked = [{"complete": bool(old.get("complete")), **p} for p in parts]
    marked[part]["complete"] = bool(new.get("complete"))
    return marked, all(marked[r["part"]]["complete"] for r in rows)


def add_part(old: dict[str, Any], new: dict[str, Any], *, ran: tuple[str, ...],
             measured: tuple[str, ...] = ()) -> tuple[dict[str, Any], int]:
    """The provenance of a file that ``--append`` adds a command's rows to, and the index of that
    command's part, for its rows to name as ``part``.

    ``old`` and ``new`` are the two provenances. The file keeps ``old``'s, with ``parts``: one
    entry per command, its date and commit, the settings ``ran`` (what it ran: models, batch
    sizes, modes...) and the provenance keys ``measured`` (what it measured of the machine, such
    as its peak). The list-valued settings in ``ran`` become the union over the commands, so they
    describe the whole file, not its last command; a row whose date or commit matters reads its
    part's."""
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
