import { flattenResourceTree, RES, RESOURCE_TREE, resourceEntity } from '@meterdesk/contracts';
import { type LazyPage, lazyPage } from '@/app/routing/lazy-page';
import type { CrudPages } from '@/crud/crud-pages';

const SPEC_URIS: ReadonlySet<string> = new Set(flattenResourceTree(RESOURCE_TREE).map(({ seed }) => seed.uri));

/** The list page of an entity and those of its add/edit/detail pages the resource tree declares. */
function crudRoutes(pagePath: string, load: () => Promise<CrudPages>): [string, LazyPage][] {
  const list = lazyPage(() => load().then((pages) => pages.list));
  const form = lazyPage(() => load().then((pages) => pages.form));
  const detail = lazyPage(() => load().then((pages) => pages.detail));
  const routes: [string, LazyPage][] = [
    [pagePath, list],
    [`${pagePath}/add`, form],
    [`${pagePath}/edit`, form],
    [`${pagePath}/detail`, detail],
  ];
  return routes.filter(([uri]) => SPEC_URIS.has(uri));
}

/** Page uri → its screen. A permitted uri missing here shows the "later release" placeholder. */
export const PAGE_REGISTRY: ReadonlyMap<string, LazyPage> = new Map([
  [RES.dashboard, lazyPage(() => import('@/pages/dashboard/dashboard.page').then((m) => m.DashboardPage))],
  ...crudRoutes(resourceEntity.pagePath, () => import('./system/resource.resource').then((m) => m.resourcePages)),
]);

export const LaterReleasePage = lazyPage(() =>
  import('@/pages/later-release/later-release.page').then((m) => m.LaterReleasePage),
);

export function pageFor(uri: string): LazyPage {
  return PAGE_REGISTRY.get(uri) ?? LaterReleasePage;
}
