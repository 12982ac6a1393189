import path from 'node:path';

/** Where the local stack keeps its state, all under one data directory. */
export interface StackLayout {
  dataDir: string;
  postgresDir: string;
  redisDir: string;
  logsDir: string;
  homesDir: string;
  secretsFile: string;
  stateFile: string;
  /** Ports of the last start, reused when free so that URLs stay stable. */
  portsFile: string;
}

export function stackLayout(dataDir: string): StackLayout {
  const root = path.resolve(dataDir);
  return {
    dataDir: root,
    postgresDir: path.join(root, 'postgres'),
    redisDir: path.join(root, 'redis'),
    logsDir: path.join(root, 'logs'),
    homesDir: path.join(root, 'homes'),
    secretsFile: path.join(root, 'secrets.json'),
    stateFile: path.join(root, 'stack.json'),
    portsFile: path.join(root, 'ports.json'),
  };
}

export function logFile(layout: StackLayout, component: string): string {
  return path.join(layout.logsDir, `${component}.log`);
}
