import { randomInt } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/** Characters that do not look alike (no 0/O, 1/I/L). */
export const CAPTCHA_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** A 5×7 bitmap font: each glyph is seven rows of five bits, most significant bit on the left. */
const FONT: Record<string, readonly number[]> = {
  A: [0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11],
  B: [0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e],
  C: [0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e],
  D: [0x1c, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1c],
  E: [0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f],
  F: [0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10],
  G: [0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f],
  H: [0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11],
  J: [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c],
  K: [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
  M: [0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11],
  N: [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
  P: [0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10],
  Q: [0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d],
  R: [0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11],
  S: [0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e],
  T: [0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
  U: [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e],
  V: [0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04],
  W: [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a],
  X: [0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11],
  Y: [0x11, 0x11, 0x11, 0x0a, 0x04, 0x04, 0x04],
  Z: [0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f],
  '2': [0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f],
  '3': [0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e],
  '4': [0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02],
  '5': [0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e],
  '6': [0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e],
  '7': [0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
  '8': [0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e],
  '9': [0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c],
};

const WIDTH = 120;
const HEIGHT = 40;

type Rgb = [number, number, number];

const rand = (min: number, max: number) => min + (randomInt(1_000_000) / 1_000_000) * (max - min);
const darkColour = (): Rgb => [randomInt(20, 120), randomInt(20, 120), randomInt(20, 120)];

class Canvas {
  readonly pixels = Buffer.alloc(WIDTH * HEIGHT * 3);

  constructor() {
    // A light background whose shade drifts across the image, so no single colour is "the background".
    const base: Rgb = [randomInt(215, 245), randomInt(215, 245), randomInt(215, 245)];
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const drift = Math.round((x / WIDTH) * 20 - 10);
        this.set(x, y, [base[0] + drift, base[1] - drift, base[2]]);
      }
    }
  }

  set(x: number, y: number, [r, g, b]: Rgb): void {
    const xi = Math.round(x);
    const yi = Math.round(y);
    if (xi < 0 || yi < 0 || xi >= WIDTH || yi >= HEIGHT) return;
    const i = (yi * WIDTH + xi) * 3;
    this.pixels[i] = r;
    this.pixels[i + 1] = g;
    this.pixels[i + 2] = b;
  }

  line(x0: number, y0: number, x1: number, y1: number, colour: Rgb): void {
    const steps = Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0)));
    for (let s = 0; s <= steps; s++) this.set(x0 + ((x1 - x0) * s) / steps, y0 + ((y1 - y0) * s) / steps, colour);
  }
}

/** Draws one glyph, rotated, sheared and waved, by mapping each target pixel back into the 5×7 bitmap. */
function drawGlyph(canvas: Canvas, rows: readonly number[], cx: number, cy: number): void {
  const scale = rand(3.4, 4.2);
  const angle = rand(-0.4, 0.4);
  const shear = rand(-0.3, 0.3);
  const wave = rand(0.5, 1.2);
  const phase = rand(0, Math.PI * 2);
  const colour = darkColour();
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const reach = Math.ceil(scale * 5);
  for (let dy = -reach; dy <= reach; dy++) {
    for (let dx = -reach; dx <= reach; dx++) {
      const wx = dx + wave * Math.sin(dy / 3 + phase);
      const u = (cos * wx + sin * dy) / scale + 2.5 + shear * (dy / scale);
      const v = (-sin * wx + cos * dy) / scale + 3.5;
      const col = Math.floor(u);
      const row = Math.floor(v);
      if (row < 0 || row > 6 || col < 0 || col > 4) continue;
      if (((rows[row] ?? 0) >> (4 - col)) & 1) canvas.set(cx + dx, cy + dy, colour);
    }
  }
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
}

/** An 8-bit RGB PNG: the minimal writer a captcha needs (one IDAT, no filtering). */
export function encodePng(width: number, height: number, rgb: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    rgb.copy(raw, y * (width * 3 + 1) + 1, y * width * 3, (y + 1) * width * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A raster captcha: the answer exists only as pixels (distorted glyphs under noise lines and dots),
 * unlike an SVG whose path commands a script can read back.
 */
export function captchaImage(text: string): Buffer {
  const canvas = new Canvas();
  for (let i = 0; i < 40; i++) {
    const x = randomInt(WIDTH);
    const y = randomInt(HEIGHT);
    canvas.line(x, y, x + randomInt(-8, 9), y + randomInt(-8, 9), [
      randomInt(150, 210),
      randomInt(150, 210),
      randomInt(150, 210),
    ]);
  }
  const step = WIDTH / (text.length + 1);
  [...text].forEach((ch, i) => {
    const rows = FONT[ch];
    if (rows) drawGlyph(canvas, rows, step * (i + 1) + rand(-4, 4), HEIGHT / 2 + rand(-4, 4));
  });
  for (let i = 0; i < 5; i++) {
    canvas.line(randomInt(0, 20), randomInt(HEIGHT), randomInt(WIDTH - 20, WIDTH), randomInt(HEIGHT), darkColour());
  }
  for (let i = 0; i < 250; i++) canvas.set(randomInt(WIDTH), randomInt(HEIGHT), darkColour());
  return encodePng(WIDTH, HEIGHT, canvas.pixels);
}

export function captchaText(length = 4): string {
  return Array.from({ length }, () => CAPTCHA_ALPHABET[randomInt(CAPTCHA_ALPHABET.length)]).join('');
}
