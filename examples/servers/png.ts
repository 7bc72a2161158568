import { deflateSync } from 'node:zlib';

/**
 * A minimal PNG encoder (PNG spec, ISO/IEC 15948): 8-bit RGB, no interlace, filter 0 on every
 * scanline, the pixels deflated with node:zlib. Enough for the demo's charts without an image
 * library.
 */

/** An RGB raster: `width * height * 3` bytes, rows top to bottom. */
export interface RgbImage {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
}

/** The eight bytes every PNG file starts with (PNG spec §5.2). */
export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 as PNG chunks use it (PNG spec §5.5), over the chunk type and data. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(4 + body.length + 4);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 4 + body.length);
  return out;
}

/** Encodes an RGB raster as a PNG file. */
export function encodePng(image: RgbImage): Buffer {
  const { width, height, pixels } = image;
  if (pixels.length !== width * height * 3) {
    throw new RangeError(`expected ${width * height * 3} bytes of RGB pixels, got ${pixels.length}`);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour (RGB)
  // compression 0 (deflate), filter method 0, no interlace: the zeros already there.
  const stride = width * 3;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0; // filter type None
    raw.set(pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}
