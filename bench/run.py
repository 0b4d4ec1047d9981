"""One benchmark run: seed (or reuse) each backend's database, start ours, the floor and
PostGraphile side by side, check that they answer correctly, warm each server with each
document it will be sent, then measure every scenario in alternating rounds and report."""

from __future__ import annotations

import asyncio
import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import asyncpg
import httpx
import orjson

from bench import inbound, inbox, outbound, report, seed, tools, webhooks
from bench.load import (
    ROUND_SECONDS,
    WARM_UP_SECONDS,
    Driver,
    LoadSettings,
    Measurement,
)
from bench.scenarios import (
    WITH_ENDPOINT,
    Requests,
    Scenario,
    Workload,
    article_search_document,
    message_growth,
    metrics_cost,
    operations,
    search_growth,
    webhook_cost,
    workspace_growth,
)
from bench.seed import FULL, QUICK, Plan, size_label
from bench.servers import BENCH, Server, dispatcher, floor, ours, postgraphile, receiver

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/supportdesk_bench"
RESULTS = BENCH / "results"
DATA = BENCH / ".data"
QUICK_SCENARIOS = (
    "issue",
    "issue-simple",
    "createIssue",
    "apiInfo",
    "messages-1",
    "messages-100",
    "workspace-1k",
    "workspace-10k",
    "search-1k",
    "search-10k",
    "createIssue-webhook",
    "inbox-queue",
    "inbox-queue-1k",
    "inbox-queue-10k",
    "inbox-issue",
    "mail-inbound",
    "replyToIssue-email",
)


@dataclass(frozen=True)
class Options:
    quick: bool = False
    backends: tuple[str, ...] = ("sqlite", "postgresql")
    postgres_url: str = os.environ.get("BENCH_POSTGRES_URL", DEFAULT_POSTGRES_URL)
    sqlite_file: Path = DATA / "bench.db"
    seconds: int = ROUND_SECONDS
    rounds: int = 3
    warmup: int = WARM_UP_SECONDS
    connections: int = 32
    workers: int = os.cpu_count() or 1
    postgraphile: bool = True
    message_sizes: tuple[int, ...] = (1, 10, 50, 100)
    output: Path = RESULTS
    only: tuple[str, ...] = ()
    plan: Plan = FULL
    # createIssue per second while the webhook latency is measured, one run per rate.
    webhook_rates: tuple[float, ...] = webhooks.DEFAULT_RATES
    # createIssue per second into the streamed workspace while stream latency is measured.
    stream_rate: float = 2.0

    @classmethod
    def quick_run(cls, **overrides: Any) -> Options:
        """About eight minutes: the headline operations, the ends of each growth curve
        (ours only), the webhook figures, one round (warmed as fully as `make bench`
        does), no 100k-issue workspace."""
        values: dict[str, Any] = {
            "quick": True,
            "rounds": 1,
            "plan": QUICK,
            "message_sizes": (1, 100),
            "only": QUICK_SCENARIOS,
        }
        return cls(**{**values, **overrides})

    @property
    def fair(self) -> bool:
        """Warm-ups and rounds long enough for a ratio to PostGraphile to mean something."""
        return self.warmup >= WARM_UP_SECONDS and self.seconds >= ROUND_SECONDS

    def wants(self, key: str) -> bool:
        return not self.only or key in self.only

    def database_url(self, backend: str) -> str:
        if backend == "sqlite":
            return f"sqlite+aiosqlite:///{self.sqlite_file}"
        return self.postgres_url


async def ensure_postgres_database(url: str) -> None:
    """Create the bench database when it is missing (the server must be running)."""
    dsn = seed.asyncpg_dsn(url)
    name = dsn.rsplit("/", 1)[1].split("?")[0]
    try:
        connection = await asyncpg.connect(dsn, timeout=5)
    except asyncpg.InvalidCatalogNameError:
        admin = await asyncpg.connect(dsn.rsplit("/", 1)[0] + "/postgres", timeout=5)
        try:
            await admin.execute(f'CREATE DATABASE "{name}"')
        finally:
            await admin.close()
    else:
        await connection.close()


