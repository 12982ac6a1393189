import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * `worker` is no longer started by `up` (the API starts one per computer); it stays a known name so that a
 * stack.json written by an older version still parses and its worker is stopped as a leftover.
 */
export const componentNames = ['postgres', 'redis', 'api', 'worker', 'web'] as const;
export type ComponentName = (typeof componentNames)[number];

const portsSchema = z.object({
  postgres: z.number().int(),
  redis: z.number().int(),
  api: z.number().int(),
  web: z.number().int(),
});

const stateSchema = z.object({
  supervisorPid: z.number().int().positive(),
  startedAt: z.string(),
  ports: portsSchema,
  webHost: z.string(),
  /** Who the first admin is (`lazyboy vault rotate-key` signs in as them to re-seal); absent in older files. */
  adminEmail: z.string().optional(),
  /** Process-group leaders of the running components (each runs in its own group). */
  components: z.array(z.object({ name: z.enum(componentNames), pid: z.number().int().positive() })),
});
export type StackState = z.infer<typeof stateSchema>;
export type StackPorts = StackState['ports'];

/** stack.json: what `up` is running now, so that `status`, `down` and the next `up` can find it. */
export function readStackState(file: string): StackState | undefined {
  return readJson(file, stateSchema);
}

export function writeStackState(file: string, state: StackState): void {
  writeJson(file, state);
}

export function readLastPorts(file: string): StackPorts | undefined {
  return readJson(file, portsSchema);
}

export function writeLastPorts(file: string, ports: StackPorts): void {
  writeJson(file, ports);
}

function readJson<T>(file: string, schema: z.ZodType<T>): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // unreadable: treated as absent, rewritten by the next start
  }
}

function writeJson(file: string, value: unknown): void {
  // Write-then-rename: a reader never sees half a file.
  writeFileSync(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

export function clearStackState(file: string): void {
  rmSync(file, { force: true });
}
