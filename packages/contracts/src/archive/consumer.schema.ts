import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, flag, subtree } from '../common/list';
import { emailText, latitude, longitude, nameText, optionalText, phoneText, serialText } from '../common/validation';
import { CONSUMER_TYPES, choice, PAYMENT_MODES, POC_NATURES } from './enums';

/** '' leaves it unsaid: a consumer may be a company. */
export const CONSUMER_GENDERS = ['', 'male', 'female'] as const;

const fields = {
  consumerCode: field(serialText(4, 'consumerIdIncomplete'), {
    widget: 'text',
    unique: true,
  }),
  consumerName: field(nameText(100), { widget: 'text' }),
  consumerType: choice('consumer', 'consumerType', 'consumerTypes', CONSUMER_TYPES).default('residential'),
  special: field(z.boolean('invalidValue').default(false), { widget: 'switch' }),
  paymentMode: choice('consumer', 'paymentMode', 'paymentModes', PAYMENT_MODES).default('postpay'),
  protected: field(z.boolean('invalidValue').default(false), {
    widget: 'switch',
    warning: true,
    help: 'consumer.protectedHelp',
  }),
  gridId: field(IdSchema, { widget: 'treeSelect', lookup: 'gridTree' }),
  identityNumber: field(optionalText(50), { widget: 'text' }),
  gender: choice('consumer', 'gender', 'genders', CONSUMER_GENDERS).default(''),
  phone: field(phoneText().default(''), { widget: 'text' }),
  email: field(emailText().default(''), { widget: 'text' }),
  address: field(optionalText(200), { widget: 'text' }),
  longitude: field(longitude(), { widget: 'number' }),
  latitude: field(latitude(), { widget: 'number' }),
  label: field(optionalText(50), { widget: 'text' }),
  remark: field(optionalText(500), { widget: 'textarea' }),
};

/** A POC of the consumer and the meter measuring it now, as its detail lists them. */
export const ConsumerPocSchema = z.object({
  id: IdSchema,
  pocNo: field(z.string(), { label: 'consumer.fields.pocNo', widget: 'text' }),
  nature: choice('consumer', 'pocNature', 'pocNatures', POC_NATURES),
  devAddr: field(z.string(), { label: 'consumer.fields.devAddr', widget: 'text' }),
});
export type ConsumerPoc = z.infer<typeof ConsumerPocSchema>;

export const ConsumerSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    gridName: field(z.string(), { widget: 'text' }),
    /** Only the detail carries them; a list row does not. */
    pocs: field(z.array(ConsumerPocSchema).optional(), { widget: 'text' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Consumer = z.infer<typeof ConsumerSchema>;

export const ConsumerCreateSchema = z.strictObject(fields);
export type ConsumerCreate = z.infer<typeof ConsumerCreateSchema>;

export const consumerEntity = defineEntity({
  name: 'consumer',
  record: ConsumerSchema,
  create: ConsumerCreateSchema,
  pagePath: '/archiveSetting/consumer',
  columns: [
    { field: 'consumerCode', sortable: true, width: 130 },
    { field: 'consumerName', sortable: true, width: 160 },
    { field: 'protected', width: 180 },
    { field: 'consumerType', width: 110 },
    { field: 'paymentMode', width: 110 },
    { field: 'gridName', width: 140 },
    { field: 'phone', width: 150 },
    { field: 'address', width: 200 },
  ],
  filters: [
    contains('consumerCode', 50),
    contains('consumerName', 100),
    equals('consumerType', z.enum(CONSUMER_TYPES, 'invalidValue')),
    equals('paymentMode', z.enum(PAYMENT_MODES, 'invalidValue')),
    subtree('gridId'),
    flag('protected'),
  ],
  form: [
    'consumerCode',
    'consumerName',
    'consumerType',
    'paymentMode',
    'special',
    'protected',
    'gridId',
    'identityNumber',
    'gender',
    'phone',
    'email',
    'address',
    'longitude',
    'latitude',
    'label',
    'remark',
  ],
  detail: [
    'consumerCode',
    'consumerName',
    'protected',
    'consumerType',
    'paymentMode',
    'special',
    'gridName',
    'identityNumber',
    'gender',
    'phone',
    'email',
    'address',
    'longitude',
    'latitude',
    'label',
    'remark',
    'createTime',
    'updateTime',
    'pocs',
  ],
});
export type ConsumerListQuery = z.infer<typeof consumerEntity.listQuery>;
