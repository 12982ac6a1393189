import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defineTool, type ToolDefinition } from '@lazyboy/agent';
import { z } from 'zod';

const MAX_READ_CHARS = 60_000;

/** read_file / write_file / list_files, with paths relative to the working directory. */
export function fileTools(cwd: string): ToolDefinition[] {
  const resolve = (p: string) => path.resolve(cwd, p);
  return [
    defineTool({
      name: 'read_file',
      kind: 'read',
      description: 'Read a text file (relative paths start at the working directory). Long files come in pages: use offset.',
      schema: z.object({ path: z.string().min(1), offset: z.number().int().min(0).optional() }),
      execute: async ({ path: file, offset = 0 }) => {
        const text = await readFile(resolve(file), 'utf8');
        const page = text.slice(offset, offset + MAX_READ_CHARS);
        const more =
          offset + MAX_READ_CHARS < text.length
            ? `\n[… ${text.length - offset - MAX_READ_CHARS} more characters: read again with offset ${offset + MAX_READ_CHARS}]`
            : '';
        return { content: page + more };
      },
    }),
    defineTool({
      name: 'write_file',
      kind: 'write',
      description: 'Write a text file, replacing it if it exists (parent folders are created).',
      schema: z.object({ path: z.string().min(1), content: z.string() }),
      execute: async ({ path: file, content }) => {
        const target = resolve(file);
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, content);
        return { content: `wrote ${content.length} characters to ${target}` };
      },
    }),
    defineTool({
      name: 'list_files',
      kind: 'read',
      description: 'List a folder (default: the working directory), folders marked with a trailing slash.',
      schema: z.object({ path: z.string().optional() }),
      execute: async ({ path: dir = '.' }) => {
        const target = resolve(dir);
        const entries = await readdir(target, { withFileTypes: true });
        const lines = await Promise.all(
          entries
            .sort((a, b) => a.name.localeCompare(b.name))
            .slice(0, 500)
            .map(async (e) =>
              e.isDirectory()
                ? `${e.name}/`
                : `${e.name} (${(await stat(path.join(target, e.name)).catch(() => ({ size: 0 }))).size} bytes)`,
            ),
        );
        return { content: lines.length ? `${target}:\n${lines.join('\n')}` : `${target} is empty` };
      },
    }),
  ];
}
