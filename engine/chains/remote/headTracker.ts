/**
 * The head of an upstream chain as this process has seen it:
 *
 * - the highest block number read (any header), which decides how near the head a block is (its
 *   cached state and header expire within the reorg depth);
 * - the newest answer to `latest`, tracked for `headMaxAgeMs` so a request at `latest` within that
 *   age runs on it without asking upstream (0: never tracked);
 * - when the head was last seen at `latest`, a guess of where a `latest` run will be.
 */
import type { BlockHeaderInfo } from '../types.js'

/**
 * How long the head learned from the upstream counts as "the head" when guessing whether a run
 * at `latest` is warm: past this, a cold-looking call sends its access-list hint with the block.
 */
export const HEAD_FRESH_MS = 1_000

export class HeadTracker {
  private head = 0n
  private headSeenAt = 0
  /** the newest `latest` header seen, and when: the tracked head */
  private tracked: { header: BlockHeaderInfo; at: number } | undefined

  constructor(private readonly maxAgeMs: number) {}

  /** the highest block number seen */
  get number(): bigint {
    return this.head
  }

  /** how far block `n` is below the highest seen (negative above it) */
  depthOf(n: bigint): bigint {
    return this.head - n
  }

  /** a header read by number (or with a block): the head only ever rises by it */
  saw(n: bigint): void {
    if (n > this.head) this.head = n
  }

  /** the upstream's answer to `latest` */
  sawLatest(h: BlockHeaderInfo): void {
    if (h.number >= this.head) {
      this.head = h.number
      this.headSeenAt = Date.now()
    }
    // the newest answer to `latest` is the head, even a lower one (a dev chain reverted, a reorg)
    if (this.maxAgeMs > 0) this.tracked = { header: h, at: Date.now() }
  }

  /** the tracked head while within its age: a run at `latest` is at it without asking */
  latest(): BlockHeaderInfo | undefined {
    return this.tracked && Date.now() - this.tracked.at < this.maxAgeMs ? this.tracked.header : undefined
  }

  /** the highest head seen at `latest`, while it counts as the head (HEAD_FRESH_MS) */
  recent(): bigint | undefined {
    return Date.now() - this.headSeenAt < HEAD_FRESH_MS ? this.head : undefined
  }

  /** drops the tracked head (the next `latest` is asked); whether one was tracked */
  forget(): boolean {
    const had = this.tracked !== undefined
    this.tracked = undefined
    return had
  }
}
