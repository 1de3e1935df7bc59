import type { ResourceNode } from '@meterdesk/contracts';
import type { Language } from '@/i18n/i18n';

export const RESOURCE_TYPE = { area: 0, page: 1, hidden: 2, button: 3 } as const;

/** The permitted tree, looked up by uri. Menus and routes use types 0-2; type 3 are buttons. */
export interface PermissionIndex {
  tree: readonly ResourceNode[];
  pages: ReadonlyMap<string, ResourceNode>;
  parents: ReadonlyMap<string, ResourceNode>;
  buttons: ReadonlySet<string>;
}

export function indexPermissions(tree: readonly ResourceNode[]): PermissionIndex {
  const pages = new Map<string, ResourceNode>();
  const parents = new Map<string, ResourceNode>();
  const buttons = new Set<string>();
  const walk = (nodes: readonly ResourceNode[], parent: ResourceNode | undefined) => {
    for (const node of nodes) {
      if (node.resourceType === RESOURCE_TYPE.button) {
        buttons.add(node.resourceUri);
        continue;
      }
      pages.set(node.resourceUri, node);
      if (parent) parents.set(node.resourceUri, parent);
      walk(node.children, node);
    }
  };
  walk(tree, undefined);
  return { tree, pages, parents, buttons };
}

export function nodeName(node: ResourceNode, language: Language): string {
  return (language === 'zh' ? node.resourceName : node.resourceNameEn) || node.resourceName || node.resourceNameEn;
}

/** The chain from the top area down to the page, for the breadcrumb. */
export function ancestry(index: PermissionIndex, uri: string): ResourceNode[] {
  const chain: ResourceNode[] = [];
  let node = index.pages.get(uri);
  while (node) {
    chain.unshift(node);
    node = index.parents.get(node.resourceUri);
  }
  return chain;
}

/** Hidden pages (add, edit…) read poorly alone on a tab, so they carry their page's name. */
export function pageTitle(index: PermissionIndex, uri: string, language: Language): string | undefined {
  const node = index.pages.get(uri);
  if (!node) return undefined;
  const parent = index.parents.get(uri);
  if (node.resourceType === RESOURCE_TYPE.hidden && parent) {
    return `${nodeName(parent, language)} - ${nodeName(node, language)}`;
  }
  return nodeName(node, language);
}

/** Whether the user holds a resource: a page (types 0-2) or a button (type 3). */
export function isGranted(index: PermissionIndex, uri: string): boolean {
  return index.pages.has(uri) || index.buttons.has(uri);
}
