"""The `supportdesk` command: set up, serve, manage keys. Calls domain services, never GraphQL."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from alembic.util.exc import CommandError
from pydantic import ValidationError
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from supportdesk.auth.passwords import FAST_TEST_HASHES
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.db.migrate import upgrade
from supportdesk.domain import api_keys, audit, machine_users
from supportdesk.domain.errors import DomainError, InvalidArgument
from supportdesk.domain.mailboxes.domains import MailDomain
from supportdesk.domain.pagination import MAX_PAGE_SIZE, PageRequest
from supportdesk.domain.workspaces import get_workspace, init_workspace

T = TypeVar("T")


def _settings(database_url: str | None = None) -> Settings:
    """The settings from the environment (and `--database-url`); a wrong one is named in
    one line per problem, not a traceback."""
    try:
        return Settings(database_url=database_url) if database_url else Settings()
    except ValidationError as error:
        problems = [
            f"SUPPORTDESK_{'_'.join(map(str, e['loc'])).upper()}:"
            f" {e['msg'].removeprefix('Value error, ')}"
            for e in error.errors()
        ]
        raise click.ClickException("\n".join(problems)) from None


@contextmanager
def _clear_errors() -> Iterator[None]:
    """Refusals and an unreachable or unmigrated database become one line, not a traceback."""
    try:
        yield
    except DomainError as error:
        details = "".join(f"\n  {f.field}: {f.code}" for f in error.fields)
        raise click.ClickException(f"{error.message}{details}") from None
    except InvalidArgument as error:
        raise click.ClickException(str(error)) from None
    except (DBAPIError, OSError) as error:
        # The driver's own words only: the statement's parameters may hold a key's hash.
        reason = error.orig if isinstance(error, DBAPIError) else error
        raise click.ClickException(
            f"The database did not answer as expected ({reason}). Check "
            "SUPPORTDESK_DATABASE_URL, and run `supportdesk migrate` (or `init`) first."
        ) from None


def _upgrade(settings: Settings) -> None:
    with _clear_errors():
        try:
            upgrade(settings.database_url)
        except CommandError as error:
            newer = "Can't locate revision" in str(error)  # one this release does not know
            hint = (
                ": the database's schema is newer than this release; run the release that"
                " migrated it (or a later one)."
                if newer
                else "."
            )
            raise click.ClickException(f"The migration did not run: {error}{hint}") from None


def _require_migrated(settings: Settings) -> None:
    """`serve` and `dispatch` do not start on a schema that is missing or behind this
    release, rather than failing on every request; a newer schema (a rolling upgrade) or
    a database not reachable yet (it may come up after us) is said and served."""
    from supportdesk.db.migrate import check_schema

    with _clear_errors():
        checked = asyncio.run(check_schema(settings.database_url))
    if checked.refusal:
        raise click.ClickException(checked.refusal)
    if checked.warning:
        click.echo(checked.warning, err=True)


def _run(settings: Settings, work: Callable[[Database], Awaitable[T]]) -> T:
    async def main() -> T:
        db = Database(settings.database_url, pool_size=1)
        try:
            return await work(db)
        finally:
            await db.dispose()

    with _clear_errors():
        return asyncio.run(main())


async def _require_workspace(db: Database, workspace_id: str) -> None:
    """A mistyped workspace id gets a clear answer, not an empty list."""
    try:
        await get_workspace(db, workspace_id)
    except DomainError:
        raise click.ClickException(f"Workspace {workspace_id} not found.") from None


def _emit(as_json: bool, data: dict[str, Any], text: str) -> None:
    click.echo(json.dumps(data) if as_json else text)


database_option = click.option(
    "--database-url",
    envvar="SUPPORTDESK_DATABASE_URL",
    default=None,
    help="Database URL (default: SQLite in ./data/supportdesk.db).",
)


@click.group()
def main() -> None:
    """supportdesk: a support-issue service with a GraphQL API."""


@main.command()
@database_option
def migrate(database_url: str | None) -> None:
    """Bring the database schema up to date."""
    settings = _settings(database_url)
    new_file = _sqlite_file(settings)
    existed = new_file is None or new_file.exists()
    _upgrade(settings)
    if not existed:
        click.echo(f"Created a new database: {new_file}")
    click.echo("Database is up to date.")


def _sqlite_file(settings: Settings) -> Path | None:
    """The SQLite database's file; None on PostgreSQL or in memory."""
    database = make_url(settings.database_url).database
    if not settings.is_sqlite or not database or database == ":memory:":
        return None
    return Path(database).absolute()


def settings_url(base_url: str) -> str:
    return f"{base_url.rstrip('/')}/settings/api"


def login_url(base_url: str) -> str:
    """Where every member, agent or admin, logs in."""
    return f"{base_url.rstrip('/')}/login"


