import { describe, expect, it } from '@jest/globals';
import { launchSpec } from '../process/run-as.js';
import { bwrapArguments } from './sandbox-args.js';

describe('bwrapArguments', () => {
  const layout = {
    homeDir: '/data/computers/a/home',
    cwd: '/data/computers/a/home',
    hiddenDirs: ['/data', '/tmp/x', '/data/computers'],
  };

  it('hides before binding back, skipping what an earlier tmpfs covers', () => {
    const args = bwrapArguments({ ...layout, xSocket: '/tmp/.X11-unix/X5', xauthority: '/tmp/run/Xauthority' }, 'ls');

    expect(args.join(' ')).toBe(
      '--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /data ' +
        '--bind /data/computers/a/home /data/computers/a/home ' +
        '--ro-bind /tmp/.X11-unix/X5 /tmp/.X11-unix/X5 --ro-bind /tmp/run/Xauthority /tmp/run/Xauthority ' +
        '--chdir /data/computers/a/home --unshare-all --unshare-net --die-with-parent --new-session -- bash -c ls',
    );
  });

  it('refuses to hide a system directory', () => {
    expect(() => bwrapArguments({ ...layout, hiddenDirs: ['/usr/'] }, 'ls')).toThrow(RangeError);
  });

  it('runs a desktop program in its group, the network kept, its own folders bound back over the private ones', () => {
    const sandbox = {
      ...layout,
      privateDirs: ['.lazyboy'],
      bindDirs: ['/tmp/run/xdg', '/data/computers/a/home/.lazyboy/chromium/p'],
      shareNetwork: true,
      newSession: false,
    };
    const launch = launchSpec('chromium', ['--flag'], { uid: 7, gid: 8, netns: '/proc/1/fd/9' }, sandbox);

    // nsenter enters the island and drops to the user first; bwrap, unprivileged, then builds the sandbox.
    expect([launch.command, ...launch.args].join(' ')).toBe(
      '/usr/bin/nsenter --net=/proc/1/fd/9 --setgid=8 --setuid=7 -- bwrap ' +
        '--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /data ' +
        '--bind /data/computers/a/home /data/computers/a/home --tmpfs /data/computers/a/home/.lazyboy ' +
        '--bind /tmp/run/xdg /tmp/run/xdg ' +
        '--bind /data/computers/a/home/.lazyboy/chromium/p /data/computers/a/home/.lazyboy/chromium/p ' +
        '--chdir /data/computers/a/home --unshare-all --share-net --die-with-parent -- chromium --flag',
    );
    expect(launchSpec('chromium', ['--flag'], undefined)).toEqual({
      command: 'chromium',
      args: ['--flag'],
      uid: undefined,
      gid: undefined,
    });
  });

  it("keeps the container's /proc and makes no pid namespace where a fresh /proc cannot be mounted", () => {
    const args = bwrapArguments({ ...layout, proc: 'shared' }, 'ls');

    expect(args.join(' ')).toBe(
      '--ro-bind / / --dev /dev --bind /proc /proc --tmpfs /tmp --tmpfs /data ' +
        '--bind /data/computers/a/home /data/computers/a/home ' +
        '--chdir /data/computers/a/home --unshare-user-try --unshare-uts --unshare-cgroup-try ' +
        '--unshare-net --die-with-parent --new-session -- bash -c ls',
    );
  });

  it('takes /tmp, the parent of a home directly under it, as hidden already, and refuses to hide another system directory', () => {
    const underTmp = { ...layout, homeDir: '/tmp/computer-a', cwd: '/tmp/computer-a', hiddenDirs: ['/tmp', '/data'] };
    const args = bwrapArguments(underTmp, 'ls').join(' ');
    expect(args.match(/--tmpfs \/tmp /g)).toHaveLength(1);
    expect(args).toContain('--tmpfs /tmp --tmpfs /data --bind /tmp/computer-a /tmp/computer-a');
    expect(() => bwrapArguments({ ...layout, hiddenDirs: ['/usr'] }, 'ls')).toThrow('refusing to hide system directory /usr');
  });

  it("enters an island's user namespace before its network", () => {
    const launch = launchSpec('xdotool', ['key', 'a'], { uid: 7, gid: 8, netns: '/proc/1/fd/9', userns: '/proc/1/fd/10' });

    expect([launch.command, ...launch.args].join(' ')).toBe(
      '/usr/bin/nsenter --user=/proc/1/fd/10 --net=/proc/1/fd/9 --setgid=8 --setuid=7 -- xdotool key a',
    );
  });
});
