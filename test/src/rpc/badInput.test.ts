/**
 * The JSON-RPC endpoint under hostile input, on the devnet over real HTTP: a body nested 10,000
 * levels deep, numbers no float holds (`1e309`), ids of every JSON number form echoed byte for
 * byte, a near-miss token path masked in the logs — and a property test with a fixed seed that
 * sends nested, huge, non-finite and wrongly typed params to every method family the endpoint
 * answers: each is answered with a JSON-RPC error object of the right code, never -32603.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH } from '../../../src/normalize/jsonShape.js'
import { startRpcApp, type RpcApp } from './rpcApp.js'
import { mulberry32 } from '../../support/seededRandom.js'

let app: RpcApp
let txHash: string
let token: string
const to = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const from = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'

beforeAll(async () => {
  app = await startRpcApp({ env: { MAX_RPC_BATCH: '100' } })
  token = app.config.api.auth_token
  const block = await app.call<{ transactions: string[] }>('eth_getBlockByNumber', ['0x1', false])
  txHash = block.transactions[0]!
}, 60_000)
afterAll(async () => app?.close())

const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth)
const body = (id: string, method: string, params: string) => `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`

/** no internal error was logged: a -32603 is a bug with a stack in the log */
function noInternalErrorLogged() {
  expect(app.logs.filter((l) => l.msg === 'JSON-RPC method failed with an internal error' || l.msg === 'engine: unexpected error')).toEqual([])
}

describe('ids', () => {
  it('echoes every JSON number form byte for byte', async () => {
    const ids = ['123456789012345678901234567890', '9007199254740993', '0.30000000000000000000001', '1e400', '-0', '1E+2', '-1.5e-7', '0', '1.0', '7']
    for (const id of ids) {
      const { status, text } = await app.rpc(body(id, 'eth_chainId', '[]'))
      expect(status).toBe(200)
      expect(text).toBe(`{"jsonrpc":"2.0","id":${id},"result":"0x7a69"}`)
    }
  })

  it('echoes them in a batch, in errors and in invalid requests too', async () => {
    const text = `[${body('9007199254740993', 'eth_chainId', '[]')}, ${body('1e400', 'eth_nope', '[]')}, {"jsonrpc":"1.0","id":-0,"method":"eth_chainId"}, {"id" : 0.30000000000000000000001 ,"jsonrpc":"2.0","method":"eth_chainId"}]`
    const res = await app.rpc(text)
    expect(res.text).toBe(
      '[{"jsonrpc":"2.0","id":9007199254740993,"result":"0x7a69"},' +
        '{"jsonrpc":"2.0","id":1e400,"error":{"code":-32601,"message":"the method eth_nope does not exist/is not available"}},' +
        '{"jsonrpc":"2.0","id":-0,"error":{"code":-32600,"message":"invalid request"}},' +
        '{"jsonrpc":"2.0","id":0.30000000000000000000001,"result":"0x7a69"}]',
    )
  })

  it('keeps strings and null as parsed, and the last of a repeated id', async () => {
    expect((await app.rpc(body('"a\\u0062c"', 'eth_chainId', '[]'))).text).toBe('{"jsonrpc":"2.0","id":"abc","result":"0x7a69"}')
    expect((await app.rpc(body('null', 'eth_chainId', '[]'))).text).toBe('{"jsonrpc":"2.0","id":null,"result":"0x7a69"}')
    expect((await app.rpc('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","id":10000000000000000000001}')).text).toBe(
      '{"jsonrpc":"2.0","id":10000000000000000000001,"result":"0x7a69"}',
    )
  })

  it('carries the first id of an over-long batch as sent', async () => {
    const items = Array.from({ length: 101 }, (_, i) => body(i === 0 ? '"x"' : '12345678901234567890123', 'eth_chainId', '[]'))
    items[0] = '5'
    const res = await app.rpc(`[${items.join(',')}]`)
    expect(res.text).toBe('[{"jsonrpc":"2.0","id":12345678901234567890123,"error":{"code":-32600,"message":"batch too large"}}]')
  })
})

