import { firmwareApi, MAX_FIRMWARE_BYTES } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerUpload } from '../../http/operation';
import { ArchiveService, registerArchiveRoutes } from '../archive/archive-kit';
import { firmwareArchive } from './firmware.archive';
import { storeImage } from './firmware-images';

/** The meter upgrade page's services, built once by the composition root. */
export function createFirmware(db: Db) {
  return { db, firmware: new ArchiveService(db, firmwareArchive) };
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
}
