"""The shapes of the service's answers (the OpenAPI document at /openapi.json has every field; these name the ones
the client's callers read most). ``total=False``: a field the service adds later is no error."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict


class AlertWhen(TypedDict, total=False):
    """A website's change conditions: every field set must hold for a comparison to be ``changed`` (and alerted)."""

    text_contains: str
    text_missing: str
    min_changed_ratio: float
    text_only: bool


class Website(TypedDict, total=False):
    id: int
    name: str
    url: str
    viewport_width: int
    viewport_height: int
    capture_options: Dict[str, Any]
    change_threshold: float
    change_ignore_selectors: List[str]
    alert_when: AlertWhen
    ignore_text: List[str]
    created_at: str
    updated_at: str


class Monitor(TypedDict, total=False):
    """What ``monitor`` made with a website (POST /websites): its schedule, rhythm, channels and first capture."""

    schedule_id: int
    every: str
    channel_ids: List[int]
    first_job_id: Optional[str]


class MonitoredWebsite(TypedDict):
    website: Website
    monitor: Monitor


class Screenshot(TypedDict, total=False):
    id: int
    website_id: Optional[int]
    width: int
    height: int
    format: str
    mime_type: str
    file_size: int
    created_at: str
    capture: Optional[Dict[str, Any]]
    change: Optional[Dict[str, Any]]


class Job(TypedDict, total=False):
    id: str
    type: str
    status: str
    website_id: Optional[int]
    screenshot_id: Optional[int]
    error: Optional[str]
    error_code: Optional[str]
    created_at: str
    finished_at: Optional[str]


class Session(TypedDict, total=False):
    """A saved session (docs/sessions.md): cookie values and storage are never in it, only names, domains, expiry."""

    id: int
    name: str
    status: str
    source: str
    scenario_id: Optional[int]
    logged_in_selector: Optional[str]
    origins: List[str]
    domains: List[str]
    cookie_count: int
    cookies: List[Dict[str, Any]]
    refreshed_at: Optional[str]
    refresh_count: int
    expires_at: Optional[str]
    error: Optional[str]
    created_at: str
    updated_at: str


class PageMeta(TypedDict):
    current_page: int
    last_page: int
    per_page: int
    total: int


class PageLinks(TypedDict, total=False):
    first: Optional[str]
    last: Optional[str]
    prev: Optional[str]
    next: Optional[str]


class WebsitePage(TypedDict):
    """A list's envelope: ``data`` (this page), ``meta`` (counts), ``links`` (``next`` / ``prev`` carry a cursor)."""

    data: List[Website]
    meta: PageMeta
    links: PageLinks


class ScreenshotPage(TypedDict):
    """As ``WebsitePage``, of screenshots."""

    data: List[Screenshot]
    meta: PageMeta
    links: PageLinks


class BatchCounts(TypedDict):
    queued: int
    succeeded: int
    failed: int
    cancelled: int


class Batch(TypedDict, total=False):
    """A batch (POST /batches): ``status`` running | completed | cancelled; ``counts`` (``queued``: not ended yet)."""

    id: str
    name: Optional[str]
    status: str
    total: int
    counts: BatchCounts
    created_at: str
    cancel_requested_at: Optional[str]
    completed_at: Optional[str]
    items: List[Dict[str, Any]]


class BatchPage(TypedDict):
    """As ``WebsitePage``, of batches; also GET /batches/{id}, whose ``data`` is one batch with a page of ``items``."""

    data: Any
    meta: PageMeta
    links: PageLinks
