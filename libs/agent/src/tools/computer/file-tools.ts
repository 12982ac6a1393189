import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../tool.js';
import type { ComputerPlace, FileTransport } from './transport.js';

export const LIST_FILES_TOOL = 'list_files';
export const READ_FILE_TOOL = 'read_file';
export const WRITE_FILE_TOOL = 'write_file';

/** Bytes per read_file page. */
export const READ_PAGE_BYTES = 60_000;
const MAX_LISTED = 500;

const readFileSchema = z.object({ path: z.string().min(1), offset: z.number().int().min(0).optional() });
const writeFileSchema = z.object({ path: z.string().min(1), content: z.string() });
const listFilesSchema = z.object({ path: z.string().min(1).optional() });

/** read_file / write_file / list_files, relative paths starting at the place's home; offsets in bytes. */
export function fileTools(transport: FileTransport, place: ComputerPlace): ToolDefinition[] {
  return [
    defineTool({
      name: READ_FILE_TOOL,
      kind: 'read',
      description: `Read a text file (relative paths start at ${place.home}). Long files come in pages: use offset.`,
      schema: readFileSchema,
      execute: async ({ path, offset }, ctx) => {
        const answer = await transport.read({ path, length: READ_PAGE_BYTES, ...(offset === undefined ? {} : { offset }) }, ctx);
        if (!answer.ok) return answer.outcome;
        const read = answer.value;
        const more =
          read.nextOffset === undefined
            ? ''
            : `\n[… ${read.size - read.nextOffset} more bytes: read again with offset ${read.nextOffset}]`;
        return { content: (read.content === '' ? '(empty)' : read.content) + more };
      },
    }),
    defineTool({
      name: WRITE_FILE_TOOL,
      kind: 'write',
      description: `Write a text file (relative paths start at ${place.home}), replacing it if it exists (parent folders are created).`,
      schema: writeFileSchema,
      execute: async ({ path, content }, ctx) => {
        const answer = await transport.write({ path, content }, ctx);
        if (!answer.ok) return answer.outcome;
        return { content: `wrote ${answer.value.bytes} bytes to ${answer.value.path}` };
      },
    }),
    defineTool({
      name: LIST_FILES_TOOL,
      kind: 'read',
      description: `List a folder (default: ${place.home}), folders marked with a trailing slash.`,
      schema: listFilesSchema,
      execute: async ({ path = '.' }, ctx) => {
        const answer = await transport.list({ path }, ctx);
        if (!answer.ok) return answer.outcome;
        const entries = [...answer.value.entries].sort((a, b) => a.name.localeCompare(b.name));
        const lines = entries
          .slice(0, MAX_LISTED)
          .map((e) =>
            e.type === 'directory' ? `${e.name}/` : e.type === 'symlink' ? `${e.name}@` : `${e.name} (${e.size} bytes)`,
          );
        if (entries.length > MAX_LISTED) lines.push(`[… ${entries.length - MAX_LISTED} more]`);
        return { content: lines.length ? `${answer.value.path}:\n${lines.join('\n')}` : `${answer.value.path} is empty` };
      },
    }),
  ];
}
