import { firmwareApi, MAX_FIRMWARE_BYTES } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import type { HeadEnd } from '../../headend/head-end';
import { registerOperation, registerUpload } from '../../http/operation';
import type { JobSystem } from '../../jobs/job-system';
import { ArchiveService, registerArchiveRoutes } from '../archive/archive-kit';
import type { SettingsService } from '../system/settings.service';
import { campaignJob } from './campaign.jobs';
import { CampaignService } from './campaign.service';
import { CampaignDriver } from './campaign-driver';
import { firmwareArchive } from './firmware.archive';
import { imagePurgeJob, storeImage } from './firmware-images';

/** The meter upgrade page's services, built once by the composition root, and its campaign job. */
export function createFirmware(db: Db, headEnd: HeadEnd, jobs: JobSystem, settings: SettingsService) {
  const driver = new CampaignDriver(db, headEnd, settings);
  return {
    db,
    firmware: new ArchiveService(db, firmwareArchive),
    campaigns: new CampaignService(db, headEnd, jobs),
    driver,
    jobs: [campaignJob(driver, headEnd), imagePurgeJob(db)],
  };
}

export type FirmwareServices = ReturnType<typeof createFirmware>;

export function registerFirmware(app: FastifyInstance, services: FirmwareServices): void {
  registerArchiveRoutes(app, services.firmware);
  registerUpload(
    app,
    firmwareApi.upload,
    MAX_FIRMWARE_BYTES,
    ({ file, fileName, session }) => storeImage(services.db, file, fileName, session.username),
    { tooLarge: 'firmwareFileTooLarge', empty: 'firmwareFileEmpty' },
  );
  const { campaigns } = services;
  registerOperation(app, firmwareApi.start, ({ body, session }) => campaigns.start(body, session));
  registerOperation(app, firmwareApi.resume, ({ body, session }) => campaigns.resume(body.campaignId, session));
  registerOperation(app, firmwareApi.add, ({ body, session }) => campaigns.add(body, session));
  registerOperation(app, firmwareApi.campaigns, ({ body, session }) => campaigns.list(body, session));
  registerOperation(app, firmwareApi.campaign, ({ body, session }) => campaigns.detail(body.campaignId, session));
  registerOperation(app, firmwareApi.associated, ({ body, session }) => campaigns.associated(body, session));
}
