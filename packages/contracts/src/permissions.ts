/**
 * The complete resource tree of spec §2: areas (type 0), pages (type 1), hidden pages (type 2)
 * and buttons (type 3). Seeded at every start-up (missing nodes are added, nothing is removed),
 * so a later issue adds a resource here and the `admin` role receives it.
 * A node's uri is its parent's uri plus its segment.
 */
export type ResourceType = 0 | 1 | 2 | 3;

export interface ResourceSeed {
  uri: string;
  zh: string;
  en: string;
  type: ResourceType;
  icon?: string;
  children: ResourceSeed[];
}

interface Draft {
  seg: string;
  zh: string;
  en: string;
  type: ResourceType;
  icon?: string;
  children: Draft[];
}

const node =
  (type: ResourceType) =>
  (seg: string, zh: string, en: string, ...children: Draft[]): Draft => ({ seg, zh, en, type, children });
const area = (seg: string, zh: string, en: string, icon: string, ...children: Draft[]): Draft => ({
  seg,
  zh,
  en,
  type: 0,
  icon,
  children,
});
const page = node(1);
const hidden = node(2);
const button = node(3);

const add = () => hidden('add', '新增', 'Add');
const edit = () => hidden('edit', '编辑', 'Edit');
const detail = () => hidden('detail', '详情', 'Detail');
/** An analytics page's detail: a page of the analytics kit, exported as its list is. */
const analyticsDetail = (seg = 'detail', zh = '详情', en = 'Detail') => hidden(seg, zh, en, exp());
const del = () => button('delete', '删除', 'Delete');
const exp = () => button('export', '导出', 'Export');
const imp = () => button('import', '导入', 'Import');
const archiveCrud = () => [add(), edit(), detail(), del(), imp(), exp()];

