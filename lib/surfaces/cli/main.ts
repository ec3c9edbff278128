#!/usr/bin/env node
import 'reflect-metadata';
import { runCli } from './run-cli.js';

/*
 * The `queuebox` executable (package.json "bin"). The exit code is set, never forced with
 * process.exit: stdout drains first, even into a pipe. No top-level await, like the rest of the package.
 */
// A reader that went away (`queuebox schema | head`) ends the output, not the process with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

void runCli(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(`${text}\n`),
    stderr: (text) => process.stderr.write(`${text}\n`),
  },
  process.env,
).then((code) => {
  process.exitCode = code;
});
