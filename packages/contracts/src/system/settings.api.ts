import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs, SESSION } from '../common/operation';
import { emailText } from '../common/validation';
import { RES } from '../permissions';

const readSettings = needs(RES.systemSettings);
const saveSettings = needs(RES.settingsSave);

export const SmtpConfSchema = z.object({
  host: z.string(),
  port: z.number().int(),
  sender: z.string(),
  username: z.string(),
  secure: z.boolean().describe('TLS from the first byte (port 465); otherwise STARTTLS when the server offers it'),
  passwordSet: z.boolean().describe('The password itself is never sent back'),
});

export const SmtpConfSaveSchema = z.strictObject({
  host: z.string('mandatory').trim().min(1, 'mandatory').max(200, 'tooLong'),
  port: z.number('mandatory').int('invalidValue').min(0, 'outOfRange').max(65535, 'outOfRange'),
  sender: emailText().pipe(z.string().min(1, 'mandatory')),
  username: z.string().trim().max(200, 'tooLong').default(''),
  password: z
    .string()
    .max(200, 'tooLong')
    .optional()
    .describe('Omit to keep the stored password; empty string clears it'),
  secure: z.boolean().default(false),
});
export type SmtpConfSave = z.infer<typeof SmtpConfSaveSchema>;

export const getsmtpconf = defineOperation({
  path: '/systemparameter/getsmtpconf',
  access: readSettings,
  tag: 'settings',
  summary: 'The SMTP configuration, or null when none is saved',
  request: z.strictObject({}),
  response: SmtpConfSchema.nullable(),
});

export const savesmtpconf = defineOperation({
  path: '/systemparameter/savesmtpconf',
  access: saveSettings,
  tag: 'settings',
  summary: 'Save the SMTP configuration (the password is stored encrypted)',
  request: SmtpConfSaveSchema,
  response: z.null(),
  audit: 'update',
});

export const checkifcansendemail = defineOperation({
  path: '/systemparameter/checkifcansendemail',
  access: readSettings,
  tag: 'settings',
  summary:
    "Send a test e-mail (to `to`, or to the caller's address); answers reconfigureSmtp or sendFailure when it cannot",
  request: z.strictObject({ to: emailText().optional() }),
  response: z.object({ to: z.string() }),
  audit: 'other',
});

export const SubscribeFlagsSchema = z.strictObject({
  subMeterEventFlag: z.boolean(),
  subEmailFlag: z.boolean(),
  subMsgFlag: z.boolean(),
  subSpecialUserEventFlag: z.boolean(),
  subExceptionFlag: z.boolean(),
});
export type SubscribeFlags = z.infer<typeof SubscribeFlagsSchema>;

export const getsysusersubscribeconf = defineOperation({
  path: '/systemparameter/getsysusersubscribeconf',
  access: SESSION,
  tag: 'settings',
  summary: "The caller's subscription flags",
  request: z.strictObject({}),
  response: SubscribeFlagsSchema,
});

export const updatesysUsersubscribeconf = defineOperation({
  path: '/systemparameter/updatesysUsersubscribeconf',
  access: SESSION,
  tag: 'settings',
  summary: "Set the caller's subscription flags",
  request: SubscribeFlagsSchema,
  response: z.null(),
  audit: 'update',
});

export const DataItemSchema = z.object({
  id: IdSchema,
  itemName: z.string(),
  itemNameEn: z.string(),
  obis: z.string(),
  classId: z.number().int(),
  enabled: z.boolean(),
  orderNum: z.number().int(),
});

export const listdataitemconf = defineOperation({
  path: '/dataitemconf/listdataitemconf',
  access: readSettings,
  tag: 'settings',
  summary: 'The data items (OBIS objects) the system collects and shows',
  request: z.strictObject({}),
  response: z.array(DataItemSchema),
});

export const savedataitemconf = defineOperation({
  path: '/dataitemconf/savedataitemconf',
  access: saveSettings,
  tag: 'settings',
  summary: 'Enable, disable and order data items',
  request: z.strictObject({
    items: z
      .array(
        z.strictObject({
          id: IdSchema,
          enabled: z.boolean(),
          orderNum: z.number().int().min(0, 'outOfRange').max(9999, 'outOfRange'),
        }),
      )
      .min(1, 'mandatory')
      .max(1000, 'tooLong'),
  }),
  response: z.null(),
  audit: 'update',
});

/** spec §5: positive integers below 1000. */
const limit = () => z.number('mandatory').int('invalidValue').min(1, 'outOfRange').max(999, 'outOfRange');

