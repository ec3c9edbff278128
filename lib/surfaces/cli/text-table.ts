import { terminalText } from './terminal-text.js';

/** A plain text table: a header row and aligned columns, for the CLI's human output. */
export function textTable(
  headers: readonly string[],
  rows: readonly (readonly (string | number | null | undefined)[])[],
): string {
  const cells = rows.map((row) =>
    row.map((cell) => (cell === null || cell === undefined ? '-' : oneLine(String(cell)))),
  );
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

/** Longest cell: error texts can be long. */
const MAX_CELL = 80;

/** A cell on one line: whitespace runs as one space, other control characters as escapes (counted in the width). */
function oneLine(text: string): string {
  const flat = terminalText(text.replace(/\s+/g, ' '));
  return flat.length <= MAX_CELL ? flat : `${flat.slice(0, MAX_CELL - 1)}…`;
}
