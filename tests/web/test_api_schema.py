"""Property-based: whatever schemathesis sends to the documented API, no answer is a 5xx."""

import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error, response_schema_conformance
from schemathesis.config import SchemathesisConfig

from app.config import Settings
from app.main import create_app
from tests.support.examples import examples

# A fixed seed and no example database: every run sends the same requests, locally and in CI.
CONFIG = {
    "seed": 20250310,
    "generation": {"max-examples": examples(30), "deterministic": True, "database": "none"},
}


def _openapi() -> dict:
    # The document only depends on the routes, so an app over an empty in-memory bank will do.
    # (schemathesis.pytest.from_fixture would load it from the `app` fixture instead, but
    # schemathesis 4.32 uses Node._nodeid there, which pytest 9 no longer has.)
    spec_app = create_app(Settings(_env_file=None, database_url="sqlite://"))  # type: ignore[call-arg]
    spec_app.state.database.engine.dispose()
    return spec_app.openapi()


schema = schemathesis.openapi.from_dict(_openapi(), config=SchemathesisConfig.from_dict(CONFIG))


@schema.parametrize()
# One app (and bank) per operation, shared by its examples, which may rate and undo cards;
# `clock` pins "now" so the run does not depend on the day it happens on.
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_api_never_answers_with_a_server_error(case, app: FastAPI, clock):
    case.call_and_validate(app=app, checks=[not_a_server_error, response_schema_conformance])
