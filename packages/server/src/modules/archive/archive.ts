import { dcuApi, pocApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { SecretBox } from '../../crypto/secret-box';
import type { Db } from '../../db/driver';
import { registerOperation } from '../../http/operation';
import { ArchiveService, registerArchiveRoutes } from './archive-kit';
import { consumerArchive, consumerImport } from './consumer.archive';
import { DcuKeyReveal, dcuArchive, dcuImport } from './dcu.archive';
import { GridService, registerGridRoutes } from './grid.archive';
import type { ImportDefinition } from './import/import-kit';
import { meterArchive } from './meter.archive';
import { registerMeterRoutes } from './meter.routes';
import { MeterService } from './meter.service';
import { meterImport } from './meter-import';
import { meterTypeArchive } from './meter-type.archive';
import { moduleArchive, moduleImport } from './module.archive';
import { PocMeters, pocArchive, pocImport } from './poc.archive';
import { supplierArchive, supplierImport } from './supplier.archive';

/** The archive's services, built once by the composition root. */
export function createArchive(db: Db, secrets: SecretBox) {
  const dcus = new ArchiveService(db, dcuArchive(secrets));
  return {
    suppliers: new ArchiveService(db, supplierArchive),
    grids: new GridService(db),
    consumers: new ArchiveService(db, consumerArchive),
    modules: new ArchiveService(db, moduleArchive),
    meterTypes: new ArchiveService(db, meterTypeArchive),
    meters: new ArchiveService(db, meterArchive(secrets)),
    meterLifeCycle: new MeterService(db),
    dcus,
    dcuKeys: new DcuKeyReveal(db, secrets, dcus),
    pocs: new ArchiveService(db, pocArchive),
    pocMeters: new PocMeters(db),
  };
}

export type Archive = ReturnType<typeof createArchive>;

/** Every archive import, by entity name (the import job finds its definition here). */
export function createImports(secrets: SecretBox): ReadonlyMap<string, ImportDefinition> {
  const imports: ImportDefinition[] = [
    supplierImport as ImportDefinition,
    consumerImport as ImportDefinition,
    moduleImport as ImportDefinition,
    pocImport as ImportDefinition,
    dcuImport(secrets) as ImportDefinition,
    meterImport(secrets) as ImportDefinition,
  ];
  return new Map(imports.map((definition) => [definition.entity, definition]));
}

export function registerArchive(app: FastifyInstance, archive: Archive): void {
  registerArchiveRoutes(app, archive.suppliers);
  registerGridRoutes(app, archive.grids);
  registerArchiveRoutes(app, archive.consumers);
  registerArchiveRoutes(app, archive.modules);
  registerArchiveRoutes(app, archive.meterTypes);
  registerArchiveRoutes(app, archive.meters);
  registerMeterRoutes(app, archive.meterLifeCycle);
  registerArchiveRoutes(app, archive.dcus);
  registerOperation(app, dcuApi.reveal, async ({ body, session, req }) => {
    const { dcuNo, keys } = await archive.dcuKeys.reveal(body.id, session);
    // The log names the DCU; the keys stay out of it (they are only in the answer).
    req.auditNote = { dcuNo };
    return keys;
  });
  registerArchiveRoutes(app, archive.pocs);
  registerOperation(app, pocApi.replace, async ({ body, session, req }) => {
    const { seq, ...named } = await archive.pocMeters.replace(body, session);
    req.auditNote = named;
    return { seq };
  });
  registerOperation(app, pocApi.history, ({ body, session }) => archive.pocMeters.history(body.id, session));
}
