import { type MessageKey, messageText, RESULT, type SmtpConfSave } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import type { SecretBox } from '../crypto/secret-box';
import type { Db } from '../db/driver';
import { sysParameter } from '../db/schema';
import { ApiError } from '../errors/api-error';

interface StoredSmtp {
  host: string;
  port: number;
  sender: string;
  username: string;
  secure: boolean;
  /** Sealed with the server's key; empty when the server needs no login. */
  password: string;
}

const KEY = 'smtp';

/**
 * A failed send → one of a few message keys. The raw text (socket errors, the server's own reply)
 * names internal addresses and software versions, so it stays on the server.
 */
export function sendFailureReason(err: unknown): MessageKey {
  const { code, responseCode } = (err ?? {}) as { code?: string; responseCode?: number };
  if (code === 'EAUTH' || responseCode === 535) return 'smtpAuthFailed';
  if (code === 'ETLS') return 'smtpTlsFailed';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'smtpTimeout';
  if (code === 'EENVELOPE' || code === 'EMESSAGE' || (responseCode !== undefined && responseCode >= 400)) {
    return 'smtpRejected';
  }
  return 'smtpUnreachable';
}
const TIMEOUT_MS = 15_000;

/** The SMTP configuration and the only code that sends e-mail. */
export class Mailer {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  private async stored(): Promise<StoredSmtp | null> {
    const [row] = await this.db.select().from(sysParameter).where(eq(sysParameter.key, KEY));
    return (row?.value as StoredSmtp | undefined) ?? null;
  }

  async publicSettings() {
    const s = await this.stored();
    if (!s) return null;
    const { password, ...rest } = s;
    return { ...rest, passwordSet: password !== '' };
  }

  async save(input: SmtpConfSave): Promise<void> {
    const previous = await this.stored();
    const password =
      input.password === undefined
        ? (previous?.password ?? '')
        : input.password
          ? this.secrets.seal(input.password)
          : '';
    const value: StoredSmtp = {
      host: input.host,
      port: input.port,
      sender: input.sender,
      username: input.username,
      secure: input.secure,
      password,
    };
    await this.db
      .insert(sysParameter)
      .values({ key: KEY, value })
      .onConflictDoUpdate({ target: sysParameter.key, set: { value, updateTime: new Date() } });
  }

  async isConfigured(): Promise<boolean> {
    return (await this.stored()) !== null;
  }

  /**
   * Answers `reconfigureSmtp` without a configuration and `sendFailure` with a short `reason` when the
   * server refuses or cannot be reached.
   */
  async send(to: string, subject: string, text: string): Promise<void> {
    const s = await this.stored();
    if (!s) throw new ApiError(RESULT.badRequest, 'reconfigureSmtp');
    const transport = nodemailer.createTransport({
      host: s.host,
      port: s.port,
      secure: s.secure,
      auth: s.username ? { user: s.username, pass: s.password ? this.secrets.open(s.password) : '' } : undefined,
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
    });
    try {
      await transport.sendMail({ from: s.sender, to, subject, text });
    } catch (err) {
      const reason = sendFailureReason(err);
      throw new ApiError(RESULT.badRequest, 'sendFailure', { reason, message: messageText(reason) });
    } finally {
      transport.close();
    }
  }
}
