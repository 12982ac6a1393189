import { bwrapCommand, type SandboxLayout } from '../workspace/sandbox-args.js';

/** Who a desktop process runs as, and where. Only set when the worker is root and drops to the computer's user. */
export interface RunAs {
  uid: number;
  gid: number;
  /**
   * The network namespace the process starts in (its screen's island, `NetworkIsland.path`). nsenter enters
   * it as root and then drops to uid/gid itself, so the process never holds the right to leave it.
   */
  netns?: string | undefined;
  /** The island's user namespace (`NetworkIsland.userPath`), entered before its network when it has one. */
  userns?: string | undefined;
}

export interface LaunchSpec {
  command: string;
  args: string[];
  uid: number | undefined;
  gid: number | undefined;
}

const NSENTER = '/usr/bin/nsenter';
const BWRAP = 'bwrap';

/**
 * How to spawn `command` as `runAs`: through nsenter into its island, or with spawn's own uid/gid; inside
 * bubblewrap with `sandbox`'s view of the file system when one is given (bwrap runs as the user, in the
 * island, so it can neither leave the island nor gain anything the user lacks).
 */
export function launchSpec(
  command: string,
  args: readonly string[],
  runAs: RunAs | undefined,
  sandbox?: SandboxLayout,
): LaunchSpec {
  const [file, ...rest] = sandbox ? [BWRAP, ...bwrapCommand(sandbox, [command, ...args])] : [command, ...args];
  if (!runAs?.netns) return { command: file!, args: rest, uid: runAs?.uid, gid: runAs?.gid };
  return {
    command: NSENTER,
    // nsenter -G also drops the supplementary groups (root's), as spawn's gid does.
    args: [
      ...(runAs.userns ? [`--user=${runAs.userns}`] : []),
      `--net=${runAs.netns}`,
      `--setgid=${runAs.gid}`,
      `--setuid=${runAs.uid}`,
      '--',
      file!,
      ...rest,
    ],
    uid: undefined,
    gid: undefined,
  };
}
