// Work nobody awaits (timers, listeners, batchers): a failure is logged and the work goes on
// at its next turn. No background task may end the process.
import type { Logger } from './log.ts';

/** Start `task` without awaiting it; a throw or a rejection is logged, never left unhandled. */
export function inBackground(log: Logger, what: string, task: () => Promise<unknown>): void {
  let running: Promise<unknown>;
  try {
    running = task();
  } catch (err) {
    log.error(`${what} failed`, { err });
    return;
  }
  running.catch((err) => log.error(`${what} failed`, { err }));
}

/** A last line of defence for the long-running commands: log what escaped, keep serving. */
export function keepRunningOnStrayErrors(log: Logger): void {
  process.on('unhandledRejection', (err) => log.error('unhandled rejection (kept running)', { err }));
}
