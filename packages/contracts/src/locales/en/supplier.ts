export const supplier = {
  fields: {
    supplierCode: 'Supplier code',
    supplierName: 'Supplier name',
    contact: 'Contact person',
    phone: 'Phone',
    address: 'Address',
    remark: 'Remark',
    createTime: 'Created',
    updateTime: 'Updated',
  },
  exportName: 'Suppliers',
};
