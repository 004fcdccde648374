"""The client against a running service (test/e2e/python-client.e2e-spec.ts boots one and runs these):
SCREENSHOT_BASE_URL, SCREENSHOT_TOKEN (an account of the Business plan) and PAGES_URL (a page server whose /red is
a red page and /held never answers). Without them these tests are skipped; the e2e spec refuses a skip."""

from __future__ import annotations

import io
import json
import os
import time
import unittest
import zipfile
from typing import Any, Dict, List
from urllib.error import HTTPError
from urllib.request import urlopen

from screenshot_client import ApiError, QueryValue, ScreenshotClient, WaitTimeout, sign_render_url

from .png import Png

BASE_URL = os.environ.get("SCREENSHOT_BASE_URL", "")
TOKEN = os.environ.get("SCREENSHOT_TOKEN", "")
PAGES_URL = os.environ.get("PAGES_URL", "")
RED = (255, 0, 0)


@unittest.skipUnless(BASE_URL and TOKEN and PAGES_URL, "needs a running service: SCREENSHOT_BASE_URL, SCREENSHOT_TOKEN, PAGES_URL")
class ServiceTest(unittest.TestCase):
    client: ScreenshotClient

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = ScreenshotClient(BASE_URL, token=TOKEN)

    def website(self, name: str, page: str = "/red") -> int:
        return self.client.create_website(name, f"{PAGES_URL}{page}", viewport_width=320, viewport_height=240)["id"]

    def test_render_answers_the_image_then_from_the_cache(self) -> None:
        options: Dict[str, Any] = {"viewport_width": 320, "viewport_height": 240, "cache_ttl": 60}
        miss = self.client.render(f"{PAGES_URL}/red", **options)
        self.assertEqual((miss.content_type, miss.cache), ("image/png", "MISS"))
        image = Png(miss.content)
        self.assertEqual((image.width, image.height, image.at(160, 120)), (320, 240, RED))
        self.assertEqual(self.client.render(f"{PAGES_URL}/red", **options).cache, "HIT")

    def test_render_with_a_bad_option_is_a_422_naming_the_field(self) -> None:
        with self.assertRaises(ApiError) as caught:
            self.client.render(f"{PAGES_URL}/red", viewport_widht=320)
        self.assertEqual((caught.exception.status, caught.exception.code), (422, "validation_failed"))
        self.assertIn("viewport_widht", [d.get("field") for d in caught.exception.details])

    def test_websites_create_list_get_update_delete(self) -> None:
        created = self.client.create_website("Py site", f"{PAGES_URL}/red", viewport_width=320, viewport_height=240)
        self.assertEqual((created["name"], created["url"], created["viewport_width"]), ("Py site", f"{PAGES_URL}/red", 320))
        listed = self.client.list_websites(per_page=100)
        self.assertIn(created["id"], [w["id"] for w in listed["data"]])
        self.assertEqual(listed["meta"]["per_page"], 100)
        self.assertEqual(self.client.get_website(created["id"])["name"], "Py site")
        updated = self.client.update_website(created["id"], name="Py site renamed")
        self.assertEqual(updated["name"], "Py site renamed")
        self.assertEqual(self.client.get_website(created["id"])["name"], "Py site renamed")
        self.client.delete_website(created["id"])
        with self.assertRaises(ApiError) as caught:
            self.client.get_website(created["id"])
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))

    def test_change_conditions_are_saved_and_a_bad_pattern_is_named(self) -> None:
        website_id = self.website("Py conditions")
        updated = self.client.update_website(website_id, ignore_text=["^Updated at \\d+"], alert_when={"text_contains": "In stock"})
        self.assertEqual((updated["ignore_text"], updated["alert_when"]), (["^Updated at \\d+"], {"text_contains": "In stock"}))
        with self.assertRaises(ApiError) as caught:
            self.client.update_website(website_id, ignore_text=["fine", "(a)\\1"])
        self.assertEqual([d["field"] for d in caught.exception.details], ["ignore_text[1]"])

    def test_sessions_from_a_cookies_txt_listed_without_values_then_deleted(self) -> None:
        txt = "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t4102444800\tsid\tpy-secret-value\n"
        created = self.client.create_session("Py session", logged_in_selector="#menu", cookies_txt=txt)
        self.assertEqual((created["status"], created["source"], created["cookie_count"]), ("ready", "cookies_txt", 1))
        self.assertEqual(created["cookies"], [{"name": "sid", "domain": ".example.com", "path": "/", "expires": "2100-01-01T00:00:00.000Z"}])
        self.assertNotIn("py-secret-value", json.dumps(self.client.get_session(created["id"])))
        self.assertIn(created["id"], [s["id"] for s in self.client.list_sessions(per_page=100)["data"]])
        with self.assertRaises(ApiError) as caught:
            self.client.refresh_session(created["id"])
        self.assertEqual((caught.exception.status, caught.exception.code), (409, "conflict"))
        self.client.delete_session(created["id"])
        with self.assertRaises(ApiError) as caught:
            self.client.get_session(created["id"])
        self.assertEqual(caught.exception.status, 404)

    def test_create_monitor_makes_the_website_its_schedule_and_its_first_capture_or_nothing(self) -> None:
        made = self.client.create_monitor("Py monitor", f"{PAGES_URL}/red", "1d", viewport_width=320, viewport_height=240)
        monitor = made["monitor"]
        self.assertEqual((made["website"]["name"], monitor["every"], monitor["channel_ids"]), ("Py monitor", "1d", []))
        schedule = self.client.request("GET", f"/schedules/{monitor['schedule_id']}")["data"]
        self.assertEqual((schedule["website_id"], schedule["frequency"]), (made["website"]["id"], "daily"))
        first = monitor["first_job_id"]
        assert first is not None
        self.assertEqual(self.client.wait_for_job(first, timeout=60)["status"], "succeeded")
        with self.assertRaises(ApiError) as caught:
            self.client.create_monitor("Py monitor", f"{PAGES_URL}/red", "sometimes")
        self.assertEqual([d["field"] for d in caught.exception.details], ["monitor.every"])

    def test_a_422_carries_the_fields(self) -> None:
        with self.assertRaises(ApiError) as caught:
            self.client.create_website("", "not a url")
        self.assertEqual((caught.exception.status, caught.exception.code), (422, "validation_failed"))
        self.assertEqual(sorted(d["field"] for d in caught.exception.details), ["name", "url"])

    def test_notification_channels_teams_and_ntfy_targets_are_checked_and_a_rename_keeps_the_target(self) -> None:
        for kind, target in (("teams", "https://evil.example/workflows/1"), ("ntfy", "https://ntfy.sh/")):
            with self.assertRaises(ApiError) as caught:
                self.client.create_notification_channel("Py", kind, target, ["screenshot.failed"])
            self.assertEqual((caught.exception.status, [d["field"] for d in caught.exception.details]), (422, ["target"]))
        # A self-hosted ntfy server's topic (the page server stands in for it): the topic is the secret, masked.
        created = self.client.create_notification_channel("Py phone", "ntfy", f"{PAGES_URL}/py-alerts", ["screenshot.failed"])
        self.assertEqual((created["type"], created["target"]), ("ntfy", f"{PAGES_URL}/********"))
        updated = self.client.update_notification_channel(created["id"], name="Py phone 2")
        self.assertEqual((updated["name"], updated["target"]), ("Py phone 2", f"{PAGES_URL}/********"))
        self.assertIn(created["id"], [c["id"] for c in self.client.list_notification_channels()["data"]])
        self.client.delete_notification_channel(created["id"])

    def test_take_wait_get_list_download_and_zip(self) -> None:
        website_id = self.website("Py shots")
        shots: List[int] = []
        for _ in range(2):
            job_id = self.client.take_screenshot(website_id, format="png")
            job = self.client.wait_for_job(job_id, timeout=60)
            self.assertEqual((job["id"], job["status"], job["error"], job["website_id"]), (job_id, "succeeded", None, website_id))
            screenshot_id = job["screenshot_id"]
            assert screenshot_id is not None
            shots.append(screenshot_id)
        screenshot = self.client.get_screenshot(shots[0])
        self.assertEqual((screenshot["website_id"], screenshot["width"], screenshot["height"], screenshot["format"]), (website_id, 320, 240, "png"))
        listed = self.client.list_screenshots(website_id=website_id)
        self.assertEqual(sorted(s["id"] for s in listed["data"]), sorted(shots))
        self.assertEqual(listed["meta"]["total"], 2)
        image = Png(self.client.download_screenshot(shots[0]))
        self.assertEqual((image.width, image.height, image.at(160, 120)), (320, 240, RED))

        archive = zipfile.ZipFile(io.BytesIO(self.client.download_zip(shots)))
        self.assertEqual(sorted(archive.namelist()), sorted(f"{i}-Py-shots.png" for i in shots))
        for name in archive.namelist():
            self.assertEqual(Png(archive.read(name)).at(160, 120), RED)

    def test_batch_create_wait_items_download_and_cancel(self) -> None:
        with self.assertRaises(ApiError) as caught:
            self.client.create_batch(items=[{"url": f"{PAGES_URL}/red"}, {"url": f"{PAGES_URL}/red", "viewport_width": 5}])
        self.assertEqual([d["field"] for d in caught.exception.details], ["items[1].viewport_width"])
        created = self.client.create_batch([f"{PAGES_URL}/red", f"{PAGES_URL}/red?2"], options={"viewport_width": 320, "viewport_height": 240}, name="Py batch")
        self.assertEqual((created["total"], created["status"], created["name"]), (2, "running", "Py batch"))
        done = self.client.wait_for_batch(created["id"], timeout=60, every=0.2)
        self.assertEqual((done["status"], done["counts"]["succeeded"]), ("completed", 2))
        items = self.client.batch_items(created["id"])
        self.assertEqual([i["status"] for i in items], ["succeeded", "succeeded"])
        self.assertIn(created["id"], [b["id"] for b in self.client.list_batches()["data"]])
        archive = zipfile.ZipFile(io.BytesIO(self.client.download_batch(created["id"])))
        self.assertEqual(sorted(archive.namelist()), sorted([i["file"]["name"] for i in items] + ["results.csv"]))
        self.assertEqual(Png(archive.read(items[0]["file"]["name"])).at(160, 120), RED)
        # Ended already: a cancel changes nothing.
        self.assertEqual(self.client.cancel_batch(created["id"])["status"], "completed")

    def test_wait_for_job_gives_up_at_its_timeout_with_the_last_state(self) -> None:
        job_id = self.client.take_screenshot(self.website("Py never answers", "/held"))
        started = time.monotonic()
        with self.assertRaises(WaitTimeout) as caught:
            self.client.wait_for_job(job_id, timeout=1.5)
        elapsed = time.monotonic() - started
        self.assertIn(caught.exception.last["status"], ("queued", "running"))
        self.assertGreaterEqual(elapsed, 1.5)
        # One long-poll of 2 s (the timeout rounded up), then the answer; generous under load.
        self.assertLess(elapsed, 10)

    def test_wait_for_an_unknown_job_is_a_404(self) -> None:
        with self.assertRaises(ApiError) as caught:
            self.client.wait_for_job("00000000-0000-4000-8000-000000000000")
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))

    def test_a_bad_token_is_a_401(self) -> None:
        with self.assertRaises(ApiError) as caught:
            ScreenshotClient(BASE_URL, token="sst_not-a-token").list_websites()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "unauthorized"))

    def test_signed_links_open_without_a_token_and_refuse_a_change_an_expiry_a_deleted_key(self) -> None:
        key = self.client.request("POST", "/render-keys", body={"name": "Python"})["data"]
        params: Dict[str, QueryValue] = {"url": f"{PAGES_URL}/red", "viewport_width": 320, "viewport_height": 240, "full_page": False}
        link = sign_render_url(BASE_URL, key["access_key"], key["secret"], params, expires=int(time.time()) + 3600)
        with urlopen(link) as res:  # no Authorization header: the signature is the credential
            self.assertEqual(res.headers["Content-Type"], "image/png")
            self.assertRegex(res.headers["Cache-Control"], r"^public, max-age=\d+$")
            self.assertEqual(Png(res.read()).at(160, 120), RED)

        def refused(url: str) -> str:
            with self.assertRaises(HTTPError) as caught:
                urlopen(url)
            with caught.exception as err:
                self.assertEqual(err.code, 403)
                return str(json.loads(err.read())["code"])

        self.assertEqual(refused(link.replace("viewport_width=320", "viewport_width=321")), "invalid_signature")
        self.assertEqual(refused(sign_render_url(BASE_URL, key["access_key"], key["secret"], params, expires=1)), "link_expired")
        self.client.request("DELETE", f"/render-keys/{key['id']}")
        self.assertEqual(refused(link), "invalid_signature")


if __name__ == "__main__":
    unittest.main()
