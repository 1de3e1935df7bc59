/**
 * Stable message keys. The server answers them in `msg` (or in `data.issues[].key` for
 * validation), the web translates them (`errors.<key>` in its locales). The English text
 * here is what API clients without a translation table read.
 */
export const MESSAGES = {
  // spec §5 validation
  mandatory: 'This part is mandatory',
  blank: 'Names must not be blank',
  formalError: 'Format error',
  emailFormat: 'Please enter a valid e-mail address',
  codeFormat: 'Only letters and digits are allowed',
  numberFormat: 'Digits with an optional decimal part',
  tooLong: 'Too long',
  outOfRange: 'Out of range',
  passwordLength: 'The password must be 6-18 characters',
  passwordInconsistent: 'Inconsistent new password',
  existed: 'existed',
  invalidId: 'Not a valid record id',
  unknownField: 'Unknown field',
  invalidValue: 'Invalid value',
  invalidCharacter: 'Control characters are not allowed',
  bodyTooLarge: 'The request is too large',
  // spec §8 catalogue
  noPermission: 'Current user does not have related permission, please contact administrator',
  forbidden: 'You do not have permission to do this',
  crossOrigin: 'Requests from another site are refused',
  notLoggedIn: 'Please log in',
  sessionExpired: 'Your session has expired, please log in again',
  wrongApi:
    'Wrong API: the server does not offer this function. Reload the page; if it persists, tell your administrator',
  modificationFailed: 'Modification failed',
  operationFailed: 'Operation failed',
  deleteFailed: 'Delete failed',
  interfaceError:
    'The server could not complete the request. Please try again; if it keeps failing, tell your administrator when it happened',
  requestTimeout:
    'The server did not answer in time (request timeout). Check whether the change was made before you try again',
  networkError: 'The server cannot be reached, please try again',
  invalidParams: 'Invalid request',
  notFound: 'Record not found',
  tooManyRequests: 'Too many attempts, please try again later',
  // login
  captchaRequired: 'Please enter the verification code',
  captchaWrong: 'The verification code is wrong or has expired',
  wrongCredentials: 'Wrong username or password',
  userNotEnabled: 'This account is not enabled yet, please contact administrator',
  userDisabled: 'This account is disabled, please contact administrator',
  userLocked: 'This account is locked after too many failed logins, please try again later',
  userExpired: 'This account has expired, please contact administrator',
  rawPasswordWrong: 'The old password is wrong',
  samePassword: 'The new password must differ from the old one',
  mustChangePassword: 'Please change your password before you continue',
  // resources
  parentNotFound: 'The parent resource does not exist',
  parentTypeMismatch: 'This resource type cannot sit under that parent',
  parentCycle: 'A resource cannot sit under itself or its descendants',
  orgParentCycle: 'An organisation cannot sit under itself or its descendants',
  resourceUriExisted: 'This resource path is already used',
  // system management
  orgHasChildren: 'This organisation still has child organisations',
  orgHasUsers: 'This organisation still has users',
  roleHasUsers: 'This role is still assigned to users',
  builtInRole: 'The built-in admin role keeps every resource and cannot be deleted',
  cannotChangeSelf: 'You cannot disable, lock or delete your own account',
  groupHasUsers: 'This user group still has users',
  gridNotFound: 'The power grid does not exist',
  orgNotFound: 'The organisation does not exist',
  roleNotFound: 'A role does not exist',
  groupNotFound: 'A user group does not exist',
  userNotFound: 'A user does not exist',
  reconfigureSmtp: 'Please Reconfigure SMTP',
  sendFailure: 'Send Failure',
  smtpUnreachable: 'The mail server cannot be reached',
  smtpTimeout: 'The mail server did not answer in time',
  smtpAuthFailed: 'The mail server refused the username or password',
  smtpTlsFailed: 'The secure connection to the mail server failed',
  smtpRejected: 'The mail server refused the message',
  noRecipientEmail: 'The recipient has no e-mail address',
  timeRangeTooLong: 'The time range is too long',
  timeRangeInvalid: 'The start time must be before the end time',
  invalidDate: 'Please enter a valid date',
  dateAfterToday: 'No date after today',
  overlayOneDay: 'Several meters are overlaid on one day; one meter alone may span several days',
  partialSuccess: 'partial success',
  // grants: nobody gives away more than they hold
  grantExceedsOwn: 'You cannot grant a role holding permissions you do not have',
  userHoldsMore: 'This user holds permissions you do not have',
  groupOutsideScope: 'You cannot assign a user group whose power grid lies outside your data scope',
  cannotChangeOwnAccess: 'You cannot change your own roles, user groups or expiry date',
  lastAdmin: 'The last enabled administrator cannot be disabled, deleted or lose the administrator role',
  builtInResource: 'A built-in resource keeps its path and cannot be deleted',
  resourceUriGuarded: 'This path is reserved by the system',
  resourceUriOutsideParent: "The path must start with its parent's path",
  resourceHasChildren: 'This resource still has child resources',
  // archive
  invalidLatitude: 'Latitude must be between -90 and 90',
  invalidLongitude: 'Longitude must be between -180 and 180',
  consumerIdIncomplete: 'Please enter the complete Consumer ID',
  meterSnIncomplete: 'Please enter the complete Meter SN',
  supplierNotFound: 'The supplier does not exist',
  supplierInUse: 'This supplier is still used by meter types, meters or DCUs',
  importFileInvalid: 'The file is not a readable Excel workbook (.xlsx)',
  importAbandoned: 'The import stopped before it finished and was given up; nothing was written. Import the file again',
  importFileTooLarge: 'The file is too large',
  importTooManyRows: 'The file holds too many rows',
  importNoRows: 'The file holds no data rows',
  importColumnMissing: 'A required column is missing',
  importDuplicateInFile: 'The same value appears twice in the file',
  importFailed: 'Import failed: nothing was written',
  gridParentCycle: 'A power grid node cannot sit under itself or its descendants',
  gridTypeUnderParent:
    "A node's type must be a lower level than its parent's (region, substation, feeder, transformer area)",
  gridTypeOverChildren: 'The nodes below must stay of a lower level than this type',
  gridAreaOnly: 'Only a transformer area has a capacity and a primary-table POC',
  gridPrimaryPocInvalid: 'Choose a POC of nature primary table placed in this transformer area',
  gridScopeRootFixed: 'This node is a top node of your data scope and keeps its parent',
  gridHasChildren: 'This node still has nodes below it',
  gridHasConsumers: 'This node still has consumers',
  gridHasMeters: 'This node still has meters',
  gridHasModules: 'This node still has modules',
  gridHasPocs: 'This node still has POCs',
  gridHasDcus: 'This node still has DCUs',
  gridHasGroups: 'User groups still cover this node',
  digitsOnly: 'Only digits are allowed',
  consumerHasPocs: 'This consumer still has points of connection',
  moduleInUse: 'This module is used by a meter',
  meterTypeNotFound: 'The meter type does not exist',
  supplierNotOfMeterType: "The supplier must be the meter type's supplier",
  meterTypeInUse: 'This meter type is still used by meters',
  meterInUse: 'This meter still measures a POC',
  moduleNotFound: 'The module does not exist',
  dcuNotFound: 'The DCU does not exist',
  meterSnSameAsModule: 'Meter SN and module SN must differ',
  statusTransitionRefused: 'The meter cannot change to this status from its current one',
  wholeNumber: 'Please enter a whole number',
  timeFormat: 'Please enter a time as HH:mm',
  hexKey: 'Please enter 32 hexadecimal characters',
  printableOnly: 'Only printable characters are allowed',
  blacklistTooLong: 'At most 1024 meters in the blacklist',
  blacklistUnknownMeter: 'Meter {{value}} in the blacklist does not exist',
  taskWindowEmpty: 'The end time must differ from the start time',
  dcuInUse: 'This DCU is still used by meters or POCs',
  consumerNotFound: 'The consumer does not exist',
  meterNotFound: 'The meter does not exist',
  meterAtOtherPoc: 'This meter already measures another POC',
  sameMeter: 'The new meter must differ from the current one',
  pocWithoutMeter: 'This POC has no meter to replace',
  pocIsPrimaryTable: 'This POC is the primary table of a transformer area',
  futureTime: 'The time cannot be later than now',
  afterToday: 'The date cannot be later than today',
  unknownCollectionItem: 'Unknown collection item',
  importGridAmbiguous: 'More than one power grid node has this name: enter its code',
  pocHasMeter: 'This POC already has a meter',
  pocOtherConsumer: 'This POC belongs to another consumer',
  // TOU tariffs (spec §5, §8)
  exceedingLimitation: 'Exceeding limitation: see the TOU parameter limitation settings',
  tariffDateFormat: 'Please enter a date as MM-DD (or YYYY-MM-DD for a special day)',
  tariffDateOutsideYear: 'This day is not in the year',
  tariffUnknownRate: 'The rate must be 1, 2, 3 or 4',
  tariffWeekDays: 'A week profile names a day profile for each of the seven days',
  tariffDuplicateProfile: 'This profile number is used twice',
  tariffDayStart: 'A day profile starts at 00:00',
  tariffSwitchOrder: 'Switching times must be in order, each later than the one before',
  tariffInterval: 'A tariff interval must be at least 5 minutes',
  tariffUnknownDay: 'No day profile has this number',
  tariffUnknownWeek: 'No week profile has this number',
  tariffSeasonOrder: 'Seasons must be in order of their start dates, each start once',
  tariffDuplicateDate: 'This special day is listed twice',
  tariffUnreachableWeek: 'No season uses this week profile',
  tariffUnreachableDay: 'No week profile or special day uses this day profile',
  tariffInUse: 'This tariff is still used by meters or POCs',
  tariffNotFound: 'No tariff has this name or id',
  activationTimeNotFuture: 'The activation time must be later than now',
  decimalPlaces: 'At most four decimal places',
  duplicateDevice: 'A device is selected twice',
  // devices and operations
  obisFormat: 'Please enter an OBIS code as A-B:C.D.E.F, each part 0-255',
  invalidClockTime: 'Please enter a valid date and time',
  hexFrame: 'The input must be a hexadecimal frame',
  batchTooLarge: 'At most 30 devices in one batch',
  MThasOffline: 'Some meters are offline and cannot be operated',
  MThasExecute: 'Some meters are already executing this item',
  MTisExecute: 'The meter is already executing this item',
  deviceNotFound: 'A device does not exist',
  consumerProtected: 'A protected consumer (life support or medical) cannot be disconnected',
  selfApproval: 'A disconnect must be approved by another user',
  planNotPending: 'This plan is not waiting for approval',
  planNotEditable: 'Only a plan that has not started can be changed',
  recurringPlanNotYet: 'Recurring plans are created on the scheduled task page',
  planOperationMismatch: 'The devices do not match the operation (meters or DCUs)',
  nothingToRetry: 'No device of this plan failed',
  obisNotReadable: 'Only OBIS items flagged read instantly can be read in real time',
  simulatorNotRunning: 'The device simulator is not running on this server',
  // scheduled tasks
  taskDevicesNone: 'The device set matches no meter',
  startTimeNotFuture: 'The start time must be later than now',
  taskFrequencyTooShort: 'The frequency cannot be under 5 minutes',
  repairSpanTooLong: 'The compensation duration cannot be longer than the task period',
  expectedBelowExecuted: 'The expected execution count cannot be below the executed count',
  startTimeTaken: 'A task of this template already starts at this time',
  taskEnabled: 'Disable the task before modifying it',
  taskNotEnabled: 'The task is disabled',
  taskNotPaused: 'The task is not paused',
  taskFinished: 'The task has finished',
  taskNotCollection: 'This is not a collection task',
  collectItemUnknown: 'Not a collection item read periodically',
  collectItemNotProfile: 'A task reads profiles only: load profile, daily or monthly frozen values, the event log',
  collectItemMissing: 'A collection order needs its collection item',
  templateInUse: 'The template is used by a task',
  templateNotFound: 'The template does not exist',
  // parameter setting
  cgNameFormat: 'Only letters, digits and underscores are allowed',
  eventDefinitionNotFound: 'The event definition does not exist',
  eventParentCycle: 'An event cannot be its own higher-level event, directly or through others',
  eventDefinitionInUse: 'This event is still the higher-level event of other events',
  obisNotSettable:
    'Only OBIS items flagged setting channel can be in a parameter template (the clock, tariffs and firmware have operations of their own)',
  obisNotFound: 'No OBIS item has this code',
  paramTemplateDuplicateItem: 'An OBIS item is in the template twice',
  paramTemplateNotFound: 'The parameter template does not exist',
  paramTemplateStale: 'An item of the template can no longer be set: its OBIS item was changed or removed',
  paramTemplateMeterType: "Some meters are not of the template's meter type",
  meterTypeInTemplate: 'This meter type is still used by parameter templates',
  // firmware upgrade (spec §5, §8)
  firmwareOnlyBin: 'Only bin files',
  firmwareFileEmpty: 'The file is empty',
  firmwareFileTooLarge: 'The firmware image is larger than 16 MB',
  firmwareNotImage: 'The file is not a firmware image: it holds text, an archive, a document or a picture',
  firmwareImageRequired: 'Upload the firmware image',
  firmwareNameChinese: 'The name must not contain Chinese characters',
  versionRequired: 'A version must be selected',
  versionFormat: 'Letters, digits, dots, hyphens and underscores only',
  firmwareInCampaign: 'This firmware has a campaign that has not finished',
  firmwareEquipmentMismatch: 'These devices are not of the equipment the firmware is for',
  campaignNotPaused: 'The campaign is not paused',
  campaignFinished: 'The campaign has finished',
  firmwareVerifyFailed: 'The device could not verify the image; it was not activated',
  firmwareActivateFailed: 'The device refused to activate the image',
  firmwareVersionMismatch: 'After activation the device reports another version',
  firmwareDeviceUnreachable: 'The device stopped answering',
  firmwareTransferFailed: 'The device did not take the image blocks',
  // payment (spec §5)
  meterInBillingRule: 'This meter is still billed by a billing rule',
  meterInVirtualMeter: 'This meter is still a member of a virtual meter',
  twoDecimals: 'At most two decimal places',
  ruleNameExisted: 'Rule name already exists',
  roundingBaseZero: 'Rounding base cannot be 0',
  ruleAmountMissing: 'Enter the fixed amount or the percentage the charge mode names',
  ruleMeterTwice: 'A meter is chosen twice in this rule',
  notVirtualMeter: 'Only a virtual meter has members',
  virtualContainsItself: 'A virtual meter cannot contain itself',
  virtualMemberTwice: 'This meter is a member twice on the same channel',
  virtualHasMembers: 'Remove the members of this virtual meter before it becomes a real one',
  virtualMemberVirtual: 'A member must be a real meter (virtual meters do not nest)',
  reportRuleGone: 'The billing rule of this report no longer exists',
  reportGridGone: 'The grid node of this report no longer exists',
  reportBuildFailed: 'The report could not be built',
  reportInterrupted: 'The report was interrupted and not finished',
  reportNotCompleted: 'The report is not completed yet',
  rechargeAmountRange: 'Please enter between 0~500',
  notPrepaid: 'This meter does not supply a prepaid consumer',
  operatorPasswordWrong: 'The password is wrong',
  meterHasRecharges: 'This meter has prepaid recharges: their record is kept',
  consumerHasRecharges: 'This consumer has prepaid recharges: their record is kept',
} as const;

