import type { LocaleMessages } from '../en';

export const eventDefinition: LocaleMessages['eventDefinition'] = {
  fields: {
    code: '事件编码',
    name: '事件名称',
    description: '描述',
    level: '级别',
    parentId: '上级事件',
    parentCode: '上级事件编码',
    parentName: '上级事件',
    analyticalWay: '分析方式',
    cumulativeNumber: '累计次数',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  levels: { regular: '一般', medium: '中等', severe: '严重' },
  help: { parentId: '本事件归入的另一事件；顶级事件留空' },
  exportName: '事件定义',
};