base_url_option = click.option(
    "--base-url",
    envvar="SUPPORTDESK_BASE_URL",
    default="http://127.0.0.1:8000",
    show_default=True,
    help="Where the service will be reached; used to print the addresses people open.",
)


@main.command()
@click.option("--workspace", "workspace_name", required=True, help="Name of the new workspace.")
@click.option("--admin-email", required=True, help="E-mail of the first org admin.")
@click.option("--admin-password", default=None, help="Generated and printed when omitted.")
@click.option("--json", "as_json", is_flag=True, help="One JSON line for scripts.")
@base_url_option
@database_option
def init(
    workspace_name: str,
    admin_email: str,
    admin_password: str | None,
    as_json: bool,
    base_url: str,
    database_url: str | None,
) -> None:
    """Migrate, then create a workspace, its org admin and a Full-access key."""
    settings = _settings(database_url)
    _upgrade(settings)
    made = _run(
        settings, lambda db: init_workspace(db, workspace_name, admin_email, admin_password)
    )
    data = {
        "workspace_id": made.workspace.id,
        "admin_email": made.admin.email,
        "api_key": made.key.secret,
        "login_url": login_url(base_url),
        "settings_url": settings_url(base_url),
    }
    if admin_password is None:
        data["admin_password"] = made.admin_password
    text = "\n".join(
        [
            f"Workspace   {made.workspace.name} ({made.workspace.id})",
            f"Admin login {made.admin.email} / {made.admin_password}"
            if admin_password is None
            else f"Admin login {made.admin.email} (the password you gave)",
            f"Log in at   {login_url(base_url)}  (agents and admins; the inbox)",
            f"Settings    {settings_url(base_url)}  (log in as the admin above)",
            f"API key     {made.key.secret}",
            "            Full access. Shown once: store it now.",
        ]
    )
    _emit(as_json, data, text)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--workers",
    default=None,
    type=click.IntRange(min=1),
    help="Worker processes (default: the number of cores with SUPPORTDESK_REDIS_URL set,"
    " otherwise 1, so that the per-key and per-address limits hold as set).",
)
@click.option(
    "--trusted-proxies",
    envvar="SUPPORTDESK_TRUSTED_PROXIES",
    default=None,
    help="Comma-separated addresses or CIDR networks of the reverse proxies whose"
    " X-Forwarded-For and X-Forwarded-Proto are believed (default: none).",
)
@click.option(
    "--metrics-port",
    envvar="SUPPORTDESK_METRICS_PORT",
    default=None,
    type=click.IntRange(1, 65535),
    help="Serve Prometheus metrics of all workers on this port (on --host; no key asked:"
    " keep it off public networks).",
)
@click.option(
    "--smtp-port",
    default=None,
    type=click.IntRange(1, 65535),
    help="Take mail for the mailboxes over SMTP on this port (on --host; every worker"
    " listens). Same as SUPPORTDESK_SMTP_LISTEN=host:port.",
)
@database_option
def serve(
    host: str,
    port: int,
    workers: int | None,
    trusted_proxies: str | None,
    metrics_port: int | None,
    smtp_port: int | None,
    database_url: str | None,
) -> None:
    """Serve the API (and the settings page) until SIGTERM; requests in flight finish."""
    from supportdesk import server

    if database_url:
        os.environ["SUPPORTDESK_DATABASE_URL"] = database_url
    if trusted_proxies is not None:
        os.environ["SUPPORTDESK_TRUSTED_PROXIES"] = trusted_proxies
    if metrics_port is not None:
        os.environ["SUPPORTDESK_METRICS_PORT"] = str(metrics_port)
    if smtp_port is not None:
        os.environ["SUPPORTDESK_SMTP_LISTEN"] = f"{host}:{smtp_port}"
    settings = _settings()
    _require_migrated(settings)
    # Without Redis each worker counts requests on its own: one worker unless asked, so that
    # a key's 601st request in a minute is refused (docs/http-and-limits.md).
    count = workers or (server.default_workers() if settings.redis_url else 1)
    base_url = f"http://{host}:{port}"
    click.echo(f"supportdesk on {base_url}/graphql ({count} worker{'s' * (count > 1)})")
    click.echo(f"People log in at {login_url(base_url)} (the inbox; Settings for admins)")
    if settings.smtp_listen:
        click.echo(f"Mail for the mailboxes over SMTP on {settings.smtp_listen}")
    if settings.metrics_port is not None:
        click.echo(f"Metrics for Prometheus: http://{host}:{settings.metrics_port}/metrics")
    if count > 1 and not settings.redis_url:
        click.echo(
            f"Rate limits are kept per worker ({count} x the limit in all): set"
            " SUPPORTDESK_REDIS_URL to share them.",
            err=True,
        )
    if "FORWARDED_ALLOW_IPS" in os.environ:
        click.echo(
            "FORWARDED_ALLOW_IPS is not read: X-Forwarded-For is believed from"
            " SUPPORTDESK_TRUSTED_PROXIES (--trusted-proxies) only.",
            err=True,
        )
    if FAST_TEST_HASHES:
        click.echo(
            "SUPPORTDESK_TEST_FAST_PASSWORD_HASHES is set: passwords are hashed with Argon2's"
            " cheapest parameters, for the test suite only. Unset it.",
            err=True,
        )
    warning = server.connection_budget_warning(settings, count)
    if warning:
        click.echo(warning, err=True)
    try:
        server.serve(settings, host, port, count)
    except server.PortUnavailable as unavailable:
        raise click.ClickException(str(unavailable)) from None


