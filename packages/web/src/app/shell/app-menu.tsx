import { DownOutlined } from '@ant-design/icons';
import type { ResourceNode } from '@meterdesk/contracts';
import { Menu, type MenuProps } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
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

/**
 * The areas go without their icons: the eight English names fill the header's row at 1280 px by
 * themselves. Their pages, one below the other, keep theirs.
 */
function menuItems(nodes: readonly ResourceNode[], language: Language, depth = 0): MenuItem[] {
  return nodes.filter(isMenuNode).map((node) => {
    const children = node.children.filter(isMenuNode);
    const item = {
      key: node.resourceUri,
      icon: node.icon && depth > 0 ? <ResourceIcon name={node.icon} /> : undefined,
      label: <span data-testid={`menu-${node.resourceUri}`}>{nodeName(node, language)}</span>,
    };
    return children.length ? { ...item, children: menuItems(children, language, depth + 1) } : item;
  });
}

export function AppMenu({ height }: { height: number }) {
  const { t } = useTranslation();
  const permissions = usePermissions();
  const language = useLanguage();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const items = useMemo(() => menuItems(permissions.tree, language), [permissions, language]);
  const selected = ancestry(permissions, normalizePath(pathname)).map((node) => node.resourceUri);

  return (
    <Menu
      mode="horizontal"
      items={items}
      selectedKeys={selected}
      onClick={({ key }) => navigate(key)}
      // The menu takes the room between logo and user menu and never more: areas that do not fit fold
      // into "More" (below 1280 px, or beside a long user name) instead of wrapping onto a second row
      // that the header's height would cut off.
      overflowedIndicator={
        <span data-testid="menu-more">
          {t('shell.moreAreas')} <DownOutlined />
        </span>
      }
      style={{ flex: 1, minWidth: 0, lineHeight: `${height}px`, borderBottom: 'none' }}
      data-testid="header-menu"
    />
  );
}