const TREE: Draft[] = [
  area('dashboard', '首页', 'Dashboard', 'DashboardOutlined'),
  area(
    'archiveSetting',
    '档案管理',
    'Archive',
    'DatabaseOutlined',
    page('powerGrid', '电网管理', 'Power Grid', add(), edit(), del(), imp(), exp()),
    page('consumer', '用户档案', 'Consumer', ...archiveCrud()),
    page('meter', '电表档案', 'Meter', ...archiveCrud(), hidden('maintain', '维护', 'Maintain')),
    page('module', '通信模块', 'Module', ...archiveCrud()),
    page('poc', '计量点', 'POC', ...archiveCrud(), hidden('replace', '换表', 'Replace')),
    page('DCU', '集中器', 'DCU', ...archiveCrud(), button('reveal', '查看密钥', 'Reveal keys')),
    page(
      'gis',
      'GIS 地图',
      'GIS',
      // The outage layer's list of dark meters.
      exp(),
      // Demo and test runs: black out an area of the simulated fleet (only while the simulator runs).
      button('simulateOutage', '模拟停电', 'Simulate outage'),
    ),
  ),
  area(
    'serviceRequest',
    '业务请求',
    'Service Request',
    'ThunderboltOutlined',
    page(
      'batchOperation',
      '批量操作',
      'Batch Operation',
      button('relayDisconnect', '主继电器断开', 'Main relay disconnect'),
      button('relayConnect', '主继电器闭合', 'Main relay connect'),
      button('externalRelayDisconnect', '外置继电器断开', 'External relay disconnect'),
      button('externalRelayConnect', '外置继电器闭合', 'External relay connect'),
      button('prepaymentOn', '开启预付费', 'Prepayment on'),
      button('prepaymentOff', '关闭预付费', 'Prepayment off'),
      button('clockSync', '时钟同步', 'Clock sync'),
      button('paramSync', '参数同步', 'Parameter sync'),
      button('applyParamTemplate', '应用参数模板', 'Apply parameter template'),
      button('read', '实时抄读', 'Real-time read'),
      button('approve', '审批断电', 'Approve disconnect'),
    ),
    page('tariffConfiguration', '费率配置', 'Tariff Configuration', button('issue', '下发', 'Issue')),
    page(
      'scheduledTask',
      '定时任务',
      'Scheduled Task',
      page('templateMGT', '模板管理', 'Template Management', add(), edit(), detail(), del(), exp()),
      page(
        'taskMGT',
        '任务管理',
        'Task Management',
        add(),
        edit(),
        hidden('view', '查看', 'View', hidden('detail', '详情', 'Detail')),
        del(),
        button('enable', '启用/停用', 'Enable/Disable'),
        button('pause', '暂停/恢复', 'Pause/Resume'),
        button('runNow', '立即执行', 'Run now'),
        button('gapCollect', '补抄', 'Gap re-collection'),
        exp(),
      ),
    ),
  ),
  area(
    'parameterSetting',
    '参数设置',
    'Parameter Setting',
    'SettingOutlined',
    page(
      'meterUpgrade',
      '电表升级',
      'Meter Upgrade',
      add(),
      edit(),
      detail(),
      hidden('associated', '关联设备', 'Associated'),
      del(),
      exp(),
      button('start', '开始升级', 'Start upgrade'),
    ),
    page('dcuOperating', '集中器操作', 'DCU Operating', button('execute', '执行', 'Execute')),
    page(
      'tariffManagement',
      '费率管理',
      'Tariff Management',
      hidden('Add', '新增', 'Add'),
      hidden('Edit', '编辑', 'Edit'),
      hidden('Associated', '关联', 'Associated'),
      del(),
      exp(),
    ),
    page('supplier', '供应商', 'Supplier', add(), edit(), detail(), del(), imp(), exp()),
    page('meterType', '表型', 'Meter Type', add(), edit(), detail(), del(), exp()),
    page(
      'obisManagement',
      'OBIS 管理',
      'OBIS Management',
      hidden('obis', 'OBIS 列表', 'OBIS'),
      hidden('addObis', '新增 OBIS', 'Add OBIS'),
      hidden('viewObis', '查看 OBIS', 'View OBIS'),
      del(),
      exp(),
    ),
    page('eventDefinition', '事件定义', 'Event Definition', button('save', '保存', 'Save'), del(), exp()),
    page(
      'paramTemplateSetting',
      '参数模板',
      'Parameter Template',
      detail(),
      button('save', '保存', 'Save'),
      del(),
      exp(),
    ),
  ),
  area(
    'dataAnalytic',
    '数据分析',
    'Data Analytics',
    'LineChartOutlined',
    page('networkMonitor', '网络监控', 'Network Monitor', exp()),
    page('networkHistoricalMonitor', '网络历史监控', 'Network Historical Monitor', exp()),
    page(
      'meterEvents',
      '电表事件',
      'Meter Events',
      analyticsDetail('meterEventsDetail', '事件详情', 'Event Detail'),
      button('acknowledge', '确认事件', 'Acknowledge events'),
      exp(),
    ),
    page('cumulativeEnergy', '累计电量', 'Cumulative Energy', analyticsDetail(), exp()),
    page('energyGain', '电量增量', 'Energy Gain', exp()),
    page('clockMonitoring', '时钟监测', 'Clock Monitoring', exp()),
    page('concentratorMonitoring', '集中器监测', 'Concentrator Monitoring', exp()),
    page('consumptionData', '用电数据', 'Consumption Data', analyticsDetail(), exp()),
    page('monthlyConsumption', '月用电量', 'Monthly Consumption', analyticsDetail(), exp()),
    page('monthlyBilling', '月结算数据', 'Monthly Billing', analyticsDetail(), exp()),
    page('loadProfile', '负荷曲线', 'Load Profile', analyticsDetail(), exp()),
    page('taskAnalysis', '任务分析', 'Task Analysis', detail(), exp()),
    page(
      'deviceOnlineReport',
      '设备在线报告',
      'Device Online Report',
      analyticsDetail('deviceOnlineDetail', '在线详情', 'Online Detail'),
      exp(),
    ),
  ),
  area(
    'report',
    '报表',
    'Report',
    'FileTextOutlined',
    page('dataCollectionReport', '数据采集报表', 'Data Collection Report', exp()),
  ),
  area(
    'paymentMGT',
    '缴费管理',
    'Payment',
    'WalletOutlined',
    page('billingRules', '计费规则', 'Billing Rules', add(), edit(), detail(), del(), exp()),
    page('prepaid', '预付费充值', 'Prepaid', button('recharge', '充值', 'Recharge')),
    page('generalReport', '综合报表', 'General Report', exp()),
    page('shoppingMallReport', '商场报表', 'Shopping Mall Report', exp()),
    page('shoppingCenterReport', '购物中心报表', 'Shopping Center Report', exp()),
    page('shoppingEquipmentReport', '商场设备报表', 'Shopping Equipment Report', exp()),
  ),
  area(
    'sysMGT',
    '系统管理',
    'System',
    'TeamOutlined',
    page('organizationMGT', '组织管理', 'Organisation', add(), edit(), detail(), del()),
    page(
      'userMGT',
      '用户管理',
      'User',
      add(),
      edit(),
      detail(),
      del(),
      button('unlock', '解锁', 'Unlock'),
      button('resetPassword', '重置密码', 'Reset password'),
    ),
    page('userGroupMGT', '用户组管理', 'User Group', add(), edit(), del()),
    page('roleMGT', '角色管理', 'Role', add(), hidden('assignUser', '分配用户', 'Assign users'), edit(), del()),
    page('resourceMGT', '资源管理', 'Resource', add(), edit(), del()),
    page(
      'notifyMGT',
      '通知管理',
      'Notices',
      hidden('announcement', '发布公告', 'Announcement'),
      button('subscribe', '订阅通知', 'Subscribe notices'),
      button('send', '发送通知', 'Send notices'),
    ),
    page('systemSettings', '系统设置', 'System Settings', button('save', '保存', 'Save')),
    page('sysJournal', '系统日志', 'System Log', exp()),
  ),
];

