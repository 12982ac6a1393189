import path from 'node:path';
import { Module } from '@nestjs/common';
import { repoRoot } from '@lazyboy/localstack';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { LeadershipModule } from '../leadership/leadership.module.js';
import { ComputerIdleLoop } from './computer-idle-loop.js';
import { ComputerRunScreens } from './computer-run-screens.js';
import { ComputersLifecycle } from './computers-lifecycle.js';
import { ComputersController } from './computers.controller.js';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { LocalPoolDriver } from './local-pool-driver.js';
import { PoolDriver } from './pool-driver.js';
import { PowerLock } from './power-lock.js';
import { RunScreens } from './run-screens.js';
import { ScreenControlService } from './screen-control.service.js';

export function createPoolDriver(config: ApiConfig): PoolDriver {
  if (config.LAZYBOY_POOL_DRIVER === 'kubernetes') {
    throw new Error('LAZYBOY_POOL_DRIVER=kubernetes: the cluster pool driver is not part of this build yet; use local');
  }
  return new LocalPoolDriver({
    workerScript: path.join(repoRoot, 'apps/worker/dist/main.js'),
    homesDir: path.resolve(config.LAZYBOY_HOMES_DIR),
    ...(config.LAZYBOY_LOGS_DIR ? { logsDir: path.resolve(config.LAZYBOY_LOGS_DIR) } : {}),
    displayBaseFrom: config.LAZYBOY_DISPLAY_BASE_FROM,
    // Checked here at start-up, carried to every worker: one egress policy for all of the host's computers.
    env: {
      LAZYBOY_EGRESS_PRIVATE_NETWORKS: config.LAZYBOY_EGRESS_PRIVATE_NETWORKS,
      LAZYBOY_EGRESS_ALLOWED_DOMAINS: config.LAZYBOY_EGRESS_ALLOWED_DOMAINS?.join(',') ?? '',
    },
  });
}

/**
 * Computers: the pool driver, the life cycle service, the screens runs acquire (`RunScreens`), the
 * control lease (takeover), the idle loop and the computer endpoints.
 */
@Module({
  imports: [LeadershipModule],
  controllers: [ComputersController],
  providers: [
    ComputersRepository,
    ComputersService,
    PowerLock,
    ScreenControlService,
    ComputerRunScreens,
    { provide: RunScreens, useExisting: ComputerRunScreens },
    ComputerIdleLoop,
    ComputersLifecycle,
    { provide: PoolDriver, useFactory: createPoolDriver, inject: [API_CONFIG] },
  ],
  exports: [ComputersService, ScreenControlService, RunScreens, PoolDriver, ComputersRepository],
})
export class ComputersModule {}
