export const resource = {
  fields: {
    resourceName: 'Name (Chinese)',
    resourceNameEn: 'Name (English)',
    resourceType: 'Type',
    resourceUri: 'Path',
    perms: 'Permission code',
    icon: 'Icon',
    parentId: 'Parent',
    parentName: 'Parent',
    parentNameEn: 'Parent (English)',
    orderNum: 'Order',
    createTime: 'Created',
    updateTime: 'Updated',
  },
  types: { 0: 'Main menu', 1: 'Submenu', 2: 'Hidden menu', 3: 'Button' },
  help: { resourceUri: 'The route path, e.g. /sysMGT/resourceMGT; it starts with its parent path' },
};
