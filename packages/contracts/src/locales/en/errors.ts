import { LIMIT_MESSAGES, MESSAGES } from '../../common/messages';

/** The contracts carry the English text of every message key, and the variants that state a limit. */
export const errors = { ...MESSAGES, ...LIMIT_MESSAGES };
