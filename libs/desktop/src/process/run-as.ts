/** Who a desktop process runs as, and where. Only set when the worker is root and drops to the computer's user. */
export interface RunAs {
  uid: number;
  gid: number;
  /**
   * The network namespace the process starts in (its screen's island, `NetworkIsland.path`). nsenter enters
   * it as root and then drops to uid/gid itself, so the process never holds the right to leave it.
   */
  netns?: string | undefined;
}

export interface LaunchSpec {
  command: string;
  args: string[];
  uid: number | undefined;
  gid: number | undefined;
}

const NSENTER = '/usr/bin/nsenter';

/** How to spawn `command` as `runAs`: through nsenter into its island, or with spawn's own uid/gid. */
export function launchSpec(command: string, args: readonly string[], runAs: RunAs | undefined): LaunchSpec {
  if (!runAs?.netns) return { command, args: [...args], uid: runAs?.uid, gid: runAs?.gid };
  return {
    command: NSENTER,
    // nsenter -G also drops the supplementary groups (root's), as spawn's gid does.
    args: [`--net=${runAs.netns}`, `--setgid=${runAs.gid}`, `--setuid=${runAs.uid}`, '--', command, ...args],
    uid: undefined,
    gid: undefined,
  };
}
