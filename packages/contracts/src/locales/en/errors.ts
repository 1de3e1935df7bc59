import { MESSAGES } from '../../common/messages';

/** The contracts carry the English text of every message key. */
export const errors = { ...MESSAGES };
