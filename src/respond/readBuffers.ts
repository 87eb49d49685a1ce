/**
 * The buffers a spilled answer's file is read into, used again by later answers once the socket
 * is done with them.
 *
 * Why: a fresh buffer per chunk is memory outside V8's heap, and V8 counts what was allocated
 * there since its last full collection towards the next one. The main thread's heap is small
 * (about 25 MB), so streaming struct logs of ~0.6 MB each set off a mark-compact every ten
 * answers or so (`--trace-gc`: 70 in 900 answers, each freeing under 1 MB), about a tenth of the
 * service's CPU per struct log.
 *
 * A buffer handed to the socket may be read by it until the write completes, so an answer's
 * buffers go back only when its HTTP response has closed (after 'finish', every byte was handed
 * to the operating system; on an abort, the socket is gone). Held that long, they must be few: an
 * answer's first PER_ANSWER chunks come from here, the rest of a long answer (a million-step log
 * is 300 of them) are fresh buffers the GC takes as they are sent. Without a response
 * to watch (an answer built outside a Node server, e.g. `app.request` in tests) every chunk is a
 * fresh buffer.
 *
 * @example
 * const lease = leaseReadBuffers(c.env.outgoing)
 * const buf = lease.take(n) // …read into it, enqueue it
 */
import type { ServerResponse } from 'node:http'

/** the size of every chunk read from a spilled file (the last one of a file is a view of one) */
export const READ_CHUNK_BYTES = 1 << 20
/** buffers kept for later answers */
const MAX_SPARE = 8
/** chunks of one answer that come from (and go back to) the spare buffers: at most 4 MiB held per answer */
const PER_ANSWER = 4

const spare: Buffer[] = []

export interface ReadBufferLease {
  /** a buffer of READ_CHUNK_BYTES (this answer's until its response closes); call `read()` when the read into it ended */
  take(): Buffer
  /** a read into a taken buffer ended (it may have been the last thing holding the buffers) */
  read(): void
}

/** buffers for one answer, given back when `response` closes (none given back without one) */
export function leaseReadBuffers(response: ServerResponse | undefined): ReadBufferLease {
  if (!response) return { take: () => Buffer.allocUnsafe(READ_CHUNK_BYTES), read: () => {} }
  const taken: Buffer[] = []
  /** reads under way: a buffer the disk is still writing into goes back only once it is done */
  let reading = 0
  let closed = false
  const giveBack = () => {
    if (!closed || reading > 0) return
    for (const b of taken) if (spare.length < MAX_SPARE) spare.push(b)
    taken.length = 0
  }
  response.once('close', () => {
    closed = true
    giveBack()
  })
  return {
    take() {
      reading++
      // after the response closed a read may still start (the stream is cancelled a moment later): a fresh buffer
      if (closed || taken.length >= PER_ANSWER) return Buffer.allocUnsafe(READ_CHUNK_BYTES)
      const b = spare.pop() ?? Buffer.allocUnsafe(READ_CHUNK_BYTES)
      taken.push(b)
      return b
    },
    read() {
      reading--
      giveBack()
    },
  }
}

/** buffers waiting for an answer (for tests) */
export function spareReadBuffers(): number {
  return spare.length
}
