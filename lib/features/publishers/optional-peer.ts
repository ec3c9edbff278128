import { createRequire } from 'node:module';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { peerPackageBroken, peerPackageMissing } from '../../shared/queuebox.messages.js';

const requirePeer = createRequire(import.meta.url);

/**
 * Loads the client package of a broker destination (an optional peer) synchronously, at start-up:
 * users without such a destination need not install it, and QueueBox has no top-level await.
 * Throws `InvalidQueueBoxOptionsError` at `destinations.<name>.type` saying what to install.
 */
export function loadPeerPackages<T extends unknown[]>(
  destination: { name: string; type: string },
  packages: { [K in keyof T]: string },
): T {
  const path = `destinations.${destination.name}.type`;
  const missing = packages.filter((name) => !isInstalled(name));
  if (missing.length > 0)
    throw new InvalidQueueBoxOptionsError(path, peerPackageMissing(destination.name, destination.type, missing));
  return packages.map((name) => {
    try {
      return requirePeer(name) as unknown;
    } catch (error) {
      throw new InvalidQueueBoxOptionsError(
        path,
        peerPackageBroken(
          destination.name,
          destination.type,
          name,
          error instanceof Error ? error.message.split('\n')[0] : String(error),
        ),
      );
    }
  }) as T;
}

/** Whether the package itself resolves; a broken dependency of an installed package is not "missing". */
function isInstalled(name: string): boolean {
  try {
    requirePeer.resolve(name);
    return true;
  } catch {
    return false;
  }
}
