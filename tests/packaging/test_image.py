"""What the image holds and what it weighs (docs/operations.md, "Containers").

The image built with the Containerfile's defaults must stay within SIZE_TARGET_MB as podman
counts it (its uncompressed layers, the Debian base included); the test prints the size,
the base's share and what each installed distribution costs. The image holds no packaging
tools, no bytecode (COMPILE_BYTECODE=0), no tests or C sources of its dependencies, Babel's
locale data of the portal's languages only, and no boto3: an s3:// store is refused at start
with what to install. The image built with EXTRAS=s3 keeps documents in an S3-compatible
server (moto's, on this machine). Like the other container tests these run in the
PostgreSQL stage only (tests/packaging/conftest.py).
"""

from __future__ import annotations

import json
import secrets
import shlex
import subprocess
from collections.abc import Iterator

import pytest

from gatehouse.web.i18n import LANGUAGES
from tests.packaging.conftest import Built, build_args, report
from tests.packaging.podman import BASE_IMAGE, Podman
from tests.support.document_services import S3Server, s3_server
from tests.support.leaks import EXTERNAL_LINES

# 200 MB until the evidence pack's PDF library (reportlab with Pillow, 21 MB) joined the
# defaults (docs/operations.md, "Containers").
SIZE_TARGET_MB = 220
S3_IMAGE = "localhost/gatehouse:test-s3"


def in_image(
    podman: Podman, image: str, script: str, *env: str
) -> subprocess.CompletedProcess[str]:
    """`/bin/sh -c script` in a throwaway container of `image`."""
    args = ["run", "--rm", "--network", "host", "--no-healthcheck", "--entrypoint", "/bin/sh"]
    for item in env:
        args += ["--env", item]
    done = podman.run([*args, image, "-c", script], check=False, timeout=300)
    EXTERNAL_LINES.extend(done.stderr.splitlines())
    return done


