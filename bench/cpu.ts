// CPU time read from /proc: the whole machine's (every core, busy states only) and one
// process's, in ms. The benches divide them by what was served: CPU per tile, per side.
import { readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** ms the machine's cores spent busy (user, nice, system, irq, softirq, steal) since boot. */
export function machineBusyMs(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) * TICK_MS;
}

/** ms of CPU a process (all its threads) has used, user and system; 0 once it is gone. */
export function processMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}
