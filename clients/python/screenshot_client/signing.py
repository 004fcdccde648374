"""Signed GET /render links (docs/render-keys.md, API.md "Signed links"), byte for byte as the TypeScript client
signs them (clients/typescript/src/signing.ts):

``<base_url>/render?<params>&access_key=…[&expires=…]&signature=<hex>``, where ``signature`` is the lowercase hex
HMAC-SHA256 of the query exactly as written before ``&signature=``, keyed with the render key's secret (UTF-8).
Each value is percent-encoded as JavaScript's ``encodeURIComponent`` does (UTF-8; a space is ``%20``, never ``+``;
``A-Z a-z 0-9 - _ . ! ~ * ' ( )`` kept), a list repeats its key, booleans are ``true`` / ``false``.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from datetime import datetime
from typing import Mapping, Optional, Sequence, Union, cast
from urllib.parse import quote

Scalar = Union[str, int, float, bool]
QueryValue = Union[Scalar, Sequence[Scalar]]

_SET_BY_SIGNING = ("access_key", "expires", "signature")
# What encodeURIComponent leaves as it is besides letters and digits (quote() always keeps "_.-~").
_KEPT = "!*'()"


def _text(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a query value")
        # JavaScript's String(): 1.0 is "1", 0.5 is "0.5".
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, str):
        return value
    raise TypeError(f"{value!r} is not a query value (text, a number, a boolean or a list of them)")


def _pair(key: str, value: Scalar) -> str:
    return f"{quote(key, safe=_KEPT)}={quote(_text(value), safe=_KEPT)}"


def _unix_seconds(expires: Union[int, datetime]) -> int:
    if isinstance(expires, datetime):
        if expires.tzinfo is None:
            raise ValueError("expires: give a timezone-aware datetime (e.g. datetime.now(timezone.utc) + timedelta(days=1))")
        return math.floor(expires.timestamp())
    if isinstance(expires, bool) or not isinstance(expires, int) or expires < 0:
        raise ValueError(f"expires must be unix seconds (a whole number >= 0), got {expires!r}")
    return expires


def sign_render_url(
    base_url: str,
    access_key: str,
    secret: str,
    params: Mapping[str, Optional[QueryValue]],
    expires: Optional[Union[int, datetime]] = None,
) -> str:
    """A GET /render link anyone can open without a token.

    ``params``: ``url`` and any capture or cache option of GET /render, in the order they should appear (a dict keeps
    its order); ``None`` values are left out. ``expires``: unix seconds or a timezone-aware datetime; no expiry when
    absent. Sign on a server, where the secret stays, and hand the link out.
    """
    if "url" not in params:
        raise ValueError('params needs "url", the page to render')
    pairs = []
    for key, value in params.items():
        if key in _SET_BY_SIGNING:
            raise ValueError(f'"{key}" is set by sign_render_url, not a render parameter')
        if value is None:
            continue
        items: Sequence[Scalar] = value if isinstance(value, (list, tuple)) else [cast(Scalar, value)]
        for item in items:
            pairs.append(_pair(key, item))
    pairs.append(_pair("access_key", access_key))
    if expires is not None:
        pairs.append(_pair("expires", _unix_seconds(expires)))
    query = "&".join(pairs)
    signature = hmac.new(secret.encode("utf-8"), query.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"{base_url.rstrip('/')}/render?{query}&signature={signature}"
