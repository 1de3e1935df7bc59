import { archiveApi, archiveResources } from '../archive/archive-api';
import { billingRuleEntity } from './billing-rule.schema';

/** permissions.ts: the billing rules page with add, edit, delete and export (no import). */
export const BILLING_RULE_RES = archiveResources(billingRuleEntity.pagePath, { import: false });

export const billingRuleApi = archiveApi({ path: 'billingrule', entity: billingRuleEntity, res: BILLING_RULE_RES });
