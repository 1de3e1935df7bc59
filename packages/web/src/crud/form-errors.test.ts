import { ResourceCreateSchema, settingsApi } from '@meterdesk/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyLanguage, i18n } from '@/i18n/i18n';
import { requestShape } from './crud-config';
import { apiIssuesToFieldErrors, zodIssuesToFieldErrors } from './form-errors';

const t = i18n.t.bind(i18n);

function errorsOf(body: unknown) {
  const parsed = ResourceCreateSchema.safeParse(body);
  if (parsed.success) throw new Error('expected the body to be refused');
  return zodIssuesToFieldErrors(parsed.error.issues, t);
}

describe('zodIssuesToFieldErrors', () => {
  it('puts each refused field of a contracts schema under its name with the translated message', () => {
    const errors = errorsOf({ parentId: '0', resourceName: '   ', resourceNameEn: 'Meters', resourceUri: 'no-slash' });

    expect(errors).toEqual([
      { name: ['resourceName'], errors: ['This part is mandatory'] },
      { name: ['resourceType'], errors: ['This part is mandatory'] },
      { name: ['resourceUri'], errors: ['Format error'] },
    ]);
  });

  it('keeps only the first message of a field', () => {
    const errors = errorsOf({
      parentId: 'not-an-id',
      resourceName: 'x'.repeat(51),
      resourceNameEn: 'ok',
      resourceType: 9,
      resourceUri: '/ok',
    });

    expect(errors).toEqual([
      { name: ['resourceName'], errors: ['At most 50 characters'] },
      { name: ['resourceType'], errors: ['Invalid value'] },
      { name: ['parentId'], errors: ['Not a valid record id'] },
    ]);
  });

  it('speaks the interface language', () => {
    applyLanguage('zh');
    const errors = errorsOf({ parentId: '0', resourceNameEn: 'x', resourceType: 1, resourceUri: '/x' });

    expect(errors).toEqual([{ name: ['resourceName'], errors: ['此项为必填项'] }]);
  });

  it("never shows zod's own English: a missing value is mandatory, anything else an invalid value", () => {
    const parsed = z.object({ a: z.string(), b: z.string().refine(() => false, 'Plain text') }).safeParse({ b: 'x' });
    if (parsed.success) throw new Error('expected the body to be refused');

    expect(zodIssuesToFieldErrors(parsed.error.issues, t)).toEqual([
      { name: ['a'], errors: ['This part is mandatory'] },
      { name: ['b'], errors: ['Invalid value'] },
    ]);
  });

  it('states the limit a value broke, both bounds of a number range, in both languages', () => {
    const operation = settingsApi.savesmtpconf;
    const parsed = operation.request.safeParse({
      host: 'h'.repeat(201),
      port: 70000,
      sender: 'noreply@meterdesk.test',
    });
    if (parsed.success) throw new Error('expected the body to be refused');

    expect(zodIssuesToFieldErrors(parsed.error.issues, t, requestShape(operation))).toEqual([
      { name: ['host'], errors: ['At most 200 characters'] },
      { name: ['port'], errors: ['Between 0 and 65535'] },
    ]);
    applyLanguage('zh');
    expect(zodIssuesToFieldErrors(parsed.error.issues, t, requestShape(operation))).toEqual([
      { name: ['host'], errors: ['最多 200 个字符'] },
      { name: ['port'], errors: ['应在 0 到 65535 之间'] },
    ]);
  });
});

describe('apiIssuesToFieldErrors', () => {
  it('places server issues on the form fields and returns the rest as text', () => {
    const result = apiIssuesToFieldErrors(
      [
        { field: 'resourceName', key: 'existed', message: 'existed' },
        { field: 'resourceName', key: 'tooLong', message: 'Too long' },
        {
          field: 'resourceNameEn',
          key: 'tooLong',
          message: 'At most 50 characters',
          params: { max: 50, unit: 'characters' },
        },
        { field: 'createTime', key: 'invalidValue', message: 'Invalid value' },
        { field: '', key: 'unknownField', message: 'Unknown field' },
      ],
      new Set(['resourceName', 'resourceNameEn']),
      t,
    );

    expect(result.fieldErrors).toEqual([
      { name: ['resourceName'], errors: ['existed'] },
      { name: ['resourceNameEn'], errors: ['At most 50 characters'] },
    ]);
    expect(result.unplaced).toEqual(['createTime: Invalid value', 'Unknown field']);
  });
});
