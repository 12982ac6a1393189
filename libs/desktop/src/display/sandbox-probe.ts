import { readFileSync } from 'node:fs';
import { runCommand } from '../process/run-command.js';
import type { RunAs } from '../process/run-as.js';
import type { SandboxLayout } from '../workspace/sandbox-args.js';

export type SandboxSupport = { available: true } | { available: false; reason: string };

/**
 * Debian's Chromium has no setuid helper: its sandbox needs unprivileged user namespaces. Checks the
 * kernel switches, then really creates one as the desktop user (some kernels and LSMs refuse it anyway),
 * inside the desktop's own sandbox when it has one (the browser's namespaces then nest in bubblewrap's).
 */
export async function probeChromiumSandbox(
  runAs: RunAs | undefined,
  env: Record<string, string>,
  sandbox?: SandboxLayout,
): Promise<SandboxSupport> {
  if (readSysctl('/proc/sys/kernel/unprivileged_userns_clone') === '0') {
    return { available: false, reason: 'kernel.unprivileged_userns_clone is 0' };
  }
  if (readSysctl('/proc/sys/user/max_user_namespaces') === '0') {
    return { available: false, reason: 'user.max_user_namespaces is 0' };
  }
  try {
    const result = await runCommand('unshare', ['--user', '--', 'true'], {
      runAs,
      env,
      sandbox,
      timeoutMs: sandbox ? 10_000 : 5_000,
    });
    if (result.code === 0) return { available: true };
    return { available: false, reason: `unshare --user failed: ${result.stderr.trim() || `code ${result.code}`}` };
  } catch (error) {
    // Without unshare(1) the kernel switches above are all we can know.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { available: true };
    throw error;
  }
}

function readSysctl(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}
