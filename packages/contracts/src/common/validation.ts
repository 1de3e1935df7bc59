import { z } from 'zod';

/** spec §5: a name is required and not blank. */
export const nameText = (max = 50) => z.string('mandatory').trim().min(1, 'mandatory').max(max, 'tooLong');

/** spec §5: phone must not contain letters or Chinese characters. */
export const phoneText = () =>
  z
    .string()
    .trim()
    .max(30, 'tooLong')
    .regex(/^[0-9+\-() ]*$/, 'formalError');

export const emailText = () =>
  z
    .string()
    .trim()
    .max(100, 'tooLong')
    .pipe(z.union([z.literal(''), z.email('emailFormat')]));

/** spec §5: code fields take letters and digits only. */
export const codeText = (max = 50) =>
  z
    .string('mandatory')
    .trim()
    .min(1, 'mandatory')
    .max(max, 'tooLong')
    .regex(/^[A-Za-z0-9]+$/, 'codeFormat');

/** spec §5: 6 to 18 characters (the original message said 6-20; see docs/api.md). */
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 18;
export const passwordText = () =>
  z.string('mandatory').min(1, 'mandatory').min(PASSWORD_MIN, 'passwordLength').max(PASSWORD_MAX, 'passwordLength');

/** Answer of every `check…name` call. */
export const ExistedSchema = z.object({ existed: z.boolean() });

/** A date as `YYYY-MM-DD`, or empty for none. */
export const dateText = () => z.union([z.literal(''), z.iso.date('invalidValue')]);

/** A moment as ISO 8601 with an offset, or empty for none. */
export const dateTimeText = () => z.union([z.literal(''), z.iso.datetime({ offset: true, message: 'invalidValue' })]);
