"""Podman as this machine runs it, and a base image made from Debian's own packages.

Facts of the machines the container test runs on (root, no systemd, no registry):
podman needs `--runtime <runc> --cgroup-manager=cgroupfs`, a CONTAINERS_CONF whose
`[containers]` section sets `default_ulimits = []`, `--network host` for every
container, and `podman build --isolation chroot`. No image can be pulled, so the base
image is made with debootstrap from the Debian mirror apt already uses, then imported.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

BASE_IMAGE = "localhost/gatehouse-base:bookworm"
BASE_PACKAGES = ("python3", "python3-venv", "ca-certificates")
SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
DEFAULT_SECURITY_MIRROR = "http://deb.debian.org/debian-security"
CONTAINERS_CONF = "[containers]\ndefault_ulimits = []\n"
# Left out of the base: caches, package lists, documentation, translations.
TRIM = (
    "var/cache/apt/archives",
    "var/cache/apt/pkgcache.bin",
    "var/cache/apt/srcpkgcache.bin",
    "var/lib/apt/lists",
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "var/log/apt",
)


def missing_tools() -> list[str]:
    """The programs the container test needs that this machine lacks."""
    missing = [tool for tool in ("podman", "debootstrap") if shutil.which(tool) is None]
    if runc_path() is None:
        missing.append("runc")
    return missing


def runc_path() -> str | None:
    found = shutil.which("runc")
    if found:
        return found
    return "/usr/sbin/runc" if os.access("/usr/sbin/runc", os.X_OK) else None


class Podman:
    """`podman` with this machine's runtime flags and a CONTAINERS_CONF of our own."""

    def __init__(self, workdir: Path) -> None:
        conf = workdir / "containers.conf"
        conf.write_text(CONTAINERS_CONF)
        self.env = {**os.environ, "CONTAINERS_CONF": str(conf)}
        self.prefix = ["podman", "--runtime", runc_path() or "runc", "--cgroup-manager=cgroupfs"]

    def run(
        self,
        args: Sequence[str],
        *,
        check: bool = True,
        timeout: float = 300,
        stdin: bytes | None = None,
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*self.prefix, *args],
            env=self.env,
            input=stdin.decode() if stdin is not None else None,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"podman {' '.join(args[:3])} … exited {done.returncode}\n"
                f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{_quiet(done.stderr)[-4000:]}"
            )
        return done

    def image_exists(self, image: str) -> bool:
        return self.run(["image", "exists", image], check=False).returncode == 0

    def import_tree(self, root: Path, image: str) -> None:
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        done = subprocess.run(
            [
                *self.prefix,
                "import",
                "--change",
                "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "--change",
                'CMD ["/bin/bash"]',
                "-",
                image,
            ],
            env=self.env,
            stdin=tar.stdout,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert tar.stdout is not None
        tar.stdout.close()
        if tar.wait() != 0 or done.returncode != 0:
            raise AssertionError(f"podman import failed: {done.stderr[-2000:]}")


def _quiet(stderr: str) -> str:
    """podman's stderr without the healthcheck timer complaints of a machine without systemd."""
    return "\n".join(line for line in stderr.splitlines() if "systemd" not in line)


def apt_mirrors(sources: Sequence[Path] | None = None) -> tuple[str, str]:
    """(Debian mirror, security mirror) the machine's apt sources name for bookworm."""
    if sources is None:
        folder = Path("/etc/apt/sources.list.d")
        sources = [Path("/etc/apt/sources.list")]
        if folder.is_dir():
            sources += sorted(folder.glob("*.list")) + sorted(folder.glob("*.sources"))
    mirror = security = None
    for path in sources:
        try:
            text = path.read_text()
        except OSError:
            continue
        for uri, suites in _entries(text, deb822=path.suffix == ".sources"):
            if SUITE in suites and mirror is None:
                mirror = uri
            if f"{SUITE}-security" in suites and security is None:
                security = uri
    return (mirror or DEFAULT_MIRROR).rstrip("/"), (security or DEFAULT_SECURITY_MIRROR).rstrip("/")


def _entries(text: str, *, deb822: bool) -> list[tuple[str, set[str]]]:
    entries: list[tuple[str, set[str]]] = []
    if deb822:
        for stanza in re.split(r"\n\s*\n", text):
            fields: dict[str, str] = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line:
                    continue
                key, value = line.split(":", 1)
                fields[key.strip().lower()] = value.strip()
            if "deb" not in fields.get("types", "").split():
                continue
            for uri in fields.get("uris", "").split():
                entries.append((uri, set(fields.get("suites", "").split())))
        return entries
    for line in text.splitlines():
        words = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
        if len(words) >= 3 and words[0] == "deb":
            entries.append((words[1], {words[2]}))
    return entries


def ensure_base_image(podman: Podman, log: Path) -> tuple[bool, float]:
    """Make BASE_IMAGE unless it exists: (made now, seconds taken).

    `debootstrap --variant=minbase` with python3, python3-venv and ca-certificates from
    the machine's Debian mirror, brought up to date from the security mirror, trimmed,
    then `tar -C DIR -c . | podman import - BASE_IMAGE`.
    """
    if podman.image_exists(BASE_IMAGE):
        return False, 0.0
    started = time.monotonic()
    mirror, security = apt_mirrors()
    with tempfile.TemporaryDirectory(prefix="gatehouse-base-") as tmp:
        root = Path(tmp) / "root"
        with log.open("w") as out:

            def step(*command: str) -> None:
                out.write(f"$ {' '.join(command)}\n")
                out.flush()
                done = subprocess.run(
                    command,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
                    timeout=1800,
                )
                if done.returncode != 0:
                    tail = log.read_text()[-3000:]
                    raise AssertionError(f"{command[0]} failed ({done.returncode}):\n{tail}")

            step(
                "debootstrap",
                "--variant=minbase",
                "--include=" + ",".join(BASE_PACKAGES),
                SUITE,
                str(root),
                mirror,
            )
            (root / "etc/apt/sources.list").write_text(
                f"deb {mirror} {SUITE} main\n"
                f"deb {mirror} {SUITE}-updates main\n"
                f"deb {security} {SUITE}-security main\n"
            )
            step("chroot", str(root), "apt-get", "update", "-q")
            step("chroot", str(root), "apt-get", "upgrade", "-y", "-q")
            step("chroot", str(root), "apt-get", "clean")
        for relative in TRIM:
            target = root / relative
            if target.is_dir():
                for child in target.iterdir():
                    if child.is_dir() and not child.is_symlink():
                        shutil.rmtree(child)
                    else:
                        child.unlink()
            elif target.exists():
                target.unlink()
        # The runtime provides these to every container.
        for name in ("etc/hostname", "etc/resolv.conf"):
            (root / name).unlink(missing_ok=True)
        podman.import_tree(root, BASE_IMAGE)
    return True, time.monotonic() - started
