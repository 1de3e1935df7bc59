import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { codeText, emailText, nameText, phoneText } from '../common/validation';
import { ParentIdSchema } from './resource.schema';

const ExtendInfoSchema = z.strictObject({
  phoneUser: field(z.string().trim().max(50, 'tooLong').default(''), { label: 'org.fields.phoneUser', widget: 'text' }),
  email: field(emailText().default(''), { label: 'org.fields.email', widget: 'text' }),
  phone: field(phoneText().default(''), { label: 'org.fields.phone', widget: 'text' }),
  address: field(z.string().trim().max(200, 'tooLong').default(''), { label: 'org.fields.address', widget: 'text' }),
});

const fields = {
  orgName: field(nameText(50), { widget: 'text' }),
  orgCode: field(codeText(50), { widget: 'text' }),
  pid: field(ParentIdSchema, { widget: 'treeSelect', lookup: 'orgTree' }),
  remark: field(z.string().trim().max(500, 'tooLong').default(''), { widget: 'textarea' }),
  extendInfo: field(ExtendInfoSchema.default({ phoneUser: '', email: '', phone: '', address: '' }), {
    widget: 'group',
  }),
};

export const OrgSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    parentName: field(z.string(), { widget: 'text' }),
    userCount: field(z.number().int(), { widget: 'number' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Org = z.infer<typeof OrgSchema>;

export interface OrgNode extends Org {
  children: OrgNode[];
}
export const OrgNodeSchema: z.ZodType<OrgNode> = OrgSchema.extend({
  get children() {
    return z.array(OrgNodeSchema);
  },
});

export const OrgCreateSchema = z.strictObject(fields);
export type OrgCreate = z.infer<typeof OrgCreateSchema>;
export const OrgUpdateSchema = OrgCreateSchema.extend({ id: IdSchema });

export const orgEntity = defineEntity({
  name: 'org',
  record: OrgSchema,
  create: OrgCreateSchema,
  pagePath: '/sysMGT/organizationMGT',
  columns: [
    { field: 'orgName' },
    { field: 'orgCode' },
    { field: 'userCount', width: 110 },
    { field: 'remark' },
    { field: 'updateTime', width: 180 },
  ],
  filters: [],
  form: ['pid', 'orgName', 'orgCode', 'extendInfo', 'remark'],
  detail: ['orgName', 'orgCode', 'parentName', 'extendInfo', 'userCount', 'remark', 'createTime', 'updateTime'],
});
