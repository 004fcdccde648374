"""Client of the screenshot API, standard library only (see clients/python/README.md)."""

from .client import Rendered, ScreenshotClient
from .errors import ApiError, WaitTimeout
from .signing import QueryValue, sign_render_url
from .types import Job, Monitor, MonitoredWebsite, Screenshot, ScreenshotPage, Website, WebsitePage

__all__ = [
    "ApiError",
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
    "sign_render_url",
]
__version__ = "1.0.0"
