import { MESSAGES } from '@meterdesk/contracts';

/** The contracts carry the English text of every message key; the web only adds client-side failures. */
export const errors = {
  ...MESSAGES,
  requestTimeout: 'The request timed out, please try again',
  networkError: 'The server cannot be reached, please try again',
};
