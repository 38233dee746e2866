"""The viewer's web app: Starlette routes over the runs found under the given directories, served
by uvicorn on 127.0.0.1.

Pages (all ``GET``; nothing here writes anywhere):

* ``/``: the runs; ``/run?r=RUN&...``: a run's aggregate and its samples, filtered and sorted by
  the query string; ``/sample?r=RUN&s=SAMPLE``: one sample (a permalink);
  ``/sample.json?r=RUN&s=SAMPLE``: its line as stored; ``/compare?r=RUN&r=RUN2``: a comparison.
* ``/api/stamp[?r=RUN]``: a token that changes when the runs (or that run) change; the page's
  script polls it and swaps in the page's live part (``?partial=1``) when it does.

A run is named in URLs by its path as the viewer found it (relative to the working directory
when it is below it) and looked up among the runs found: a URL cannot name any other file.
Responses forbid inline scripts, remote resources and framing (``Content-Security-Policy``), and
only requests addressed to 127.0.0.1 or localhost are answered, so a web page elsewhere cannot
read runs through DNS rebinding.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import attrs
import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from speckernel.compare import compare_indexes
from speckernel.errors import KernelError
from speckernel.model import Status, to_json
from speckernel.runindex import Entry, RunIndex, find_runs, group_entries
from speckernel.stats import total
from speckernel.viewer import query, render
from speckernel.viewer.templating import render_page

HOSTS = ("127.0.0.1", "localhost")
DEFAULT_PORT = 7575

_SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
     b"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


class SecurityHeaders:
    """ASGI middleware adding ``_SECURITY_HEADERS`` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


# --------------------------------------------------------------------------- the runs


def run_key(path: Path) -> str:
    """How a run is named in URLs: relative to the working directory when below it."""
    absolute = path.resolve()
    try:
        return absolute.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return absolute.as_posix()


class Library:
    """The runs under the viewer's directories: found again on each look (new runs appear),
    each indexed once and refreshed incrementally."""

    def __init__(self, dirs: Sequence[Path]) -> None:
        self.dirs = list(dirs)
        self._runs: dict[str, RunIndex] = {}
        self._lock = threading.Lock()

    def runs(self) -> list[tuple[str, RunIndex]]:
        """Every run found now, refreshed, in sorted order of key."""
        found = {run_key(p): p for p in find_runs(self.dirs)}
        with self._lock:
            for key, path in found.items():
                if key not in self._runs:
                    self._runs[key] = RunIndex(path)
            chosen = [(key, self._runs[key]) for key in sorted(found)]
        for _, index in chosen:
            index.refresh()
        return chosen

    def get(self, key: str) -> RunIndex | None:
        """The run named ``key``, refreshed; ``None`` for a name that is not a found run."""
        with self._lock:
            index = self._runs.get(key)
        if index is None:
            index = dict(self.runs()).get(key)
        elif (index.root / "run.yaml").is_file():
            index.refresh()
        else:
            return None
        return index


# --------------------------------------------------------------------------- pages


@attrs.frozen
class RunRow:
    key: str
    query: str
    benchmark: str
    agents: tuple[str, ...]
    models: tuple[str, ...]
    created: str
    samples: int
    solved: int
    errors: int
    cost: float
    unpriced_calls: int
    updated: float
    problems: tuple[str, ...]


def _run_row(key: str, index: RunIndex) -> RunRow:
    entries = index.entries
    config = index.info.get("config") or {}
    groups = group_entries(entries)
    agents = sorted({a for a, _ in groups} or set(config.get("agents") or ()))
    models = sorted({m for _, m in groups} or set(config.get("models") or ()))
    return RunRow(key, urlencode({"r": key}), index.benchmark, tuple(agents), tuple(models),
                  str(index.info.get("created", "")), len(entries),
                  sum(e.solved for e in entries), sum(e.status == "error" for e in entries),
                  total(e.cost_usd for e in entries), sum(e.unpriced_calls for e in entries),
                  max((e.started_at + e.duration_s for e in entries), default=0.0),
                  index.problems)


@attrs.frozen
class Column:
    label: str
    query: str
    arrow: str
    numeric: bool


def _columns(key: str, filters: query.Filters, metrics: Sequence[str]) -> list[Column]:
    numeric = {"attempt", "duration", "tokens", "cost"}
    out = []
    for label, sort in [*((c, c) for c in query.COLUMNS[:6]), *((m, f"metric:{m}")
                                                              for m in metrics),
                        *((c, c) for c in query.COLUMNS[6:])]:
        current = filters.sort == sort
        desc = not filters.desc if current else False
        out.append(Column(label, f"r={_q(key)}&" + filters.to_query(sort=sort, desc=desc, page=1),
                          (" ▼" if filters.desc else " ▲") if current else "",
                          label in numeric or sort.startswith("metric:")))
    return out


