import { describe, expect, it } from '@jest/globals';
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
});
