import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toValidationIssues } from './error-handler';

/** Zod's issues as fastify-type-provider-zod hands them to the error handler. */
function validationOf(schema: z.ZodType, body: unknown) {
  const result = schema.safeParse(body);
  if (result.success) throw new Error('the body was expected to fail');
  return result.error.issues.map(({ path, code, message, ...params }) => ({
    keyword: code,
    instancePath: `/${path.join('/')}`,
    message,
    params,
  }));
}

const Body = z.strictObject({
  name: z.string('mandatory').max(64, 'tooLong'),
  port: z.number('mandatory').int('invalidValue').min(0, 'outOfRange').max(65535, 'outOfRange'),
  orgId: z.string(),
  tags: z.array(z.string()).max(2, 'tooLong'),
});

describe('toValidationIssues', () => {
  it('carries the broken limit in params and states it in the English message', () => {
    const { issues } = toValidationIssues(
      validationOf(Body, { name: 'x'.repeat(65), port: -1, orgId: 'o', tags: ['a', 'b', 'c'] }),
    );

    expect(issues).toEqual([
      { field: 'name', key: 'tooLong', message: 'At most 64 characters', params: { max: 64, unit: 'characters' } },
      { field: 'port', key: 'outOfRange', message: 'At least 0', params: { min: 0 } },
      { field: 'tags', key: 'tooLong', message: 'At most 2 items', params: { max: 2, unit: 'items' } },
    ]);
  });

  it("names a missing field mandatory and never passes on zod's own English", () => {
    const { issues } = toValidationIssues(validationOf(Body, { name: 'n', port: 1.5, tags: [] }));

    expect(issues).toEqual([
      { field: 'port', key: 'invalidValue', message: 'Invalid value' },
      { field: 'orgId', key: 'mandatory', message: 'This part is mandatory' },
    ]);
  });
});
