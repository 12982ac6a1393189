import { egressPolicyOf, type WorkerEnv } from '@lazyboy/contracts';
import { ScreenManager, shellLogRoot } from '@lazyboy/desktop';
import { defaultDesktopPaths } from './desktop-paths.js';

export interface ScreensPlacement {
  /**
   * A directory of every computer's home mounted in this worker (a static pool's LAZYBOY_HOMES_DIR). The
   * desktop's programs then run in bubblewrap, seeing this computer's home alone, as the agent's shell does;
   * a root worker (a Docker container's) runs the computer as a user whose uid no other home there has.
   */
  sharedHomesDir?: string | undefined;
}

/** The screens of the computer a worker serves: its home, displays, session and egress policy, from its environment. */
export function screensOf(config: WorkerEnv, placement: ScreensPlacement = {}): ScreenManager {
  const paths = defaultDesktopPaths(config.LAZYBOY_COMPUTER_ID, config.LAZYBOY_COMPUTER_HOME);
  return new ScreenManager({
    computerId: config.LAZYBOY_COMPUTER_ID,
    ...paths,
    displayBase: config.LAZYBOY_DISPLAY_BASE,
    screenLimit: config.TEAM_SCREEN_LIMIT,
    session: config.LAZYBOY_DESKTOP_SESSION,
    egressPolicy: egressPolicyOf(config),
    ...(placement.sharedHomesDir === undefined
      ? {}
      : {
          desktopSandbox: { hiddenDirs: [placement.sharedHomesDir, shellLogRoot(paths.runtimeDir)] },
          sharedHomes: true,
        }),
  });
}
