// Adds up Vitest JSON reports and prints the closing line CI reads: "N passed, N failed".
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
  // Files that failed to load count as failures too: their tests never ran.
  const brokenFiles = report.testResults.filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length;
  console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests + brokenFiles} failed, ${report.numPendingTests} skipped`);
  passed += report.numPassedTests;
  failed += report.numFailedTests + brokenFiles;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
}
if (process.argv.length <= 2) failed += 1;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