@main.command()
@database_option
def dispatch(database_url: str | None) -> None:
    """Deliver webhooks and mail and poll IMAP mailboxes, without serving the API, until
    SIGTERM or SIGINT: the role `serve`
    runs beside its workers, alone (e.g. on other cores or machines, for `serve` processes
    run with SUPPORTDESK_WEBHOOK_DISPATCH=false)."""
    import logging.config

    from supportdesk.dispatch import role
    from supportdesk.logs import logging_config

    if database_url:
        os.environ["SUPPORTDESK_DATABASE_URL"] = database_url
    settings = _settings()
    _require_migrated(settings)
    logging.config.dictConfig(logging_config(json_lines=settings.log_json))
    click.echo("supportdesk delivering webhooks (SIGTERM or Ctrl-C stops)", err=True)
    with _clear_errors():
        role.run(settings)


@main.command("secret-key")
def secret_key() -> None:
    """Print a new server key for SUPPORTDESK_SECRET_KEY (the same in every process)."""
    from supportdesk.auth.secret_box import new_server_key

    click.echo(new_server_key())


@main.group()
def keys() -> None:
    """Create, list and revoke API keys."""


@keys.command("create")
@click.option("--workspace", "workspace_id", required=True)
@click.option("--name", required=True)
@click.option("--scopes", default="", help="Comma-separated scopes, e.g. issues:read,issues:write.")
@click.option("--legacy", is_flag=True, help="A svc_live_ key whose only scope is issues:create.")
@click.option("--json", "as_json", is_flag=True)
@database_option
def keys_create(
    workspace_id: str, name: str, scopes: str, legacy: bool, as_json: bool, database_url: str | None
) -> None:
    """Create a key for the workspace's managed machine user."""

    async def work(db: Database) -> api_keys.CreatedKey:
        await _require_workspace(db, workspace_id)
        owner = await machine_users.managed_machine_user(db, workspace_id)
        return await api_keys.create_api_key(
            db,
            audit.CLI_ACTOR,
            workspace_id,
            machine_user_id=owner.id,
            name=name,
            scopes=[s for s in scopes.split(",") if s.strip()],
            legacy=legacy,
        )

    created = _run(_settings(database_url), work)
    key = created.api_key
    data = {
        "id": key.id,
        "api_key": created.secret,
        "key_prefix": key.key_prefix,
        "scopes": list(key.scopes),
    }
    _emit(
        as_json,
        data,
        f"{key.id}  {created.secret}\nscopes: {' '.join(key.scopes)}\nShown once: store it now.",
    )


@keys.command("revoke")
@click.argument("key_id")
@database_option
def keys_revoke(key_id: str, database_url: str | None) -> None:
    """Revoke a key now (any workspace)."""

    async def work(db: Database) -> api_keys.ApiKey:
        from supportdesk.domain.api_keys.service import workspace_of_key

        workspace_id = await workspace_of_key(db, key_id)
        return await api_keys.revoke_api_key(db, audit.CLI_ACTOR, workspace_id, key_id)

    key = _run(_settings(database_url), work)
    click.echo(f"{key.id} revoked at {key.revoked_at:%Y-%m-%d %H:%M:%S} UTC")


@keys.command("list")
@click.option("--workspace", "workspace_id", required=True)
@click.option("--json", "as_json", is_flag=True)
@database_option
def keys_list(workspace_id: str, as_json: bool, database_url: str | None) -> None:
    """List the workspace's keys."""

    async def work(db: Database) -> list[api_keys.ApiKey]:
        found: list[api_keys.ApiKey] = []
        after: str | None = None
        await _require_workspace(db, workspace_id)
        while True:
            page = await api_keys.list_api_keys(db, workspace_id, PageRequest(MAX_PAGE_SIZE, after))
            found.extend(page.items)
            if not page.has_next:
                return found
            after = page.items[-1].id

    from supportdesk.domain.clock import now

    found = _run(_settings(database_url), work)
    moment = now()
    if as_json:
        rows = [
            {
                "id": k.id,
                "name": k.name,
                "key_prefix": k.key_prefix,
                "scopes": list(k.scopes),
                "kind": k.kind,
                "status": k.status(moment),
            }
            for k in found
        ]
        click.echo(json.dumps(rows))
        return
    for k in found:
        click.echo(
            f"{k.id}  {k.key_prefix}…  {k.status(moment):8}  {k.name}  [{' '.join(k.scopes)}]"
        )


