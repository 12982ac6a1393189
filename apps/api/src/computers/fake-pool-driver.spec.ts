import { FakeHost, FakePoolDriver } from '../testing/fake-pool-driver.js';
import { testApiConfig } from '../testing/test-config.js';
import { describePoolDriverConformance } from './pool-driver.conformance.js';
import type { PoolDriver, WorkerBinding } from './pool-driver.js';

// The in-memory driver the lease and fencing suites use must behave as the real ones do.

const host = new FakeHost();
const workerOf = (binding: WorkerBinding) => host.workers.get(binding.owner);

describePoolDriverConformance('fake', {
  config: testApiConfig(),
  makeDriver: () => new FakePoolDriver(host),
  crash: (driver: PoolDriver) => (driver as FakePoolDriver).orphanAll(),
  kill: async (binding) => workerOf(binding)?.kill(),
  running: (binding) => workerOf(binding)?.alive ?? false,
});
