import { Module } from '@nestjs/common';
import { API_CONFIG } from '../config/api-config.js';
import { LeadershipModule } from '../leadership/leadership.module.js';
import { ComputerIdleLoop } from './computer-idle-loop.js';
import { ComputerRunScreens } from './computer-run-screens.js';
import { ComputersLifecycle } from './computers-lifecycle.js';
import { ComputersController } from './computers.controller.js';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { PoolDriver } from './pool-driver.js';
import { createPoolDriver } from './pool-drivers.js';
import { PowerLock } from './power-lock.js';
import { RunScreens } from './run-screens.js';
import { ScreenControlService } from './screen-control.service.js';

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
