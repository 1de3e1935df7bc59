import type { LocaleMessages } from '../en';

export const supplier: LocaleMessages['supplier'] = {
  fields: {
    supplierCode: '供应商编码',
    supplierName: '供应商名称',
    contact: '联系人',
    phone: '电话',
    address: '地址',
    remark: '备注',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  exportName: '供应商',
};
