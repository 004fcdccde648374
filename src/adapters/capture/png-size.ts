const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Pixel size from the IHDR chunk, which the PNG format requires to come first:
 * 8-byte signature, 4-byte length, "IHDR", then width and height as big-endian uint32 (bytes 16..24).
 * Reading it back rather than computing it from the request catches any mismatch in what Chromium produced.
 */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('Not a PNG image (missing signature or IHDR chunk)');
  }
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