export const TariffConfigFieldsSchema = z.strictObject({
  tariffValidCount: limit(),
  tariffDays: limit(),
  tariffWeeks: limit(),
  tariffSeasons: limit(),
  tariffSpecialDays: limit(),
});
export const TariffConfigSchema = TariffConfigFieldsSchema.extend({ id: IdSchema });
export type TariffConfig = z.infer<typeof TariffConfigSchema>;

export const gettariffconfiglist = defineOperation({
  path: '/tariffconfig/gettariffconfiglist',
  // The tariff editor reads them too: it checks a calendar's counts as the user edits.
  access: needs(
    RES.systemSettings,
    '/parameterSetting/tariffManagement/Add',
    '/parameterSetting/tariffManagement/Edit',
  ),
  tag: 'settings',
  summary: 'TOU parameter limitation settings (how many days, weeks, seasons, special days a tariff may have)',
  request: z.strictObject({}),
  response: z.array(TariffConfigSchema),
});

export const savetariffconfig = defineOperation({
  path: '/tariffconfig/savetariffconfig',
  access: saveSettings,
  tag: 'settings',
  summary: 'Create the limitation settings (there is one set)',
  request: TariffConfigFieldsSchema,
  response: z.object({ id: IdSchema }),
  audit: 'add',
});

export const updatetariffconfig = defineOperation({
  path: '/tariffconfig/updatetariffconfig',
  access: saveSettings,
  tag: 'settings',
  summary: 'Change the limitation settings',
  request: TariffConfigSchema,
  response: z.null(),
  audit: 'update',
});

export const CommandTimeoutSchema = z.strictObject({
  timeout: z.number('mandatory').int('invalidValue').min(1, 'outOfRange').max(3600, 'outOfRange').describe('seconds'),
});

export const gettimeout = defineOperation({
  path: '/obis/datatype/gettimeout',
  access: readSettings,
  tag: 'settings',
  summary: 'How long the head-end waits for a device to answer a command, in seconds',
  request: z.strictObject({}),
  response: z.object({ timeout: z.number().int() }),
});

export const updatetimeout = defineOperation({
  path: '/obis/datatype/updatetimeout',
  access: saveSettings,
  tag: 'settings',
  summary: 'Set the command time-out, in seconds',
  request: CommandTimeoutSchema,
  response: z.null(),
  audit: 'update',
});

export const MAX_LOG_RETENTION_DAYS = 3650;
export const LogRetentionSchema = z.strictObject({
  days: z
    .number('mandatory')
    .int('invalidValue')
    .min(1, 'outOfRange')
    .max(MAX_LOG_RETENTION_DAYS, 'outOfRange')
    .describe('System log entries older than this many days are deleted every night'),
});

export const getlogretention = defineOperation({
  path: '/parameter/getlogretention',
  access: readSettings,
  tag: 'settings',
  summary: 'How many days system log entries are kept (the LOG_RETENTION_DAYS default until one is saved)',
  request: z.strictObject({}),
  response: z.object({ days: z.number().int() }),
});

export const updatelogretention = defineOperation({
  path: '/parameter/updatelogretention',
  access: saveSettings,
  tag: 'settings',
  summary: 'Set how many days system log entries are kept',
  request: LogRetentionSchema,
  response: z.null(),
  audit: 'update',
});

export const MAX_READINGS_RETENTION_MONTHS = 240;
export const ReadingsRetentionSchema = z.strictObject({
  months: z
    .number('mandatory')
    .int('invalidValue')
    .min(1, 'outOfRange')
    .max(MAX_READINGS_RETENTION_MONTHS, 'outOfRange')
    .describe(
      'Readings (profile, frozen values, events, link changes, clock checks) older than this many months leave every night as whole monthly partitions; older readings that still arrive are refused',
    ),
});

export const getreadingsretention = defineOperation({
  path: '/parameter/getreadingsretention',
  access: readSettings,
  tag: 'settings',
  summary: 'How many months readings are kept (the READINGS_RETENTION_MONTHS default until one is saved)',
  request: z.strictObject({}),
  response: z.object({ months: z.number().int() }),
});

export const updatereadingsretention = defineOperation({
  path: '/parameter/updatereadingsretention',
  access: saveSettings,
  tag: 'settings',
  summary: 'Set how many months readings are kept',
  request: ReadingsRetentionSchema,
  response: z.null(),
  audit: 'update',
});
