import { flattenResourceTree, RESOURCE_TREE, resourceApi } from '@meterdesk/contracts';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { LaterReleasePage, PAGE_REGISTRY, pageFor } from '@/resources/registry';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const emptyPage = { list: [], total: 0, curPage: 1, pageSize: 10 };

describe('shell routes', () => {
  it('opens a page an administrator added to the resource tree, which no screen builds, as an empty state', async () => {
    const tree = permittedTree(['/dashboard', '/paymentMGT/prepaid']);
    const payment = tree.find((node) => node.resourceUri === '/paymentMGT');
    const prepaid = payment?.children[0];
    if (!payment || !prepaid) throw new Error('no payment area');
    payment.children.push({ ...prepaid, id: 'f'.repeat(32), resourceUri: '/paymentMGT/cashDesk', children: [] });
    renderInShell(tree, '/paymentMGT/cashDesk');

    const placeholder = await screen.findByTestId('later-release');
    expect(placeholder.textContent).toContain('This area arrives in a later release of Meterdesk.');
  });

  it('redirects / to the dashboard and an area to its first permitted page', async () => {
    stubApi({ [resourceApi.getsysresourcelist.path]: () => ok(emptyPage) });
    const { router } = renderInShell(permittedTree(['/dashboard', '/sysMGT/resourceMGT']), '/');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));

    await router.navigate('/sysMGT');

    await waitFor(() => expect(router.state.location.pathname).toBe('/sysMGT/resourceMGT'));
    expect(await screen.findByTestId('resource-list')).toBeTruthy();
  });

  it('shows the forbidden page, in place, for a product screen the user lacks', async () => {
    const { router } = renderInShell(permittedTree(['/dashboard']), '/sysMGT/userMGT');

    expect(await screen.findByTestId('page-forbidden')).toBeTruthy();
    expect(screen.getByText('You do not have permission to do this')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/sysMGT/userMGT');
  });

  it('sends an unknown path to /404', async () => {
    const { router } = renderInShell(permittedTree(['/dashboard']), '/no/such/page');

    expect(await screen.findByTestId('page-not-found')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/404');
  });

  it('shows the version page to every user', async () => {
    renderInShell(permittedTree(['/dashboard']), '/version');

    expect((await screen.findByTestId('app-version')).textContent).toBe('V2.3.28');
    expect(screen.getByTestId('app-id').textContent).toBe('P003');
  });
});

describe('page registry', () => {
  it('gives every built screen its own page and every other spec page the placeholder', () => {
    const pages = flattenResourceTree(RESOURCE_TREE).filter(({ seed }) => seed.type !== 3);
    const builtAreas = [
      '/dashboard',
      '/sysMGT/',
      '/parameterSetting/supplier',
      '/archiveSetting/consumer',
      '/archiveSetting/module',
      '/archiveSetting/powerGrid',
      '/parameterSetting/meterType',
      '/archiveSetting/meter',
      '/archiveSetting/DCU',
      '/archiveSetting/poc',
      '/archiveSetting/gis',
      '/serviceRequest/batchOperation',
      '/parameterSetting/dcuOperating',
      '/parameterSetting/obisManagement',
      '/parameterSetting/eventDefinition',
      '/parameterSetting/tariffManagement',
      '/serviceRequest/tariffConfiguration',
      '/parameterSetting/paramTemplateSetting',
      '/parameterSetting/meterUpgrade',
      '/serviceRequest/scheduledTask/templateMGT',
      '/serviceRequest/scheduledTask/taskMGT',
      '/dataAnalytic/',
      '/report/dataCollectionReport',
      '/paymentMGT/billingRules',
      '/paymentMGT/prepaid',
      '/paymentMGT/generalReport',
      '/paymentMGT/shoppingMallReport',
      '/paymentMGT/shoppingCenterReport',
      '/paymentMGT/shoppingEquipmentReport',
    ];
    const built = pages.filter(({ seed }) => builtAreas.some((area) => seed.uri.startsWith(area)));
    expect(built.length).toBeGreaterThan(15);
    for (const { seed } of built) {
      expect(PAGE_REGISTRY.has(seed.uri), seed.uri).toBe(true);
      expect(pageFor(seed.uri), seed.uri).not.toBe(LaterReleasePage);
    }
    for (const { seed } of pages.filter((page) => !built.includes(page))) {
      expect(pageFor(seed.uri), seed.uri).toBe(LaterReleasePage);
    }
  });

  it('registers screens only for paths of the resource tree', () => {
    const known = new Set(flattenResourceTree(RESOURCE_TREE).map(({ seed }) => seed.uri));
    for (const uri of PAGE_REGISTRY.keys()) expect(known.has(uri), uri).toBe(true);
    expect([...PAGE_REGISTRY.keys()]).toEqual(
      expect.arrayContaining([
        '/dashboard',
        '/sysMGT/resourceMGT',
        '/sysMGT/resourceMGT/add',
        '/sysMGT/resourceMGT/edit',
      ]),
    );
  });
});
