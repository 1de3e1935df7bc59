export const org = {
  fields: {
    orgName: 'Organisation name',
    orgCode: 'Organisation code',
    pid: 'Parent organisation',
    remark: 'Remark',
    extendInfo: 'Contact',
    phoneUser: 'Contact person',
    email: 'E-mail',
    phone: 'Phone',
    address: 'Address',
    parentName: 'Parent organisation',
    userCount: 'Users',
    createTime: 'Created',
    updateTime: 'Updated',
  },
  actions: { addChild: 'Add child' },
};

export const user = {
  fields: {
    username: 'Username',
    fullName: 'Full name',
    password: 'Initial password',
    newPassword: 'New password',
    orgId: 'Organisation',
    orgName: 'Organisation',
    roleIdList: 'Roles',
    roleNames: 'Roles',
    groupCodeList: 'User groups',
    groupNames: 'User groups',
    status: 'Status',
    lockedUntil: 'Locked until',
    expiryDate: 'Expires',
    gender: 'Gender',
    birthday: 'Birthday',
    phone: 'Phone',
    email: 'E-mail',
    address: 'Address',
    remark: 'Remark',
    createTime: 'Created',
    updateTime: 'Updated',
  },
  statuses: { enabled: 'Enabled', notEnabled: 'Not enabled', disabled: 'Disabled', locking: 'Locked' },
  genders: { 0: 'Not specified', 1: 'Male', 2: 'Female' },
  actions: { unlock: 'Unlock', resetPassword: 'Reset password' },
  confirmUnlock: 'Unlock {{username}}?',
  unlocked: 'Unlocked',
  resetPasswordTitle: 'Reset the password of {{username}}',
  passwordReset: 'The password of {{username}} was reset; it must be changed at the next login',
  noGroupWarning:
    'In no user group, this user sees no power grid, archive, operation or data records: only the administrator role sees everything. Choose the user groups whose grid nodes the user works on.',
};

export const group = {
  fields: {
    groupName: 'User group',
    groupCode: 'Code',
    gridId: 'Power grid',
    gridName: 'Power grid',
    remark: 'Remark',
    userCount: 'Users',
    createTime: 'Created',
    updateTime: 'Updated',
  },
};

export const role = {
  fields: {
    roleName: 'Role',
    remark: 'Remark',
    resourceIdList: 'Resources',
    userCount: 'Users',
    builtIn: 'Built in',
    createTime: 'Created',
    updateTime: 'Updated',
  },
  actions: { assignUser: 'Assign users' },
  /** The remarks of the roles the first start creates, shown in the reader's language while unchanged. */
  seeded: { admin: 'Every resource', operator: 'Read-only demo role' },
  assign: {
    title: 'Users with the role {{roleName}}',
    available: 'Other users',
    assigned: 'Users with this role',
  },
};

export const notice = {
  fields: {
    noticeType: 'Type',
    noticeTitle: 'Title',
    noticeContent: 'Content',
    sendUsername: 'Sender',
    recUsername: 'Recipient',
    recUsernameList: 'Recipients',
    noticeFlag: 'Status',
    sendTime: 'Sent',
    readTime: 'Read',
    sendEmail: 'Also send by e-mail',
    total: 'Recipients',
    readCount: 'Read by',
  },
  types: { 0: 'System notice', 1: 'Alarm', 2: 'Event' },
  flags: { 0: 'Unread', 1: 'Read' },
  tabs: { mine: 'My notices', sent: 'Sent notices' },
  send: {
    open: 'Send notice',
    title: 'Send a notice',
    template: 'Template',
    submit: 'Send',
    sent: 'Notice sent',
    emailFailures: 'The notice was sent, but these e-mails could not be delivered:',
    toSent: 'Sent notices',
  },
};

export const settings = {
  smtp: {
    title: 'E-mail server (SMTP)',
    fields: {
      host: 'Server',
      port: 'Port',
      sender: 'Sender address',
      username: 'User name',
      password: 'Password',
      secure: 'TLS from the first byte (port 465)',
    },
    passwordKept: 'A password is stored; leave this blank to keep it',
    test: 'Send a test e-mail',
    testTo: 'Recipient (blank: your own address)',
    testSent: 'A test e-mail was sent to {{to}}',
    testFailed: 'The test e-mail was not sent: {{reason}}',
  },
  subscribe: {
    title: 'My subscriptions',
    fields: {
      subMeterEventFlag: 'Meter events',
      subEmailFlag: 'Notify me by e-mail',
      subMsgFlag: 'Notify me by message',
      subSpecialUserEventFlag: 'Special consumer events',
      subExceptionFlag: 'Exceptions',
    },
  },
  dataItems: {
    title: 'Data items',
    itemName: 'Data item',
    obis: 'OBIS',
    unit: 'Unit',
    enabled: 'Enabled',
    orderNum: 'Order',
  },
  tariff: {
    title: 'TOU parameter limits',
    fields: {
      tariffValidCount: 'Tariff rates',
      tariffDays: 'Day profiles',
      tariffWeeks: 'Week profiles',
      tariffSeasons: 'Seasons',
      tariffSpecialDays: 'Special days',
    },
  },
  timeout: {
    title: 'Command time-out',
    fields: { timeout: 'Time-out (seconds)' },
  },
  logRetention: {
    title: 'System log retention',
    fields: { days: 'Keep entries for (days)' },
  },
  readingsRetention: {
    title: 'Readings retention',
    fields: { months: 'Keep readings for (months)' },
  },
};

export const syslog = {
  fields: {
    time: 'Time',
    logType: 'Log type',
    actorKind: 'Actor',
    username: 'User',
    operatingType: 'Operation',
    logLevel: 'Level',
    content: 'Content',
    result: 'Result',
    ip: 'IP address',
    ua: 'User agent',
    os: 'Operating system',
    browser: 'Browser',
    requestUrl: 'Request',
  },
  logTypes: { visit: 'Visit', login: 'Login', operation: 'Operation' },
  actorKinds: { user: 'User', job: 'Job', device: 'Device' },
  operatingTypes: {
    login: 'Log in',
    logout: 'Log out',
    add: 'Add',
    update: 'Update',
    delete: 'Delete',
    visit: 'Visit',
    other: 'Other',
  },
  logLevels: { info: 'Info', warn: 'Warning', error: 'Error' },
  timeRange: 'Time range',
  exportName: 'System log',
  loginSucceeded: 'Logged in',
  /** What a user did to their own session or settings (calls of no page of the resource tree). */
  sessionOperations: {
    logout: 'Log out',
    changePassword: 'Change password',
    changeLanguage: 'Change language',
    subscription: 'Notice subscription',
  },
};
