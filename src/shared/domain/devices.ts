/**
 * Device presets (API.md, Capture options: `device`): puppeteer's KnownDevices, copied into device-presets.json by
 * `npm run generate:devices` (scripts/generate-devices.mjs) so the API can list and validate them without the
 * browser library (only adapters/capture imports puppeteer). devices.spec.ts in adapters/capture fails when
 * puppeteer's table changes: run the script again.
 */
import devices from './device-presets.json';

export interface DevicePreset {
  /** CSS px. */
  width: number;
  height: number;
  deviceScaleFactor: number;
  mobile: boolean;
  touch: boolean;
  userAgent: string;
}

export const DEVICES: Readonly<Record<string, DevicePreset>> = devices;

export const DEVICE_NAMES: readonly string[] = Object.keys(DEVICES);
