import { LANGUAGE } from '@meterdesk/contracts';
import { translator } from '../i18n/labels';
import { ADMIN_ROLE_ID, OPERATOR_ROLE_ID } from './seeded-ids';

/** The roles the first start creates, with the locale key of their remark. */
const SEEDED_REMARKS = new Map([
  [ADMIN_ROLE_ID, 'role.seeded.admin'],
  [OPERATOR_ROLE_ID, 'role.seeded.operator'],
]);

const LANGUAGES = Object.values(LANGUAGE);

/** A seeded role's remark as the first start stores it: the English text. */
export const seededRemark = (id: string): string => translator(LANGUAGE.en)(SEEDED_REMARKS.get(id) ?? '');

/**
 * A role's remark in the reader's language: a seeded role's, while nobody has changed it, is the
 * seed's text translated; any other is what its author wrote, as written.
 */
export function remarkFor(role: { id: string; remark: string }, language: number): string {
  const key = SEEDED_REMARKS.get(role.id);
  return key && role.remark === seededRemark(role.id) ? translator(language)(key) : role.remark;
}

/**
 * What to store as a role's remark: a seeded role saved with its remark as shown in any language
 * keeps the seed's text, so a save in Chinese does not turn it Chinese for every reader.
 */
export function remarkToStore(id: string, remark: string): string {
  const key = SEEDED_REMARKS.get(id);
  return key && LANGUAGES.some((language) => translator(language)(key) === remark) ? seededRemark(id) : remark;
}
