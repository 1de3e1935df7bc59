import { useSearchParams } from 'react-router';
import { FirmwareCampaigns } from './campaign-panel';

/** The campaigns under the firmware the detail page shows (`?id=`). */
export function CampaignPanelOf() {
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  return id ? <FirmwareCampaigns firmwareId={id} /> : null;
}
