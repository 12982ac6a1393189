import { Inject, Injectable, Logger } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { PoolDriver } from './pool-driver.js';
import { ScreenControlService } from './screen-control.service.js';

/**
 * One pass of the idle loop, run every LAZYBOY_IDLE_CHECK_MS by the leading replica only: hands back
 * expired takeovers, suspends computers nobody watches or uses and no run needs, stops computers suspended
 * too long, takes over the workers whose binder stopped renewing its lease (so none runs unowned), and
 * marks stopped the computers whose worker has gone away.
 */
@Injectable()
export class ComputerIdleLoop {
  private readonly logger = new Logger(ComputerIdleLoop.name);

  constructor(
    private readonly computers: ComputersService,
    private readonly control: ScreenControlService,
    private readonly repo: ComputersRepository,
    private readonly driver: PoolDriver,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  async tick(signal?: AbortSignal): Promise<void> {
    const now = Date.now();
    const released = await this.control.releaseExpired(new Date(now));
    if (released > 0) this.logger.log(`handed ${released} expired takeover(s) back to the agents`);

    const idleBefore = new Date(now - this.config.LAZYBOY_COMPUTER_SUSPEND_AFTER_MS);
    for (const computer of await this.repo.idleRunning(idleBefore)) {
      if (signal?.aborted || this.computers.closing) return;
      await this.step(`suspending ${computer.id}`, () => this.computers.suspend(computer.id, idleBefore));
    }

    const stopBefore = new Date(now - this.config.LAZYBOY_COMPUTER_STOP_AFTER_MS);
    for (const computer of await this.repo.suspendedSince(stopBefore)) {
      if (signal?.aborted || this.computers.closing) return;
      await this.step(`stopping ${computer.id}`, () => this.computers.stop(computer.id, { unlessBusy: true }));
    }

    for (const computer of await this.repo.bound(new Date(now))) {
      if (signal?.aborted || this.computers.closing) return;
      if (computer.state === 'booting') {
        await this.step(`clearing the stuck boot of ${computer.id}`, () =>
          this.computers.forget(computer, 'its boot never finished'),
        );
        continue;
      }
      const binding = this.computers.bindingOf(computer);
      if (binding && (await this.driver.health(binding))) {
        const lapsed = computer.bindExpiresAt === null || computer.bindExpiresAt.getTime() < now;
        if (lapsed && !this.computers.heldBindings().has(computer.id)) {
          await this.step(`taking over ${computer.id}`, () => this.computers.takeOver(computer));
        }
        continue;
      }
      // Read again: it may have been stopped or rebooted while we looked.
      const current = await this.repo.computer(computer.id);
      if (!current || current.updatedAt.getTime() !== computer.updatedAt.getTime()) continue;
      await this.step(`forgetting ${computer.id}`, async () => {
        await this.computers.forget(current, 'the worker does not answer');
        await this.computers.publishById(current.id);
      });
    }
  }

  private async step(what: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.logger.warn(`idle loop: ${what} failed: ${(error as Error).message}`);
    }
  }
}
