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

/** spec §5: code fields take letters and digits only. A blank one is only 'mandatory'. */
export const codeText = (max = 50) =>
  z
    .string('mandatory')
    .trim()
    .min(1, { error: 'mandatory', abort: true })
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

/** A free text that may stay empty. */
export const optionalText = (max: number) => z.string().trim().max(max, 'tooLong').default('');

/** spec §5 number fields: a number within [min, max], or none. */
export const optionalNumber = (min: number, max: number) =>
  z.number('numberFormat').min(min, 'outOfRange').max(max, 'outOfRange').nullable().default(null);

/** spec §5: latitude and longitude must be valid; either may be left out. */
export const latitude = () =>
  z.number('invalidLatitude').min(-90, 'invalidLatitude').max(90, 'invalidLatitude').nullable().default(null);
export const longitude = () =>
  z.number('invalidLongitude').min(-180, 'invalidLongitude').max(180, 'invalidLongitude').nullable().default(null);

/**
 * spec §5 identifiers: 'length above 4 and below 50' (consumer id) and 'above 6 and below 50' (meter
 * serial), each refused with the spec's own message (`incomplete`), and letters, digits, `-` and `_` only.
 * A blank one is only 'mandatory': the other checks have nothing to say about it.
 */
export const serialText = (above: number, incomplete: 'consumerIdIncomplete' | 'meterSnIncomplete') =>
  z
    .string('mandatory')
    .trim()
    .min(1, { error: 'mandatory', abort: true })
    .min(above + 1, incomplete)
    .max(49, incomplete)
    .regex(/^[A-Za-z0-9_-]+$/, 'codeFormat');

/** spec §5 positive integers and the like: a whole number within [min, max], or none. */
export const optionalInt = (min: number, max: number) =>
  z.number('numberFormat').int('wholeNumber').min(min, 'outOfRange').max(max, 'outOfRange').nullable().default(null);
