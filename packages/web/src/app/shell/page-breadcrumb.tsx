import { Breadcrumb } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { usePermissions } from '@/app/permissions/permission-context';
import { ancestry, nodeName, RESOURCE_TYPE } from '@/app/permissions/permission-index';
import { SHELL_PATHS } from '@/app/routing/paths';
import { normalizePath } from '@/app/routing/route-table';
import { useLanguage } from '@/i18n/use-language';

export function PageBreadcrumb() {
  const { t } = useTranslation();
  const { pathname, search } = useLocation();
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
              // A hidden page above this one (view above view/detail) shows the same record: it keeps the query naming it.
              <Link to={node.resourceType === RESOURCE_TYPE.hidden ? `${node.resourceUri}${search}` : node.resourceUri}>
                {nodeName(node, language)}
              </Link>
            ) : (
              nodeName(node, language)
            ),
        }));

  return <Breadcrumb items={items} style={{ margin: '8px 0' }} data-testid="breadcrumb" />;
}
