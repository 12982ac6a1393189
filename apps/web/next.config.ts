import type { NextConfig } from 'next';

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Monorepo root: lets Next trace files of the workspace packages into the build.
  outputFileTracingRoot: new URL('../..', import.meta.url).pathname,
};

export default config;
