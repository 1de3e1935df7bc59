import { describe, expect, it } from 'vitest';
import { templateSolver } from '../test/captcha-solver';
import { CAPTCHA_ALPHABET, captchaImage, captchaText } from './captcha-image';

/**
 * Characters a person can take for one another once distorted. Only capitals are drawn and the answer
 * ignores case, so lower-case pairs (l/1, u/v, rn/m) are covered by their capitals.
 */
const LOOK_ALIKES = ['0OQDG', '1IJL', '5S', '2Z', '8B3', 'UVY', 'EF', 'PR', '7T', '6GB9', 'CG', '4A', 'MN', 'NW'];

describe('captcha image', () => {
  const shown = Array.from({ length: 200 }, () => {
    const text = captchaText();
    return { text, png: captchaImage(text) };
  });

  it('draws capitals and digits of which no two look alike', () => {
    expect(CAPTCHA_ALPHABET).toMatch(/^[A-Z0-9]{10,}$/);
    for (const group of LOOK_ALIKES) {
      expect([...CAPTCHA_ALPHABET].filter((ch) => group.includes(ch)).length, group).toBeLessThanOrEqual(1);
    }
  });

  it('stays under 10 KB', () => {
    expect(Math.max(...shown.map(({ png }) => png.length))).toBeLessThan(10 * 1024);
  });

  it('is read by a solver that knows the generator in at most 5 % of images', () => {
    const solver = templateSolver(CAPTCHA_ALPHABET, captchaImage, 12);
    const read = shown.filter(({ text, png }) => solver.read(png, text.length) === text).length;
    expect(read / shown.length).toBeLessThanOrEqual(0.05);
  });
});
