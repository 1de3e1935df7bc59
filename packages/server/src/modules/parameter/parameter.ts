import { tariffApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerOperation } from '../../http/operation';
import { ArchiveService, registerArchiveRoutes } from '../archive/archive-kit';
import type { SettingsService } from '../system/settings.service';
import { eventDefinitionArchive } from './event-definition.archive';
import { obisArchive } from './obis.archive';
import { paramTemplateArchive } from './param-template.archive';
import { tariffArchive } from './tariff.archive';
import { TariffService } from './tariff.service';

/** The parameter-setting catalogues' services, built once by the composition root. */
export function createParameterCatalogues(db: Db, settings: Pick<SettingsService, 'touLimits'>) {
  return {
    obisItems: new ArchiveService(db, obisArchive),
    eventDefinitions: new ArchiveService(db, eventDefinitionArchive),
    tariffs: new ArchiveService(db, tariffArchive(settings)),
    tariffUsers: new TariffService(db),
    paramTemplates: new ArchiveService(db, paramTemplateArchive),
  };
}

export type ParameterCatalogues = ReturnType<typeof createParameterCatalogues>;

export function registerParameterCatalogues(app: FastifyInstance, catalogues: ParameterCatalogues): void {
  registerArchiveRoutes(app, catalogues.obisItems);
  registerArchiveRoutes(app, catalogues.eventDefinitions);
  registerArchiveRoutes(app, catalogues.tariffs);
  registerOperation(app, tariffApi.associated, ({ body, session }) => catalogues.tariffUsers.associated(body, session));
  registerArchiveRoutes(app, catalogues.paramTemplates);
}
