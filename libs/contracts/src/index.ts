export * from './config.js';
export * from './domain.js';
export * from './errors.js';
export * from './health.js';
export * from './model.js';
export * from './same-origin.js';
export * from './worker-api.js';
export * from './api/index.js';
