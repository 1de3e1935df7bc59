import type { LocaleMessages } from '../en';

export const org: LocaleMessages['org'] = {
  fields: {
    orgName: '组织名称',
    orgCode: '组织编码',
    pid: '上级组织',
    remark: '备注',
    extendInfo: '联系信息',
    phoneUser: '联系人',
    email: '电子邮箱',
    phone: '电话',
    address: '地址',
    parentName: '上级组织',
    userCount: '用户数',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  actions: { addChild: '新增下级' },
};

export const user: LocaleMessages['user'] = {
  fields: {
    username: '用户名',
    fullName: '姓名',
    password: '初始密码',
    newPassword: '新密码',
    orgId: '所属组织',
    orgName: '所属组织',
    roleIdList: '角色',
    roleNames: '角色',
    groupCodeList: '用户组',
    groupNames: '用户组',
    status: '状态',
    lockedUntil: '锁定至',
    expiryDate: '到期时间',
    gender: '性别',
    birthday: '生日',
    phone: '电话',
    email: '电子邮箱',
    address: '地址',
    remark: '备注',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  statuses: { enabled: '启用', notEnabled: '未启用', disabled: '停用', locking: '锁定' },
  genders: { 0: '未填写', 1: '男', 2: '女' },
  actions: { unlock: '解锁', resetPassword: '重置密码' },
  confirmUnlock: '确定解锁 {{username}}？',
  unlocked: '已解锁',
  resetPasswordTitle: '重置 {{username}} 的密码',
  passwordReset: '{{username}} 的密码已重置，下次登录时须修改',
  noGroupWarning:
    '未选择用户组：该用户将看不到任何电网、档案、操作和数据记录（只有管理员角色可见全部）。请选择该用户负责的电网节点所属的用户组。',
};

export const group: LocaleMessages['group'] = {
  fields: {
    groupName: '用户组名称',
    groupCode: '用户组编码',
    gridId: '电网',
    gridName: '电网',
    remark: '备注',
    userCount: '用户数',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
};

export const role: LocaleMessages['role'] = {
  fields: {
    roleName: '角色名称',
    remark: '备注',
    resourceIdList: '资源权限',
    userCount: '用户数',
    builtIn: '内置',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  actions: { assignUser: '分配用户' },
  seeded: { admin: '全部资源', operator: '只读演示角色' },
  assign: {
    title: '拥有角色 {{roleName}} 的用户',
    available: '其他用户',
    assigned: '拥有此角色的用户',
  },
};

export const notice: LocaleMessages['notice'] = {
  fields: {
    noticeType: '类型',
    noticeTitle: '标题',
    noticeContent: '内容',
    sendUsername: '发送人',
    recUsername: '接收人',
    recUsernameList: '接收人',
    noticeFlag: '状态',
    sendTime: '发送时间',
    readTime: '阅读时间',
    sendEmail: '同时发送邮件',
    total: '接收人数',
    readCount: '已读人数',
  },
  types: { 0: '系统通知', 1: '告警', 2: '事件' },
  flags: { 0: '未读', 1: '已读' },
  tabs: { mine: '我的通知', sent: '已发送' },
  send: {
    open: '发送通知',
    title: '发送通知',
    template: '模板',
    submit: '发送',
    sent: '通知已发送',
    emailFailures: '通知已发送，但以下邮件未能送达：',
    toSent: '已发送的通知',
  },
};

export const settings: LocaleMessages['settings'] = {
  smtp: {
    title: '邮件服务器（SMTP）',
    fields: {
      host: '服务器',
      port: '端口',
      sender: '发件人地址',
      username: '用户名',
      password: '密码',
      secure: '全程 TLS（端口 465）',
    },
    passwordKept: '已保存密码；留空则保持不变',
    test: '发送测试邮件',
    testTo: '收件人（留空则发给自己）',
    testSent: '测试邮件已发送至 {{to}}',
    testFailed: '测试邮件未发送：{{reason}}',
  },
  subscribe: {
    title: '我的订阅',
    fields: {
      subMeterEventFlag: '电表事件',
      subEmailFlag: '邮件通知',
      subMsgFlag: '消息通知',
      subSpecialUserEventFlag: '特殊用户事件',
      subExceptionFlag: '异常',
    },
  },
  dataItems: {
    title: '数据项',
    itemName: '数据项',
    obis: 'OBIS',
    unit: '单位',
    enabled: '启用',
    orderNum: '排序',
  },
  tariff: {
    title: '费率参数限制',
    fields: {
      tariffValidCount: '费率数',
      tariffDays: '日时段表数',
      tariffWeeks: '周表数',
      tariffSeasons: '季节数',
      tariffSpecialDays: '特殊日数',
    },
  },
  timeout: {
    title: '命令超时',
    fields: { timeout: '超时时间（秒）' },
  },
  logRetention: {
    title: '系统日志保留',
    fields: { days: '保留天数' },
  },
  readingsRetention: {
    title: '抄读数据保留期',
    fields: { months: '数据保留月数' },
  },
};

export const syslog: LocaleMessages['syslog'] = {
  fields: {
    time: '时间',
    logType: '日志类型',
    actorKind: '执行者',
    username: '用户',
    operatingType: '操作类型',
    logLevel: '级别',
    content: '内容',
    result: '结果',
    ip: 'IP 地址',
    ua: '用户代理',
    os: '操作系统',
    browser: '浏览器',
    requestUrl: '请求',
  },
  logTypes: { visit: '访问', login: '登录', operation: '操作' },
  actorKinds: { user: '用户', job: '任务', device: '设备' },
  operatingTypes: {
    login: '登录',
    logout: '退出',
    add: '新增',
    update: '修改',
    delete: '删除',
    visit: '访问',
    other: '其他',
  },
  logLevels: { info: '信息', warn: '警告', error: '错误' },
  timeRange: '时间范围',
  exportName: '系统日志',
  loginSucceeded: '登录成功',
  sessionOperations: {
    logout: '退出登录',
    changePassword: '修改密码',
    changeLanguage: '切换语言',
    subscription: '通知订阅',
  },
};
