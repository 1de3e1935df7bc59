import {
  BILLING_REPORT_RES,
  billingRuleEntity,
  CLOCK_MONITORING_RES,
  COLLECTION_REPORT_RES,
  CONSUMPTION_RES,
  CUMULATIVE_ENERGY_RES,
  consumerEntity,
  dcuEntity,
  ENERGY_GAIN_RES,
  eventDefinitionEntity,
  FIRMWARE_RES,
  firmwareEntity,
  flattenResourceTree,
  GIS_RES,
  gridEntity,
  groupEntity,
  LOAD_PROFILE_RES,
  METER_EVENTS_RES,
  METER_RES,
  MONTHLY_BILLING_RES,
  MONTHLY_CONSUMPTION_RES,
  meterEntity,
  meterTypeEntity,
  moduleEntity,
  NETWORK_RES,
  OBIS_RES,
  obisEntity,
  orgEntity,
  PLAN_RES,
  POC_RES,
  PREPAID_RES,
  paramTemplateEntity,
  pocEntity,
  REPORT_KINDS,
  RES,
  RESOURCE_TREE,
  RUN_RES,
  resourceEntity,
  roleEntity,
  supplierEntity,
  systemLogEntity,
  TARIFF_RES,
  TASK_ANALYSIS_RES,
  taskEntity,
  templateEntity,
  userEntity,
} from '@meterdesk/contracts';
import { type LazyPage, lazyPage } from '@/app/routing/lazy-page';
import type { CrudPages } from '@/crud/crud-pages';

const SPEC_URIS: ReadonlySet<string> = new Set(flattenResourceTree(RESOURCE_TREE).map(({ seed }) => seed.uri));

/**
 * The list page of an entity and those of its add/edit/detail pages the resource tree declares
 * (`pages`: where they are when not add, edit and detail; edit may be add's page).
 */
function crudRoutes(
  pagePath: string,
  load: () => Promise<CrudPages>,
  pages = { add: `${pagePath}/add`, edit: `${pagePath}/edit`, detail: `${pagePath}/detail` },
): [string, LazyPage][] {
  const list = lazyPage(() => load().then((pages) => pages.list));
  const form = lazyPage(() => load().then((pages) => pages.form));
  const detail = lazyPage(() => load().then((pages) => pages.detail));
  const routes: [string, LazyPage][] = [
    [pagePath, list],
    [pages.add, form],
    [pages.edit, form],
    [pages.detail, detail],
  ];
  return routes.filter(([uri]) => SPEC_URIS.has(uri));
}

