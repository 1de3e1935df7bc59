import { RechargeAmountSchema } from '@meterdesk/contracts';

/** The message key the amount is refused with (spec §5: 'Please enter between 0~500'), or null when it is fine. */
export function amountProblem(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return 'mandatory';
  const parsed = RechargeAmountSchema.safeParse(value);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'invalidValue');
}

/**
 * The key of one recharge: made when the operator confirms it and kept until the server answers, so a
 * retry after a time-out or a second click sends the same key and the server credits once.
 */
export function newClientKey(): string {
  return crypto.randomUUID().replaceAll('-', '');
}

/** A 20-digit token in groups of four, as a keypad's user reads it off a receipt. */
export const tokenGroups = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, '$1 ');
