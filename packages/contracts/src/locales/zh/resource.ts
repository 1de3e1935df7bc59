import type { LocaleMessages } from '../en';

export const resource: LocaleMessages['resource'] = {
  fields: {
    resourceName: '名称（中文）',
    resourceNameEn: '名称（英文）',
    resourceType: '类型',
    resourceUri: '路径',
    perms: '权限标识',
    icon: '图标',
    parentId: '上级',
    parentName: '上级',
    parentNameEn: '上级（英文）',
    orderNum: '排序',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  types: { 0: '主菜单', 1: '子菜单', 2: '隐藏菜单', 3: '按钮' },
  help: { resourceUri: '路由路径，例如 /sysMGT/resourceMGT；以上级路径开头' },
};
