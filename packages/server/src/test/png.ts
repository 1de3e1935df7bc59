import { inflateSync } from 'node:zlib';

export interface RgbImage {
  width: number;
  height: number;
  /** Three bytes a pixel, row after row. */
  rgb: Buffer;
}

export interface PngFile extends RgbImage {
  /** The names of the chunks, in order (IHDR, PLTE, IDAT…, IEND). */
  chunks: string[];
}

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/** Decodes the non-interlaced 8-bit RGB or palette PNGs a test meets (the captcha's), as a viewer would. */
export function decodePng(png: Buffer): PngFile {
  const chunks: string[] = [];
  const idat: Buffer[] = [];
  let palette: Buffer = Buffer.alloc(0);
  let [width, height, depth, colourType] = [0, 0, 0, 0];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    chunks.push(type);
    if (type === 'IHDR')
      [width, height, depth, colourType] = [data.readUInt32BE(0), data.readUInt32BE(4), data[8]!, data[9]!];
    if (type === 'PLTE') palette = data;
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('Not a PNG');
  if (!(colourType === 2 && depth === 8) && colourType !== 3) throw new Error(`Colour type ${colourType} not decoded`);
  const bitsPerPixel = colourType === 2 ? 24 : depth;
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  const step = Math.max(1, bitsPerPixel / 8);
  const raw = inflateSync(Buffer.concat(idat));
  const rows = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i]!;
      const a = i >= step ? rows[y * stride + i - step]! : 0;
      const b = y > 0 ? rows[(y - 1) * stride + i]! : 0;
      const c = i >= step && y > 0 ? rows[(y - 1) * stride + i - step]! : 0;
      const predicted = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (predicted === undefined) throw new Error(`Filter ${filter} is not a PNG filter`);
      rows[y * stride + i] = (x + predicted) & 0xff;
    }
  }
  if (colourType === 2) return { width, height, rgb: rows, chunks };
  const rgb = Buffer.alloc(width * height * 3);
  const perByte = 8 / depth;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const byte = rows[y * stride + Math.floor(x / perByte)]!;
      const index = (byte >> ((perByte - 1 - (x % perByte)) * depth)) & ((1 << depth) - 1);
      if (index * 3 >= palette.length) throw new Error(`Palette index ${index} out of range`);
      for (let c = 0; c < 3; c++) rgb[(y * width + x) * 3 + c] = palette[index * 3 + c]!;
    }
  }
  return { width, height, rgb, chunks };
}