describe('bodies too deep or out of range', () => {
  it('answers params nested 10,000 levels deep with -32602, the id kept', async () => {
    const res = await app.rpc(body('3', 'trace_replayTransaction', `["${`0x${'1'.repeat(64)}`}", ${nested(10_000, '"trace"')}]`))
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: `invalid params: nested more than ${MAX_JSON_DEPTH - 1} levels deep` } })
    noInternalErrorLogged()
  })

  it('answers a request nested deep outside its params with -32600', async () => {
    const res = await app.rpc(`{"jsonrpc":"2.0","id":4,"method":"eth_chainId","params":[],"x":${nested(10_000)}}`)
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32600, message: `invalid request: nested more than ${MAX_JSON_DEPTH} levels deep` } })
  })

  it('answers each deep batch item on its own', async () => {
    const res = await app.rpc(`[${body('1', 'eth_chainId', '[]')},${body('2', 'eth_getBalance', nested(5_000))},${nested(5_000)}]`)
    expect(res.json).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x7a69' },
      { jsonrpc: '2.0', id: 2, error: { code: -32602, message: `invalid params: nested more than ${MAX_JSON_DEPTH - 1} levels deep` } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
    ])
  })

  it('answers an unknown method -32601 whatever its params, a name with stray whitespace included (geth looks the method up first)', async () => {
    for (const method of ['eth_call\n', ' eth_call', 'eth_call ', '\teth_chainId', 'eth_nope']) {
      const unknown = { code: -32601, message: `the method ${method} does not exist/is not available` }
      const name = JSON.stringify(method)
      for (const params of ['[]', '[1e309]', '{"a":1e309}', nested(10_000), `[{"to":"${to}"}, "latest"]`, '{}']) {
        const res = await app.rpc(`{"jsonrpc":"2.0","id":8,"method":${name},"params":${params}}`)
        expect(res.json, `${name} ${params.slice(0, 20)}`).toEqual({ jsonrpc: '2.0', id: 8, error: unknown })
      }
    }
    // the same params on a method the endpoint serves are its arguments' fault
    expect((await app.rpc(body('9', 'eth_call', '[1e309]'))).json.error.code).toBe(-32602)
    noInternalErrorLogged()
  })

  it('reads params exactly at the depth bound', async () => {
    // params 63 deep: the item is 64 deep, within the bound; the param is merely wrong
    const res = await app.rpc(body('5', 'trace_replayTransaction', `["${txHash}", ${nested(MAX_JSON_DEPTH - 2, '"trace"')}]`))
    expect(res.json.error.code).toBe(-32602)
    expect(res.json.error.message).not.toContain('nested')
  })

  it('answers eth_feeHistory with a block count of 1e309 with -32602', async () => {
    const res = await app.rpc(body('6', 'eth_feeHistory', '[1e309, "latest", [50]]'))
    expect(res.json.error.code).toBe(-32602)
    for (const count of [1.5, -1, 1e300, 2 ** 64]) {
      const r = await app.rpc({ jsonrpc: '2.0', id: 7, method: 'eth_feeHistory', params: [count, 'latest', [50]] })
      expect(r.json.error.code).toBe(-32602)
    }
    expect((await app.call<{ oldestBlock: string }>('eth_feeHistory', [2, 'latest', [50]])).oldestBlock).toMatch(/^0x/)
    noInternalErrorLogged()
  })

  it('refuses a REST body nested 10,000 levels deep with a 400', async () => {
    const res = await app.fetch('/v1/simulate', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: `{"calls":${nested(10_000)}}`,
    })
    expect(res.status).toBe(400)
    expect((await res.json()).error.message).toBe(`the body is nested more than ${MAX_JSON_DEPTH} levels deep`)
  })
})

describe('paths', () => {
  it('masks every path segment after /v1/rpc/ in the logs', async () => {
    const nearMiss = `${token}x`
    for (const path of [`/v1/rpc//${nearMiss}`, `/v1/rpc/a/${nearMiss}`, `/v1/rpc%2F${nearMiss}`]) {
      const res = await app.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('1', 'eth_chainId', '[]') })
      expect(await res.text()).not.toContain(token)
    }
    expect(app.rawLogs()).not.toContain(token)
  })
})

// ---- the property test ----

/** a valid call of each method the endpoint answers, one per family and then some */
function templates(): [string, unknown[]][] {
  const call = { from, to, data: '0x' }
  return [
    ['eth_getBalance', [from, 'latest']],
    ['eth_getStorageAt', [to, '0x0', 'latest']],
    ['eth_getBlockByNumber', ['0x1', false]],
    ['eth_getTransactionByHash', [txHash]],
    ['eth_getTransactionReceipt', [txHash]],
    ['eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]],
    ['eth_feeHistory', ['0x2', 'latest', [50]]],
    ['eth_getBlockReceipts', ['0x1']],
    ['web3_sha3', ['0x']],
    ['eth_call', [call, 'latest']],
    ['eth_estimateGas', [call, 'latest']],
    ['eth_createAccessList', [call, 'latest']],
    ['debug_traceTransaction', [txHash, { tracer: 'callTracer' }]],
    ['debug_traceCall', [call, 'latest', { tracer: 'callTracer' }]],
    ['debug_traceBlockByNumber', ['0x1', { tracer: 'callTracer' }]],
    ['debug_traceCallMany', [[{ transactions: [call] }], { blockNumber: 'latest' }, { tracer: 'callTracer' }]],
    ['trace_call', [call, ['trace'], 'latest']],
    ['trace_callMany', [[[call, ['trace']]], 'latest']],
    ['trace_replayTransaction', [txHash, ['trace']]],
    ['trace_transaction', [txHash]],
    ['trace_block', ['0x1']],
    ['trace_get', [txHash, ['0x0']]],
    ['eth_simulateV1', [{ blockStateCalls: [{ calls: [call] }] }, 'latest']],
  ]
}

type Gen = (r: () => number) => { json: string; alwaysInvalid: boolean }

const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1))
const pick = <T>(r: () => number, xs: T[]): T => xs[Math.floor(r() * xs.length)]!