export type MessageKey = keyof typeof MESSAGES;

/**
 * The limits a validation issue carries (`data.issues[].params`), so its text can state them. `unit`
 * tells characters from items (a list's length) and is absent for numbers.
 */
export interface IssueParams {
  min?: number;
  max?: number;
  unit?: 'characters' | 'items';
  /** The label key of the field an 'existed' conflict names. */
  label?: string;
  /** The offending value a message names (the unknown serial of a blacklist). */
  value?: string;
}

/**
 * Texts of a key that state its limits, as `<key>_<context>` (i18next's context suffix, so the web's
 * lookup falls back to the plain key when a key has no variant). `{{min}}`/`{{max}}` interpolate.
 */
export const LIMIT_MESSAGES = {
  tooLong_max: 'At most {{max}} characters',
  tooLong_maxItems: 'At most {{max}} items',
  outOfRange_min: 'At least {{min}}',
  outOfRange_max: 'At most {{max}}',
  outOfRange_range: 'Between {{min}} and {{max}}',
  existed_label: '{{label}} existed',
  exceedingLimitation_max: 'Exceeding limitation: at most {{max}} (see the TOU parameter limitation settings)',
} as const;

/**
 * Texts of a key for the field a refusal names, as `<key>_<field>`: a filter that finds nothing says
 * what it looked for (an unknown or partial serial at the Meter SN filter) rather than 'Record not found'.
 */
