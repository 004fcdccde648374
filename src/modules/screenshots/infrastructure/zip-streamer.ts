import { PassThrough, Readable } from 'node:stream';
import archiver from 'archiver';
import { Injectable } from '@nestjs/common';
import { ZipEntry, ZipWriter } from '../application/ports';

/**
 * Streams a ZIP of the given entries with archiver. PNGs are already compressed, so entries are stored,
 * not deflated; each file is opened only when archiver reaches it, so memory stays flat whatever the size.
 */
export function zipStream(entries: ZipEntry[]): Readable {
  const archive = archiver('zip', { store: true });
  const out = new PassThrough();
  archive.on('error', (err) => out.destroy(err));
  archive.pipe(out);
  let index = 0;
  const next = (): void => {
    if (index >= entries.length) {
      void archive.finalize();
      return;
    }
    const entry = entries[index++];
    archive.append(entry.open(), { name: entry.name });
  };
  // Append one at a time: archiver queues appended streams, and opening all at once would hold every fd.
  archive.on('entry', next);
  next();
  return out;
}

@Injectable()
export class ArchiverZipWriter extends ZipWriter {
  stream(entries: ZipEntry[]): Readable {
    return zipStream(entries);
  }
}
