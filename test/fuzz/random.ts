// A small seeded random source: case i of seed s is the same case on every run (mulberry32).

export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The random source of one case: a function of the run's seed and the case number only. */
  static forCase(seed: number, index: number): Random {
    let h = (seed ^ 0x9e3779b9) >>> 0;
    h = Math.imul(h ^ (index + 0x85ebca6b), 0xc2b2ae35) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x27d4eb2d) >>> 0;
    return new Random(h ^ (h >>> 15));
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A whole number in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }

  /** Some of xs (each kept with probability p), in order. */
  some<T>(xs: readonly T[], p: number): T[] {
    return xs.filter(() => this.chance(p));
  }
}
