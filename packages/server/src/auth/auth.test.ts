import { randomBytes } from 'node:crypto';
import { RES } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysCaptcha, sysLog, sysLoginFailure, sysSession, sysUser } from '../db/schema';
import { TEST_ADMIN_PASSWORD } from '../test/constants';
import { createTestApp, sessionCookieOf, type TestApp } from '../test/harness';
import { decodePng } from '../test/png';
import { captchaAnswerHash } from './captcha';
import { captchaText } from './captcha-image';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe('auth', () => {
  let t: TestApp;
  let dashboardRole: string;

  beforeAll(async () => {
    t = await createTestApp({ captchaEnabled: true, lockThreshold: 5, lockMs: 15 * 60_000, lockAddresses: 3 });
    dashboardRole = await t.createRole('dashboard-only', [RES.dashboard]);
  });
  afterAll(() => t.close());

  /** Stores the captcha's answer as the server would: only its keyed hash. */
  const setAnswer = (code: string, answerHash: string) =>
    t.db.update(sysCaptcha).set({ answerHash }).where(eq(sysCaptcha.id, code));
  /**
   * A captcha the test knows the answer of: the image's own text is stored nowhere a test can read,
   * so its row is given the hash of one the test chose.
   */
  const captcha = async () => {
    const { body } = await t.call<{ code: string; img: string }>('/sysuser/getgifcode');
    const answer = captchaText();
    await setAnswer(body.data.code, captchaAnswerHash(t.secretKey, body.data.code, answer));
    return { code: body.data.code, answer, img: body.data.img };
  };
  const login = async (username: string, password: string, headers: Record<string, string> = {}) => {
    const c = await captcha();
    return t.call(
      '/sysuser/login',
      { username, password, code: c.code, codeFill: c.answer.toLowerCase() },
      undefined,
      headers,
    );
  };

  describe('captcha', () => {
    it('answers a PNG image and an id, with nothing a script can read the answer from', async () => {
      const c = await captcha();
      expect(c.code).toMatch(/^[0-9a-f]{32}$/);
      expect(c.img.startsWith('data:image/png;base64,')).toBe(true);
      const png = decodePng(Buffer.from(c.img.split(',')[1]!, 'base64'));
      expect([png.width, png.height]).toEqual([240, 80]);
      // Only pixels: no markup, no text chunk, and the pixels themselves differ from one image to the next.
      expect(png.chunks).toEqual(['IHDR', 'PLTE', 'IDAT', 'IEND']);
      const other = decodePng(Buffer.from((await captcha()).img.split(',')[1]!, 'base64'));
      expect(png.rgb.equals(other.rgb)).toBe(false);
    });

    it('keeps only a hash of the answer under the server key, and ignores its case', async () => {
      const attempt = async (stored: (code: string) => string, codeFill: string) => {
        const { body } = await t.call<{ code: string }>('/sysuser/getgifcode');
        const [row] = await t.db.select().from(sysCaptcha).where(eq(sysCaptcha.id, body.data.code));
        expect(row!.answerHash).toMatch(/^[\w-]{16}$/);
        await setAnswer(body.data.code, stored(body.data.code));
        const login = { username: 'admin', password: TEST_ADMIN_PASSWORD, code: body.data.code, codeFill };
        return (await t.call('/sysuser/login', login)).body;
      };
      // The answer in clear, as rows used to keep it, is no answer; nor is its hash under another key.
      expect(await attempt(() => 'hk4ex', 'hk4ex')).toMatchObject({ code: 400, msg: 'captchaWrong' });
      expect(await attempt((code) => captchaAnswerHash(randomBytes(32), code, 'HK4EX'), 'HK4EX')).toMatchObject({
        code: 400,
        msg: 'captchaWrong',
      });
      expect(await attempt((code) => captchaAnswerHash(t.secretKey, code, 'HK4EX'), ' hk4Ex ')).toMatchObject({
        code: 200,
      });
    });

    it('refuses a missing, wrong, reused or expired answer', async () => {
      const missing = await t.call('/sysuser/login', {
        username: 'admin',
        password: TEST_ADMIN_PASSWORD,
        code: '',
        codeFill: '',
      });
      expect(missing.status).toBe(400);
      expect(missing.body.data).toMatchObject({
        issues: expect.arrayContaining([{ field: 'code', key: 'captchaRequired', message: expect.any(String) }]),
      });

      const c = await captcha();
      const wrong = await t.call('/sysuser/login', {
        username: 'admin',
        password: TEST_ADMIN_PASSWORD,
        code: c.code,
        codeFill: `${c.answer}x`,
      });
      expect(wrong.body).toMatchObject({ code: 400, msg: 'captchaWrong' });
      const reused = await t.call('/sysuser/login', {
        username: 'admin',
        password: TEST_ADMIN_PASSWORD,
        code: c.code,
        codeFill: c.answer,
      });
      expect(reused.body.msg).toBe('captchaWrong');

      const old = await captcha();
      await t.db
        .update(sysCaptcha)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(sysCaptcha.id, old.code));
      const expired = await t.call('/sysuser/login', {
        username: 'admin',
        password: TEST_ADMIN_PASSWORD,
        code: old.code,
        codeFill: old.answer,
      });
      expect(expired.body.msg).toBe('captchaWrong');
    });
  });

  describe('login', () => {
    it('sets an HttpOnly SameSite session cookie with a fresh token at each login, and /auth names the user', async () => {
      const first = await login('admin', TEST_ADMIN_PASSWORD);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        code: 200,
        data: { username: 'admin', language: 1, mustChangePassword: false },
      });
      const setCookie = String(first.response.headers['set-cookie']);
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Strict/i);
      const token = first.cookie!.split('=')[1]!;
      expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);

      const second = await login('admin', TEST_ADMIN_PASSWORD);
      expect(second.cookie).not.toBe(first.cookie);
      const auth = await t.call('/sysuser/auth', {}, first.cookie);
      expect(auth.body).toMatchObject({ code: 200, data: { username: 'admin' } });
      const stored = await t.db.select({ h: sysSession.tokenHash }).from(sysSession);
      expect(stored.map((s) => s.h)).not.toContain(token);
    });

    it('answers 401 from /auth without a session', async () => {
      const res = await t.call('/sysuser/auth');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe(401);
    });

    it('refuses a wrong password and an unknown user alike', async () => {
      await t.createUser({ username: 'wrongpw', password: 'Secret1', roleIds: [dashboardRole] });
      expect((await login('wrongpw', 'nope123')).body).toMatchObject({ code: 400, msg: 'wrongCredentials' });
      expect((await login('ghost', 'nope123')).body).toMatchObject({ code: 400, msg: 'wrongCredentials' });
    });

    const loginFrom = async (ip: string, username: string, password: string) => {
      const c = await captcha();
      const response = await t.app.http.inject({
        method: 'POST',
        url: '/apis/sysuser/login',
        payload: { username, password, code: c.code, codeFill: c.answer },
        remoteAddress: ip,
      });
      return {
        status: response.statusCode,
        msg: (response.json() as { msg: string }).msg,
        cookie: sessionCookieOf(response),
      };
    };

    it('locks a user from the address that failed 5 times only, until the lock time has passed', async () => {
      const id = await t.createUser({ username: 'locky', password: 'Secret1', roleIds: [dashboardRole] });
      const elsewhere = (await loginFrom('10.1.0.2', 'locky', 'Secret1')).cookie!;
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push((await loginFrom('10.1.0.1', 'locky', 'bad-pass')).msg);
      expect(answers).toEqual([
        'wrongCredentials',
        'wrongCredentials',
        'wrongCredentials',
        'wrongCredentials',
        'userLocked',
      ]);
      expect((await loginFrom('10.1.0.1', 'locky', 'Secret1')).msg).toBe('userLocked');

      // Another address is not locked out, and the user's sessions go on.
      expect((await loginFrom('10.1.0.2', 'locky', 'Secret1')).status).toBe(200);
      expect((await t.call('/sysuser/auth', {}, elsewhere)).status).toBe(200);
      const [user] = await t.db.select().from(sysUser).where(eq(sysUser.id, id));
      expect(user!.status).toBe('enabled');

      await t.db.update(sysLoginFailure).set({ lockedUntil: new Date(Date.now() - 1000) });
      expect((await loginFrom('10.1.0.1', 'locky', 'Secret1')).status).toBe(200);
      expect(await t.db.select().from(sysLoginFailure).where(eq(sysLoginFailure.username, 'locky'))).toEqual([]);
    });

    it('answers for an unknown name exactly as for a known one with a wrong password, lock included', async () => {
      await t.createUser({ username: 'known', password: 'Secret1', roleIds: [dashboardRole] });
      const known = [];
      const ghost = [];
      for (let i = 0; i < 7; i++) {
        known.push(await loginFrom('10.2.0.1', 'known', 'bad-pass'));
        ghost.push(await loginFrom('10.2.0.1', 'nobody-here', 'bad-pass'));
      }
      expect(ghost).toEqual(known);
      expect(known.at(-1)).toMatchObject({ status: 400, msg: 'userLocked' });
    });

    it('locks a user from everywhere once enough addresses are locked out, and ends its sessions', async () => {
      const id = await t.createUser({ username: 'besieged', password: 'Secret1', roleIds: [dashboardRole] });
      const session = (await loginFrom('10.3.9.9', 'besieged', 'Secret1')).cookie!;
      const siege = async (name: string) => {
        for (const ip of ['10.3.0.1', '10.3.0.2', '10.3.0.3']) {
          for (let i = 0; i < 5; i++) await loginFrom(ip, name, 'bad-pass');
        }
        return loginFrom('10.3.0.4', name, name === 'besieged' ? 'Secret1' : 'bad-pass');
      };
      expect(await siege('besieged')).toMatchObject({ msg: 'userLocked' });
      expect(await siege('phantom')).toMatchObject({ msg: 'userLocked' });
      const [user] = await t.db.select().from(sysUser).where(eq(sysUser.id, id));
      expect(user!.status).toBe('locking');
      expect(user!.lockedUntil!.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
      expect((await t.call('/sysuser/auth', {}, session)).status).toBe(401);

      // An administrator's unlock lets the user in again from every address.
      const admin = await login('admin', TEST_ADMIN_PASSWORD);
      expect((await t.call('/sysuser/unlocksysuser', { id }, admin.cookie)).status).toBe(200);
      expect((await loginFrom('10.3.0.1', 'besieged', 'Secret1')).status).toBe(200);
    });

    it("tells of an administrator's lock only to someone who knows the password", async () => {
      await t.createUser({ username: 'held', password: 'Secret1', roleIds: [dashboardRole], status: 'locking' });
      expect((await loginFrom('10.4.0.1', 'held', 'bad-pass')).msg).toBe('wrongCredentials');
      expect((await loginFrom('10.4.0.1', 'held', 'Secret1')).msg).toBe('userLocked');
    });

    it('refuses users not enabled, disabled or past their expiry date, each with its own message', async () => {
      await t.createUser({ username: 'ne', password: 'Secret1', roleIds: [dashboardRole], status: 'notEnabled' });
      await t.createUser({ username: 'dis', password: 'Secret1', roleIds: [dashboardRole], status: 'disabled' });
      await t.createUser({
        username: 'exp',
        password: 'Secret1',
        roleIds: [dashboardRole],
        expiryDate: new Date(Date.now() - 60_000),
      });
      expect((await login('ne', 'Secret1')).body.msg).toBe('userNotEnabled');
      expect((await login('dis', 'Secret1')).body.msg).toBe('userDisabled');
      expect((await login('exp', 'Secret1')).body.msg).toBe('userExpired');
    });

    it('answers 401 noPermission to a user without resources and opens no session', async () => {
      await t.createUser({ username: 'empty', password: 'Secret1' });
      const res = await login('empty', 'Secret1');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 401, msg: 'noPermission' });
      expect(res.cookie).toBeUndefined();
    });

    it('writes a login log entry for every attempt, with client details and no password', async () => {
      await login('admin', 'Wrong-Secret-99', { 'user-agent': UA });
      await login('admin', TEST_ADMIN_PASSWORD, { 'user-agent': UA });
      const rows = await t.db.select().from(sysLog).where(eq(sysLog.logType, 'login'));
      const failure = rows.find((r) => r.content === 'wrongCredentials' && r.username === 'admin' && r.ua === UA);
      const success = rows.find((r) => r.content === 'success' && r.username === 'admin' && r.ua === UA);
      expect(failure).toMatchObject({
        result: 400,
        os: expect.stringContaining('Linux'),
        browser: expect.stringContaining('Chrome'),
      });
      expect(success).toMatchObject({ result: 200, ip: expect.any(String), requestUrl: '/apis/sysuser/login' });
      const all = JSON.stringify(await t.db.select().from(sysLog));
      expect(all).not.toContain('Wrong-Secret-99');
      expect(all).not.toContain(TEST_ADMIN_PASSWORD);
    });
  });

  describe('session', () => {
    it('logout ends the session and is logged', async () => {
      const cookie = (await login('admin', TEST_ADMIN_PASSWORD)).cookie!;
      expect((await t.call('/sysuser/loginout', {}, cookie)).status).toBe(200);
      expect((await t.call('/sysuser/auth', {}, cookie)).status).toBe(401);
      const ops = await t.db.select().from(sysLog).where(eq(sysLog.operatingType, 'logout'));
      expect(ops.length).toBeGreaterThan(0);
    });

    it('expires an idle session and one past its absolute end', async () => {
      const cookie = (await login('admin', TEST_ADMIN_PASSWORD)).cookie!;
      await t.db.update(sysSession).set({ lastSeenAt: new Date(Date.now() - t.config.sessionIdleMs - 1000) });
      expect((await t.call('/sysuser/auth', {}, cookie)).status).toBe(401);

      const other = (await login('admin', TEST_ADMIN_PASSWORD)).cookie!;
      await t.db.update(sysSession).set({ expiresAt: new Date(Date.now() - 1000) });
      expect((await t.call('/sysuser/auth', {}, other)).status).toBe(401);
    });
  });

  describe('password and language', () => {
    it('validates, checks and changes the password, ending every session of the user', async () => {
      await t.createUser({ username: 'pw', password: 'Secret1', roleIds: [dashboardRole] });
      const a = (await login('pw', 'Secret1')).cookie!;
      const b = (await login('pw', 'Secret1')).cookie!;

      const short = await t.call('/sysuser/updatepassword', { rawPassword: 'Secret1', newPassword: '12345' }, a);
      expect(short.body).toMatchObject({
        code: 400,
        data: { issues: [{ field: 'newPassword', key: 'passwordLength' }] },
      });
      const long = await t.call('/sysuser/updatepassword', { rawPassword: 'Secret1', newPassword: 'x'.repeat(19) }, a);
      expect(long.body.code).toBe(400);
      const wrongRaw = await t.call('/sysuser/updatepassword', { rawPassword: 'nope', newPassword: 'Better22' }, a);
      expect(wrongRaw.body).toMatchObject({ code: 400, msg: 'rawPasswordWrong' });

      expect((await t.call('/sysuser/checkpassword', { rawPassword: 'Secret1' }, a)).body.data).toEqual({
        correct: true,
      });
      expect((await t.call('/sysuser/checkpassword', { rawPassword: 'nope' }, a)).body.data).toEqual({
        correct: false,
      });

      const ok = await t.call('/sysuser/updatepassword', { rawPassword: 'Secret1', newPassword: 'Better22' }, a);
      expect(ok.status).toBe(200);
      expect((await t.call('/sysuser/auth', {}, a)).status).toBe(401);
      expect((await t.call('/sysuser/auth', {}, b)).status).toBe(401);
      expect((await login('pw', 'Secret1')).body.msg).toBe('wrongCredentials');
      expect((await login('pw', 'Better22')).status).toBe(200);
      const [stored] = await t.db.select().from(sysUser).where(eq(sysUser.username, 'pw'));
      expect(stored!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    });

    it('counts wrong passwords given to checkpassword and updatepassword as failed logins, with the same lock', async () => {
      await t.createUser({ username: 'oracle', password: 'Secret1', roleIds: [dashboardRole] });
      const cookie = (await login('oracle', 'Secret1')).cookie!;
      for (let i = 0; i < 2; i++) {
        const res = await t.call(
          '/sysuser/updatepassword',
          { rawPassword: `guess${i}`, newPassword: 'Better22' },
          cookie,
        );
        expect(res.body.msg).toBe('rawPasswordWrong');
      }
      for (let i = 0; i < 2; i++) {
        expect((await t.call('/sysuser/checkpassword', { rawPassword: `guess-${i}` }, cookie)).body.data).toEqual({
          correct: false,
        });
      }
      const fifth = await t.call('/sysuser/checkpassword', { rawPassword: 'guess-5' }, cookie);
      expect(fifth.body).toMatchObject({ code: 400, msg: 'userLocked' });
      // The guessing session is over, and the right password no longer opens one from here.
      expect((await t.call('/sysuser/auth', {}, cookie)).status).toBe(401);
      expect((await login('oracle', 'Secret1')).body.msg).toBe('userLocked');
    });

    it('stores the chosen language and applies it at the next login', async () => {
      await t.createUser({ username: 'zh', password: 'Secret1', roleIds: [dashboardRole] });
      const cookie = (await login('zh', 'Secret1')).cookie!;
      expect((await t.call('/sysuser/changelanguage', { type: 3 }, cookie)).status).toBe(400);
      expect((await t.call('/sysuser/changelanguage', { type: 2 }, cookie)).status).toBe(200);
      expect((await login('zh', 'Secret1')).body.data).toMatchObject({ language: 2 });
    });
  });
});

describe('login rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ loginRateLimitPerMinute: 10 });
  });
  afterAll(() => t.close());

  it('answers 429 to the 11th login attempt within a minute from one address', async () => {
    const attempt = () =>
      t.call('/sysuser/login', { username: 'ghost', password: 'nope123', code: 'x', codeFill: 'x' });
    for (let i = 0; i < 10; i++) expect((await attempt()).status).toBe(400);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 429, msg: 'tooManyRequests' });
  });
});
