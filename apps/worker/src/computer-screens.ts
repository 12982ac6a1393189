import { egressPolicyOf, type WorkerEnv } from '@lazyboy/contracts';
import { ScreenManager } from '@lazyboy/desktop';
import { defaultDesktopPaths } from './desktop-paths.js';

/** The screens of the computer a worker serves: its home, displays, session and egress policy, from its environment. */
export function screensOf(config: WorkerEnv): ScreenManager {
  return new ScreenManager({
    computerId: config.LAZYBOY_COMPUTER_ID,
    ...defaultDesktopPaths(config.LAZYBOY_COMPUTER_ID, config.LAZYBOY_COMPUTER_HOME),
    displayBase: config.LAZYBOY_DISPLAY_BASE,
    screenLimit: config.TEAM_SCREEN_LIMIT,
    session: config.LAZYBOY_DESKTOP_SESSION,
    egressPolicy: egressPolicyOf(config),
  });
}
