"""boto3 is the optional extra `gatehouse-kyc[s3]` (docs/operations.md, "Containers").

Without it, an `s3://` document store is refused when the settings load, with a message
that says what to install, and the commands stop there (exit 2, one line, no traceback);
every other store, and the application itself, work without it.

Each test runs a fresh interpreter in which boto3 and botocore cannot be imported:
`sys.modules[name] = None` makes Python's import system raise ImportError for them (and
`importlib.util.find_spec` answer None), just as when they are not installed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from gatehouse.settings import S3_EXTRA_MISSING
from tests.support.leaks import EXTERNAL_LINES
from tests.support.processes import clean_env

WITHOUT_BOTO3 = """\
import sys
for name in ("boto3", "botocore"):
    sys.modules[name] = None
try:
    import boto3  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("boto3 is still importable")
"""


def without_boto3(
    code: str, env: dict[str, str], cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """Run `code` in a new interpreter where boto3 and botocore cannot be imported."""
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_BOTO3 + textwrap.dedent(code), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    EXTERNAL_LINES.extend(done.stderr.splitlines())
    return done


def test_the_message_says_what_to_install() -> None:
    assert "install gatehouse-kyc[s3]" in S3_EXTRA_MISSING
    assert "EXTRAS=s3" in S3_EXTRA_MISSING


def test_settings_refuse_an_s3_store_and_accept_the_others(tmp_path: Path) -> None:
    done = without_boto3(
        """
        from pydantic import ValidationError
        from gatehouse.settings import S3_EXTRA_MISSING, Settings, s3_client_installed

        assert not s3_client_installed()
        for store in ("database", "file:///srv/documents"):
            assert Settings(document_store=store).document_store == store
        try:
            Settings(document_store="s3://evidence/kyc")
        except ValidationError as error:
            [problem] = error.errors()
            assert problem["loc"] == ("document_store",), problem
            assert S3_EXTRA_MISSING in problem["msg"], problem
            print("refused")
        """,
        clean_env(),
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "refused"


def test_with_boto3_the_same_setting_is_accepted(tmp_path: Path) -> None:
    # The other half of the rule: the check looks for boto3, it does not refuse s3:// outright.
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from gatehouse.settings import Settings, s3_client_installed\n"
            "assert s3_client_installed()\n"
            "print(Settings(document_store='s3://evidence/kyc').document_store)",
        ],
        env=clean_env(),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "s3://evidence/kyc"


def run_cli_without_boto3(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(
        database_url=f"sqlite:///{tmp_path}/gatehouse.db",
        document_store="s3://evidence/kyc",
    )
    return without_boto3(
        """
        from gatehouse.cli import main
        sys.argv[0] = "gatehouse"
        main()
        """,
        env,
        tmp_path,
        *args,
    )


def test_commands_stop_at_start_with_the_message(tmp_path: Path) -> None:
    for command in (["migrate"], ["worker"], ["serve", "--port", "1"], ["keys", "rotate"]):
        done = run_cli_without_boto3(tmp_path, *command)
        assert done.returncode == 2, (command, done.returncode, done.stderr)
        assert "GATEHOUSE_DOCUMENT_STORE" in done.stderr, done.stderr
        assert "install gatehouse-kyc[s3]" in " ".join(done.stderr.split()), done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        assert "ImportError" not in done.stderr, done.stderr
    # Refused before anything was done: no database file was made.
    assert not (tmp_path / "gatehouse.db").exists()


def test_the_application_runs_without_boto3(tmp_path: Path) -> None:
    """Nothing but the S3 store imports boto3: the app is built and answers on the file store,
    and an S3 store opened anyway (a custody row of a document kept in S3 earlier) fails
    with the message, not an ImportError."""
    env = clean_env(
        database_url=f"sqlite:///{tmp_path}/gatehouse.db",
        document_store=f"file://{tmp_path}/documents",
        secret_key="k" * 48,
    )
    done = without_boto3(
        """
        import asyncio

        from starlette.testclient import TestClient

        from gatehouse.app import create_app
        from gatehouse.documents.stores import open_store
        from gatehouse.documents.stores.s3 import S3Unavailable
        from gatehouse.settings import S3_EXTRA_MISSING, Settings
        from gatehouse.storage.db import Database

        settings = Settings()
        with TestClient(create_app(settings)) as client:
            assert client.get("/healthz").status_code == 200

        async def read_from_s3() -> str:
            store = open_store("s3://evidence/kyc", Database(settings.database_url))
            try:
                await store.put("doc_x", iter([b"sealed"]))
            except S3Unavailable as error:
                return str(error)
            return "no error"

        assert asyncio.run(read_from_s3()) == S3_EXTRA_MISSING
        assert "boto3" not in sys.modules or sys.modules["boto3"] is None
        print("ok")
        """,
        env,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok"), done.stdout