export const FIELD_MESSAGES = {
  notFound_devAddr: 'No meter with this serial',
  notFound_dcuId: 'This DCU does not exist or lies outside your data scope',
  notFound_gridId: 'This grid node does not exist or lies outside your data scope',
} as const;

/** Which limit text fits the params: `range` with both bounds, else the one bound (and items for lists). */
export function limitContext(params: IssueParams | undefined): string | undefined {
  if (!params) return undefined;
  if (params.label !== undefined) return 'label';
  const items = params.unit === 'items' ? 'Items' : '';
  if (params.min !== undefined && params.max !== undefined) return 'range';
  if (params.max !== undefined) return `max${items}`;
  if (params.min !== undefined) return `min${items}`;
  return undefined;
}

/** A zod issue as the contracts' checks raise it: its message is a MESSAGES key. */
interface ZodIssueLike {
  code?: string;
  message: string;
  minimum?: unknown;
  maximum?: unknown;
  origin?: unknown;
  input?: unknown;
}

/**
 * The MESSAGES key of a zod issue. A missing value fails a bare type check with zod's own English
 * ("expected string, received undefined"), which reads as 'mandatory'; any other text that is not a
 * key is 'invalidValue', so a user never sees a validator's developer text.
 */
export function issueKey(issue: ZodIssueLike): MessageKey {
  if (issue.message in MESSAGES) return issue.message as MessageKey;
  if (issue.code === 'invalid_type' && (issue.input === undefined || /received undefined/.test(issue.message))) {
    return 'mandatory';
  }
  return 'invalidValue';
}

