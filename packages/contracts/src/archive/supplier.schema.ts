import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains } from '../common/list';
import { codeText, nameText, optionalText, phoneText } from '../common/validation';

const fields = {
  supplierCode: field(codeText(50), { label: 'supplier.fields.supplierCode', widget: 'text' }),
  supplierName: field(nameText(100), { label: 'supplier.fields.supplierName', widget: 'text' }),
  contact: field(optionalText(50), { label: 'supplier.fields.contact', widget: 'text' }),
  phone: field(phoneText().default(''), { label: 'supplier.fields.phone', widget: 'text' }),
  address: field(optionalText(200), { label: 'supplier.fields.address', widget: 'text' }),
  remark: field(optionalText(500), { label: 'supplier.fields.remark', widget: 'textarea' }),
};

export const SupplierSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    createTime: field(z.string(), { label: 'supplier.fields.createTime', widget: 'datetime' }),
    updateTime: field(z.string(), { label: 'supplier.fields.updateTime', widget: 'datetime' }),
  }),
);
export type Supplier = z.infer<typeof SupplierSchema>;

export const SupplierCreateSchema = z.strictObject(fields);
export type SupplierCreate = z.infer<typeof SupplierCreateSchema>;

export const supplierEntity = defineEntity({
  name: 'supplier',
  record: SupplierSchema,
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
  form: ['supplierCode', 'supplierName', 'contact', 'phone', 'address', 'remark'],
  detail: ['supplierCode', 'supplierName', 'contact', 'phone', 'address', 'remark', 'createTime', 'updateTime'],
});
export type SupplierListQuery = z.infer<typeof supplierEntity.listQuery>;
