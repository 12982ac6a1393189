// The test kit every suite imports its helpers from: people calling the API, waiting, what scripted
// models read. Harnesses (test/service, test/web, apps/api/src/testing's test app) build on it.
export * from './people.js';
export * from './waits.js';
export * from './model-requests.js';
