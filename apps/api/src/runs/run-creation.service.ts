import { Injectable } from '@nestjs/common';
import { isSmallTalk } from '@lazyboy/agent';
import { conflict } from '../common/api-error.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { toMessageView } from '../chats/message-views.js';
import { RunCreationRepository } from './run-creation.repository.js';
import { RunExecutor } from './run-executor.service.js';
import { NonceReusedError, type MessageRun, type MessageRunSource, type RunOrigins, type RunSource } from './run-sources.js';
import { RunsService } from './runs.service.js';

/**
 * Where every run is born, whatever its source: it is written (with its source's rows, in one transaction),
 * leased at once to a free executor slot of this replica when its agent is idle, else queued with a
 * doorbell for the executors, and published. Other modules ask this; none writes a run. (A service of its
 * own, not RunsService: it reserves the executor's slots, and the executor already depends on RunsService.)
 */
@Injectable()
export class RunCreation {
  constructor(
    private readonly repository: RunCreationRepository,
    private readonly executor: RunExecutor,
    private readonly runs: RunsService,
    private readonly realtime: RealtimePublisher,
  ) {}

  async create<S extends RunSource>(source: S): Promise<RunOrigins[S['kind']]> {
    switch (source.kind) {
      case 'message':
        return this.fromMessage(source);
    }
  }

  /**
   * A user message: stored with its run (or as the answer to the run parked on a question) in one
   * transaction, then the executors are woken. Greetings and small talk become chat runs: no tools, no
   * computer.
   */
  private async fromMessage(source: MessageRunSource): Promise<MessageRun> {
    // With a free executor slot here, an idle agent's run is leased in the accepting statement itself.
    const slot = this.executor.reserveSlot();
    let created: MessageRun;
    try {
      created = await this.repository.fromMessage(source, isSmallTalk(source.text) ? 'chat' : 'general', slot ?? undefined);
    } catch (error) {
      slot?.release();
      if (error instanceof NonceReusedError)
        throw conflict('nonce_reused', 'this clientNonce was already used for another message; choose a new one per message');
      throw error;
    }
    if (slot) {
      const leasedHere = !created.replayed && created.run.status === 'leased' && created.run.leaseOwner === slot.owner;
      if (leasedHere) slot.adopt(created.run.id);
      else slot.release();
    }
    if (!created.replayed) {
      if (created.run.status === 'queued') await this.runs.queued();
      await this.realtime.publish([{ kind: 'chat', id: source.chat.id }], {
        type: 'message.created',
        message: toMessageView(created.message),
      });
      await this.runs.publish(created.run);
    }
    return created;
  }
}