async def prepare(backend: str, url: str, options: Options) -> Workload:
    """Seed (or reuse) the database and gather what the scenarios need."""
    plan = options.plan
    if backend == "postgresql":
        await ensure_postgres_database(url)
    for made_anew in plan.made_anew:
        await seed.drop_workspace(url, made_anew.name)
    seeded = await seed.seed(url, plan.specs)
    await seed.feed(url, seeded[plan.writes.name].workspace_id)
    keys = {name: await seed.new_key(url, s.workspace_id) for name, s in seeded.items()}
    ids = {}
    for spec in (*plan.sizes, plan.main):
        tickets = range(spec.long_threads + 1, spec.issues + 1)
        ids[spec.name] = await seed.issue_ids(url, seeded[spec.name].workspace_id, tickets, 100)
    main_id = seeded[plan.main.name].workspace_id
    long_tickets = range(1, plan.main.long_threads + 1)
    long_threads = await seed.issue_ids(url, main_id, long_tickets, 20)
    writes = plan.writes
    writable = await seed.issue_ids(
        url, seeded[writes.name].workspace_id, range(1, writes.issues + 1), writes.issues
    )
    from supportdesk.graphql.schema import build_schema

    store = await seed.open_store(url)
    try:
        has_articles = "articles" in await store.tables()
    finally:
        await store.close()
    document = article_search_document(build_schema()._schema) if has_articles else None
    inbox_members, inbox_numbers = {}, []
    if not options.only or any(key.startswith("inbox-") for key in options.only):
        measured = {spec.name for spec in (*plan.sizes, plan.main)}
        inbox_members = await inbox.prepare_members(
            url, {name: seeded[name].workspace_id for name in sorted(measured)}
        )
        inbox_numbers = await inbox.ticket_numbers(url, main_id, ids[plan.main.name])
    return Workload(
        backend=backend,
        main_workspace=plan.main.name,
        keys=keys,
        workspace_ids={name: s.workspace_id for name, s in seeded.items()},
        issue_ids=ids,
        long_thread_ids=long_threads,
        writable_issue_ids=writable,
        writes_workspace=writes.name,
        article_query=document,
        article_words=seed.TOPICS,
        hook_workspaces=(plan.hooks[0].name, plan.hooks[1].name) if len(plan.hooks) == 2 else None,
        issue_queries=seed.issue_queries(),
        inbox_members=inbox_members,
        inbox_issue_numbers=inbox_numbers,
    )


def scenarios_for(load: Workload, options: Options) -> list[Scenario]:
    sizes = [(spec.name, size_label(spec.issues)) for spec in options.plan.sizes]
    found = (
        operations(load, options.postgraphile)
        + message_growth(load, options.message_sizes, with_floor=not options.quick)
        + workspace_growth(load, sizes)
        + search_growth(load, sizes)
        + metrics_cost(load)
        + webhook_cost(load)
    )
    return [s for s in found if options.wants(s.key)]


def _answer(name: str, url: str, scenario: Scenario, body: bytes) -> dict[str, Any]:
    requests = scenario.servers[name]
    response = httpx.post(url + "/graphql", content=body, headers=requests.headers, timeout=30)
    answer: dict[str, Any] = response.json()
    problem = (
        response.status_code != 200
        or answer.get("errors")
        or not (answer.get("data") or {}).get(scenario.root)
        or (answer["data"][scenario.root] or {}).get("error")
    )
    if problem:
        raise RuntimeError(
            f"{name} answered {scenario.key} wrongly ({response.status_code}): "
            f"{orjson.dumps(answer)[:600]!r}"
        )
    return answer


