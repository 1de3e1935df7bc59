import { FIELD_MESSAGES, LIMIT_MESSAGES, MESSAGES } from '../../common/messages';

/** The contracts carry the English text of every message key, and the variants that state a limit or name the field. */
export const errors = { ...MESSAGES, ...LIMIT_MESSAGES, ...FIELD_MESSAGES };