function build(drafts: Draft[], parentUri: string): ResourceSeed[] {
  return drafts.map((d) => {
    const uri = `${parentUri}/${d.seg}`;
    return { uri, zh: d.zh, en: d.en, type: d.type, icon: d.icon, children: build(d.children, uri) };
  });
}

export const RESOURCE_TREE: readonly ResourceSeed[] = build(TREE, '');

export function flattenResourceTree(
  tree: readonly ResourceSeed[] = RESOURCE_TREE,
): { seed: ResourceSeed; parentUri: string | null; order: number }[] {
  const out: { seed: ResourceSeed; parentUri: string | null; order: number }[] = [];
  const walk = (nodes: readonly ResourceSeed[], parentUri: string | null) => {
    nodes.forEach((seed, order) => {
      out.push({ seed, parentUri, order });
      walk(seed.children, seed.uri);
    });
  };
  walk(tree, null);
  return out;
}

/** Resource uris the code guards operations with; a typo here fails type checking, not at run time. */
export const RES = {
  dashboard: '/dashboard',
  resourceMGT: '/sysMGT/resourceMGT',
  resourceAdd: '/sysMGT/resourceMGT/add',
  resourceEdit: '/sysMGT/resourceMGT/edit',
  resourceDelete: '/sysMGT/resourceMGT/delete',
  organizationMGT: '/sysMGT/organizationMGT',
  orgAdd: '/sysMGT/organizationMGT/add',
  orgEdit: '/sysMGT/organizationMGT/edit',
  orgDetail: '/sysMGT/organizationMGT/detail',
  orgDelete: '/sysMGT/organizationMGT/delete',
  userMGT: '/sysMGT/userMGT',
  userAdd: '/sysMGT/userMGT/add',
  userEdit: '/sysMGT/userMGT/edit',
  userDetail: '/sysMGT/userMGT/detail',
  userDelete: '/sysMGT/userMGT/delete',
  userUnlock: '/sysMGT/userMGT/unlock',
  userResetPassword: '/sysMGT/userMGT/resetPassword',
  userGroupMGT: '/sysMGT/userGroupMGT',
  groupAdd: '/sysMGT/userGroupMGT/add',
  groupEdit: '/sysMGT/userGroupMGT/edit',
  groupDelete: '/sysMGT/userGroupMGT/delete',
  roleMGT: '/sysMGT/roleMGT',
  roleAdd: '/sysMGT/roleMGT/add',
  roleEdit: '/sysMGT/roleMGT/edit',
  roleAssignUser: '/sysMGT/roleMGT/assignUser',
  roleDelete: '/sysMGT/roleMGT/delete',
  notifyMGT: '/sysMGT/notifyMGT',
  noticeAnnouncement: '/sysMGT/notifyMGT/announcement',
  noticeSend: '/sysMGT/notifyMGT/send',
  systemSettings: '/sysMGT/systemSettings',
  settingsSave: '/sysMGT/systemSettings/save',
  sysJournal: '/sysMGT/sysJournal',
  sysJournalExport: '/sysMGT/sysJournal/export',
  noticeSubscribe: '/sysMGT/notifyMGT/subscribe',
  prepaid: '/paymentMGT/prepaid',
} as const;
