import { flattenResourceTree, RES, RESOURCE_TREE, type ResourceNode } from '@meterdesk/contracts';
import { type PermissionIndex, RESOURCE_TYPE } from '@/app/permissions/permission-index';
import { SHELL_PATHS } from './paths';

export type RouteTarget = { kind: 'page'; uri: string } | { kind: 'redirect'; to: string };

export interface RouteTable {
  /** Keyed by path; holds only what the permitted tree allows. */
  routes: ReadonlyMap<string, RouteTarget>;
  /** Where `/` leads: the dashboard, or the first permitted page without it. */
  home: string;
}

function isPageNode(node: ResourceNode): boolean {
  return node.resourceType === RESOURCE_TYPE.page || node.resourceType === RESOURCE_TYPE.hidden;
}

/** spec §2: where an area leads when the user may open that page (e.g. /sysMGT → userMGT). */
const SPEC_LANDINGS: Readonly<Record<string, string>> = {
  '/sysMGT': '/sysMGT/userMGT',
  '/archiveSetting': '/archiveSetting/powerGrid',
  '/serviceRequest': '/serviceRequest/batchOperation',
  '/dataAnalytic': '/dataAnalytic/meterEvents',
  '/paymentMGT': '/paymentMGT/billingRules',
};

/**
 * An area opens the page spec §2 names for it, or else its first permitted page; an area without
 * pages (the dashboard) is a page itself.
 */
function landingOf(node: ResourceNode, index: PermissionIndex): string {
  if (node.resourceType !== RESOURCE_TYPE.area) return node.resourceUri;
  const named = SPEC_LANDINGS[node.resourceUri];
  if (named && index.pages.get(named)?.resourceType === RESOURCE_TYPE.page) return named;
  const child =
    node.children.find((c) => c.resourceType === RESOURCE_TYPE.page) ?? node.children.find((c) => isPageNode(c));
  return child ? landingOf(child, index) : node.resourceUri;
}

export function buildRouteTable(index: PermissionIndex): RouteTable {
  const routes = new Map<string, RouteTarget>();
  for (const [uri, node] of index.pages) {
    const landing = landingOf(node, index);
    routes.set(uri, landing === uri ? { kind: 'page', uri } : { kind: 'redirect', to: landing });
  }
  const first = index.tree.find((node) => node.resourceType !== RESOURCE_TYPE.button);
  const home = routes.has(RES.dashboard) ? RES.dashboard : first ? landingOf(first, index) : SHELL_PATHS.noPermission;
  routes.set(SHELL_PATHS.home, { kind: 'redirect', to: home });
  return { routes, home };
}

const SPEC_PATHS: ReadonlySet<string> = new Set(
  flattenResourceTree(RESOURCE_TREE)
    .filter(({ seed }) => seed.type !== RESOURCE_TYPE.button)
    .map(({ seed }) => seed.uri),
);

/** A path no route took: a screen of the product the user may not open (403), or nothing at all (404). */
export function classifyUnmatched(pathname: string, index: PermissionIndex): 'forbidden' | 'notFound' {
  const path = normalizePath(pathname);
  return SPEC_PATHS.has(path) && !index.pages.has(path) ? 'forbidden' : 'notFound';
}

export function normalizePath(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
}
