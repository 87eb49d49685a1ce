/**
 * The throughput windows' load generator (bench/socketLoadClient.ts) reads HTTP/1.1 answers off
 * the socket itself: these tests hold it to what node:http sends, framed by Content-Length and by
 * chunks, in reads of any size, many answers in turn on each kept-alive socket, and to failing
 * loudly on a status other than 200.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSocketLoadClient, isRestSuccess, isRpcResult } from '../../bench/socketLoadClient.js'

let server: http.Server
let url: string
const seen: { method: string; url: string; auth: string | undefined; body: string }[] = []

/** a body of `n` bytes that says where each byte sits, so a lost or doubled piece shows */
const bodyOf = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join(''))

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (d: Buffer) => parts.push(d))
    req.on('end', () => {
      const body = Buffer.concat(parts).toString()
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body })
      const { size, chunked, status } = JSON.parse(body) as { size: number; chunked: boolean; status?: number }
      const out = bodyOf(size)
      res.statusCode = status ?? 200
      if (!chunked) {
        res.setHeader('content-length', out.length)
        res.end(out)
        return
      }
      // chunks of uneven sizes, each its own write (and so its own size line)
      let at = 0
      for (let k = 1; at < out.length; k++) {
        const piece = out.subarray(at, at + k * 997)
        res.write(piece)
        at += piece.length
      }
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('the socket load client', () => {
  it('reads answers framed by Content-Length and by chunks, small and large, many per socket', async () => {
    const client = createSocketLoadClient(url, 3)
    try {
      const cases = [0, 1, 15, 4096, 70_000, 1_300_000].flatMap((size) => [
        { size, chunked: false },
        { size, chunked: true },
      ])
      // more requests than sockets at once: each socket carries several answers in turn
      const answers = await Promise.all([...cases, ...cases].map((c) => client.post('/v1/x', JSON.stringify(c), { authorization: 'Bearer t' })))
      answers.forEach((a, k) => expect(a.equals(bodyOf(cases[k % cases.length]!.size))).toBe(true))
      expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/v1/x', auth: 'Bearer t' })
    } finally {
      client.close()
    }
  })

  it('posts to the root of a URL with no path, as a JSON-RPC endpoint is', async () => {
    const client = createSocketLoadClient(url, 1)
    try {
      await client.post('', JSON.stringify({ size: 3, chunked: false }))
      expect(seen.at(-1)?.url).toBe('/')
    } finally {
      client.close()
    }
  })

  it('fails on a status other than 200, with the answer in the error', async () => {
    const client = createSocketLoadClient(url, 1)
    try {
      await expect(client.post('/v1/x', JSON.stringify({ size: 5, chunked: true, status: 503 }))).rejects.toThrow(/HTTP 503: .+/)
      // the socket still carries the next answer
      expect((await client.post('/v1/x', JSON.stringify({ size: 2, chunked: false }))).length).toBe(2)
    } finally {
      client.close()
    }
  })

  it("tells success from failure by an answer's first bytes", () => {
    expect(isRestSuccess(Buffer.from('{"success":true,"data":{}}'))).toBe(true)
    expect(isRestSuccess(Buffer.from('{"success":false,"error":{}}'))).toBe(false)
    expect(isRpcResult(Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x1"}'))).toBe(true)
    expect(isRpcResult(Buffer.from('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}'))).toBe(false)
    expect(isRpcResult(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"error":"reverted"}}'))).toBe(true)
  })
})