const bound = (value: unknown) => (typeof value === 'number' || typeof value === 'bigint' ? Number(value) : undefined);

/**
 * The limit a size check (too_small/too_big) refused, for the message to state; only for keys with a
 * text that states it (a `min(1, 'mandatory')` stays plain 'This part is mandatory').
 */
export function issueParams(issue: ZodIssueLike): IssueParams | undefined {
  const min = issue.code === 'too_small' ? bound(issue.minimum) : undefined;
  const max = issue.code === 'too_big' ? bound(issue.maximum) : undefined;
  if (min === undefined && max === undefined) return undefined;
  const unit =
    issue.origin === 'array' || issue.origin === 'set' ? 'items' : issue.origin === 'string' ? 'characters' : undefined;
  const params: IssueParams = {
    ...(min !== undefined && { min }),
    ...(max !== undefined && { max }),
    ...(unit && { unit }),
  };
  return hasLimitText(issueKey(issue), params) ? params : undefined;
}

function hasLimitText(key: string, params: IssueParams): boolean {
  return `${key}_${limitContext(params)}` in LIMIT_MESSAGES;
}

function interpolate(text: string, params: IssueParams): string {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => {
    const value = params[name as keyof IssueParams];
    return value === undefined ? whole : String(value);
  });
}

/** The English text of a key; with params, the variant that states the limit when the key has one. */
export function messageText(key: string, params?: IssueParams): string {
  if (params && hasLimitText(key, params)) {
    return interpolate(LIMIT_MESSAGES[`${key}_${limitContext(params)}` as keyof typeof LIMIT_MESSAGES], params);
  }
  return key in MESSAGES ? MESSAGES[key as MessageKey] : key;
}
