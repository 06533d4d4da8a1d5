"""Processes below a process, from /proc: what tests check is gone after a kill or a stop."""

from __future__ import annotations

from pathlib import Path


def descendants(pid: int) -> set[int]:
    """Every live process below `pid` (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def running(pids: set[int]) -> set[int]:
    """The pids still running (zombies, which init reaps, count as gone)."""
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            alive.add(pid)
    return alive


def marked(name: str, value: str) -> set[int]:
    """Every live process whose environment holds `name=value` (what a test sets on the process
    it starts: everything that process starts inherits it, reparented or not)."""
    needle = f"{name}={value}".encode()
    found = set()
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            held = needle in environ.read_bytes().split(b"\0")
        except OSError:
            continue
        if held:
            found.add(int(environ.parent.name))
    return running(found)