/** Page uri → its screen. A permitted uri missing here shows the "later release" placeholder. */
export const PAGE_REGISTRY: ReadonlyMap<string, LazyPage> = new Map([
  [RES.dashboard, lazyPage(() => import('@/pages/dashboard/dashboard.page').then((m) => m.DashboardPage))],
  [CONSUMPTION_RES.page, lazyPage(() => import('@/pages/analytics/consumption.page').then((m) => m.ConsumptionPage))],
  [
    CONSUMPTION_RES.detail,
    lazyPage(() => import('@/pages/analytics/consumption.page').then((m) => m.ConsumptionDetailPage)),
  ],
  [METER_EVENTS_RES.page, lazyPage(() => import('@/pages/analytics/meter-events.page').then((m) => m.MeterEventsPage))],
  [
    METER_EVENTS_RES.detail,
    lazyPage(() => import('@/pages/analytics/meter-events.page').then((m) => m.MeterEventsDetailPage)),
  ],
  ...(
    [
      [NETWORK_RES.monitor, 'NetworkMonitorPage'],
      [NETWORK_RES.history, 'NetworkHistoryPage'],
      [NETWORK_RES.concentrators, 'ConcentratorMonitoringPage'],
      [NETWORK_RES.onlineReport, 'DeviceOnlineReportPage'],
      [NETWORK_RES.onlineDetail, 'DeviceOnlineDetailPage'],
    ] as const
  ).map(
    ([uri, name]) =>
      [uri, lazyPage(() => import('@/pages/analytics/network.page').then((m) => m[name]))] as [string, LazyPage],
  ),
  [
    CUMULATIVE_ENERGY_RES.page,
    lazyPage(() => import('@/pages/analytics/energy.page').then((m) => m.CumulativeEnergyPage)),
  ],
  [
    CUMULATIVE_ENERGY_RES.detail,
    lazyPage(() => import('@/pages/analytics/energy.page').then((m) => m.CumulativeEnergyDetailPage)),
  ],
  [ENERGY_GAIN_RES.page, lazyPage(() => import('@/pages/analytics/energy.page').then((m) => m.EnergyGainPage))],
  [
    CLOCK_MONITORING_RES.page,
    lazyPage(() => import('@/pages/analytics/clock-monitoring.page').then((m) => m.ClockMonitoringPage)),
  ],
  ...(
    [
      [MONTHLY_CONSUMPTION_RES.page, 'MonthlyConsumptionPage'],
      [MONTHLY_CONSUMPTION_RES.detail, 'MonthlyConsumptionDetailPage'],
      [MONTHLY_BILLING_RES.page, 'MonthlyBillingPage'],
      [MONTHLY_BILLING_RES.detail, 'MonthlyBillingDetailPage'],
    ] as const
  ).map(
    ([uri, name]) =>
      [uri, lazyPage(() => import('@/pages/analytics/monthly.page').then((m) => m[name]))] as [string, LazyPage],
  ),
  [LOAD_PROFILE_RES.page, lazyPage(() => import('@/pages/analytics/load-profile.page').then((m) => m.LoadProfilePage))],
  [
    LOAD_PROFILE_RES.detail,
    lazyPage(() => import('@/pages/analytics/load-profile.page').then((m) => m.LoadProfileDetailPage)),
  ],
  ...crudRoutes(orgEntity.pagePath, () => import('./system/org.resource').then((m) => m.orgPages)),
  ...crudRoutes(userEntity.pagePath, () => import('./system/user.resource').then((m) => m.userPages)),
  ...crudRoutes(groupEntity.pagePath, () => import('./system/group.resource').then((m) => m.groupPages)),
  ...crudRoutes(roleEntity.pagePath, () => import('./system/role.resource').then((m) => m.rolePages)),
  [
    RES.roleAssignUser,
    lazyPage(() => import('@/pages/system/role-assign-user.page').then((m) => m.RoleAssignUserPage)),
  ],
  ...crudRoutes(resourceEntity.pagePath, () => import('./system/resource.resource').then((m) => m.resourcePages)),
  [RES.notifyMGT, lazyPage(() => import('@/pages/system/notices.page').then((m) => m.NoticesPage))],
  [
    RES.noticeAnnouncement,
    lazyPage(() => import('@/pages/system/notice-announcement.page').then((m) => m.NoticeAnnouncementPage)),
  ],
  [PREPAID_RES.page, lazyPage(() => import('@/pages/payment/prepaid.page').then((m) => m.PrepaidPage))],
  [RES.systemSettings, lazyPage(() => import('@/pages/system/system-settings.page').then((m) => m.SystemSettingsPage))],
  ...crudRoutes(systemLogEntity.pagePath, () => import('./system/syslog.resource').then((m) => m.syslogPages)),
  ...crudRoutes(supplierEntity.pagePath, () => import('./archive/supplier.resource').then((m) => m.supplierPages)),
  ...crudRoutes(billingRuleEntity.pagePath, () =>
    import('./payment/billing-rule.resource').then((m) => m.billingRulePages),
  ),
  ...crudRoutes(gridEntity.pagePath, () => import('./archive/grid.resource').then((m) => m.gridPages)),
  ...crudRoutes(consumerEntity.pagePath, () => import('./archive/consumer.resource').then((m) => m.consumerPages)),
  ...crudRoutes(moduleEntity.pagePath, () => import('./archive/module.resource').then((m) => m.modulePages)),
  ...crudRoutes(meterTypeEntity.pagePath, () => import('./archive/meter-type.resource').then((m) => m.meterTypePages)),
  ...crudRoutes(meterEntity.pagePath, () => import('./archive/meter.resource').then((m) => m.meterPages)),
  [METER_RES.maintain, lazyPage(() => import('@/pages/archive/meter-maintain.page').then((m) => m.MeterMaintainPage))],
  ...crudRoutes(dcuEntity.pagePath, () => import('./archive/dcu.resource').then((m) => m.dcuPages)),
  ...crudRoutes(pocEntity.pagePath, () => import('./archive/poc.resource').then((m) => m.pocPages)),
  [POC_RES.replace, lazyPage(() => import('./archive/poc-replace.page').then((m) => m.PocReplacePage))],
  [GIS_RES, lazyPage(() => import('@/pages/archive/gis/gis.page').then((m) => m.GisPage))],
  ...crudRoutes(obisEntity.pagePath, () => import('./parameter/obis.resource').then((m) => m.obisPages), OBIS_RES),
  [OBIS_RES.list, lazyPage(() => import('./parameter/obis.resource').then((m) => m.obisPages.list))],
  ...crudRoutes(eventDefinitionEntity.pagePath, () =>
    import('./parameter/event-definition.resource').then((m) => m.eventDefinitionPages),
  ),
  [TARIFF_RES.page, lazyPage(() => import('./parameter/tariff.resource').then((m) => m.tariffPages.list))],
  ...[TARIFF_RES.add, TARIFF_RES.edit].map(
    (uri) =>
      [uri, lazyPage(() => import('@/pages/parameter/tariff/tariff-form.page').then((m) => m.TariffFormPage))] as [
        string,
        LazyPage,
      ],
  ),
  [
    TARIFF_RES.associated,
    lazyPage(() => import('@/pages/parameter/tariff/tariff-associated.page').then((m) => m.TariffAssociatedPage)),
  ],
  [
    TARIFF_RES.configuration,
    lazyPage(() => import('@/pages/parameter/tariff/tariff-configuration.page').then((m) => m.TariffConfigurationPage)),
  ],
  ...crudRoutes(paramTemplateEntity.pagePath, () =>
    import('./parameter/param-template.resource').then((m) => m.paramTemplatePages),
  ),
  ...crudRoutes(firmwareEntity.pagePath, () => import('./parameter/firmware.resource').then((m) => m.firmwarePages)),
  [
    FIRMWARE_RES.associated,
    lazyPage(() => import('@/pages/firmware/associated.page').then((m) => m.FirmwareAssociatedPage)),
  ],
  [RUN_RES.detail, lazyPage(() => import('@/pages/collection/task-runs.page').then((m) => m.TaskRunsPage))],
  [PLAN_RES.batch, lazyPage(() => import('@/pages/operations/batch-operation.page').then((m) => m.BatchOperationPage))],
  ...crudRoutes(templateEntity.pagePath, () =>
    import('@/pages/collection/template.resource').then((m) => m.templatePages),
  ),
  [taskEntity.pagePath, lazyPage(() => import('@/pages/collection/task.resource').then((m) => m.TaskListPage))],
  [PLAN_RES.taskView, lazyPage(() => import('@/pages/collection/task.resource').then((m) => m.TaskViewPage))],
  [PLAN_RES.taskAdd, lazyPage(() => import('@/pages/collection/task-form.page').then((m) => m.TaskFormPage))],
  [PLAN_RES.taskEdit, lazyPage(() => import('@/pages/collection/task-form.page').then((m) => m.TaskFormPage))],
  [
    TASK_ANALYSIS_RES.list,
    lazyPage(() => import('@/pages/collection/task-analysis.resource').then((m) => m.TaskAnalysisListPage)),
  ],
  [
    TASK_ANALYSIS_RES.detail,
    lazyPage(() => import('@/pages/collection/task-analysis-detail.page').then((m) => m.TaskAnalysisDetailPage)),
  ],
  [
    PLAN_RES.dcuOperating,
    lazyPage(() => import('@/pages/operations/dcu-operating.page').then((m) => m.DcuOperatingPage)),
  ],
  ...REPORT_KINDS.map(
    (kind) =>
      [
        BILLING_REPORT_RES[kind].page,
        lazyPage(() => import('@/pages/payment/billing-report.page').then((m) => m.billingReportPages[kind])),
      ] as [string, LazyPage],
  ),
  [
    COLLECTION_REPORT_RES.page,
    lazyPage(() => import('@/pages/report/collection-report.page').then((m) => m.CollectionReportPage)),
  ],
]);

export const LaterReleasePage = lazyPage(() =>
  import('@/pages/later-release/later-release.page').then((m) => m.LaterReleasePage),
);

export function pageFor(uri: string): LazyPage {
  return PAGE_REGISTRY.get(uri) ?? LaterReleasePage;
}
