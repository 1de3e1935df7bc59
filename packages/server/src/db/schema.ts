/** Every table, one file per area under tables/; drizzle-kit and the driver read this index. */
export * from './tables/access';
export * from './tables/archive';
export * from './tables/collection';
export * from './tables/device';
export * from './tables/grid';
export * from './tables/headend';
export * from './tables/import';
export * from './tables/log';
export * from './tables/notice';
export * from './tables/outage';
export * from './tables/parameter';
export * from './tables/people';
export * from './tables/readings';
export * from './tables/rollups';
export * from './tables/session';
export * from './tables/settings';