@main.group()
def members() -> None:
    """Add the people of a workspace: agents and admins."""


@members.command("add")
@click.option("--workspace", "workspace_id", required=True)
@click.option("--email", required=True)
@click.option("--name", default=None, help="Shown as the assignee; the e-mail when omitted.")
@click.option("--role", required=True, type=click.Choice(["agent", "admin"]))
@click.option(
    "--password",
    default=None,
    help="At least 8 characters. Without it, a one-time invitation link (7 days) is printed"
    " for the member to choose their own.",
)
@click.option("--json", "as_json", is_flag=True)
@base_url_option
@database_option
def members_add(
    workspace_id: str,
    email: str,
    name: str | None,
    role: str,
    password: str | None,
    as_json: bool,
    base_url: str,
    database_url: str | None,
) -> None:
    """Add a member; they log in with the password, or choose one through the link."""
    from supportdesk.domain import members as people

    async def work(db: Database) -> people.AddedMember:
        await _require_workspace(db, workspace_id)
        return await people.add_member(
            db,
            audit.CLI_ACTOR,
            workspace_id,
            email=email,
            name=name,
            role=role,
            password=password,
        )

    added = _run(_settings(database_url), work)
    member = added.member
    link = added.invitation.url(base_url) if added.invitation else None
    data = {"id": member.id, "email": member.email, "role": member.role, "invitation_url": link}
    lines = [f"{member.id}  {member.email}  {member.role}"]
    if link:
        lines += [f"Invitation  {link}", "            Shown once, valid 7 days: send it to them."]
    else:
        lines.append(f"Log in at   {login_url(base_url)}  with the password you gave")
    _emit(as_json, data, "\n".join(lines))


@main.group("mail-domains")
def mail_domains() -> None:
    """Say which workspace may have mailboxes on a mail domain (first come, by default)."""


def _domain_line(domain: MailDomain) -> dict[str, Any]:
    return {"domain": domain.domain, "held_by": domain.held_by, "granted": domain.granted}


def _domain_text(domain: MailDomain) -> str:
    if domain.held_by is None:
        return f"{domain.domain}  shared: one workspace per address"
    how = "granted" if domain.granted else "its first mailbox"
    return f"{domain.domain}  {domain.held_by}  ({how})"


@mail_domains.command("list")
@click.option("--json", "as_json", is_flag=True)
@database_option
def mail_domains_list(as_json: bool, database_url: str | None) -> None:
    """Every domain in use, and the workspace that holds it."""
    from supportdesk.domain.mailboxes import list_mail_domains

    found = _run(_settings(database_url), list_mail_domains)
    if as_json:
        click.echo(json.dumps([_domain_line(domain) for domain in found]))
        return
    for domain in found:
        click.echo(_domain_text(domain))


@mail_domains.command("grant")
@click.argument("domain")
@click.option("--workspace", "workspace_id", required=True)
@click.option(
    "--delete-others",
    is_flag=True,
    help="Delete the mailboxes other workspaces have on the domain (refused otherwise).",
)
@click.option("--json", "as_json", is_flag=True)
@database_option
def mail_domains_grant(
    domain: str, workspace_id: str, delete_others: bool, as_json: bool, database_url: str | None
) -> None:
    """Only this workspace may have mailboxes on DOMAIN and its subdomains, for good."""
    from supportdesk.domain.mailboxes import grant_mail_domain

    async def work(db: Database) -> MailDomain:
        await _require_workspace(db, workspace_id)
        return await grant_mail_domain(db, domain, workspace_id, delete_others=delete_others)

    granted = _run(_settings(database_url), work)
    _emit(as_json, _domain_line(granted), _domain_text(granted))


@mail_domains.command("share")
@click.argument("domain")
@click.option("--json", "as_json", is_flag=True)
@database_option
def mail_domains_share(domain: str, as_json: bool, database_url: str | None) -> None:
    """Any workspace may have addresses on DOMAIN, as on a public provider's (one
    workspace per address)."""
    from supportdesk.domain.mailboxes import share_mail_domain

    shared = _run(_settings(database_url), lambda db: share_mail_domain(db, domain))
    _emit(as_json, _domain_line(shared), _domain_text(shared))


if __name__ == "__main__":
    sys.exit(main())
