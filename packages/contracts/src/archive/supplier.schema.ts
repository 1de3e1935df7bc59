import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains } from '../common/list';
import { codeText, nameText, optionalText, phoneText } from '../common/validation';

const fields = {
  supplierCode: field(codeText(50), { widget: 'text', unique: true, example: 'SUP01' }),
  supplierName: field(nameText(100), { widget: 'text', unique: true, example: 'Example Meters Ltd' }),
  contact: field(optionalText(50), { widget: 'text' }),
  phone: field(phoneText().default(''), { widget: 'text' }),
  address: field(optionalText(200), { widget: 'text' }),
  remark: field(optionalText(500), { widget: 'textarea' }),
};

export const SupplierSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Supplier = z.infer<typeof SupplierSchema>;

export const SupplierCreateSchema = z.strictObject(fields);
export type SupplierCreate = z.infer<typeof SupplierCreateSchema>;

export const supplierEntity = defineEntity({
  name: 'supplier',
  record: SupplierSchema,
  create: SupplierCreateSchema,
  pagePath: '/parameterSetting/supplier',
  columns: [
    { field: 'supplierCode', sortable: true, width: 160 },
    { field: 'supplierName', sortable: true },
    { field: 'contact', width: 140 },
    { field: 'phone', width: 140 },
    { field: 'address' },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [contains('supplierCode', 50), contains('supplierName', 100)],
});
export type SupplierListQuery = z.infer<typeof supplierEntity.listQuery>;
