"""CPU time and peak resident memory of the server's process tree, from /proc."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found.extend(int(p) for p in task.read_text().split())
        except OSError:
            continue
    return found


def process_tree(pid: int) -> list[int]:
    """`pid` and all its descendants that are still alive."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        if not Path(f"/proc/{current}").exists():
            continue
        tree.append(current)
        todo.extend(_children(current))
    return tree


def cpu_seconds(pid: int) -> float:
    """User + system CPU of the tree (children's own counters, not reaped ones)."""
    total = 0
    for member in process_tree(pid):
        try:
            stat = Path(f"/proc/{member}/stat").read_text()
        except OSError:
            continue
        # Fields after the parenthesised command name; utime and stime are 14 and 15.
        fields = stat.rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / CLOCK_TICKS


@dataclass(frozen=True)
class Memory:
    peak_rss_mb: float  # the largest VmHWM of any one process in the tree
    total_peak_rss_mb: float  # the sum of every process's VmHWM


def peak_memory(pid: int) -> Memory:
    peaks: list[int] = []
    for member in process_tree(pid):
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]))
    if not peaks:
        return Memory(0.0, 0.0)
    return Memory(max(peaks) / 1024, sum(peaks) / 1024)


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"
