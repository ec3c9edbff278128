/*
 * Text the CLI prints comes partly from the database: a last error is whatever a destination
 * answered, a key or a source whatever a sender chose. Written to a terminal as is, a control
 * character in it acts instead of showing: ESC sequences set the window title, clear the screen
 * or rewrite earlier lines (a forged "Replayed 0 rows"), and bidirectional overrides reorder what
 * is shown. So every control character is printed as an escape (`\x1b`, `\u009b`), which shows
 * what is there and does nothing.
 */

/**
 * C0 controls but the line feed, DEL, C1 controls, and the bidirectional marks, embeddings,
 * overrides and isolates.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw of the above: DEL, C1 and the bidirectional controls. */
const RAW_IN_JSON = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escaped = (character: string): string => {
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** Text for a terminal: every control character but the line feed shown as an escape. */
export function terminalText(text: string): string {
  return text.replace(CONTROL, escaped);
}

/**
 * JSON for a terminal: JSON.stringify escapes C0 controls itself, but writes DEL, C1 and the
 * bidirectional controls raw; they are escaped as `\u…` too, which parses to the same value.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    RAW_IN_JSON,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
