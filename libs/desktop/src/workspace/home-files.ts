import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import type { RunAs } from '../process/run-as.js';
import { HomePathError, PathOutsideHomeError } from './errors.js';
import { PRIVATE_HOME_DIR } from '../display/chromium.js';
import { isInside } from './sandbox-args.js';

export interface HomeFilesOptions {
  homeDir: string;
  /** The computer's user: new files and directories are given to it (when the worker is root). */
  owner?: RunAs | undefined;
  /** Largest page `read` returns. Default 1 MiB. */
  maxReadBytes?: number;
  /** Largest file `write` accepts. Default 32 MiB. */
  maxWriteBytes?: number;
  /**
   * Folders of the home (relative) the agent may not touch: the computer's own data, such as the browsers'
   * profiles with their cookies. Default `.lazyboy`.
   */
  privateDirs?: readonly string[];
}

export interface HomeEntry {
  name: string;
  /** Relative to the home, '/'-separated. */
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  modifiedAt: string;
}

export interface HomeReadOptions {
  offset?: number;
  /** Bytes to read; capped at maxReadBytes. */
  length?: number;
  encoding?: 'utf8' | 'base64';
}

export interface HomeReadResult {
  path: string;
  content: string;
  encoding: 'utf8' | 'base64';
  offset: number;
  /** Bytes in this page. */
  bytes: number;
  /** Size of the whole file. */
  size: number;
  /** Where the next page starts; undefined at the end of the file. */
  nextOffset: number | undefined;
}

export interface HomeWriteResult {
  path: string;
  bytes: number;
}

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * The agent's file access to its computer's home, from the worker (which may be root). Every path is resolved
 * against the home and refused when it leaves it. The sandboxed shell can change the home at any moment, so a
 * check on a path name is not enough: each file is opened first and the path the kernel actually opened
 * (/proc/self/fd) is checked, and writes go through an opened directory descriptor, never a path walked again.
 */
export class HomeFiles {
  readonly homeDir: string;
  private readonly owner: RunAs | undefined;
  private readonly maxReadBytes: number;
  private readonly maxWriteBytes: number;
  private readonly privateDirs: readonly string[];

  constructor(options: HomeFilesOptions) {
    this.homeDir = path.resolve(options.homeDir);
    this.owner = options.owner;
    this.maxReadBytes = options.maxReadBytes ?? 1024 * 1024;
    this.maxWriteBytes = options.maxWriteBytes ?? 32 * 1024 * 1024;
    this.privateDirs = options.privateDirs ?? [PRIVATE_HOME_DIR];
  }

