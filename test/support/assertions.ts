import { createServer } from 'node:http';
import { PNG } from 'pngjs';

/** Small helpers shared by the e2e specs. */

export function binary(res: unknown, callback: (err: Error | null, body: Buffer) => void): void {
  const stream = res as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
}

export function pixel(png: PNG, x: number, y: number): [number, number, number, number] {
  const i = (png.width * y + x) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2], png.data[i + 3]];
}

export function detailFields(body: { details?: Array<{ field: string; message: string }> }): string[] {
  expect(Array.isArray(body.details)).toBe(true);
  for (const d of body.details!) {
    expect(Object.keys(d).sort()).toEqual(['field', 'message']);
    expect(typeof d.field).toBe('string');
    expect(typeof d.message).toBe('string');
    expect(d.message.length).toBeGreaterThan(0);
  }
  return [...new Set(body.details!.map((d) => d.field))].sort();
}

export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
