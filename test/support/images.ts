import sharp from 'sharp';

export type Rgb = [number, number, number];

export const RED: Rgb = [255, 0, 0];
export const GREEN: Rgb = [0, 200, 0];
export const BLUE: Rgb = [0, 0, 255];

export interface DecodedImage {
  format?: string;
  width: number;
  height: number;
  at(x: number, y: number): Rgb;
}

/** Any image sharp reads (WebP thumbnails, PNGs) as its format, size and RGB pixels. */
export async function decodeImage(bytes: Buffer): Promise<DecodedImage> {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    format: meta.format,
    width: info.width,
    height: info.height,
    at: (x, y) => {
      const i = (y * info.width + x) * info.channels;
      return [data[i], data[i + 1], data[i + 2]];
    },
  };
}