/** values no param of any method accepts, and values some param might (then any non-internal answer is right) */
const generators: Gen[] = [
  // nested beyond the bound: always -32602 for the nesting
  (r) => {
    const d = int(r, MAX_JSON_DEPTH, 3_000)
    return { json: r() < 0.5 ? nested(d) : `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`, alwaysInvalid: true }
  },
  // nested within the bound, arrays or objects
  (r) => {
    const d = int(r, 2, MAX_JSON_DEPTH - 3)
    return { json: r() < 0.5 ? nested(d, pick(r, ['1', '"trace"', 'null', '{}'])) : `${'{"a":'.repeat(d)}"0x"${'}'.repeat(d)}`, alwaysInvalid: true }
  },
  // huge: a long non-hex string, a long array, an object of many keys, a finite huge number
  (r) => ({ json: JSON.stringify('z'.repeat(int(r, 1_000, 20_000))), alwaysInvalid: true }),
  (r) => ({ json: `[${Array.from({ length: int(r, 1_000, 20_000) }, () => pick(r, ['true', '"zz"', '-3'])).join(',')}]`, alwaysInvalid: true }),
  (r) => ({ json: `{${Array.from({ length: int(r, 500, 5_000) }, (_, i) => `"k${i}":${i}`).join(',')}}`, alwaysInvalid: true }),
  (r) => ({ json: pick(r, ['1e300', '-1e300', '9'.repeat(300), '1.7976931348623157e308']), alwaysInvalid: true }),
  // non-finite once parsed
  (r) => ({ json: pick(r, ['1e309', '-1e309', '1e99999', '-0.5e400', '9'.repeat(400)]), alwaysInvalid: true }),
  // wrongly typed, possibly right for some position
  (r) => ({ json: pick(r, ['true', 'false', '{}', '[]', '0', '-1', '1.5', '""', '"0x"', '"latest"', '{"x":1}', '[[]]', '"0x1"']), alwaysInvalid: false }),
  // a hex quantity beyond 64 or 256 bits
  (r) => ({ json: JSON.stringify(`0x1${'0'.repeat(int(r, 16, 200))}`), alwaysInvalid: false }),
]

describe('a property test with a fixed seed', () => {
  it('answers nested, huge, non-finite and wrongly typed params of every method family with an error object, never -32603', async () => {
    const r = mulberry32(0x5eed_2026)
    const cases: { method: string; position: number; json: string; alwaysInvalid: boolean }[] = []
    for (let round = 0; round < 40; round++) {
      for (const [method, valid] of templates()) {
        const position = int(r, 0, valid.length - 1)
        const g = pick(r, generators)(r)
        cases.push({ method, position, ...g })
      }
    }
    // sent as batches of 20 (each item answered on its own); every wrong answer is listed
    const wrong: string[] = []
    for (let i = 0; i < cases.length; i += 20) {
      const slice = cases.slice(i, i + 20)
      const items = slice.map((c, k) => {
        const valid = templates()
          .find(([m]) => m === c.method)![1]
          .map((p) => JSON.stringify(p))
        valid[c.position] = c.json
        return body(String(i + k), c.method, `[${valid.join(',')}]`)
      })
      const res = await app.rpc(`[${items.join(',')}]`)
      expect(res.status, res.text.slice(0, 300)).toBe(200)
      expect(res.json).toHaveLength(slice.length)
      for (const [k, answer] of (res.json as { id: number; error?: { code: number; message: string } }[]).entries()) {
        const c = slice[k]!
        const what = `${c.method} param ${c.position} = ${c.json.slice(0, 40)}`
        if (answer.id !== i + k) wrong.push(`${what}: id ${answer.id}`)
        else if (!answer.error) {
          if (c.alwaysInvalid) wrong.push(`${what}: accepted`)
        } else if (typeof answer.error.message !== 'string' || answer.error.code === -32603) wrong.push(`${what}: ${answer.error.code} ${answer.error.message}`)
        else if (c.alwaysInvalid ? answer.error.code !== -32602 : ![-32602, -32000, 3].includes(answer.error.code))
          wrong.push(`${what}: ${answer.error.code} ${answer.error.message}`)
      }
    }
    expect(wrong).toEqual([])
    noInternalErrorLogged()
  }, 240_000)
})
