import { Breadcrumb } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { usePermissions } from '@/app/permissions/permission-context';
import { ancestry, nodeName } from '@/app/permissions/permission-index';
import { SHELL_PATHS } from '@/app/routing/paths';
import { normalizePath } from '@/app/routing/route-table';
import { useLanguage } from '@/i18n/use-language';

export function PageBreadcrumb() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const permissions = usePermissions();
  const language = useLanguage();
  const path = normalizePath(pathname);
  const chain = ancestry(permissions, path);

  const items =
    path === SHELL_PATHS.version
      ? [{ key: path, title: t('shell.version') }]
      : chain.map((node, position) => ({
          key: node.resourceUri,
          title:
            position < chain.length - 1 ? (
              <Link to={node.resourceUri}>{nodeName(node, language)}</Link>
            ) : (
              nodeName(node, language)
            ),
        }));

  return <Breadcrumb items={items} style={{ margin: '8px 0' }} data-testid="breadcrumb" />;
}
