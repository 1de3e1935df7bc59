import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { ArchiveService, registerArchiveRoutes } from '../archive/archive-kit';
import { eventDefinitionArchive } from './event-definition.archive';
import { obisArchive } from './obis.archive';
import { paramTemplateArchive } from './param-template.archive';

/** The parameter-setting catalogues' services, built once by the composition root. */
export function createParameterCatalogues(db: Db) {
  return {
    obisItems: new ArchiveService(db, obisArchive),
    eventDefinitions: new ArchiveService(db, eventDefinitionArchive),
    paramTemplates: new ArchiveService(db, paramTemplateArchive),
  };
}

export type ParameterCatalogues = ReturnType<typeof createParameterCatalogues>;

export function registerParameterCatalogues(app: FastifyInstance, catalogues: ParameterCatalogues): void {
  registerArchiveRoutes(app, catalogues.obisItems);
  registerArchiveRoutes(app, catalogues.eventDefinitions);
  registerArchiveRoutes(app, catalogues.paramTemplates);
}