def _q(text: str) -> str:
    return urlencode({"": text})[1:]


def _sample_query(key: str, entry: Entry | str) -> str:
    sample_id = entry if isinstance(entry, str) else entry.sample_id
    return urlencode({"r": key, "s": sample_id})


class Pages:
    """The page handlers, over one ``Library``."""

    def __init__(self, library: Library) -> None:
        self.library = library

    def runs(self, request: Request) -> Response:
        rows = [_run_row(key, index) for key, index in self.library.runs()]
        stamp = self._stamp()
        context = {"title": "Runs", "runs": rows, "dirs": [str(d) for d in self.library.dirs],
                   "stamp": stamp}
        if request.query_params.get("partial"):
            return _html(render_page("_runs_live.html", **context), stamp)
        return _html(render_page("runs.html", **context), stamp)

    def run(self, request: Request) -> Response:
        key = request.query_params.get("r", "")
        index = self.library.get(key)
        if index is None:
            return _not_found(f"no run '{key}' under the viewer's directories")
        entries = index.entries
        params = {k: request.query_params.getlist(k) for k in request.query_params}
        filters = query.Filters.from_query(params)
        metrics = query.metric_names(entries)
        kept = query.select(entries, filters)
        page, pages = query.page_of(kept, filters.page)
        current = min(filters.page, pages)
        base = urlencode({"r": key})
        stamp = token(index.stamp)
        context = {
            "title": f"{index.benchmark or 'run'} {key}", "key": key, "info": index.info,
            "benchmark": index.benchmark,
            "tools": sorted((str(k), str(v)) for k, v in (index.info.get("tools") or {}).items()),
            "problems": index.problems, "filters": filters, "metrics": metrics,
            "statuses": [s.value for s in Status],
            "shown_statuses": [s.value for s in Status if any(e.status == s.value
                                                              for e in entries)],
            "agents": sorted({e.key.agent for e in entries}),
            "models": sorted({e.key.model for e in entries}),
            "aggregate": query.aggregate(kept, metrics), "kept": len(kept),
            "total": len(entries), "page": page, "pages": pages, "current": current,
            "columns": _columns(key, filters, metrics), "base_query": base,
            "compare_query": base,
            "sample_query": lambda e: _sample_query(key, e),
            "page_query": lambda n: f"{base}&" + filters.to_query(page=n),
            "stamp": stamp,
        }
        if request.query_params.get("partial"):
            return _html(render_page("_run_live.html", **context), stamp)
        return _html(render_page("run.html", **context), stamp)

    def sample(self, request: Request) -> Response:
        key = request.query_params.get("r", "")
        sample_id = request.query_params.get("s", "")
        index = self.library.get(key)
        if index is None:
            return _not_found(f"no run '{key}' under the viewer's directories")
        sample = index.sample(sample_id)
        if sample is None:
            return _not_found(f"run '{key}' has no sample '{sample_id}'")
        candidate = sample.candidate
        files = dict(candidate.files) if candidate else {}
        names = sorted(files)
        diagnostics = [d for v in sample.verdicts for d in v.diagnostics]
        messages = candidate.provenance.messages if candidate else ()
        drafts = render.rounds(messages, files)
        round_of = {r.message_index: r.number for r in drafts}
        order = [e.sample_id for e in index.entries]
        here = order.index(sample.id) if sample.id in order else -1
        context = {
            "title": f"{sample.key.task_id} · {sample.key.model}", "key": key, "sample": sample,
            "solved": sample.status.value == "success",
            "usage": candidate.provenance.usage if candidate else None,
            "provenance": candidate.provenance if candidate else None,
            "permalink": f"/sample?{_sample_query(key, sample.id)}",
            "sample_query": _sample_query(key, sample.id), "run_query": urlencode({"r": key}),
            "previous": _sample_query(key, order[here - 1]) if here > 0 else "",
            "next": _sample_query(key, order[here + 1]) if 0 <= here < len(order) - 1 else "",
            "names": names, "files": render.show_files(files, diagnostics),
            "verdicts": list(zip(sample.verdicts,
                                 render.verdict_locations(sample.verdicts, files), strict=True)),
            "rounds": drafts,
            "transcript": [{"index": i, "role": m.role, "html": render.markdown(m.content),
                            "round": round_of.get(i)} for i, m in enumerate(messages)],
            "run_tools": sorted((str(k), str(v))
                                for k, v in (index.info.get("tools") or {}).items()),
            "data_json": lambda data: json.dumps(to_json(data), indent=2, ensure_ascii=False,
                                                 default=str),
        }
        return _html(render_page("sample.html", **context), token(index.stamp))

    def sample_json(self, request: Request) -> Response:
        index = self.library.get(request.query_params.get("r", ""))
        sample = index.sample(request.query_params.get("s", "")) if index else None
        if sample is None:
            return _not_found("no such sample")
        body = json.dumps(to_json(sample), indent=2, ensure_ascii=False)
        return Response(body, media_type="application/json")

    def compare(self, request: Request) -> Response:
        keys = request.query_params.getlist("r")
        indexes = [self.library.get(k) for k in keys]
        missing = [k for k, i in zip(keys, indexes, strict=True) if i is None]
        context: dict[str, Any] = {"title": "Comparison", "comparison": None, "error": ""}
        if not keys:
            context["error"] = "select runs to compare on the run list"
        elif missing:
            context["error"] = f"no run '{missing[0]}' under the viewer's directories"
        else:
            try:
                context["comparison"] = compare_indexes(
                    [i for i in indexes if i is not None], keys)
            except KernelError as exc:
                context["error"] = str(exc)
        if context["comparison"] is not None:
            context["title"] = f"Comparison: {context['comparison'].benchmark or 'runs'}"
        return _html(render_page("compare.html", **context), "")

    def stamp(self, request: Request) -> Response:
        key = request.query_params.get("r")
        if key is None:
            return PlainTextResponse(self._stamp())
        index = self.library.get(key)
        return PlainTextResponse(token(index.stamp) if index else "gone")

    def _stamp(self) -> str:
        return token("|".join(f"{key}={index.stamp}" for key, index in self.library.runs()))


