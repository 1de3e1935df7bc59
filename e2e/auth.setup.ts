import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGE } from '@meterdesk/contracts';
import { test as setup } from '@playwright/test';
import { ADMIN, ADMIN_ROLE_ID, adminApi, apiSession, call, createUser, OPERATOR, STORED_LOGIN } from './helpers';

setup('log in once per role and store the session', async () => {
  mkdirSync(path.dirname(STORED_LOGIN.admin), { recursive: true });
  for (const [user, file] of [
    [ADMIN, STORED_LOGIN.admin],
    [OPERATOR, STORED_LOGIN.operator],
  ] as const) {
    const api = await apiSession(user);
    await api.storageState({ path: file });
    await api.dispose();
  }
  // The language is stored for the user: the Chinese pages are seen by an administrator of its own.
  const admin = await adminApi();
  const zhAdmin = await createUser(admin, [ADMIN_ROLE_ID]);
  await admin.dispose();
  const api = await apiSession(zhAdmin);
  await call(api, '/sysuser/changelanguage', { type: LANGUAGE.zh });
  await api.storageState({ path: STORED_LOGIN.adminZh });
  await api.dispose();
});
