// Writes src/shared/domain/device-presets.json: puppeteer's KnownDevices in the shape the API lists and validates
// (shared/domain/devices.ts), so only adapters/capture needs the browser library at run time.
// Run after upgrading puppeteer: `npm run generate:devices` (adapters/capture/devices.spec.ts fails until then).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KnownDevices } from 'puppeteer';

const devices = Object.fromEntries(
  Object.entries(KnownDevices).map(([name, d]) => [
    name,
    {
      width: d.viewport.width,
      height: d.viewport.height,
      deviceScaleFactor: d.viewport.deviceScaleFactor ?? 1,
      mobile: d.viewport.isMobile ?? false,
      touch: d.viewport.hasTouch ?? false,
      userAgent: d.userAgent,
    },
  ]),
);
const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'shared', 'domain', 'device-presets.json');
writeFileSync(target, `${JSON.stringify(devices, null, 2)}\n`);
console.log(`${Object.keys(devices).length} devices written to ${target}`);