def site_packages(podman: Podman, image: str) -> str:
    done = in_image(
        podman,
        image,
        "python3 -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'",
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def distribution_sizes(podman: Podman, image: str) -> list[tuple[int, str]]:
    """(bytes, name) of every installed distribution: the files its RECORD lists that are
    still there (a distribution's share of the venv, wherever its files are)."""
    code = (
        "import importlib.metadata as m, json, os\n"
        "sizes = {}\n"
        "for d in m.distributions():\n"
        "    total = 0\n"
        "    for f in d.files or ():\n"
        "        p = f.locate()\n"
        "        if os.path.isfile(p):\n"
        "            total += os.path.getsize(p)\n"
        "    sizes[d.metadata['Name']] = total\n"
        "print(json.dumps(sizes))\n"
    )
    done = in_image(podman, image, f"python3 -c {shlex.quote(code)}")
    assert done.returncode == 0, done.stderr
    sizes = json.loads(done.stdout)
    return sorted(((int(v), str(k)) for k, v in sizes.items()), reverse=True)


@pytest.mark.slow
@pytest.mark.container
def test_the_image_is_within_the_size_target(
    podman: Podman, built: Built, pytestconfig: pytest.Config
) -> None:
    base = int(podman.run(["image", "inspect", "--format", "{{.Size}}", BASE_IMAGE]).stdout)
    venv = in_image(podman, built.image, "du -s --apparent-size --block-size=1 /opt/gatehouse")
    assert venv.returncode == 0, venv.stderr
    venv_bytes = int(venv.stdout.split()[0])
    sizes = distribution_sizes(podman, built.image)
    made = built.base_made_seconds
    report(
        pytestconfig,
        f"container image {built.image}: {built.size / 1e6:.1f} MB (target {SIZE_TARGET_MB} MB); "
        f"base {BASE_IMAGE} {base / 1e6:.1f} MB "
        + (f"(made in {made:.0f} s)" if made is not None else "(reused)")
        + f"; /opt/gatehouse {venv_bytes / 1e6:.1f} MB; built in {built.build_seconds:.0f} s",
    )
    report(
        pytestconfig,
        "  largest distributions (MB): "
        + ", ".join(f"{name} {size / 1e6:.1f}" for size, name in sizes[:16]),
    )
    assert built.size <= SIZE_TARGET_MB * 1_000_000, (
        f"the image is {built.size / 1e6:.1f} MB, over the {SIZE_TARGET_MB} MB target"
    )


@pytest.mark.slow
@pytest.mark.container
def test_the_image_holds_what_runs_and_nothing_else(podman: Podman, built: Built) -> None:
    site = site_packages(podman, built.image)
    assert site.startswith("/opt/gatehouse/lib/"), site
    listed = in_image(
        podman,
        built.image,
        f"cd {site} && ls && echo --- && ls /opt/gatehouse/bin && echo --- "
        "&& find . -name __pycache__ && echo --- "
        r"&& find . -mindepth 2 -maxdepth 2 -type d \( -name tests -o -name testing \) "
        "&& echo --- "
        r"&& find . -type f \( -name '*.pyi' -o -name '*.c' -o -name '*.h' -o -name '*.pyx' "
        r"-o -name '*.pxd' \) && echo --- && ls babel/locale-data",
    )
    assert listed.returncode == 0, listed.stderr
    top, scripts, caches, tests, sources, locales = (
        part.split() for part in listed.stdout.split("---\n")
    )
    tools = ("pip", "setuptools", "wheel", "pkg_resources", "_distutils_hack")
    assert not [n for n in top if n.split("-")[0] in tools], top
    assert not [n for n in scripts if n.startswith(("pip", "wheel", "easy_install"))], scripts
    assert "gatehouse" in top
    assert "gatehouse" in scripts
    assert not [n for n in top if n.startswith(("boto3", "botocore"))], "boto3 without EXTRAS=s3"
    assert caches == [], f"bytecode with COMPILE_BYTECODE=0: {caches[:5]}"
    assert tests == [], tests
    assert sources == [], sources[:5]
    data = [name.removesuffix(".dat") for name in locales if name.endswith(".dat")]
    assert {name.split("_")[0] for name in data} == {"root", *LANGUAGES}, data
    assert "LICENSE.unicode" in locales, "the data's licence stays"


@pytest.mark.slow
@pytest.mark.container
def test_the_portal_languages_work_in_the_image(podman: Podman, built: Built) -> None:
    code = (
        "from datetime import datetime, UTC\n"
        "from gatehouse.web import i18n\n"
        "moment = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)\n"
        "for c in i18n.LANGUAGES:\n"
        "    assert i18n.translations(c) is not None\n"
        "    print(c, i18n.localized_number(1234.5, c), '|', i18n.localized_time(moment, c))\n"
    )
    done = in_image(podman, built.image, f"python3 -c {shlex.quote(code)}")
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert set(lines) == set(LANGUAGES)
    assert lines["en"].startswith("1,234.5 | Nov 22, 2026"), lines["en"]
    assert lines["de"].startswith("1.234,5 | 22.11.2026"), lines["de"]
    assert "2026" in lines["ar"] or "٢٠٢٦" in lines["ar"], lines["ar"]


@pytest.mark.slow
@pytest.mark.container
def test_the_image_refuses_an_s3_store_and_says_what_to_install(
    podman: Podman, built: Built
) -> None:
    for command in ("migrate", "serve", "worker"):
        done = in_image(
            podman,
            built.image,
            f"exec timeout 60 gatehouse {command}",  # 124: it did not stop at start
            "GATEHOUSE_DOCUMENT_STORE=s3://evidence/kyc",
            "GATEHOUSE_SECRET_KEY=" + secrets.token_urlsafe(32),
        )
        message = " ".join(done.stderr.split())
        assert done.returncode == 2, (command, done.returncode, done.stderr)
        assert "GATEHOUSE_DOCUMENT_STORE" in message, message
        assert "install gatehouse-kyc[s3]" in message, message
        assert "--build-arg EXTRAS=s3" in message, message
        assert "Traceback" not in done.stderr, done.stderr


@pytest.fixture(scope="module")
def s3_image(podman: Podman, built: Built, pytestconfig: pytest.Config) -> str:
    """The image built with EXTRAS=s3 (after the default one, so its base is there)."""
    previous = podman.run(["image", "inspect", "--format", "{{.Id}}", S3_IMAGE], check=False)
    done = podman.run(build_args(S3_IMAGE, "EXTRAS=s3"), timeout=1800, check=False)
    assert done.returncode == 0, f"podman build failed:\n{(done.stdout + done.stderr)[-5000:]}"
    current = podman.run(["image", "inspect", "--format", "{{.Id}}", S3_IMAGE]).stdout.strip()
    if previous.returncode == 0 and previous.stdout.strip() != current:
        podman.run(["rmi", previous.stdout.strip()], check=False)  # untagged now
    size = int(podman.run(["image", "inspect", "--format", "{{.Size}}", S3_IMAGE]).stdout)
    report(pytestconfig, f"container image {S3_IMAGE} (EXTRAS=s3): {size / 1e6:.1f} MB")
    return S3_IMAGE


@pytest.fixture(scope="module")
def s3(s3_image: str) -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.mark.slow
@pytest.mark.container
def test_with_the_s3_extra_documents_go_to_s3(podman: Podman, s3_image: str, s3: S3Server) -> None:
    bucket = "gatehouse-" + secrets.token_hex(6)
    s3.client().create_bucket(Bucket=bucket)  # type: ignore[attr-defined]
    location = f"s3://{bucket}/evidence"
    env = [f"{k}={v}" for k, v in s3.environment().items()]
    env += [f"GATEHOUSE_DOCUMENT_STORE={location}", "GATEHOUSE_SECRET_KEY=" + "k" * 48]
    # The setting is accepted: migrate runs (on the image's SQLite default).
    migrated = in_image(podman, s3_image, "exec gatehouse migrate", *env)
    assert migrated.returncode == 0, migrated.stderr
    assert "schema is up to date" in migrated.stderr
    # The store the setting names keeps an object in the S3 server, and reads it back.
    code = (
        "import asyncio\n"
        "from gatehouse.documents.stores import open_store\n"
        "from gatehouse.settings import Settings\n"
        "from gatehouse.storage.db import Database\n"
        "async def main():\n"
        "    settings = Settings()\n"
        "    store = open_store(settings.document_store, Database(settings.database_url))\n"
        "    await store.put('doc_container', iter([b'sealed bytes']))\n"
        "    print(b''.join([c async for c in store.get('doc_container')]).decode())\n"
        "asyncio.run(main())\n"
    )
    done = in_image(podman, s3_image, f"python3 -c {shlex.quote(code)}", *env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "sealed bytes"
    body = s3.client().get_object(Bucket=bucket, Key="evidence/doc_container")["Body"]  # type: ignore[attr-defined]
    assert body.read() == b"sealed bytes"
