import { OUTAGE_RES } from '@meterdesk/contracts';
import { describe, expect, it } from 'vitest';
import { operationContent, renderContent } from './log-content';

const operation = (page: string, body: unknown) => ({
  logType: 'operation',
  content: operationContent(page, body),
  requestUrl: page,
});

describe('an operation log entry as an operator reads it', () => {
  it('names a call on the user’s own session or settings, not its API path, in their language', () => {
    const language = operation('/apis/sysuser/changelanguage', { type: 2 });
    expect(renderContent(language, 1)).toBe('Change language — 中文');
    expect(renderContent(language, 2)).toBe('切换语言 — 中文');
    expect(renderContent(operation('/apis/sysuser/changelanguage', { type: 1 }), 1)).toBe('Change language — English');
    expect(renderContent(operation('/apis/sysuser/loginout', {}), 1)).toBe('Log out');
    expect(renderContent(operation('/apis/sysuser/updatepassword', { rawPassword: '***' }), 2)).toBe('修改密码');
    expect(renderContent(operation('/apis/systemparameter/updatesysUsersubscribeconf', { notice: true }), 1)).toBe(
      'Notice subscription — notice: true',
    );
  });

  it('reads a record by the name its handler noted rather than by its id', () => {
    const id = 'a'.repeat(32);
    const outage = renderContent(operation(OUTAGE_RES.simulate, { gridId: id, powered: false, gridName: 'T1' }), 1);
    expect(outage).toMatch(/Simulate outage — powered: false; gridName: T1$/);
    expect(outage).not.toContain(id);
    // An id nobody named stays: it is all the entry knows.
    expect(renderContent(operation(OUTAGE_RES.simulate, { gridId: id, powered: true }), 1)).toContain(id);
  });
});
