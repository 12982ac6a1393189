import { groupAlive, isAlive } from '@lazyboy/localstack';
import { parseEnv, stackEnvSchema, vaultResealReportSchema, type VaultResealReport } from '@lazyboy/contracts';
import { stackLayout } from './stack-layout.js';
import { retireOldVaultKeys, rotateVaultKey } from './stack-secrets.js';
import { readStackState, type StackState } from './stack-state.js';

type Print = (line: string) => void;

/** How long the restarted API may take to answer again. */
const RESTART_TIMEOUT_MS = 90_000;

export interface ResealTarget {
  apiUrl: string;
  adminEmail: string;
  appToken: string;
  secretsFile: string;
  /** The old keys this re-seal makes unneeded (dropped from the secrets file once nothing needs them). */
  oldKeys: readonly string[];
}

/**
 * `lazyboy vault rotate-key`: a new vault key for the local stack, with no secret unreadable at any moment.
 * The secrets file gets the new key and keeps the old one among the old keys; a running API is restarted
 * (its supervisor starts it again with both); every stored secret is re-sealed under the new key; then the
 * old key is dropped. When LazyBoy is not running, the next `lazyboy up` does the re-seal.
 */
export async function rotateKey(env: Record<string, string | undefined>, print: Print = console.log): Promise<number> {
  const layout = stackLayout(parseEnv(stackEnvSchema, env));
  const state = readStackState(layout.stateFile);
  const api = state?.components.find((c) => c.name === 'api');
  const running = state !== undefined && isAlive(state.supervisorPid) && api !== undefined && groupAlive(api.pid);
  const rotated = rotateVaultKey(layout.secretsFile);
  print(`a new vault key is in ${layout.secretsFile}; the old one still opens secrets until they are re-sealed`);
  if (!running || !state.adminEmail) {
    print('LazyBoy is not running: the next `lazyboy up` re-seals every secret under the new key');
    return 0;
  }
  print('restarting the API with the new key…');
  process.kill(-api.pid, 'SIGTERM');
  const apiUrl = `http://127.0.0.1:${state.ports.api}`;
  await waitForRestart(layout.stateFile, api.pid, apiUrl);
  const report = await resealAndRetire(
    {
      apiUrl,
      adminEmail: state.adminEmail,
      appToken: rotated.appToken,
      secretsFile: layout.secretsFile,
      oldKeys: rotated.oldVaultKeys,
    },
    print,
  );
  return report.unreadable === 0 ? 0 : 1;
}

/** Re-seals everything under the API's current key and, when nothing is left under an old key, drops those keys. */
export async function resealAndRetire(target: ResealTarget, print: Print): Promise<VaultResealReport> {
  const login = await fetch(new URL('/api/auth/login', target.apiUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: target.adminEmail, password: target.appToken }),
  });
  const cookie = login.headers.getSetCookie()[0]?.split(';')[0];
  if (login.status !== 200 || !cookie) throw new Error(`signing in as ${target.adminEmail} to re-seal answered ${login.status}`);
  const res = await fetch(new URL('/api/admin/vault-key/reseal', target.apiUrl), { method: 'POST', headers: { cookie } });
  if (res.status !== 200) throw new Error(`the re-seal answered ${res.status}: ${await res.text()}`);
  const report = vaultResealReportSchema.parse(await res.json());
  print(`re-sealed ${report.resealed} secrets under the new vault key (${report.current} were already)`);
  if (report.unreadable > 0) {
    print(`${report.unreadable} secrets open with no key this stack has: the old keys stay in the secrets file`);
  } else {
    retireOldVaultKeys(target.secretsFile, target.oldKeys);
    print('the old vault key is no longer needed and was dropped');
  }
  return report;
}

/** Until the supervisor's new API process answers /readyz. */
async function waitForRestart(stateFile: string, oldPid: number, apiUrl: string): Promise<StackState> {
  const deadline = Date.now() + RESTART_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const state = readStackState(stateFile);
    const api = state?.components.find((c) => c.name === 'api');
    if (state && api && api.pid !== oldPid) {
      const ready = await fetch(new URL('/readyz', apiUrl), { signal: AbortSignal.timeout(2_000) }).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ready) return state;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error('the API did not come back after the restart: see its log, then run `lazyboy vault rotate-key` again');
}
