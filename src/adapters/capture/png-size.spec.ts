import { PNG } from 'pngjs';

import { pngSize } from './png-size';

describe('pngSize', () => {
  it('reads width and height from the IHDR chunk', () => {
    const png = PNG.sync.write(new PNG({ width: 321, height: 7 }));

    expect(pngSize(png)).toEqual({ width: 321, height: 7 });
  });

  it('works on a Uint8Array view into a larger buffer', () => {
    const png = PNG.sync.write(new PNG({ width: 2, height: 70_000 }));
    const padded = Buffer.concat([Buffer.alloc(5), png]);

    expect(pngSize(new Uint8Array(padded.buffer, padded.byteOffset + 5, png.length))).toEqual({
      width: 2,
      height: 70_000,
    });
  });

  it('rejects bytes that are not a PNG', () => {
    expect(() => pngSize(Buffer.from('<html>not an image at all</html>'))).toThrow('Not a PNG image');
    expect(() => pngSize(Buffer.alloc(10))).toThrow('Not a PNG image');
  });
});
