// Reconnect delays for the native port: 500 ms, doubling, capped at 30 s, reset once the relay
// reports that it reached the service.

/** Backoff hands out the delay before each reconnect attempt. */
export class Backoff {
  constructor({ initialMs = 500, maxMs = 30_000 } = {}) {
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.reset();
  }

  /** next returns the delay for the coming attempt and doubles the one after it. */
  next() {
    const delay = this.nextMs;
    this.nextMs = Math.min(this.nextMs * 2, this.maxMs);
    this.attempts++;
    return delay;
  }

  /** reset starts the schedule over at initialMs. */
  reset() {
    this.nextMs = this.initialMs;
    this.attempts = 0;
  }
}
