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
  wrongApi: 'Wrong API',
  modificationFailed: 'Modification failed',
  operationFailed: 'Operation failed',
  deleteFailed: 'Delete failed',
  interfaceError: 'interface error',
  requestTimeout: 'request timeout',
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
  partialSuccess: 'partial success',
  // grants: nobody gives away more than they hold
  grantExceedsOwn: 'You cannot grant a role holding permissions you do not have',
  userHoldsMore: 'This user holds permissions you do not have',
  lastAdmin: 'The last enabled administrator cannot be disabled, deleted or lose the administrator role',
  builtInResource: 'A built-in resource keeps its path and cannot be deleted',
  resourceUriGuarded: 'This path is reserved by the system',
  resourceUriOutsideParent: "The path must start with its parent's path",
  resourceHasChildren: 'This resource still has child resources',
} as const;

export type MessageKey = keyof typeof MESSAGES;

export function messageText(key: string): string {
  return key in MESSAGES ? MESSAGES[key as MessageKey] : key;
}