  /** The real path `target` names inside the home (it need not exist yet). */
  resolve(target: string): string {
    const home = this.realHome();
    const lexical = this.lexical(target);
    const missing: string[] = [];
    let existing = lexical;
    while (!existsSync(existing)) {
      if (isSymlink(existing)) throw new PathOutsideHomeError(`${target} is a symlink that points nowhere`);
      missing.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
    const real = realpathSync(existing);
    if (!isInside(real, home)) throw new PathOutsideHomeError(`${target} leads outside the home (to ${real})`);
    const resolved = path.join(real, ...missing);
    this.assertNotPrivate(resolved, home, target);
    return resolved;
  }

  list(target = '.'): HomeEntry[] {
    const real = this.resolve(target);
    const fd = this.openInside(real, DIRECTORY_FLAGS, target, 'not-a-directory');
    try {
      const dir = `/proc/self/fd/${fd}`;
      return readdirSync(dir)
        .sort()
        .flatMap((name) => {
          let stat: Stats;
          try {
            stat = lstatSync(path.join(dir, name));
          } catch {
            return []; // removed meanwhile
          }
          return [
            {
              name,
              path: this.relative(path.join(real, name)),
              type: stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : stat.isSymbolicLink() ? 'symlink' : 'other',
              size: stat.size,
              modifiedAt: stat.mtime.toISOString(),
            } satisfies HomeEntry,
          ];
        });
    } finally {
      closeSync(fd);
    }
  }

  read(target: string, options: HomeReadOptions = {}): HomeReadResult {
    const offset = options.offset ?? 0;
    const length = Math.min(options.length ?? this.maxReadBytes, this.maxReadBytes);
    if (!Number.isInteger(offset) || offset < 0) throw new RangeError(`offset must be a non-negative integer, got ${offset}`);
    if (!Number.isInteger(length) || length < 0) throw new RangeError(`length must be a non-negative integer, got ${length}`);
    const real = this.resolve(target);
    // O_NONBLOCK: a FIFO planted in the home must not hang the worker on open.
    const fd = this.openInside(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK, target, 'not-a-file');
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new HomePathError(`${target} is not a regular file`, 'not-a-file');
      this.assertOwnerMayRead(stat, target);
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, stat.size - offset)));
      let filled = 0;
      while (filled < buffer.length) {
        const n = readSync(fd, buffer, filled, buffer.length - filled, offset + filled);
        if (n === 0) break;
        filled += n;
      }
      const encoding = options.encoding ?? 'utf8';
      const end = offset + filled;
      return {
        path: this.relative(real),
        content: buffer.subarray(0, filled).toString(encoding),
        encoding,
        offset,
        bytes: filled,
        size: stat.size,
        nextOffset: end < stat.size ? end : undefined,
      };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Writes the whole file: creates missing parents (0755), writes a temporary file next to it and renames it
   * over the old one, so readers see the old or the new content, never half. A symlink at the name is replaced,
   * not followed. Keeps an existing file's mode unless `mode` is given (new files 0644).
   */
  write(target: string, content: string | Uint8Array, options: { mode?: number } = {}): HomeWriteResult {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    if (data.length > this.maxWriteBytes) {
      throw new HomePathError(`${data.length} bytes is more than the ${this.maxWriteBytes} a write may hold`, 'too-large');
    }
    const lexical = this.lexical(target);
    const name = path.basename(lexical);
    if (lexical === this.homeDir || name === '') throw new HomePathError(`${target} is the home itself`, 'not-a-file');
    this.assertNotPrivate(lexical, this.homeDir, target);
    const dirFd = this.openParentCreating(path.dirname(lexical), target);
    try {
      const dir = `/proc/self/fd/${dirFd}`;
      const existing = lstatOrUndefined(path.join(dir, name));
      if (existing?.isDirectory()) throw new HomePathError(`${target} is a directory`, 'not-a-file');
      const mode = options.mode ?? (existing?.isFile() ? existing.mode & 0o7777 : 0o644);
      const temporary = path.join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
      const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        for (let written = 0; written < data.length;) written += writeSync(fd, data, written, data.length - written);
        fsyncSync(fd);
        this.giveToOwner(fd);
        fchmodSync(fd, mode & 0o777);
      } catch (error) {
        closeSync(fd);
        rmSync(temporary, { force: true });
        throw error;
      }
      closeSync(fd);
      try {
        renameSync(temporary, path.join(dir, name));
      } catch (error) {
        rmSync(temporary, { force: true });
        throw error;
      }
      return { path: this.relative(path.join(readlinkSync(dir), name)), bytes: data.length };
    } finally {
      closeSync(dirFd);
    }
  }

  private realHome(): string {
    try {
      return realpathSync(this.homeDir);
    } catch {
      throw new HomePathError(`the home ${this.homeDir} does not exist`, 'not-found');
    }
  }

  /** Absolute, normalised, and lexically inside the home (this alone catches `..` and foreign absolute paths). */
  private lexical(target: string): string {
    if (target.includes('\0')) throw new PathOutsideHomeError('a path may not contain NUL');
    const lexical = path.resolve(this.homeDir, target);
    if (!isInside(lexical, this.homeDir)) throw new PathOutsideHomeError(`${target} is outside the home ${this.homeDir}`);
    return lexical;
  }

  /** Opens `real` and checks where the descriptor really points: a component swapped for a symlink meanwhile shows here. */
  private openInside(real: string, flags: number, target: string, wrongType: 'not-a-file' | 'not-a-directory'): number {
    let fd: number;
    try {
      fd = openSync(real, flags);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new HomePathError(`${target} does not exist`, 'not-found');
      if (code === 'ENOTDIR') throw new HomePathError(`${target} is not a directory`, wrongType);
      if (code === 'EISDIR') throw new HomePathError(`${target} is a directory`, wrongType);
      if (code === 'ELOOP') throw new PathOutsideHomeError(`${target} changed into a symlink while being opened`);
      throw error;
    }
    this.assertDescriptorInside(fd, target);
    return fd;
  }

  private assertDescriptorInside(fd: number, target: string): void {
    const opened = readlinkSync(`/proc/self/fd/${fd}`);
    const home = this.realHome();
    if (!isInside(opened, home)) {
      closeSync(fd);
      throw new PathOutsideHomeError(`${target} leads outside the home (to ${opened})`);
    }
    try {
      this.assertNotPrivate(opened, home, target);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  private assertNotPrivate(real: string, home: string, target: string): void {
    for (const dir of this.privateDirs) {
      if (isInside(real, path.join(home, dir))) {
        throw new PathOutsideHomeError(`${target} is in ${dir}, the computer's own data (browser profiles), not the agent's`);
      }
    }
  }

  /** The parent directory, opened; its missing components are created one at a time below a checked descriptor. */
  private openParentCreating(lexicalParent: string, target: string): number {
    let existing = lexicalParent;
    const missing: string[] = [];
    while (!existsSync(existing)) {
      if (isSymlink(existing)) throw new PathOutsideHomeError(`${target} goes through a symlink that points nowhere`);
      missing.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
    const real = realpathSync(existing);
    if (!isInside(real, this.realHome())) throw new PathOutsideHomeError(`${target} leads outside the home (to ${real})`);
    let fd = this.openInside(real, DIRECTORY_FLAGS, target, 'not-a-directory');
    try {
      for (const part of missing) {
        const next = path.join(`/proc/self/fd/${fd}`, part);
        let created = false;
        try {
          mkdirSync(next, { mode: 0o755 });
          created = true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const child = this.openInside(next, DIRECTORY_FLAGS, target, 'not-a-directory');
        if (created) {
          this.giveToOwner(child);
          fchmodSync(child, 0o755);
        }
        closeSync(fd);
        fd = child;
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  }

  private giveToOwner(fd: number): void {
    if (this.owner && process.getuid?.() === 0) fchownSync(fd, this.owner.uid, this.owner.gid);
  }

  /** A hard link can bring a file the computer's user may not read into its home; the worker must not read it for it. */
  private assertOwnerMayRead(stat: Stats, target: string): void {
    const owner = this.owner;
    if (!owner) return;
    const bit = stat.uid === owner.uid ? 0o400 : stat.gid === owner.gid ? 0o040 : 0o004;
    if ((stat.mode & bit) === 0) throw new HomePathError(`${target} is not readable by the computer's user`, 'not-readable');
  }

  private relative(real: string): string {
    return path.relative(this.realHome(), real).split(path.sep).join('/') || '.';
  }
}

function isSymlink(file: string): boolean {
  return lstatOrUndefined(file)?.isSymbolicLink() ?? false;
}

function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
