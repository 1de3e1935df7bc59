import { MESSAGES } from '@meterdesk/contracts';

/** The contracts carry the English text of every message key. */
export const errors = { ...MESSAGES };
