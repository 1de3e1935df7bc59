import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test as setup } from '@playwright/test';
import { ADMIN, apiSession, OPERATOR, STORED_LOGIN } from './helpers';

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
});
