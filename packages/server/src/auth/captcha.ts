import { and, eq, gt, lt, sql } from 'drizzle-orm';
import svgCaptcha from 'svg-captcha';
import { deleteInBatches } from '../db/batch-delete';
import type { Db } from '../db/driver';
import { newId } from '../db/ids';
import { sysCaptcha } from '../db/schema';

const TTL_MS = 2 * 60_000;

/**
 * Captchas live in the database, not in memory, so any server instance can check one.
 * `take` deletes the row it reads: each captcha answers at most one login attempt.
 */
export class CaptchaStore {
  constructor(private readonly db: Db) {}

  async issue(): Promise<{ code: string; img: string }> {
    const captcha = svgCaptcha.create({
      size: 4,
      noise: 2,
      ignoreChars: '0oO1lIi',
      color: true,
      width: 120,
      height: 40,
    });
    const id = newId();
    await this.db
      .insert(sysCaptcha)
      .values({ id, answer: captcha.text.toLowerCase(), expiresAt: new Date(Date.now() + TTL_MS) });
    return { code: id, img: `data:image/svg+xml;base64,${Buffer.from(captcha.data).toString('base64')}` };
  }

  /** Removes captchas nobody answered in time (a scheduled job); returns how many. */
  purgeExpired(): Promise<number> {
    return deleteInBatches(this.db, sysCaptcha, sysCaptcha.id, lt(sysCaptcha.expiresAt, sql`now()`));
  }

  async take(id: string, answer: string): Promise<boolean> {
    const [row] = await this.db
      .delete(sysCaptcha)
      .where(and(eq(sysCaptcha.id, id), gt(sysCaptcha.expiresAt, new Date())))
      .returning({ answer: sysCaptcha.answer });
    return row !== undefined && row.answer === answer.trim().toLowerCase();
  }
}
