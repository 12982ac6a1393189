import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { toMessageView } from '../chats/message-views.js';
import { RunSignals } from './run-signals.js';
import { RunsRepository } from './runs.repository.js';
import { RunsService } from './runs.service.js';

/** What the model reads of the ended run next time; people see the notice's code in their own language. */
const EXPIRED_TEXT = 'I stopped waiting: nobody answered in time, so this task ended. Ask again if it is still needed.';
/** At most this many runs end per sweep; the next sweep takes the rest. */
const PER_SWEEP = 100;

/**
 * Ends runs parked (waiting for an answer or a hand-back) longer than LAZYBOY_PARKED_RUN_HOURS: a parked
 * run holds its agent for every chat and every person, and keeps a Team computer from sleeping. Each ends
 * as blocked with `waited_too_long`, a message in its chat saying so, and a doorbell for the runs queued
 * behind it. Runs on every replica that executes runs; each run ends once, whichever sweeps it.
 */
@Injectable()
export class ParkedRunExpiry implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ParkedRunExpiry.name);
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private closing = false;

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly runs: RunsRepository,
    private readonly service: RunsService,
    private readonly signals: RunSignals,
    private readonly realtime: RealtimePublisher,
  ) {}

  private get maxParkedMs(): number {
    return Math.round(this.config.LAZYBOY_PARKED_RUN_HOURS * 3_600_000);
  }

  onModuleInit(): void {
    if (!this.config.LAZYBOY_RUNNER) return;
    // A minute is late enough for hours of waiting; a short wait (tests, small setups) is swept sooner.
    const every = Math.min(60_000, Math.max(500, Math.round(this.maxParkedMs / 4)));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  /** Before Prisma disconnects (its own onModuleDestroy): a sweep cut off mid-transaction would log a failure. */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }

  /** One sweep (never two at once); how many runs it ended. */
  async sweep(): Promise<number> {
    if (this.sweeping || this.closing) return 0;
    let ended = 0;
    const work = (async () => {
      try {
        for (; ended < PER_SWEEP && !this.closing; ended++) {
          const expired = await this.runs.expireOneParked(this.maxParkedMs, {
            text: EXPIRED_TEXT,
            notice: { code: 'waited_too_long', providerMessage: null },
          });
          if (!expired) break;
          this.logger.log(`run ${expired.run.id} waited longer than ${this.config.LAZYBOY_PARKED_RUN_HOURS} h and ended`);
          if (expired.message) {
            await this.realtime.publish([{ kind: 'chat', id: expired.message.chatId }], {
              type: 'message.created',
              message: toMessageView(expired.message),
            });
          }
          await this.service.publish(expired.run);
        }
        if (ended > 0) await this.signals.wake();
      } catch (error) {
        this.logger.error(`ending parked runs failed: ${(error as Error).message}`);
      }
    })();
    this.sweeping = work;
    try {
      await work;
    } finally {
      this.sweeping = null;
    }
    return ended;
  }
}
