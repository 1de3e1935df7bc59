import type { Db } from '../db/driver';
import { defineJob } from '../jobs/job-system';
import type { CaptchaStore } from './captcha';
import type { LoginFailures } from './login-failures';
import type { SessionStore } from './session';

/** Expired sessions stop working when read; the purge keeps the table from growing. */
export const sessionPurgeJob = (sessions: SessionStore) =>
  defineJob({
    name: 'session-purge',
    schedule: '*/10 * * * *',
    policy: 'stately',
    handler: async () => ({ deleted: await sessions.purgeExpired() }),
  });

/** Failed-login counts older than the lock window count no more. */
export const loginFailurePurgeJob = (db: Db, failures: LoginFailures) =>
  defineJob({
    name: 'login-failure-purge',
    schedule: '*/10 * * * *',
    policy: 'stately',
    handler: async () => {
      await failures.purgeStale(db);
      return {};
    },
  });

/** Unanswered captchas expire after two minutes; issuing one no longer pays for the clean-up. */
export const captchaPurgeJob = (captchas: CaptchaStore) =>
  defineJob({
    name: 'captcha-purge',
    schedule: '*/5 * * * *',
    policy: 'stately',
    handler: async () => ({ deleted: await captchas.purgeExpired() }),
  });
