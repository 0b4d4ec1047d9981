"""`python -m bench [--quick] [--backend sqlite|postgresql] ...`, `python -m bench profile`,
`python -m bench split` (an endpoint's cost, process by process),
`python -m bench instructions [--only issue,...] [--record]` and
`python -m bench compare --against REV` (a webhook delivery's cost here and in REV) and
`python -m bench attachments` (a 1 MB file up and down, in MB/s, beside a plain copy) and
`python -m bench stream` (2,000 live event streams on one worker) and
`python -m bench mail` (mail per second through the SMTP listener, and replyToIssue with
its reply sent by mail vs without) and `python -m bench mail-drain` (the dispatcher's CPU
per mail sent, alone)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import replace

from bench.run import Options, run


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "command",
        nargs="?",
        default="run",
        choices=[
            "run",
            "profile",
            "instructions",
            "split",
            "compare",
            "attachments",
            "stream",
            "mail",
            "mail-drain",
        ],
    )
    parser.add_argument(
        "--quick", action="store_true", help="one round, fewer scenarios, no 100k workspace"
    )
    parser.add_argument(
        "--backend", action="append", choices=["sqlite", "postgresql"], help="repeatable"
    )
    parser.add_argument(
        "--seconds",
        type=int,
        help="length of one measured wrk run (5; under 5, no PostGraphile ratio)",
    )
    parser.add_argument("--rounds", type=int, help="alternating rounds (medians over them)")
    parser.add_argument(
        "--warmup",
        type=int,
        help="seconds of unmeasured load per server and document first "
        "(10; under 10, no PostGraphile ratio)",
    )
    parser.add_argument("--connections", type=int)
    parser.add_argument("--workers", type=int, help="server processes (default: cores)")
    parser.add_argument("--no-postgraphile", action="store_true")
    parser.add_argument("--postgres-url", help="default: $BENCH_POSTGRES_URL or local")
    parser.add_argument("--only", help="comma-separated scenario keys, e.g. issue,createIssue")
    parser.add_argument(
        "--webhook-rates",
        help="createIssue per second while webhook latency is measured, comma-separated "
        "(default 50,100)",
    )
    parser.add_argument(
        "--stream-rate",
        type=float,
        help="stream: createIssue per second into the streamed workspace (default 2)",
    )
    parser.add_argument("--profile-seconds", type=int, default=10)
    parser.add_argument(
        "--record",
        action="store_true",
        help="instructions: record the counts as the baseline (docs/bench/instructions.json)",
    )
    parser.add_argument(
        "--against",
        help="compare: the commit whose webhook delivery cost is measured beside this checkout's",
    )
    return parser.parse_args(argv)


def options_of(args: argparse.Namespace) -> Options:
    options = Options.quick_run() if args.quick else Options()
    changes = {
        "backends": tuple(args.backend) if args.backend else None,
        "seconds": args.seconds,
        "rounds": args.rounds,
        "warmup": args.warmup,
        "connections": args.connections,
        "workers": args.workers,
        "postgres_url": args.postgres_url,
        "postgraphile": False if args.no_postgraphile else None,
        "only": tuple(args.only.split(",")) if args.only else None,
        "webhook_rates": tuple(float(rate) for rate in args.webhook_rates.split(","))
        if args.webhook_rates
        else None,
        "stream_rate": args.stream_rate,
    }
    return replace(options, **{k: v for k, v in changes.items() if v is not None})


def main(argv: list[str]) -> int:
    args = parse(argv)
    options = options_of(args)
    if args.command == "instructions":
        from bench.instructions import above_baseline, instructions

        found = instructions(options, record=args.record)
        above = [] if args.record else above_baseline(found)
        if above:
            print(f"above the baseline: {', '.join(above)}")
        return 1 if above else 0
    if args.command == "split":
        from bench.split import split

        split(options)
        return 0
    if args.command == "compare":
        from bench.compare import compare

        if not args.against:
            raise SystemExit("compare needs --against REV")
        # Six rounds of ten seconds unless told: the paired figures need a few rounds.
        compare(replace(options, seconds=args.seconds or 10, rounds=args.rounds or 6), args.against)
        return 0
    if args.command == "attachments":
        from bench.attachments import measure

        measure()
        return 0
    if args.command == "stream":
        from bench.stream import stream

        stream(options)
        return 0
    if args.command == "mail":
        from bench.report import mail_lines, reply_mail_lines
        from bench.run import inbound_mail, reply_mail
        from bench.tools import ensure_wrk

        asked = replace(options, only=options.only or ("mail-inbound", "replyToIssue-email"))
        wrk = ensure_wrk()
        inbound = {backend: inbound_mail(backend, asked) for backend in asked.backends}
        replies = {backend: reply_mail(backend, asked, wrk) for backend in asked.backends}
        figures = json.dumps({"mail": inbound, "reply_mail": replies}, indent=2)
        options.output.mkdir(parents=True, exist_ok=True)
        path = options.output / f"mail-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
        path.write_text(figures)
        print(f"{figures}\nJSON  {path}")
        print("\n".join(
            mail_lines({b: f for b, f in inbound.items() if f})
            + reply_mail_lines({b: f for b, f in replies.items() if f})
        ))  # fmt: skip
        return 0
    if args.command == "mail-drain":
        from bench.outbound import drain
        from bench.run import ensure_postgres_database

        for backend in options.backends:
            url = options.database_url(backend)
            if backend == "postgresql":
                asyncio.run(ensure_postgres_database(url))
            found = drain(url, options.output / "logs" / backend)
            print(f"{backend}: {json.dumps(found)}", flush=True)
        return 0
    if args.command == "profile":
        from bench.profile import profile

        profile(options, args.profile_seconds)
        return 0
    run(options)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
