export { findFreePort, isPortFree, waitForPort } from './ports.js';
export { waitForHttp } from './http-ready.js';
export { ManagedProcess, isAlive, groupAlive, stopProcessGroup, type ManagedProcessOptions } from './managed-process.js';
export { serviceUser, chownTree, type ServiceUser } from './service-user.js';
export {
  startPostgres,
  initPostgresCluster,
  ensureDatabase,
  tail,
  type PostgresOptions,
  type RunningPostgres,
} from './postgres.js';
export { startRedis, pingRedis, type RedisOptions, type RunningRedis } from './redis.js';
export { migrateDatabase, pendingMigrations } from './migrate.js';
export { repoRoot } from './repo-paths.js';
export { startScratchServices, type ScratchServices } from './scratch-services.js';
