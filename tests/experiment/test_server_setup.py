"""`experiment.server`, the pieces of `ragsweep server` that need no database: the backend URI
it hands MLflow, masking of the database password, and the `mlflow server` command line
(tests/integration runs it)."""

from __future__ import annotations

import pytest

from ragsweep.errors import UserError
from ragsweep.experiment.server import backend_uri, build_command, masked, password_of, server_env


@pytest.mark.parametrize(
    "given",
    [
        "postgresql://ml:s3cr%2Ft@db:5432/mlflow",
        "postgres://ml:s3cr%2Ft@db:5432/mlflow",
        "postgresql+psycopg2://ml:s3cr%2Ft@db:5432/mlflow",
    ],
)
def test_the_backend_uri_names_psycopg2(given):
    assert backend_uri(given) == "postgresql+psycopg2://ml:s3cr%2Ft@db:5432/mlflow"
    assert password_of(given) == "s3cr/t"


@pytest.mark.parametrize(
    "bad",
    ["mysql://ml:pw@db/mlflow", "postgresql+psycopg://ml:pw@db/x", "db:5432", "postgresql://"],
)
def test_other_uris_are_refused_naming_the_source(bad):
    with pytest.raises(UserError, match="^RAGSWEEP_SERVER_DB must be a PostgreSQL URI") as err:
        backend_uri(bad, "RAGSWEEP_SERVER_DB")
    assert ":pw@" not in str(err.value)


def test_the_password_is_masked_raw_and_quoted():
    line = "connect postgresql+psycopg2://ml:s3cr%2Ft@db/mlflow failed for s3cr/t"
    assert masked(line, "s3cr/t") == "connect postgresql+psycopg2://ml:***@db/mlflow failed for ***"


def test_the_database_goes_in_the_environment_not_the_command_line():
    uri = "postgresql+psycopg2://ml:s3cret@db:5432/mlflow"
    cmd = build_command("127.0.0.1", 5123, "/srv/artifacts", workers=2)
    assert not any("s3cret" in part or "postgresql" in part for part in cmd)
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1" and cmd[cmd.index("--port") + 1] == "5123"
    assert "--serve-artifacts" in cmd
    assert cmd[cmd.index("--artifacts-destination") + 1] == "/srv/artifacts"
    assert cmd[cmd.index("--workers") + 1] == "2"
    env = server_env(uri)
    assert env["MLFLOW_BACKEND_STORE_URI"] == uri and "RAGSWEEP_SERVER_DB" not in env
