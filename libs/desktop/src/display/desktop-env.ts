/** Environment markers every desktop process inherits (and passes on to whatever it starts). */
export const RUNTIME_MARKER = 'LAZYBOY_DESKTOP_RUNTIME';
export const SLOT_MARKER = 'LAZYBOY_DESKTOP_SLOT';
/** The computer's home: how `lazyboy down` and the pool driver find a computer's processes without its runtime directory. */
export const HOME_MARKER = 'LAZYBOY_DESKTOP_HOME';

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface DesktopEnvInput {
  userName: string;
  homeDir: string;
  runtimeDir: string;
  xdgRuntimeDir: string;
  slot: number;
  display: string;
  xauthority: string;
  dbusAddress?: string;
  /** The egress proxy, for programs that honour http_proxy (curl, pip, git, npm) started on the screen. */
  proxyUrl?: string;
}

/** The proxy variables every HTTP client reads (both spellings: curl takes the lower-case ones only). */
export function proxyEnv(proxyUrl: string): Record<string, string> {
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    http_proxy: proxyUrl,
    https_proxy: proxyUrl,
    HTTP_PROXY: proxyUrl,
    HTTPS_PROXY: proxyUrl,
    no_proxy: noProxy,
    NO_PROXY: noProxy,
  };
}

/**
 * Built from scratch, never copied from the worker: the worker's environment holds its control token and
 * other secrets, and every desktop process's environment is readable by the computer's user.
 */
export function desktopEnv(input: DesktopEnvInput): Record<string, string> {
  const env: Record<string, string> = {
    PATH: SYSTEM_PATH,
    HOME: input.homeDir,
    USER: input.userName,
    LOGNAME: input.userName,
    SHELL: '/bin/bash',
    LANG: process.env['LANG'] || 'C.UTF-8',
    XDG_RUNTIME_DIR: input.xdgRuntimeDir,
    DISPLAY: input.display,
    XAUTHORITY: input.xauthority,
    // The markers let a sweep of /proc find every process of this computer and screen, including ones
    // that left their parent's process group (dbus-daemon, Chromium's crash handler, dbus-activated services).
    [RUNTIME_MARKER]: input.runtimeDir,
    [SLOT_MARKER]: String(input.slot),
    [HOME_MARKER]: input.homeDir,
  };
  const tz = process.env['TZ'];
  if (tz) env['TZ'] = tz;
  if (input.dbusAddress) env['DBUS_SESSION_BUS_ADDRESS'] = input.dbusAddress;
  if (input.proxyUrl) Object.assign(env, proxyEnv(input.proxyUrl));
  return env;
}
