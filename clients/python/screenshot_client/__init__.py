"""Client of the screenshot API, standard library only (see clients/python/README.md)."""

from .client import Rendered, ScreenshotClient
from .errors import ApiError, WaitTimeout
from .signing import QueryValue, sign_render_url
from .types import AlertWhen, Batch, BatchPage, Job, Monitor, MonitoredWebsite, Screenshot, ScreenshotPage, Session, Website, WebsitePage

__all__ = [
    "AlertWhen",
    "ApiError",
    "Batch",
    "BatchPage",
    "Job",
    "Monitor",
    "MonitoredWebsite",
    "QueryValue",
    "Rendered",
    "Screenshot",
    "ScreenshotClient",
    "ScreenshotPage",
    "WaitTimeout",
    "Website",
    "WebsitePage",
    "Session",
    "sign_render_url",
]
__version__ = "1.0.0"
