"""The shapes of the service's answers (the OpenAPI document at /openapi.json has every field; these name the ones
the client's callers read most). ``total=False``: a field the service adds later is no error."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict


class Website(TypedDict, total=False):
    id: int
    name: str
    url: str
    viewport_width: int
    viewport_height: int
    capture_options: Dict[str, Any]
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
    created_at: str
    finished_at: Optional[str]


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
