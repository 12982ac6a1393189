import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '@lazyboy/localstack';
import { codeOf, sourceFiles } from './source-scan.js';

// "The run transition table is the only place statuses change": Run.status is written only by the runs
// module's repositories, and each write there names its move of RUN_MOVES (apps/api/src/runs/run-transitions.ts),
// which is checked against libs/contracts' RUN_TRANSITIONS. This reads the code for every write of the column,
// in SQL (UPDATE "Run" SET status = …, INSERT INTO "Run" (…, status, …)) and through Prisma
// (.run.update/updateMany/create/createMany/upsert with a status in its data).

const WRITERS = new Set([
  path.join('apps', 'api', 'src', 'runs', 'runs.repository.ts'),
  path.join('apps', 'api', 'src', 'runs', 'run-creation.repository.ts'),
]);
const SOURCE_ROOTS = ['apps', 'libs'];

/** The text of the call whose opening parenthesis is at `open`, up to its closing one. */
function callArguments(code: string, open: number): string {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '(') depth++;
    else if (code[i] === ')' && --depth === 0) return code.slice(open + 1, i);
  }
  return code.slice(open + 1);
}

export interface StatusWrite {
  /** How the write was found. */
  via: 'sql update' | 'sql insert' | 'prisma';
  /** The value written, as code. */
  value: string;
}

/** Every write of Run.status in a file's code. */
export function runStatusWrites(source: string): StatusWrite[] {
  const code = codeOf(source);
  const writes: StatusWrite[] = [];
  for (const match of code.matchAll(/\bUPDATE\s+"?Run"?\s+SET\b([\s\S]*?)(?:\bWHERE\b|\bFROM\b|\bRETURNING\b|`)/gi)) {
    for (const set of (match[1] ?? '').matchAll(/(?:^|[\s,"])status"?\s*=\s*([^,\n]+)/gi))
      writes.push({ via: 'sql update', value: (set[1] ?? '').trim() });
  }
  for (const match of code.matchAll(/\bINSERT\s+INTO\s+"?Run"?\s*\(([^)]*)\)([\s\S]*?)(?:\bRETURNING\b|`)/gi)) {
    if (/(^|[\s,"])status"?\s*(,|$)/i.test(match[1] ?? '')) writes.push({ via: 'sql insert', value: (match[2] ?? '').trim() });
  }
  for (const match of code.matchAll(
    /\.run\.(?:update|updateMany|updateManyAndReturn|upsert|create|createMany|createManyAndReturn)\s*\(/g,
  )) {
    const args = callArguments(code, (match.index ?? 0) + match[0].length - 1);
    const data = args.search(/\b(?:data|create|update)\s*:/);
    if (data < 0) continue;
    for (const field of args.slice(data).matchAll(/\bstatus\s*:\s*([^,}\n]+)/g))
      writes.push({ via: 'prisma', value: (field[1] ?? '').trim() });
  }
  return writes;
}

const STATUS_WORDS = /'(queued|leased|running|waiting_takeover|waiting_input|completed|blocked|failed|cancelled)'/;

/** Whether a write names its move of RUN_MOVES (a `RunTransition` passed in as `move` counts). */
export function namesItsMove(write: StatusWrite): boolean {
  if (write.via === 'sql insert') return write.value.includes('${RUN_MOVES.') && !STATUS_WORDS.test(write.value);
  if (write.via === 'sql update') return /^\$\{RUN_MOVES\.[^}]+\.to\}/.test(write.value);
  return /^(RUN_MOVES\.\S+\.to|move\.to)$/.test(write.value);
}

describe('Run.status', () => {
  it('is found however it is written, and a write that names no move is told apart', () => {
    const violations = [
      "await this.prisma.run.updateMany({ where: { id }, data: { status: 'cancelled', finishedAt: now } });",
      'await tx.run.create({ data: { agentId, status: RunStatus.queued } });',
      "await this.prisma.run.update({ where: { id: runId }, data: {\n  busyStep: null,\n  status: 'failed',\n} });",
      'await prisma.$executeRaw`UPDATE "Run" SET "updatedAt" = now(), status = \'blocked\' WHERE id = ${id}::uuid`;',
      'await prisma.$executeRawUnsafe(`update "Run" set status = $1 where id = $2`, s, id);',
      'await prisma.$executeRaw`INSERT INTO "Run" (id, "agentId", status) VALUES (${id}::uuid, ${agentId}::uuid, \'queued\') RETURNING *`;',
    ];
    for (const code of violations) {
      const writes = runStatusWrites(code);
      expect([code, writes.length > 0 && writes.every((w) => !namesItsMove(w))]).toEqual([code, true]);
    }
    const fine = [
      "await this.prisma.run.findFirst({ where: { agentId, status: 'waiting_input' } });",
      "await tx.run.updateMany({ where: { id, status: { in: ['queued'] } }, data: { status: RUN_MOVES.cancelUnheld.to } });",
      'await this.prisma.$executeRaw`UPDATE "Run" SET status = ${RUN_MOVES.finish[s].to}::"RunStatus" WHERE id = ${id}`;',
      'await this.prisma.$executeRaw`UPDATE "Run" SET "updatedAt" = now() WHERE status = \'running\'`;',
      "// await prisma.run.update({ data: { status: 'failed' } })",
    ];
    for (const code of fine) expect([code, runStatusWrites(code).every(namesItsMove)]).toEqual([code, true]);
  });

  it('is written only by the runs module’s repositories, each write naming its move of RUN_MOVES', () => {
    // testing/: the factories that build rows in any status for a spec.
    const files = sourceFiles(SOURCE_ROOTS, { skip: ['testing'] });
    expect(files.length).toBeGreaterThan(100);
    const writes = files.flatMap((file) =>
      runStatusWrites(readFileSync(path.join(repoRoot, file), 'utf8')).map((write) => ({ file, ...write })),
    );
    const offenders = writes.filter((w) => !WRITERS.has(w.file) || !namesItsMove(w));
    expect(offenders).toEqual([]);
    // The writers' writes are found (the scan sees them), so an empty list of offenders means something.
    expect(new Set(writes.map((w) => w.file))).toEqual(WRITERS);
    expect(writes.length).toBeGreaterThanOrEqual(9);
  });
});
