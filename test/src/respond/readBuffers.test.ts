/**
 * The buffers spilled answers are read into go back for later answers only once the HTTP response
 * is closed, only as many as an answer may hold (a long answer's other chunks are the GC's), and
 * never while a read into one is under way. A real Node server gives the responses.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { leaseReadBuffers, READ_CHUNK_BYTES, spareReadBuffers, type ReadBufferLease } from '../../../src/respond/readBuffers.js'

/** what a request's handler does with its response: it must end it */
let handle: (res: ServerResponse) => void = (res) => res.end()
const server = createServer((_req, res) => handle(res))
let url = ''

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** one request whose handler takes `chunks` buffers; answers the lease and the buffers once the response closed */
async function answer(chunks: number, before?: (lease: ReadBufferLease) => void): Promise<{ lease: ReadBufferLease; taken: Buffer[] }> {
  let lease!: ReadBufferLease
  const taken: Buffer[] = []
  const closed = new Promise<void>((resolve) => {
    handle = (res) => {
      res.once('close', () => setImmediate(resolve))
      lease = leaseReadBuffers(res)
      for (let i = 0; i < chunks; i++) taken.push(lease.take())
      before?.(lease)
      res.end('ok')
    }
  })
  expect(await (await fetch(url)).text()).toBe('ok')
  await closed
  return { lease, taken }
}

describe('read buffers of streamed answers', () => {
  it('go back once the response closed, at most 4 of an answer, and are taken again by the next', async () => {
    const start = spareReadBuffers()
    const first = await answer(10, (lease) => {
      for (let i = 0; i < 10; i++) lease.read()
      // nothing goes back while the response is open
      expect(spareReadBuffers()).toBe(start)
    })
    expect(first.taken.every((b) => b.length === READ_CHUNK_BYTES)).toBe(true)
    expect(spareReadBuffers()).toBe(start + 4)
    const second = await answer(2, (lease) => {
      lease.read()
      lease.read()
    })
    // the second answer's buffers are two of the first's four
    expect(second.taken.filter((b) => first.taken.slice(0, 4).includes(b))).toHaveLength(2)
    expect(spareReadBuffers()).toBe(start + 4)
  })

  it('wait for a read still under way when the response closes', async () => {
    // the response closed with its read pending: the buffer is still being written into
    const { lease } = await answer(1)
    const held = spareReadBuffers()
    lease.read()
    expect(spareReadBuffers()).toBe(held + 1)
    // and a read started after the close gets a buffer of its own, not one of the spares
    const late = lease.take()
    lease.read()
    expect(late.length).toBe(READ_CHUNK_BYTES)
    expect(spareReadBuffers()).toBe(held + 1)
  })

  it('without a response to watch: fresh buffers, none kept', () => {
    const start = spareReadBuffers()
    const lease = leaseReadBuffers(undefined)
    const a = lease.take()
    lease.read()
    expect(a.length).toBe(READ_CHUNK_BYTES)
    expect(spareReadBuffers()).toBe(start)
  })
})
