/**
 * output_width / output_height: the picture Chromium made, resized to the size the client asked for, in its own
 * format and quality. One side alone keeps the aspect ratio; both give exactly that size. A PDF is never resized
 * (the API refuses the options with pdf).
 */
import sharp from 'sharp';

import { CaptureFailure, type CaptureRequest, type CaptureResult } from '../../modules/screenshots/application/capture.port';
import { QUALITY } from '../../shared/domain/output-format';
import { MAX_IMAGE_PIXELS } from './tall-page';

type ResizeChoice = Pick<CaptureRequest, 'outputWidth' | 'outputHeight' | 'output'>;

export async function resizeOutput(picture: CaptureResult, request: ResizeChoice): Promise<CaptureResult> {
  const { outputWidth: width, outputHeight: height } = request;
  if ((width === undefined && height === undefined) || picture.format === 'pdf') return picture;
  if ((width ?? picture.width) === picture.width && (height ?? picture.height) === picture.height) return picture;
  // One side alone derives the other from the aspect ratio, unbounded by the option's own limit: a 16 px wide clip
  // widened to 8192 px would ask sharp for billions of pixels (minutes of a libuv thread, gigabytes). Refused before
  // any work, by the same area bound as the capture itself.
  const target = {
    width: width ?? Math.max(1, Math.round((picture.width * height!) / picture.height)),
    height: height ?? Math.max(1, Math.round((picture.height * width!) / picture.width)),
  };
  if (target.width * target.height > MAX_IMAGE_PIXELS) {
    throw new CaptureFailure(
      'page',
      `The resized picture would be ${target.width}×${target.height} px, over the limit of ${MAX_IMAGE_PIXELS / 1_000_000} million pixels: ask for a smaller output_width or output_height`,
    );
  }
  const quality = request.output?.quality ?? QUALITY.default;
  // Both sides: exactly that size (fill stretches). One: sharp derives the other from the aspect ratio.
  const resized = sharp(picture.data).resize({ width, height, fit: width !== undefined && height !== undefined ? 'fill' : 'cover' });
  const encoded = picture.format === 'jpeg' ? resized.jpeg({ quality }) : picture.format === 'webp' ? resized.webp({ quality }) : resized.png();
  try {
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    return { ...picture, data, width: info.width, height: info.height };
  } catch (error) {
    // sharp refuses inputs beyond its pixel limit (a very tall full page at a high scale factor): the request's fault.
    throw new CaptureFailure('page', `The picture (${picture.width}×${picture.height} px) could not be resized: ${(error as Error).message}`);
  }
}

/** Change history's ignored boxes, measured in the picture's pixels, in the resized image's. */
export function scaleBoxes(
  boxes: NonNullable<CaptureResult['ignoreBoxes']>,
  picture: Pick<CaptureResult, 'width' | 'height'>,
  result: Pick<CaptureResult, 'width' | 'height'>,
): NonNullable<CaptureResult['ignoreBoxes']> {
  if (picture.width === result.width && picture.height === result.height) return boxes;
  const sx = result.width / picture.width;
  const sy = result.height / picture.height;
  return boxes.map(([x, y, w, h]) => [Math.round(x * sx), Math.round(y * sy), Math.round(w * sx), Math.round(h * sy)]);
}
