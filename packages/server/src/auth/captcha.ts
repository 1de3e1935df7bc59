import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import { deleteInBatches } from '../db/batch-delete';
import type { Db } from '../db/driver';
import { newId } from '../db/ids';
import { sysCaptcha } from '../db/schema';
import { captchaImage, captchaText } from './captcha-image';

const TTL_MS = 2 * 60_000;

/**
 * What a captcha row keeps of its answer: an HMAC of id and answer (in capitals: case does not count)
 * under a key derived from the server's secret key. A plain or salted hash would not do: there are
 * few enough answers that anyone reading the table could try them all in a second. The first 96 bits
 * are kept (the column's 16 characters), far more than the answer itself holds.
 */
export function captchaAnswerHash(secretKey: Buffer, id: string, answer: string): string {
  const key = createHmac('sha256', secretKey).update('meterdesk captcha answers').digest();
  return createHmac('sha256', key).update(`${id}:${answer.trim().toUpperCase()}`).digest('base64url').slice(0, 16);
}

/**
 * Captchas live in the database, not in memory, so any server instance can check one.
 * `take` deletes the row it reads: each captcha answers at most one login attempt.
 */
export class CaptchaStore {
  constructor(
    private readonly db: Db,
    private readonly secretKey: Buffer,
  ) {}

  async issue(): Promise<{ code: string; img: string }> {
    const text = captchaText();
    const id = newId();
    await this.db.insert(sysCaptcha).values({
      id,
      answerHash: captchaAnswerHash(this.secretKey, id, text),
      expiresAt: new Date(Date.now() + TTL_MS),
    });
    return { code: id, img: `data:image/png;base64,${captchaImage(text).toString('base64')}` };
  }

  /** Removes captchas nobody answered in time (a scheduled job); returns how many. */
  purgeExpired(): Promise<number> {
    return deleteInBatches(this.db, sysCaptcha, sysCaptcha.id, lt(sysCaptcha.expiresAt, sql`now()`));
  }

  async take(id: string, answer: string): Promise<boolean> {
    const [row] = await this.db
      .delete(sysCaptcha)
      .where(and(eq(sysCaptcha.id, id), gt(sysCaptcha.expiresAt, new Date())))
      .returning({ answerHash: sysCaptcha.answerHash });
    if (!row) return false;
    const stored = Buffer.from(row.answerHash);
    const given = Buffer.from(captchaAnswerHash(this.secretKey, id, answer));
    return stored.length === given.length && timingSafeEqual(stored, given);
  }
}
