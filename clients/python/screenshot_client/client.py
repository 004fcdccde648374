"""A client of the screenshot API on Python's standard library alone (urllib, json): the calls of the TypeScript
client (clients/typescript), each answering the ``data`` of the service's envelope, or raising ``ApiError``.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from email.message import Message
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union, cast
from urllib.error import HTTPError
from urllib.parse import quote, urlencode
from urllib.request import Request, urlopen

from .errors import ApiError, WaitTimeout
from .types import Batch, BatchPage, Job, MonitoredWebsite, Screenshot, ScreenshotPage, Session, Website, WebsitePage

# The longest wait the service accepts (GET /jobs/{id}?wait=0..30).
MAX_WAIT_SECONDS = 30
DEFAULT_WAIT_TIMEOUT = 300.0

Query = Mapping[str, Union[str, int, bool, None]]


@dataclass(frozen=True)
class Rendered:
    """What ``render`` answers: the file's bytes, its type, ``HIT`` / ``MISS`` from the render cache, all headers."""

    content: bytes
    content_type: str
    cache: Optional[str]
    headers: Message


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: Message
    body: bytes


def _query_text(value: Union[str, int, bool]) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


class ScreenshotClient:
    """``ScreenshotClient("https://shots.example.com", token="sst_…")``: every request sends the bearer token.

    ``timeout`` is each request's socket timeout in seconds; a long-poll adds its wait on top.
    """

    def __init__(self, base_url: str, token: str, *, timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self.timeout = timeout

    def __repr__(self) -> str:  # never the token
        return f"ScreenshotClient({self.base_url!r})"

    # -- any endpoint -------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, *, query: Optional[Query] = None, body: Any = None, headers: Optional[Mapping[str, str]] = None) -> Any:
        """Any endpoint of the API (``/render-keys``, ``/scenarios``, …): the parsed JSON answer, whole."""
        answer = self._send(method, path, query=query, body=body, headers=headers)
        return json.loads(answer.body) if answer.body else None

    def _send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Query] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> _Answer:
        url = self.base_url + path
        if query:
            url += "?" + urlencode([(k, _query_text(v)) for k, v in query.items() if v is not None])
        sent = {"Authorization": f"Bearer {self._token}", "Accept": "application/json, */*", **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            sent["Content-Type"] = "application/json"
        req = Request(url, data=data, method=method, headers=sent)
        try:
            with urlopen(req, timeout=timeout or self.timeout) as res:
                return _Answer(res.status, res.headers, res.read())
        except HTTPError as err:
            raw = err.read()
            err.close()
            try:
                parsed: Any = json.loads(raw)
            except ValueError:
                parsed = raw.decode("utf-8", "replace")
            raise ApiError.from_answer(err.code, parsed) from None

    def _data(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.request(method, path, **kwargs)["data"]

    # -- render ---------------------------------------------------------------------------------------------------

    def render(self, url: str, **options: Any) -> Rendered:
        """POST /render: the image (or PDF, HTML, …) itself. ``options``: any Take Screenshot option and
        ``cache_ttl`` / ``cache_key`` / ``fresh``, e.g. ``render("https://example.com", full_page=True)``."""
        answer = self._send("POST", "/render", body={"url": url, **options})
        return Rendered(answer.body, answer.headers.get("Content-Type", ""), answer.headers.get("X-Cache"), answer.headers)

    # -- websites -------------------------------------------------------------------------------------------------

    def create_website(self, name: str, url: str, **fields: Any) -> Website:
        """POST /websites: ``fields`` are the website's other fields (``viewport_width``, ``capture_options``, …)."""
        return cast(Website, self._data("POST", "/websites", body={"name": name, "url": url, **fields}))

    def create_monitor(self, name: str, url: str, every: str, channel_ids: Optional[List[int]] = None, **fields: Any) -> MonitoredWebsite:
        """POST /websites with ``monitor``: the website, a schedule that captures it ``every`` (``5m``, ``15m``, ``30m``,
        ``1h``, ``1d``, ``1w``), the notification channels that alert about it, and its first capture — in one call, or
        nothing (a 422 naming ``monitor.every`` / ``monitor.channel_ids``)."""
        monitor: Dict[str, Any] = {"every": every, "channel_ids": list(channel_ids or [])}
        answer = self.request("POST", "/websites", body={"name": name, "url": url, **fields, "monitor": monitor})
        return {"website": answer["data"], "monitor": answer["monitor"]}

    def list_websites(self, *, page: Optional[int] = None, per_page: Optional[int] = None, **filters: Union[str, int, bool, None]) -> WebsitePage:
        """GET /websites: one page of the list envelope (``data``, ``meta``, ``links``)."""
        return cast(WebsitePage, self.request("GET", "/websites", query={"page": page, "per_page": per_page, **filters}))

    def get_website(self, website_id: int) -> Website:
        return cast(Website, self._data("GET", f"/websites/{int(website_id)}"))

    def update_website(self, website_id: int, **fields: Any) -> Website:
        """PUT /websites/{id} with the fields to change."""
        return cast(Website, self._data("PUT", f"/websites/{int(website_id)}", body=fields))

    def delete_website(self, website_id: int) -> None:
        self.request("DELETE", f"/websites/{int(website_id)}")

    # -- notification channels ------------------------------------------------------------------------------------

    def create_notification_channel(
        self, name: str, type: str, target: str, events: Iterable[str], *, website_ids: Optional[Iterable[int]] = None
    ) -> Dict[str, Any]:
        """POST /notification-channels: ``type`` is ``email``, ``slack``, ``discord``, ``teams`` (a Workflows webhook
        URL) or ``ntfy`` (a topic URL such as ``https://ntfy.sh/my-alerts``); ``events`` among the webhook events."""
        body: Dict[str, Any] = {"name": name, "type": type, "target": target, "events": list(events)}
        if website_ids is not None:
            body["website_ids"] = [int(i) for i in website_ids]
        return cast(Dict[str, Any], self._data("POST", "/notification-channels", body=body))

    def list_notification_channels(self, *, page: Optional[int] = None, per_page: Optional[int] = None) -> Dict[str, Any]:
        """GET /notification-channels: one page of the list envelope (targets that are URLs come masked)."""
        return cast(Dict[str, Any], self.request("GET", "/notification-channels", query={"page": page, "per_page": per_page}))

    def update_notification_channel(self, channel_id: int, **fields: Any) -> Dict[str, Any]:
        """PUT /notification-channels/{id} with the fields to change; a ``target`` not sent stays as it is."""
        return cast(Dict[str, Any], self._data("PUT", f"/notification-channels/{int(channel_id)}", body=fields))

    def delete_notification_channel(self, channel_id: int) -> None:
        self.request("DELETE", f"/notification-channels/{int(channel_id)}")

    def test_notification_channel(self, channel_id: int) -> Dict[str, Any]:
        """POST /notification-channels/{id}/test: queues a test message (sent and retried like any other)."""
        return cast(Dict[str, Any], self._data("POST", f"/notification-channels/{int(channel_id)}/test"))

    # -- saved sessions (docs/sessions.md) ------------------------------------------------------------------------

    def create_session(self, name: str, *, logged_in_selector: Optional[str] = None, **source: Any) -> Session:
        """POST /sessions. ``source``: exactly one of ``scenario_id=3``, ``cookies=[...]``, ``cookies_txt="..."`` or
        ``storage_state={...}``; a scenario's session is ``pending`` until its login ran. Use it with
        ``session_id=`` on ``take_screenshot`` / ``render`` or in a website's ``capture_options``."""
        body: Dict[str, Any] = {"name": name, "from": source}
        if logged_in_selector is not None:
            body["logged_in_selector"] = logged_in_selector
        return cast(Session, self._data("POST", "/sessions", body=body))

    def list_sessions(self, *, page: Optional[int] = None, per_page: Optional[int] = None) -> Dict[str, Any]:
        """GET /sessions: one page of the list envelope."""
        return cast(Dict[str, Any], self.request("GET", "/sessions", query={"page": page, "per_page": per_page}))

    def get_session(self, session_id: int) -> Session:
        return cast(Session, self._data("GET", f"/sessions/{int(session_id)}"))

    def refresh_session(self, session_id: int) -> Session:
        """POST /sessions/{id}/refresh: runs its login scenario again (``pending`` until it ran)."""
        return cast(Session, self._data("POST", f"/sessions/{int(session_id)}/refresh"))

    def delete_session(self, session_id: int) -> None:
        self.request("DELETE", f"/sessions/{int(session_id)}")

    # -- screenshots and jobs -------------------------------------------------------------------------------------

    def take_screenshot(self, website_id: int, *, idempotency_key: Optional[str] = None, **options: Any) -> str:
        """POST /websites/{id}/screenshot: queues a capture with these options; answers its job's id (wait for it
        with ``wait_for_job``)."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        answer = self.request("POST", f"/websites/{int(website_id)}/screenshot", body=options, headers=headers)
        return cast(str, answer["job_id"])

    def list_screenshots(
        self,
        *,
        website_id: Optional[int] = None,
        page: Optional[int] = None,
        per_page: Optional[int] = None,
        **filters: Union[str, int, bool, None],
    ) -> ScreenshotPage:
        query = {"website_id": website_id, "page": page, "per_page": per_page, **filters}
        return cast(ScreenshotPage, self.request("GET", "/screenshots", query=query))

    def get_screenshot(self, screenshot_id: int) -> Screenshot:
        return cast(Screenshot, self._data("GET", f"/screenshots/{int(screenshot_id)}"))

    def download_screenshot(self, screenshot_id: int) -> bytes:
        """GET /screenshots/{id}/download: the file's bytes."""
        return self._send("GET", f"/screenshots/{int(screenshot_id)}/download").body

    def download_zip(self, screenshot_ids: Iterable[int]) -> bytes:
        """POST /screenshots/download-bulk: a ZIP of these screenshots (Pro and Business plans), its bytes."""
        return self._send("POST", "/screenshots/download-bulk", body={"screenshot_ids": [int(i) for i in screenshot_ids]}).body

    def get_job(self, job_id: str, *, wait: int = 0) -> Job:
        """GET /jobs/{id}?wait=N: the job now, or (wait > 0) as soon as it ends, at most N (≤ 30) seconds later."""
        wait = max(0, min(MAX_WAIT_SECONDS, int(wait)))
        answer = self._send("GET", f"/jobs/{_path_id(job_id)}", query={"wait": wait}, timeout=self.timeout + wait)
        return cast(Job, json.loads(answer.body)["data"])

    def wait_for_job(self, job_id: str, *, timeout: float = DEFAULT_WAIT_TIMEOUT) -> Job:
        """The job once it ``succeeded`` or ``failed`` (a failed job is answered too: read ``status`` and ``error``).

        Long-polls ``GET /jobs/{id}?wait=30``: one request per 30 s at most, never a busy loop. Past ``timeout``
        seconds raises ``WaitTimeout`` with the last state in ``.last``; an unknown id raises ``ApiError`` (404).
        """
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            # Rounded up: a wait of 0 answers at once, and the last second before the deadline would spin.
            job = self.get_job(job_id, wait=max(0, min(MAX_WAIT_SECONDS, math.ceil(remaining))))
            if job["status"] in ("succeeded", "failed"):
                return job
            if time.monotonic() >= deadline:
                raise WaitTimeout(cast(Dict[str, Any], job))

    # Batches (docs/batches.md)

    def create_batch(
        self,
        urls: Optional[Iterable[str]] = None,
        *,
        items: Optional[Iterable[Mapping[str, Any]]] = None,
        options: Optional[Mapping[str, Any]] = None,
        name: Optional[str] = None,
    ) -> Batch:
        """POST /batches: ``urls`` (each captured with ``options``) or ``items`` (``{"url": ..., **own options}``).

        All or nothing: one bad URL or option raises ``ApiError`` (422) naming it (``items[3].viewport_width``).
        """
        body: Dict[str, Any] = {}
        if urls is not None:
            body["urls"] = list(urls)
        if items is not None:
            body["items"] = [dict(item) for item in items]
        if options is not None:
            body["options"] = dict(options)
        if name is not None:
            body["name"] = name
        return cast(Batch, self._data("POST", "/batches", body=body))

    def list_batches(self, *, page: Optional[int] = None, per_page: Optional[int] = None, cursor: Optional[str] = None) -> BatchPage:
        return cast(BatchPage, self.request("GET", "/batches", query={"page": page, "per_page": per_page, "cursor": cursor}))

    def get_batch(self, batch_id: str, *, per_page: Optional[int] = None, status: Optional[str] = None, cursor: Optional[str] = None) -> BatchPage:
        """GET /batches/{id}: ``data`` the batch with one page of its ``items``; ``links.next`` the next page (cursor)."""
        query: Query = {"per_page": per_page, "status": status, "cursor": cursor}
        return cast(BatchPage, self.request("GET", f"/batches/{_path_id(batch_id)}", query=query))

    def batch_items(self, batch_id: str, *, status: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every item of the batch, in the list's order, following the cursor links 100 at a time."""
        items: List[Dict[str, Any]] = []
        cursor: Optional[str] = None
        page = 1
        while True:
            answer = self.request("GET", f"/batches/{_path_id(batch_id)}", query={"per_page": 100, "status": status, "page": page, "cursor": cursor})
            items.extend(answer["data"]["items"])
            following = answer["links"].get("next")
            if not following:
                return items
            query = dict(part.split("=", 1) for part in following.split("?", 1)[1].split("&"))
            cursor, page = query.get("cursor"), int(query.get("page", page + 1))

    def wait_for_batch(self, batch_id: str, *, timeout: float = DEFAULT_WAIT_TIMEOUT, every: float = 2.0) -> Batch:
        """The batch once it is no longer ``running`` (polled every ``every`` seconds); past ``timeout`` raises ``WaitTimeout``."""
        deadline = time.monotonic() + timeout
        while True:
            batch = cast(Batch, self.get_batch(batch_id, per_page=1)["data"])
            if batch["status"] != "running":
                return batch
            if time.monotonic() >= deadline:
                raise WaitTimeout(cast(Dict[str, Any], batch))
            time.sleep(max(0.0, min(every, deadline - time.monotonic())))

    def download_batch(self, batch_id: str) -> bytes:
        """GET /batches/{id}/download: a ZIP of the files captured so far and ``results.csv`` (url, status, file, error)."""
        return self._send("GET", f"/batches/{_path_id(batch_id)}/download").body

    def cancel_batch(self, batch_id: str) -> Batch:
        """DELETE /batches/{id}: items not started end ``cancelled``; running ones finish."""
        return cast(Batch, self._data("DELETE", f"/batches/{_path_id(batch_id)}"))


def _path_id(value: str) -> str:
    return quote(str(value), safe="")


__all__: List[str] = ["ScreenshotClient", "Rendered"]
