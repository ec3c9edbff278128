/** Longest error text written to a log line. */
const MAX_LOGGED_CHARS = 500;

/**
 * Error text for logs and `last_error`: the class name, the driver's error code when there is
 * one, and the message — never the error object itself, whose properties can hold a failed
 * statement's parameters (TypeORM's `QueryFailedError.parameters`: payloads).
 */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return truncate(String(error));
  const code = (error as { code?: unknown }).code ?? (error as { driverError?: { code?: unknown } }).driverError?.code;
  return truncate(`${error.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${error.message}`);
}

function truncate(text: string): string {
  return text.length <= MAX_LOGGED_CHARS ? text : `${text.slice(0, MAX_LOGGED_CHARS - 1)}…`;
}
