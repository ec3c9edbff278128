// Adds up Vitest JSON reports and prints the closing line CI reads: "N passed, N failed".
// A failure outside a test (a file that did not load, a failing beforeAll/afterAll hook, a run
// that did not finish) counts as a failed test: the line must never say 0 failed when anything
// failed.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    console.log(`${file}: no report (the run did not finish)`);
    failed += 1;
    continue;
  }
  // A file marked failed without a failed test failed in a hook or while loading.
  const failedOutsideTests = report.testResults.filter((r) => r.status === 'failed' && !r.assertionResults.some((a) => a.status === 'failed')).length;
  let fileFailed = report.numFailedTests + failedOutsideTests;
  // Vitest said the run failed, and nothing above explains it: count it anyway.
  if (report.success === false && fileFailed === 0) fileFailed = 1;
  const fileSkipped = report.numPendingTests + (report.numTodoTests ?? 0);
  console.log(`${file}: ${report.numPassedTests} passed, ${fileFailed} failed, ${fileSkipped} skipped`);
  passed += report.numPassedTests;
  failed += fileFailed;
  skipped += fileSkipped;
}
if (process.argv.length <= 2) failed += 1;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
