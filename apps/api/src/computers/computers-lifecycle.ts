import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { Leadership } from '../leadership/leadership.service.js';
import { ComputerIdleLoop } from './computer-idle-loop.js';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { PoolDriver } from './pool-driver.js';

/**
 * Start and end of the computers module. At start, computers the database says are up are checked: a
 * worker that answers and whose binding lease lapsed (its API died) is taken over, one that does not
 * answer makes its computer stopped; the idle loop is registered with the leader election, and the
 * binding leases this process holds are renewed every third of LAZYBOY_COMPUTER_BIND_LEASE_MS. At the
 * end, the workers this process owns are stopped and their bindings marked stopped, so no desktop
 * outlives the API.
 */
@Injectable()
export class ComputersLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Computers');
  private renewal: NodeJS.Timeout | undefined;

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
    this.renewal = setInterval(
      () =>
        void this.computers
          .renewLeases()
          .catch((error: unknown) => this.logger.warn(`renewing the computer bindings failed: ${(error as Error).message}`)),
      Math.max(500, Math.floor(this.config.LAZYBOY_COMPUTER_BIND_LEASE_MS / 3)),
    );
    this.renewal.unref();
    await this.reconcile().catch((error: unknown) =>
      this.logger.warn(`checking the computers at start failed (the idle loop retries): ${(error as Error).message}`),
    );
  }

  /** Computers marked up whose worker does not answer become stopped; orphaned workers are taken over. */
  async reconcile(): Promise<void> {
    for (const computer of await this.repo.bound(new Date())) {
      if (computer.state === 'booting') continue;
      const binding = this.computers.bindingOf(computer);
      if (binding && (await this.driver.health(binding))) {
        // A live binder keeps renewing its lease and keeps the worker; a dead one's worker is ours now.
        await this.computers.takeOver(computer);
        continue;
      }
      await this.computers.forget(computer, 'its worker did not answer at start-up');
      await this.computers.publishById(computer.id);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.computers.closing = true;
    clearInterval(this.renewal);
    this.computers.detach();
    const stopped = await this.driver.shutdown();
    for (const binding of stopped) {
      // That binding only: a computer another replica took over meanwhile keeps its worker.
      await this.repo
        .markStopped(binding.computerId, null, { bindFence: binding.bindFence })
        .catch((error: unknown) =>
          this.logger.warn(`marking computer ${binding.computerId} stopped failed: ${(error as Error).message}`),
        );
    }
  }
}
