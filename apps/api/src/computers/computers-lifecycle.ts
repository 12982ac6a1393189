import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { Leadership } from '../leadership/leadership.service.js';
import { ComputerIdleLoop } from './computer-idle-loop.js';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService, STUCK_BOOT_MS } from './computers.service.js';
import { PoolDriver } from './pool-driver.js';

/**
 * Start and end of the computers module. At start, computers the database says are up are checked: a
 * worker that answers and whose API died is adopted, one that does not answer makes its computer stopped;
 * the idle loop is registered with the leader election. At the end, the workers this process owns are
 * stopped and their computers marked stopped, so no desktop outlives the API.
 */
@Injectable()
export class ComputersLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Computers');

  constructor(
    private readonly computers: ComputersService,
    private readonly repo: ComputersRepository,
    private readonly driver: PoolDriver,
    private readonly idleLoop: ComputerIdleLoop,
    private readonly leadership: Leadership,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.leadership.register({
      name: 'computer-idle-loop',
      intervalMs: this.config.LAZYBOY_IDLE_CHECK_MS,
      run: (signal) => this.idleLoop.tick(signal),
    });
    await this.reconcile().catch((error: unknown) =>
      this.logger.warn(`checking the computers at start failed (the idle loop retries): ${(error as Error).message}`),
    );
  }

  /** Computers marked up whose worker does not answer become stopped; orphaned workers are adopted. */
  async reconcile(): Promise<void> {
    for (const computer of await this.repo.bound(new Date(Date.now() - STUCK_BOOT_MS))) {
      if (computer.state === 'booting') continue;
      const binding = this.computers.bindingOf(computer);
      if (binding && (await this.driver.health(binding))) {
        if (this.driver.adopt(binding)) this.logger.log(`took over the running worker of computer ${computer.id}`);
        continue;
      }
      await this.computers.forget(computer, 'its worker did not answer at start-up');
      await this.computers.publishById(computer.id);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.computers.closing = true;
    const stopped = await this.driver.shutdown();
    for (const computerId of stopped) {
      await this.repo
        .markStopped(computerId)
        .catch((error: unknown) =>
          this.logger.warn(`marking computer ${computerId} stopped failed: ${(error as Error).message}`),
        );
    }
  }
}
