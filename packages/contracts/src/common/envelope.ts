import { z } from 'zod';

/** Every answer of the API: `{code, msg, data}`, code 200 on success (spec §7). */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ code: z.number().int(), msg: z.string(), data });
}

export const ErrorEnvelopeSchema = envelope(z.unknown().optional());

export interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

export const ValidationIssueSchema = z.object({
  field: z.string().describe('Dotted path of the offending field, empty for the whole body'),
  key: z.string().describe('Stable message key, translated by the web'),
  message: z.string(),
  params: z
    .object({
      min: z.number().optional(),
      max: z.number().optional(),
      unit: z.enum(['characters', 'items']).optional(),
      label: z.string().optional().describe("The label key of the field a 409 'existed' names"),
      value: z.string().optional().describe('The offending value the message names'),
    })
    .optional()
    .describe('What the message states: the limit the value broke (e.g. {max: 64, unit: "characters"}) or the field'),
});
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

export const RESULT = {
  ok: 200,
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  tooManyRequests: 429,
  serverError: 500,
} as const;
