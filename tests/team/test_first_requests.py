"""The first requests a fresh app gets, all at once from several threads, are answered as usual."""

import threading
from concurrent.futures import ThreadPoolExecutor

from app.main import build_routes

WRONG = "not-the-password"
ROUNDS = 5


def test_20_first_sign_ins_at_once_over_two_fresh_apps_get_no_500(make_app, browser):
    # Each browser is its own event loop in its own thread, as requests reaching one app from
    # several loops are. FastAPI built a route's models on the first request that matched it,
    # and builds running at once mixed up the process's warnings filters: a warning FastAPI
    # silences became an error, and the sign-in a 500.
    for round_ in range(ROUNDS):
        apps = (make_app(second=True), make_app(second=True))
        # As `qbank serve` does; with the builds left to the first requests this burst got 500s.
        for app in apps:
            build_routes(app)
        clients = [
            browser(client=(f"10.{round_}.0.{n}", 40000), app=apps[n % 2]) for n in range(20)
        ]
        start = threading.Barrier(20)

        def sign_in(n: int, clients=clients, start=start) -> int:
            start.wait()
            return clients[n].login(f"nobody-{n}", WRONG).status_code

        with ThreadPoolExecutor(20) as pool:
            statuses = list(pool.map(sign_in, range(20)))
        assert statuses == [401] * 20, f"round {round_}: {statuses}"
