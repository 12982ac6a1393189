import { spawnSync } from 'node:child_process';
import type { RunAs } from '../process/run-as.js';

/**
 * Which /proc a sandbox gets. `own`: a fresh one for its own PID namespace, showing its processes alone.
 * `shared`: the container's, as it is, with no PID namespace of its own.
 *
 * The kernel lets a user namespace mount a fresh /proc only where the existing one is fully visible, and
 * container engines mask parts of it (Docker's /proc/kcore, /proc/keys, …), so bubblewrap cannot give
 * a sandbox its own /proc inside a Docker container. There the sandbox keeps the container's: it then
 * sees the container's processes, which is safe only when they belong to other users — the worker runs as
 * root and the computer as a user of its own, so the worker's environment, memory and root directory stay
 * closed to it (what a PID namespace would otherwise hide). A worker running the desktop as itself keeps
 * `own`, and a sandbox that cannot be built then fails as it should.
 */
export type SandboxProc = 'own' | 'shared';

const known = new Map<number, SandboxProc>();

/** The /proc a sandbox run as `runAs` (undefined: as the worker itself) gets; probed once per user. */
export function sandboxProcFor(runAs: Pick<RunAs, 'uid' | 'gid'> | undefined): SandboxProc {
  if (!runAs) return 'own';
  const cached = known.get(runAs.uid);
  if (cached) return cached;
  const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--', 'true'], {
    uid: runAs.uid,
    gid: runAs.gid,
    cwd: '/',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    stdio: 'ignore',
    timeout: 15_000,
  });
  const proc: SandboxProc = probe.status === 0 ? 'own' : 'shared';
  known.set(runAs.uid, proc);
  return proc;
}
