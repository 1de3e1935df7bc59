import type { LocaleMessages } from '../en';

export const crud: LocaleMessages['crud'] = {
  total: '共 {{total}} 条',
  empty: '暂无数据',
  columnsActions: '操作',
  detailTitle: '详情',
  addTitle: '新增',
  editTitle: '编辑',
  saved: '保存成功',
  root: '顶级',
  select: '请选择',
  unsavedTitle: '离开此页面？',
  unsavedContent: '您的修改尚未保存。',
  leave: '离开',
  stay: '留下',
  confirmDelete: '确定删除这条记录？',
  deleted: '已删除',
  export: '导出 Excel',
  rangePresets: {
    yesterday: '昨天',
    today: '今天',
    last3Days: '最近 3 天',
    last7Days: '最近 7 天',
    lastWeek: '上周',
    lastMonth: '上月',
    thisMonth: '本月',
  },
};
