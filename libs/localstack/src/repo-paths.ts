import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root: this file sits two levels below it in both src/ and dist/. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
