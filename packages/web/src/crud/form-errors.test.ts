import { ResourceCreateSchema } from '@meterdesk/contracts';
import { describe, expect, it } from 'vitest';
import { applyLanguage, i18n } from '@/i18n/i18n';
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
      { name: ['resourceName'], errors: ['Too long'] },
      { name: ['resourceType'], errors: ['Invalid value'] },
      { name: ['parentId'], errors: ['Not a valid record id'] },
    ]);
  });

  it('speaks the interface language', () => {
    applyLanguage('zh');
    const errors = errorsOf({ parentId: '0', resourceNameEn: 'x', resourceType: 1, resourceUri: '/x' });

    expect(errors).toEqual([{ name: ['resourceName'], errors: ['此项为必填项'] }]);
  });

  it('shows a message that is not a key as written', () => {
    expect(zodIssuesToFieldErrors([{ code: 'custom', path: ['a'], message: 'Plain text', input: 1 }], t)).toEqual([
      { name: ['a'], errors: ['Plain text'] },
    ]);
  });
});

describe('apiIssuesToFieldErrors', () => {
  it('places server issues on the form fields and returns the rest as text', () => {
    const result = apiIssuesToFieldErrors(
      [
        { field: 'resourceName', key: 'existed', message: 'existed' },
        { field: 'resourceName', key: 'tooLong', message: 'Too long' },
        { field: 'createTime', key: 'invalidValue', message: 'Invalid value' },
        { field: '', key: 'unknownField', message: 'Unknown field' },
      ],
      new Set(['resourceName', 'resourceNameEn']),
      t,
    );

    expect(result.fieldErrors).toEqual([{ name: ['resourceName'], errors: ['existed'] }]);
    expect(result.unplaced).toEqual(['createTime: Invalid value', 'Unknown field']);
  });
});
