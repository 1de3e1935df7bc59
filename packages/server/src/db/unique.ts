import { groupEntity, orgEntity, resourceEntity, roleEntity, userEntity } from '@meterdesk/contracts';
import { type ApiError, existedError } from '../errors/api-error';
import { databaseError } from './errors';

/**
 * The field behind each unique index: a check and an insert racing past it both end as 409
 * `existed` naming the field, never as a 500.
 */
const UNIQUE_FIELDS = new Map<string, () => ApiError>(
  Object.entries({
    sys_user_username_uq: () => existedError(userEntity, 'username'),
    sys_org_name_uq: () => existedError(orgEntity, 'orgName'),
    sys_org_code_uq: () => existedError(orgEntity, 'orgCode'),
    sys_role_name_uq: () => existedError(roleEntity, 'roleName'),
    sys_group_name_uq: () => existedError(groupEntity, 'groupName'),
    sys_group_code_uq: () => existedError(groupEntity, 'groupCode'),
    sys_resource_name_uq: () => existedError(resourceEntity, 'resourceName'),
    sys_resource_name_en_uq: () => existedError(resourceEntity, 'resourceNameEn'),
  }),
);

/** Adds the field behind a unique index of a later module (the archive kit registers its business keys). */
export function registerUniqueIndex(index: string, error: () => ApiError): void {
  UNIQUE_FIELDS.set(index, error);
}

/** The 409 for a unique violation (PostgreSQL 23505) anywhere in an error's cause chain; null otherwise. */
export function uniqueViolation(error: unknown): ApiError | null {
  const e = databaseError(error);
  if (e?.code !== '23505') return null;
  const known = typeof e.constraint === 'string' ? UNIQUE_FIELDS.get(e.constraint) : undefined;
  return known ? known() : null;
}
