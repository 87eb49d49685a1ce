/**
 * The JSON body of an answer, streamed when the engine spilled part of it to a file.
 *
 * A long struct log comes back from the engine as a handle `{"$spilledJson": path}` in place of
 * its `structLogs` array (engine/platform/spill/spillFiles.ts); the file holds that array's JSON exactly as
 * `JSON.stringify` prints it. The answer is printed as usual, then cut at each handle, and sent as
 * the text before it, the file's bytes, the text after: the bytes are those of the same answer
 * built in memory. The size is known before the first byte leaves, so the answer says
 * `Content-Length`: a transfer that breaks off (a read error, the process stopping) can never pass
 * for a complete answer. Nothing fails after the file is complete except reading it back (every
 * engine error happens before the handle exists and is an ordinary error answer).
 *
 * The file is opened and unlinked when the answer is built (claimSpilled): the descriptor is all
 * that is left, closed when the body is sent, when the client goes away, or when nobody ever
 * reads the body (a request already answered by its timeout: released at once here; otherwise a
 * finalization hook closes it).
 *
 * @example
 * return jsonAnswer(c, { success: true, data })
 */
import { close, read } from 'node:fs'
import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { SPILL_KEY } from '../../engine/types.js'
import { claimSpilled } from '../../host/spill/spillOwnership.js'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'
import { clientSignal } from '../clientSignal.js'
import { leaseReadBuffers, READ_CHUNK_BYTES, type ReadBufferLease } from './readBuffers.js'

interface SpilledPart {
  fd: number
  bytes: number
}
type Part = Buffer | SpilledPart

/** one handle as JSON.stringify prints it; group 1: the path as a JSON string literal */
const HANDLE = new RegExp(`\\{"${SPILL_KEY.replace(/\$/g, '\\$')}":("(?:[^"\\\\]|\\\\.)*")\\}`, 'g')

export function jsonAnswer(c: Context<HttpEnv>, value: unknown, status: ContentfulStatusCode = 200): Response {
  return jsonTextAnswer(c, JSON.stringify(value), status)
}

/** the same for an answer already printed (a JSON-RPC answer, whose ids are written as sent) */
export function jsonTextAnswer(c: Context<HttpEnv>, text: string, status: ContentfulStatusCode = 200): Response {
  const parts = splitAtHandles(text)
  if (!parts) return c.body(text, status, { 'Content-Type': 'application/json' })
  if (c.finalized || clientSignal(c).aborted) {
    // answered already (the request timed out) or the client left: nobody will read this body
    closeParts(parts)
    return c.res
  }
  let length = 0
  for (const p of parts) length += Buffer.isBuffer(p) ? p.length : p.bytes
  return c.body(bodyStream(parts, leaseReadBuffers(c.env?.outgoing)), status, { 'Content-Type': 'application/json', 'Content-Length': String(length) })
}

/** frees the spilled files an answer names without sending it (a JSON-RPC notification) */
export function releaseSpilled(value: unknown): void {
  const text = JSON.stringify(value)
  if (text === undefined) return
  const parts = splitAtHandles(text)
  if (parts) closeParts(parts)
}

/** the text cut at the handles of our spilled files, each claimed; undefined: none */
function splitAtHandles(text: string): Part[] | undefined {
  if (!text.includes(SPILL_KEY)) return undefined
  const parts: Part[] = []
  let from = 0
  try {
    for (const m of text.matchAll(HANDLE)) {
      const claimed = claimSpilled(JSON.parse(m[1]!) as string)
      // not a file of ours: an object that only looks like a handle (user data) stays as it is
      if (!claimed) continue
      parts.push(Buffer.from(text.slice(from, m.index), 'utf8'), claimed)
      from = m.index + m[0].length
    }
  } catch (e) {
    closeParts(parts)
    // a file of ours that is gone (its worker was replaced meanwhile) or unreadable
    throw new ApiError(
      'INTERNAL_ERROR',
      `the trace result is no longer available (${(e as NodeJS.ErrnoException).code ?? 'read failed'})`,
      undefined,
      'retry the request',
    )
  }
  if (parts.length === 0) return undefined
  parts.push(Buffer.from(text.slice(from), 'utf8'))
  return parts
}

function closeParts(parts: Part[]): void {
  for (const p of parts) if (!Buffer.isBuffer(p)) close(p.fd, () => {})
}

/** descriptors of bodies dropped unread (no pull, no cancel): closed when the stream is collected */
const unread = new FinalizationRegistry<number[]>((fds) => {
  for (const fd of fds) close(fd, () => {})
})

function readAt(fd: number, buf: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, 0, length, position, (err, n) => (err ? reject(err) : resolve(n))))
}

function bodyStream(parts: Part[], buffers: ReadBufferLease): ReadableStream<Uint8Array> {
  const files = parts.filter((p): p is SpilledPart => !Buffer.isBuffer(p))
  const token = {}
  let done = false
  const finish = () => {
    if (done) return
    done = true
    unread.unregister(token)
    closeParts(files)
  }
  let i = 0
  let offset = 0
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          while (i < parts.length) {
            const p = parts[i]!
            if (Buffer.isBuffer(p)) {
              i++
              if (p.length > 0) return controller.enqueue(p)
              continue
            }
            if (offset >= p.bytes) {
              i++
              offset = 0
              continue
            }
            const buf = buffers.take()
            let n: number
            try {
              n = await readAt(p.fd, buf, Math.min(READ_CHUNK_BYTES, p.bytes - offset), offset)
            } finally {
              buffers.read()
            }
            if (n <= 0) throw new Error('a spilled result ended before its size')
            offset += n
            return controller.enqueue(n === buf.length ? buf : buf.subarray(0, n))
          }
          finish()
          controller.close()
        } catch (e) {
          // the connection is cut short of its Content-Length: the client sees a failed transfer
          finish()
          controller.error(e)
        }
      },
      cancel() {
        finish()
      },
    },
    // a chunk or two read ahead: the disk read overlaps the socket write
    { highWaterMark: 2 },
  )
  unread.register(
    stream,
    files.map((f) => f.fd),
    token,
  )
  return stream
}
