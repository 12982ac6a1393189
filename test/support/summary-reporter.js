// Prints one plain closing line, `tests: N passed, N failed, N skipped`, that any CI can read.
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    console.log(`tests: ${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests} skipped`);
  }
}
