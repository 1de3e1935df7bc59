import { readFileSync } from 'node:fs';
import path from 'node:path';
import { flattenResourceTree, RES, RESOURCE_TREE } from '@meterdesk/contracts';
import { describe, expect, it } from 'vitest';
import { LaterReleasePage, pageFor } from './registry';

describe('the page registry', () => {
  it('has a screen for every data analytics page and the dashboard, no "later release" placeholder', () => {
    const analytics = flattenResourceTree(RESOURCE_TREE)
      .map(({ seed }) => seed)
      .filter((seed) => (seed.type === 1 || seed.type === 2) && seed.uri.startsWith('/dataAnalytic/'));
    expect(analytics.length).toBe(21);
    expect(analytics.filter((seed) => pageFor(seed.uri) === LaterReleasePage).map((seed) => seed.uri)).toEqual([]);
    expect(pageFor(RES.dashboard)).not.toBe(LaterReleasePage);
    const dashboard = readFileSync(path.join(import.meta.dirname, '../pages/dashboard/dashboard.page.tsx'), 'utf8');
    expect(dashboard).not.toContain('later-release');
  });
});