def token(stamp: str) -> str:
    """A short opaque form of a stamp: safe in a header whatever the run's path holds."""
    return hashlib.sha256(stamp.encode()).hexdigest()[:20]


def _html(body: str, stamp: str) -> HTMLResponse:
    return HTMLResponse(body, headers={"X-Stamp": stamp})


def _not_found(message: str) -> Response:
    return HTMLResponse(render_page("error.html", title="Not found", error=message),
                        status_code=404)


def create_app(dirs: Sequence[Path], hosts: Sequence[str] = HOSTS) -> Starlette:
    """The viewer over the runs under ``dirs``; requests for another host are refused."""
    pages = Pages(Library(dirs))
    static = StaticFiles(packages=[("speckernel.viewer", "static")])
    css = render.stylesheet()
    return Starlette(
        routes=[
            Route("/", pages.runs),
            Route("/run", pages.run),
            Route("/sample", pages.sample),
            Route("/sample.json", pages.sample_json),
            Route("/compare", pages.compare),
            Route("/api/stamp", pages.stamp),
            Route("/static/pygments.css",
                  lambda request: Response(css, media_type="text/css")),
            Mount("/static", static),
        ],
        middleware=[Middleware(SecurityHeaders),
                    Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
    )


# --------------------------------------------------------------------------- serving


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port`` (0: any free port); a port in use is a
    one-line error."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise KernelError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror}); "
                          "choose another --port") from exc
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def make_server(dirs: Sequence[Path], sock: socket.socket) -> uvicorn.Server:
    """A uvicorn server for the viewer on ``sock`` (run it with ``server.run([sock])``)."""
    config = uvicorn.Config(create_app(dirs), log_level="warning", access_log=False,
                            lifespan="off")
    return uvicorn.Server(config)


def default_dirs() -> list[Path]:
    """``runs`` (where ``kernel run`` writes) when it exists, else the working directory."""
    return [Path("runs")] if Path("runs").is_dir() else [Path(".")]


def serve(dirs: Sequence[Path], port: int = DEFAULT_PORT, open_browser: bool = True,
          echo: Callable[[str], object] = print) -> None:
    """Serve the viewer until interrupted, printing its address (and opening a browser)."""
    find_runs(dirs)  # a missing directory is an error before anything listens
    sock = bind(port)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    echo(f"kernel view: {url} (read-only; Ctrl-C stops it)")
    if open_browser and _has_display():
        threading.Timer(0.5, webbrowser.open, [url]).start()
    elif open_browser:
        echo("no display: open the address in a browser")
    make_server(dirs, sock).run(sockets=[sock])


def _has_display() -> bool:
    """Whether a graphical browser can open: always off Linux; on Linux only with an X or
    Wayland display (``webbrowser`` would otherwise start a text browser in the terminal)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
