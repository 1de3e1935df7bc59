import { stableId } from './ids';

/**
 * The ids of what the first start creates (`seed/seed.ts`): the same on every installation, so the
 * code that treats these rows specially (the admin role reaches everything; the built-in resources
 * guard the routes) names them without reading them.
 */
export const ADMIN_ROLE_ID = stableId('role:admin');
export const OPERATOR_ROLE_ID = stableId('role:operator');
export const ROOT_ORG_ID = stableId('org:root');
export const resourceIdOf = (uri: string) => stableId(`resource:${uri}`);
