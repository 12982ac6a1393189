// The parts of the contracts for Node processes only (they use node:net and node:crypto), kept out of the
// main entry point, which the web app's browser bundle reads too.
export * from './forwarded-client.js';
export * from './trusted-proxies.js';
