import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Checkpoint, CheckpointStore } from '@lazyboy/agent';

export class UnknownSessionError extends Error {
  override readonly name = 'UnknownSessionError';
}

const SESSION_ID = /^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$/;

/** A new session id: sortable by time, unguessable enough to not collide. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * One CLI session on disk: `<home>/sessions/<id>.json` holds the runtime's checkpoint (history, plan,
 * pending question), rewritten atomically on every save; `<home>/sessions/<id>/` holds command logs.
 */
export class SessionStore implements CheckpointStore {
  readonly file: string;
  readonly workDir: string;

  constructor(
    readonly home: string,
    readonly id: string,
  ) {
    if (!SESSION_ID.test(id)) throw new UnknownSessionError(`'${id}' is not a session id`);
    const dir = path.join(home, 'sessions');
    this.file = path.join(dir, `${id}.json`);
    this.workDir = path.join(dir, id);
    mkdirSync(this.workDir, { recursive: true, mode: 0o700 });
  }

  exists(): boolean {
    return existsSync(this.file);
  }

  load(): Checkpoint {
    if (!this.exists()) throw new UnknownSessionError(`no saved session ${this.id} in ${path.dirname(this.file)}`);
    return JSON.parse(readFileSync(this.file, 'utf8')) as Checkpoint;
  }

  async save(checkpoint: Checkpoint): Promise<void> {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(checkpoint), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
