import { billingRuleApi, billingRuleEntity } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';

export const billingRuleCrud = defineArchiveCrud({ entity: billingRuleEntity, api: billingRuleApi });

export const billingRulePages = createCrudPages(billingRuleCrud);
