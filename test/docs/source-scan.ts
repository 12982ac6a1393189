import { readdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '@lazyboy/localstack';

// What the docs specs that read the code for a rule share: which files they read, and the code without its
// comments (a comment may name a route or describe a write; only code can make one).

/** Never the repository's own code: installed, built or generated. */
const NOT_SOURCE = ['node_modules', 'dist', '.next', 'generated'];

export interface ScanOptions {
  /** Directory names skipped besides NOT_SOURCE (e.g. `testing`), or paths relative to the repository. */
  skip?: string[];
  /** Which files of the walk to keep (default: .ts/.tsx that are not specs). */
  keep?: (relative: string) => boolean;
}

const isCode = (file: string) => /\.tsx?$/.test(file) && !/\.spec\.tsx?$/.test(file);

/** Files under `roots` (relative to the repository), as relative paths. */
export function sourceFiles(roots: string[], { skip = [], keep = isCode }: ScanOptions = {}): string[] {
  const skipped = new Set([...NOT_SOURCE, ...skip]);
  const walk = (dir: string): string[] =>
    readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) return skipped.has(entry.name) || skipped.has(relative) ? [] : walk(relative);
      return keep(relative) ? [relative] : [];
    });
  return roots.flatMap(walk);
}

export function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}
