import { lstat, mkdir, open, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { refusalOutcome, type FileTransport, type TransportAnswer } from '@lazyboy/agent';
import type { FilesListResponse, FilesReadResponse, FilesWriteResponse } from '@lazyboy/contracts';

/** The filesystem errors the model can do something about, by the codes the worker reports them with. */
const REFUSALS: Record<string, string> = {
  ENOENT: 'FILE_NOT_FOUND',
  EISDIR: 'NOT_A_FILE',
  ENOTDIR: 'NOT_A_DIRECTORY',
  EACCES: 'FILE_NOT_READABLE',
  EPERM: 'FILE_NOT_READABLE',
};

/**
 * The CLI's transport of the shared file tools: the person's own machine, relative paths from the
 * working directory (absolute ones anywhere the CLI's user may go: unlike an agent's computer, there is
 * no home to stay inside). Offsets and sizes in bytes, as on a computer.
 */
export class LocalFiles implements FileTransport {
  constructor(private readonly cwd: string) {}

  async read(input: { path: string; offset?: number; length: number }): Promise<TransportAnswer<FilesReadResponse>> {
    const file = this.resolve(input.path);
    return this.attempt(input.path, async () => {
      const handle = await open(file, 'r');
      try {
        const { size } = await handle.stat();
        const offset = Math.min(input.offset ?? 0, size);
        const buffer = Buffer.alloc(Math.min(input.length, size - offset));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        const end = offset + wholeCharacters(buffer.subarray(0, bytesRead), offset + bytesRead < size);
        const content = buffer.subarray(0, end - offset).toString('utf8');
        return {
          path: this.shown(file),
          content,
          encoding: 'utf8' as const,
          offset,
          bytes: end - offset,
          size,
          ...(end < size ? { nextOffset: end } : {}),
        };
      } finally {
        await handle.close();
      }
    });
  }

  async write(input: { path: string; content: string }): Promise<TransportAnswer<FilesWriteResponse>> {
    const file = this.resolve(input.path);
    return this.attempt(input.path, async () => {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, input.content);
      return { path: this.shown(file), bytes: Buffer.byteLength(input.content) };
    });
  }

  async list(input: { path: string }): Promise<TransportAnswer<FilesListResponse>> {
    const dir = this.resolve(input.path);
    return this.attempt(input.path, async () => {
      const names = await readdir(dir);
      const entries = await Promise.all(
        names.map(async (name) => {
          const stats = await lstat(path.join(dir, name)).catch(() => undefined);
          const type = !stats
            ? ('other' as const)
            : stats.isDirectory()
              ? ('directory' as const)
              : stats.isSymbolicLink()
                ? ('symlink' as const)
                : stats.isFile()
                  ? ('file' as const)
                  : ('other' as const);
          return {
            name,
            path: this.shown(path.join(dir, name)),
            type,
            size: stats?.size ?? 0,
            modifiedAt: (stats?.mtime ?? new Date(0)).toISOString(),
          };
        }),
      );
      return { path: input.path, entries };
    });
  }

  private resolve(p: string): string {
    return path.resolve(this.cwd, p);
  }

  /** A path as the answers give it, like the worker's: relative to the working directory when inside it. */
  private shown(file: string): string {
    const relative = path.relative(this.cwd, file);
    return relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  }

  private async attempt<T>(shown: string, work: () => Promise<T>): Promise<TransportAnswer<T>> {
    try {
      return { ok: true, value: await work() };
    } catch (error) {
      const code = REFUSALS[(error as NodeJS.ErrnoException).code ?? ''];
      if (!code) throw error;
      return { ok: false, outcome: refusalOutcome(code, `${shown}: ${(error as Error).message}`) };
    }
  }
}

/** How many bytes of `buffer` end on a whole UTF-8 character (a page must not split one). */
function wholeCharacters(buffer: Buffer, more: boolean): number {
  if (!more) return buffer.length;
  // Back to the start of the last character; keep it only if all its bytes are here.
  let start = buffer.length - 1;
  while (start > 0 && start > buffer.length - 4 && (buffer[start]! & 0xc0) === 0x80) start--;
  const lead = buffer[start] ?? 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + length <= buffer.length ? buffer.length : start;
}
