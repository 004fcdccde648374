import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';

/**
 * The dashboard's stylesheet and script live as real files in src/modules/dashboard/static, beside this folder:
 * read from there under ts-node and jest, and from dist/modules/dashboard/static once built (the build and the
 * Dockerfile copy the folder, since tsc copies only what it compiles).
 */
export const STATIC_DIR = join(__dirname, '..', 'static');

const CONTENT_TYPES: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
};

export interface StaticAsset {
  type: string;
  body: Buffer;
  /** Strong validator of the body, so a browser revalidating after max-age gets a 304 instead of the file again. */
  etag: string;
}

/**
 * Every asset, read once when the app starts: a missing file stops the boot (and `npm run docker:check`) instead of
 * turning into a 404 page at the first visit, and no request ever touches the disk.
 */
@Injectable()
export class StaticAssets {
  private readonly assets = new Map<string, StaticAsset>();

  constructor() {
    for (const [name, type] of Object.entries(CONTENT_TYPES)) {
      const body = readFileSync(join(STATIC_DIR, name));
      this.assets.set(name, { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
    }
  }

  /** The asset of that exact name, or undefined (no path is ever built from the name). */
  get(name: string): StaticAsset | undefined {
    return this.assets.get(name);
  }
}
