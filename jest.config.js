// One Jest run over every workspace's *.spec.ts and the cross-app suites in test/. ESM throughout
// (NestJS 12 is ESM-only): run through `npm run test:jest`, which adds --experimental-vm-modules.
import { createDefaultEsmPreset } from 'ts-jest';

const preset = createDefaultEsmPreset({ tsconfig: '<rootDir>/tsconfig.check.json' });

/** @type {import('jest').Config} */
export default {
  ...preset,
  rootDir: '.',
  testEnvironment: 'node',
  // Workspace packages resolve to their TypeScript sources, so tests never need a build.
  testEnvironmentOptions: { customExportConditions: ['@lazyboy/source', 'node', 'node-addons'] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: [
    '<rootDir>/apps/*/src/**/*.spec.ts',
    '<rootDir>/apps/web/server/**/*.spec.ts',
    '<rootDir>/apps/web/lib/**/*.spec.ts',
    '<rootDir>/libs/*/src/**/*.spec.ts',
    '<rootDir>/test/**/*.spec.ts',
  ],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.next/'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60_000,
  // Two cores: more workers only queue behind Chromium and Postgres.
  maxWorkers: 2,
};