def _first_difference(floor: Any, ours: Any, path: str = "") -> str:
    if isinstance(floor, dict) and isinstance(ours, dict):
        for key in sorted(set(floor) | set(ours)):
            if floor.get(key) != ours.get(key):
                return _first_difference(floor.get(key), ours.get(key), f"{path}.{key}")
    if isinstance(floor, list) and isinstance(ours, list) and len(floor) == len(ours):
        for index, (a, b) in enumerate(zip(floor, ours, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{path}[{index}]")
    return f"at {path or '.'}: floor {floor!r}, ours {ours!r}"


def verify(urls: dict[str, str], scenarios: Sequence[Scenario]) -> None:
    """Every server (name -> base URL) answers every scenario without errors, the floor's
    reads answer exactly the data ours answers, and PostGraphile's issue as many messages."""
    for scenario in scenarios:
        for name, requests in scenario.servers.items():
            if requests.method == "GET":
                inbox.verify_page(urls[name], requests)
                continue
            for index, body in enumerate(requests.bodies[:2]):
                answer = _answer(name, urls[name], scenario, body)
                if name == "floor" and not scenario.writes:
                    ours_answer = _answer("ours", urls["ours"], scenario, body)
                    # Ours also reports the query's cost in `extensions`; the data must match.
                    if ours_answer["data"] != answer["data"]:
                        raise RuntimeError(
                            f"the floor's {scenario.key} differs from ours: {_first_difference(answer['data'], ours_answer['data'])}"
                        )
                if scenario.key == "articleSearch" and not answer["data"]["articles"]["edges"]:
                    raise RuntimeError("the article search found nothing in the seeded articles")
                if scenario.group == "search" and not answer["data"]["issues"]["edges"]:
                    raise RuntimeError(f"{scenario.key} found no issue for its words")
                if (
                    scenario.key == "events"
                    and not answer["data"]["events"]["pageInfo"]["hasNextPage"]
                ):
                    raise RuntimeError("the change feed holds less than a page of events")
                if name == "postgraphile" and scenario.root == "issue":
                    ours_body = scenario.servers["ours"].bodies[index]  # the same issue
                    _same_thread(answer, _answer("ours", urls["ours"], scenario, ours_body))


def _same_thread(postgraphile: dict[str, Any], ours: dict[str, Any]) -> None:
    """PostGraphile's page of the thread is as long as ours, and not empty."""
    theirs = postgraphile["data"]["issue"]["messages"]["edges"]
    if not theirs or len(theirs) != len(ours["data"]["issue"]["messages"]["edges"]):
        raise RuntimeError(f"PostGraphile answered {len(theirs)} messages, ours another number")


def in_turn(scenarios: Sequence[Scenario], round_: int) -> list[Scenario]:
    """The scenarios of this round: each growth curve's points start from another one each
    round, so that drift (caches, autovacuum) does not always fall on the same point."""
    ordered: list[Scenario] = []
    for group in dict.fromkeys(s.group for s in scenarios):
        members = [s for s in scenarios if s.group == group]
        turn = 0 if group == "operations" else round_ % len(members)
        ordered += members[turn:] + members[:turn]
    return ordered


class RunHooks(Protocol):
    """Told before and after each wrk run (warm-ups too, whose round is -1)."""

    def before(self, scenario: Scenario, name: str) -> None: ...

    def after(self, scenario: Scenario, name: str, taken: Measurement) -> None: ...


def documents(requests: Requests) -> frozenset[str]:
    """The GraphQL documents among a server's bodies (variables aside), or the pages."""
    if requests.method == "GET":
        return frozenset(path.decode() for path in requests.bodies)
    return frozenset(orjson.loads(body)["query"] for body in requests.bodies)


def measure(
    backend: str,
    driver: Driver,
    servers: dict[str, Server],
    scenarios: Sequence[Scenario],
    options: Options,
    hooks: RunHooks | None = None,
    warmed: set[tuple[str, frozenset[str]]] | None = None,
    after_warmup: Callable[[], None] | None = None,
) -> list[Measurement]:
    """Every scenario in alternating rounds. `servers` maps each name a scenario uses to
    its server (two names may share one: "ours+webhook" is ours in another workspace).
    First each name is warmed once per document it is sent (`warmed` holds those already
    warm, and is added to), so a growth curve asking ours the `issue` document again, or
    the webhook rounds asking it createIssue again, start from a warm server too; then
    `after_warmup` runs (the database's statistics brought up to date)."""

    def run(scenario: Scenario, name: str, round_: int, seconds: int) -> Measurement:
        if hooks:
            hooks.before(scenario, name)
        taken = driver.run(servers[name], scenario.key, scenario.servers[name], round_, seconds)
        taken = replace(taken, backend=backend, server=name)
        if hooks:
            hooks.after(scenario, name, taken)
        return taken

    found: list[Measurement] = []
    warmed = set() if warmed is None else warmed
    if options.warmup:
        for scenario in scenarios:
            for name, requests in scenario.servers.items():
                if (name, documents(requests)) in warmed:
                    continue
                warmed.add((name, documents(requests)))
                taken = run(scenario, name, -1, options.warmup)
                found.append(taken)
                print(
                    f"  [{backend} warm-up] {scenario.label}: {name} {taken.rps:,.0f}/s, "
                    f"{taken.cpu_us_per_request:,.0f} µs CPU per request"
                )
        if after_warmup is not None:
            after_warmup()
    for round_ in range(options.rounds):
        for scenario in in_turn(scenarios, round_):
            names = list(scenario.servers)
            turn = round_ % len(names)
            line = []
            # Alternate who goes first, so drift (caches, autovacuum) spreads over all.
            for name in names[turn:] + names[:turn]:
                taken = run(scenario, name, round_, options.seconds)
                found.append(taken)
                line.append(f"{name} {taken.rps:,.0f}/s")
                if taken.errors:
                    print(f"    ! {name} {scenario.key}: {taken.errors} errors")
            print(
                f"  [{backend} {round_ + 1}/{options.rounds}] {scenario.label}: {', '.join(line)}"
            )
    return found


def start_servers(backend: str, url: str, options: Options, log_folder: Path) -> dict[str, Server]:
    servers: dict[str, Server] = {}
    try:
        # Ours delivers webhooks from its own workers, as every serve does by default.
        servers["ours"] = ours(url, options.workers).start(log_folder)
        if options.wants("issue-metrics"):
            metered = ours(url, options.workers, metrics=True, dispatch=False)
            servers["ours+metrics"] = metered.start(log_folder)
        if options.wants(webhooks.SCENARIO):
            servers["receiver"] = receiver().start(log_folder)
        servers["floor"] = floor(url, options.workers).start(log_folder)
        if backend == "postgresql" and options.postgraphile:
            node = tools.ensure_postgraphile()
            dsn = seed.asyncpg_dsn(url)
            pgl = postgraphile(dsn, node, tools.TOOLS, options.workers)
            servers["postgraphile"] = pgl.start(log_folder)
    except BaseException:
        for server in servers.values():
            server.stop()
        raise
    return servers


def run_backend(
    backend: str, options: Options, wrk: str
) -> tuple[list[Measurement], dict[str, Any] | None]:
    """The measurements of one backend, and its webhook figures (None when not asked)."""
    url = options.database_url(backend)
    print(f"\n== {backend}: seeding / reusing {url}")
    started = time.monotonic()
    load = asyncio.run(prepare(backend, url, options))
    print(f"  ready in {time.monotonic() - started:.1f} s")
    scenarios = scenarios_for(load, options)
    log_folder = options.output / "logs" / backend
    servers = start_servers(backend, url, options, log_folder)
    try:
        if load.inbox_members:
            # The inbox's pages need a logged-in session: made now that ours listens.
            cookies = {name: inbox.log_in(servers["ours"].url, name) for name in load.inbox_members}
            servers[inbox.GRAPHQL] = servers["ours"]
            sizes = [(spec.name, size_label(spec.issues)) for spec in options.plan.sizes]
            found = inbox.scenarios(load, cookies, sizes)
            scenarios += [s for s in found if options.wants(s.key)]
        hooks = None
        if any(s.key == webhooks.SCENARIO for s in scenarios) and load.hook_workspaces:
            servers[WITH_ENDPOINT] = servers["ours"]
            hooks = webhooks.WebhookBench(
                url,
                servers["receiver"],
                load.workspace_ids[load.hook_workspaces[0]],
                load.workspace_ids[load.hook_workspaces[1]],
                lambda name: servers[name],
            )
            webhooks.create_endpoint(
                servers["ours"].url,
                load.bearer(load.hook_workspaces[1]),
                servers["receiver"].url,
            )
        verify({name: server.url for name, server in servers.items()}, scenarios)
        settings = LoadSettings(wrk, options.seconds, options.connections)
        driver = Driver(settings, count_postgres=backend == "postgresql")
        first = [s for s in scenarios if s.group != "webhooks"]
        warmed: set[tuple[str, frozenset[str]]] = set()

        # A statement first planned while a table the warm-ups filled still looked empty
        # would read it whole until autovacuum's next look; a server that has run a minute
        # has current statistics.
        def refresh() -> None:
            asyncio.run(seed.refresh_statistics(url))

        measured = measure(
            backend, driver, servers, first, options, warmed=warmed, after_warmup=refresh
        )
        if hooks is None or load.hook_workspaces is None:
            return measured, None
        # The webhook comparison last, in rounds of its own on the same warm ours, with the
        # other servers stopped: ours then holds up to 2 x 30 PostgreSQL connections (its
        # dispatcher's transactions beside 32 clients'), which beside the others' pools and
        # PostGraphile's would pass a default max_connections of 100.
        for name, server in servers.items():
            if name not in ("ours", WITH_ENDPOINT, "receiver"):
                server.stop()
        last = [s for s in scenarios if s.group == "webhooks"]
        measured += measure(backend, driver, servers, last, options, hooks, warmed, refresh)
        return measured, webhook_latency(url, load, servers, hooks, options, log_folder)
    finally:
        for server in servers.values():
            server.stop()


def webhook_latency(
    url: str,
    load: Workload,
    servers: dict[str, Server],
    hooks: webhooks.WebhookBench,
    options: Options,
    log_folder: Path,
) -> dict[str, Any]:
    """createdAt → first attempt at a steady createIssue rate, in both process layouts:
    the serve processes delivering (ours, warm from the rounds), then serve with its
    dispatcher off beside `supportdesk dispatch` (ours stopped first: no one else takes
    the deliveries). Then the count of every delivery the run made."""
    assert load.hook_workspaces is not None
    requests = webhook_cost(load)[0].servers[WITH_ENDPOINT]
    seconds = options.seconds * options.rounds
    for rate in options.webhook_rates:
        hooks.measure_latency("serve", servers["ours"].url, requests, rate, seconds)
    servers["ours"].stop()
    quiet = ours(url, options.workers, dispatch=False, name="ours-no-dispatch")
    servers["ours-no-dispatch"] = quiet.start(log_folder)
    servers["dispatch"] = dispatcher(url).start(log_folder)
    # Warm the new serve (and the dispatcher's connections) first; not measured.
    webhooks.steady_load(quiet.url, requests, options.webhook_rates[0], 1)
    for rate in options.webhook_rates:
        hooks.measure_latency(
            "dispatch", quiet.url, requests, rate, seconds, dispatcher=servers["dispatch"]
        )
    return hooks.result()


def inbound_mail(backend: str, options: Options) -> dict[str, Any] | None:
    """Mail per second through the SMTP listener (bench/inbound.py), when asked."""
    if not options.wants(inbound.SCENARIO):
        return None
    url = options.database_url(backend)
    if backend == "postgresql":
        asyncio.run(ensure_postgres_database(url))
    print(f"\n== {backend}: {inbound.SCENARIO}")
    return inbound.measure(
        backend,
        url,
        options.output / "logs" / backend,
        rounds=options.rounds,
        seconds=options.seconds,
        warmup=options.warmup,
    )


def reply_mail(backend: str, options: Options, wrk: str) -> dict[str, Any] | None:
    """replyToIssue with mail on vs off (bench/outbound.py), when asked."""
    if not options.wants(outbound.SCENARIO):
        return None
    url = options.database_url(backend)
    if backend == "postgresql":
        asyncio.run(ensure_postgres_database(url))
    print(f"\n== {backend}: {outbound.SCENARIO}")
    return outbound.measure(
        backend,
        url,
        options.output / "logs" / backend,
        wrk=wrk,
        rounds=options.rounds,
        seconds=options.seconds,
        warmup=options.warmup,
        connections=options.connections,
        workers=options.workers,
    )


def load_average() -> list[float]:
    return [round(load, 2) for load in os.getloadavg()]


def machine(load_at_start: list[float]) -> dict[str, Any]:
    return {
        "cores": os.cpu_count(),
        # Other work on the machine moves every figure: the 1, 5 and 15-minute load averages
        # before the run and after it. Before, on an idle machine, they are near 0; well
        # above the core count after means something else shared the cores.
        "load_average_before": load_at_start,
        "load_average_after": load_average(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "postgraphile": tools.installed_postgraphile_version(),
    }


def run(options: Options) -> dict[str, Any]:
    started = time.monotonic()
    load_at_start = load_average()
    wrk = tools.ensure_wrk()
    if "postgresql" in options.backends and options.postgraphile:
        tools.ensure_postgraphile()
    measurements: list[Measurement] = []
    hooks: dict[str, Any] = {}
    for backend in options.backends:
        measured, webhook_figures = run_backend(backend, options, wrk)
        measurements += measured
        if webhook_figures is not None:
            hooks[backend] = webhook_figures
    settings = {
        "quick": options.quick,
        "seconds": options.seconds,
        "rounds": options.rounds,
        "warmup_seconds": options.warmup,
        "fair_to_postgraphile": options.fair,
        "connections": options.connections,
        "workers": options.workers,
        "webhook_rates": list(options.webhook_rates),
    }
    mail = {backend: inbound_mail(backend, options) for backend in options.backends}
    replies = {backend: reply_mail(backend, options, wrk) for backend in options.backends}
    files = None
    if options.wants("attachments"):
        from bench.attachments import measure as measure_attachments

        files = measure_attachments()
    streams = None
    if options.wants("stream"):
        from bench.stream import stream_backend

        streams = {backend: stream_backend(backend, options) for backend in options.backends}
    result = report.build(
        measurements, machine(load_at_start), settings, time.monotonic() - started, webhooks=hooks
    )
    mail = {backend: figures for backend, figures in mail.items() if figures is not None}
    if mail:
        result["mail"] = mail
    replies = {backend: figures for backend, figures in replies.items() if figures is not None}
    if replies:
        result["reply_mail"] = replies
    if files is not None:
        result["attachments"] = files
    if streams is not None:
        result["stream"] = streams
    report.publish(result, options.output)
    return result
