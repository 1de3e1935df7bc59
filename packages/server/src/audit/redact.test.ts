import { describe, expect, it } from 'vitest';
import { redact } from './audit.hook';

describe('audit redaction', () => {
  it('masks secrets at any depth, inside arrays too, and keeps the rest', () => {
    let deep: Record<string, unknown> = { password: 'p0', note: 'keep' };
    for (let i = 0; i < 30; i++) deep = { level: i, child: deep, list: [{ hlsKey: `k${i}` }] };
    const text = JSON.stringify(redact({ ...deep, smtpPassword: 'top', token: 't', codeFill: 'c' }));
    expect(text).not.toMatch(/"p0"|"k\d+"|"top"|"t"|"c"/);
    expect(text).toContain('"note":"keep"');
    expect(text.match(/\*\*\*/g)?.length).toBe(1 + 30 + 3);
  });
});
