import { LaterReleaseNotice } from '@/pages/later-release/later-release-notice';

/** The dashboard's cards (alarms, archive summary, energy, KPIs) arrive with their own issue. */
export function DashboardPage() {
  return <LaterReleaseNotice />;
}
