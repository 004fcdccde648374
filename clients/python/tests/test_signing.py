"""sign_render_url against links whose signatures were computed outside Python (openssl dgst -sha256 -hmac), the
vectors of the TypeScript client's src/signing.spec.ts and of docs/render-keys.md: the two clients sign alike."""

from __future__ import annotations

import unittest
from datetime import datetime, timezone

from screenshot_client import sign_render_url


class SigningTest(unittest.TestCase):
    def test_access_key_last_without_expiry(self) -> None:
        self.assertEqual(
            sign_render_url("https://shots.example.com", "rk_1", "secret", {"url": "https://example.com"}),
            "https://shots.example.com/render?url=https%3A%2F%2Fexample.com&access_key=rk_1"
            "&signature=1f3f3f2b566fbbef7401ff6507e03a385d6955c72959b61fd931dedab4b5f3c2",
        )

    def test_order_kept_booleans_and_numbers_as_text_expires_a_datetime(self) -> None:
        link = sign_render_url(
            "https://shots.example.com/",
            "rk_live_4f2a",
            "rs_s3cr3t+/=",
            {"url": "https://example.com/page?a=1&b=2", "full_page": True, "viewport_width": 390, "cache_key": None},
            expires=datetime(2026, 1, 1, tzinfo=timezone.utc),
        )
        self.assertEqual(
            link,
            "https://shots.example.com/render?url=https%3A%2F%2Fexample.com%2Fpage%3Fa%3D1%26b%3D2&full_page=true&viewport_width=390"
            "&access_key=rk_live_4f2a&expires=1767225600&signature=0a85d2731ab53412996c335f46ee6f188514a1e6f6504b6030112f18f8ff0395",
        )

    def test_utf8_spaces_as_percent_20_lists_repeat_their_key(self) -> None:
        link = sign_render_url(
            "http://127.0.0.1:3000",
            "rk_1",
            "secret",
            {"url": "https://example.com/?q=café & crème", "remove_selectors": [".ad", "#cookie-banner"]},
            expires=0,
        )
        self.assertEqual(
            link,
            "http://127.0.0.1:3000/render?url=https%3A%2F%2Fexample.com%2F%3Fq%3Dcaf%C3%A9%20%26%20cr%C3%A8me"
            "&remove_selectors=.ad&remove_selectors=%23cookie-banner&access_key=rk_1&expires=0"
            "&signature=db27f4f4314fe634b0b414591055e4ffcc83d4a0d278937107e79b61c66821cc",
        )

    def test_the_example_of_docs_render_keys(self) -> None:
        secret = "rks_00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
        link = sign_render_url(
            "https://shots.example.com",
            "rk_0123456789abcdef01234567",
            secret,
            {"url": "https://example.com/", "full_page": True},
            expires=1800000000,
        )
        self.assertEqual(
            link,
            "https://shots.example.com/render?url=https%3A%2F%2Fexample.com%2F&full_page=true"
            "&access_key=rk_0123456789abcdef01234567&expires=1800000000"
            "&signature=bed834371d0e65e7daa574b705c61a01183ffaab6390a94ac976670d5230aff2",
        )

    def test_encodes_as_encode_uri_component(self) -> None:
        link = sign_render_url("http://x", "k", "s", {"url": "a b+c/d?e=f&g!*'()~-_.h", "scale": 1.0, "ratio": 0.5})
        query = link.split("?", 1)[1].rsplit("&signature=", 1)[0]
        # encodeURIComponent("a b+c/d?e=f&g!*'()~-_.h") and String(1.0), String(0.5) in JavaScript.
        self.assertEqual(query, "url=a%20b%2Bc%2Fd%3Fe%3Df%26g!*'()~-_.h&scale=1&ratio=0.5&access_key=k")

    def test_refuses_what_it_sets_itself_and_bad_expiries(self) -> None:
        for key in ("access_key", "expires", "signature"):
            with self.assertRaisesRegex(ValueError, f'"{key}" is set by sign_render_url'):
                sign_render_url("http://x", "k", "s", {"url": "https://e.com", key: "1"})
        with self.assertRaisesRegex(ValueError, "expires must be unix seconds"):
            sign_render_url("http://x", "k", "s", {"url": "https://e.com"}, expires=-1)
        with self.assertRaisesRegex(ValueError, "timezone-aware"):
            sign_render_url("http://x", "k", "s", {"url": "https://e.com"}, expires=datetime(2030, 1, 1))
        with self.assertRaisesRegex(TypeError, "not a query value"):
            sign_render_url("http://x", "k", "s", {"url": "https://e.com", "clip": {"x": 0}})  # type: ignore[dict-item]
        with self.assertRaisesRegex(ValueError, '"url"'):
            sign_render_url("http://x", "k", "s", {"full_page": True})


if __name__ == "__main__":
    unittest.main()
