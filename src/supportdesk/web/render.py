"""HTML responses of the settings page: Jinja2 templates, autoescaped, with the headers
every page carries (no caching, no framing, scripts and styles from this origin only)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import jinja2
from starlette.responses import HTMLResponse

from supportdesk.auth.scopes import PRESETS, SCOPES
from supportdesk.domain.clock import now
from supportdesk.web.live_reader import LIVE_TYPES

SECURITY_HEADERS = {
    # Pages show keys and audit data: nothing is kept by the browser or a proxy.
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def _when(moment: datetime | None) -> str:
    return moment.strftime("%-d %b %Y, %H:%M UTC") if moment else "—"


def _day(moment: datetime | None) -> str:
    return moment.strftime("%-d %b %Y") if moment else "—"


def _ago(moment: datetime | None) -> str:
    """How long ago, as a queue shows last activity: minutes, hours, days, then the day."""
    if moment is None:
        return "—"
    seconds = (now() - moment).total_seconds()
    for limit, unit, name in ((3600, 60, "min"), (86400, 3600, "h"), (7 * 86400, 86400, "d")):
        if seconds < limit:
            return "just now" if seconds < 60 else f"{int(seconds // unit)} {name} ago"
    return moment.strftime("%-d %b %Y")


def _filesize(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _iso(moment: datetime | None) -> str:
    return moment.isoformat().replace("+00:00", "Z") if moment else ""


class Renderer:
    def __init__(self) -> None:
        self.env = jinja2.Environment(
            loader=jinja2.PackageLoader("supportdesk.web", "templates"),
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters["when"] = _when
        self.env.filters["iso"] = _iso
        self.env.filters["day"] = _day
        self.env.filters["ago"] = _ago
        self.env.filters["filesize"] = _filesize
        self.env.globals.update(PRESETS=PRESETS, SCOPES=SCOPES, LIVE_TYPES=LIVE_TYPES)

    def html(
        self,
        template: str,
        values: dict[str, Any],
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> HTMLResponse:
        body = self.env.get_template(template).render(values)
        return HTMLResponse(
            body, status_code=status, headers={**SECURITY_HEADERS, **(headers or {})}
        )
