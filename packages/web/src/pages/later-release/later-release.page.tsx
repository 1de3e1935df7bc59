import { LaterReleaseNotice } from './later-release-notice';

export function LaterReleasePage() {
  return <LaterReleaseNotice />;
}
