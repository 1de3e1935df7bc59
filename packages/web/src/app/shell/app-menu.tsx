import type { ResourceNode } from '@meterdesk/contracts';
import { Menu, type MenuProps } from 'antd';
import { useMemo } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { usePermissions } from '@/app/permissions/permission-context';
import { ancestry, nodeName, RESOURCE_TYPE } from '@/app/permissions/permission-index';
import { normalizePath } from '@/app/routing/route-table';
import { ResourceIcon } from '@/fields/icon-registry';
import type { Language } from '@/i18n/i18n';
import { useLanguage } from '@/i18n/use-language';

type MenuItem = Required<MenuProps>['items'][number];

/** Areas and pages make the menu; hidden pages (type 2) and buttons (type 3) do not. */
const isMenuNode = (node: ResourceNode) =>
  node.resourceType === RESOURCE_TYPE.area || node.resourceType === RESOURCE_TYPE.page;

function menuItems(nodes: readonly ResourceNode[], language: Language): MenuItem[] {
  return nodes.filter(isMenuNode).map((node) => {
    const children = node.children.filter(isMenuNode);
    const item = {
      key: node.resourceUri,
      icon: node.icon ? <ResourceIcon name={node.icon} /> : undefined,
      label: <span data-testid={`menu-${node.resourceUri}`}>{nodeName(node, language)}</span>,
    };
    return children.length ? { ...item, children: menuItems(children, language) } : item;
  });
}

export function AppMenu() {
  const permissions = usePermissions();
  const language = useLanguage();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const items = useMemo(() => menuItems(permissions.tree, language), [permissions, language]);
  const selected = ancestry(permissions, normalizePath(pathname)).map((node) => node.resourceUri);

  return (
    <Menu
      mode="horizontal"
      // Every area stays in sight (issue 6: all eight fit at 1440 px in English with the tighter items
      // below); antd would otherwise fold the last ones into a "…" that hides them.
      disabledOverflow
      items={items}
      selectedKeys={selected}
      onClick={({ key }) => navigate(key)}
      style={{ flex: 1, minWidth: 0, borderBottom: 'none' }}
      data-testid="header-menu"
    />
  );
}
