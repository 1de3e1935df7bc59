import type { LocaleMessages } from '../en';

export const common: LocaleMessages['common'] = {
  appName: 'Meterdesk',
  languages: { en: 'English', zh: '中文' },
  language: '语言',
  actions: {
    search: '查询',
    reset: '重置',
    add: '新增',
    edit: '编辑',
    view: '查看',
    save: '保存',
    cancel: '取消',
    back: '返回',
    retry: '重试',
    delete: '删除',
    close: '关闭',
  },
  yes: '是',
  no: '否',
};

export const login: LocaleMessages['login'] = {
  subtitle: '计量业务后台',
  username: '用户名',
  password: '密码',
  captcha: '验证码',
  captchaImage: '验证码图片，点击更换',
  captchaLength: '{{count}} 个字符',
  submit: '登录',
};

export const shell: LocaleMessages['shell'] = {
  home: '首页',
  notices: '未读通知',
  userMenu: '用户菜单',
  changePassword: '修改密码',
  version: '版本',
  logout: '退出登录',
  closeAll: '关闭全部',
  closeOthers: '关闭其他',
  moreAreas: '更多',
  permissionLoadFailed: '无法加载权限，请重新登录',
  sessionLost: '已退出登录',
  stay: '留在此页',
  loginAgain: '重新登录',
};

export const password: LocaleMessages['password'] = {
  title: '修改密码',
  rawPassword: '原密码',
  newPassword: '新密码',
  confirmPassword: '确认新密码',
  changed: '密码已修改，请重新登录',
  mustChange: '继续之前请先修改密码',
};

export const pages: LocaleMessages['pages'] = {
  later: {
    title: '后续版本提供',
    description: '该功能将在 Meterdesk 的后续版本中提供。',
  },
  notFound: { title: '页面不存在', description: '您打开的页面不存在。' },
  forbidden: { title: '无权访问' },
  noPermission: { title: '没有权限' },
  backHome: '返回首页',
  loadFailed: '页面加载失败，请重新加载',
  reload: '重新加载',
  version: { title: '关于 Meterdesk', version: '版本', appId: '应用编号' },
};
