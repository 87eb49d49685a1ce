/**
 * The bench row of the one-million-step struct log: the same `debug_traceCall` (struct
 * logger, memory on, a loop contract put in place by a state override, the same pinned block) sent
 * to the service (WORKERS=2, streamed from its temporary file) and to Anvil, each answer consumed
 * as a stream (bytes and steps counted, nothing held). Runs alternate so both see the same machine
 * load; the best and the median of each are compared (on a loaded machine one run can take
 * twice another). The service's peak RSS is its VmHWM after the runs.
 */
import { readFileSync } from 'node:fs'
import type { Hex } from 'viem'

export const STRUCT_LOG_1M_ROW = 'struct log, 1M steps, memory on (streamed)'

const TURNS = 100_000
const LOOPER = '0x00000000000000000000000000000000000100ff'
/** PUSH1 0 PUSH1 0x40 MSTORE; PUSH3 n; JUMPDEST; DUP1 PUSH1 0 MSTORE; PUSH1 1 SWAP1 SUB; DUP1 PUSH1 9 JUMPI; STOP: 1,000,005 steps, 3 words of memory */
const CODE = `0x600060405262${TURNS.toString(16).padStart(6, '0')}5b80600052600190038060095700`

export interface StructLog1mResult {
  oursMs: number[]
  anvilMs: number[]
  oursBytes: number
  anvilBytes: number
  steps: number
  peakRssMb: number
}

async function traceOnce(url: string, headers: Record<string, string>, block: Hex): Promise<{ ms: number; bytes: number; steps: number }> {
  const t = performance.now()
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'debug_traceCall',
      params: [
        { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: LOOPER, data: '0x', gas: '0x2faf080' },
        block,
        { enableMemory: true, timeout: '120s', stateOverrides: { [LOOPER]: { code: CODE } } },
      ],
    }),
  })
  let bytes = 0
  let steps = 0
  let carry = ''
  const decoder = new TextDecoder()
  for await (const chunk of res.body!) {
    bytes += chunk.byteLength
    const text = carry + decoder.decode(chunk, { stream: true })
    steps += text.split('{"pc":').length - 1
    carry = text.slice(-5)
  }
  if (res.status !== 200 || steps < 1_000_000) throw new Error(`struct log 1M: HTTP ${res.status}, ${steps} steps from ${url}`)
  return { ms: performance.now() - t, bytes, steps }
}

export async function measureStructLog1m(opts: {
  service: { url: string; pid: number; token: string }
  anvilUrl: string
  block: Hex
  rounds?: number
}): Promise<StructLog1mResult> {
  const out: StructLog1mResult = { oursMs: [], anvilMs: [], oursBytes: 0, anvilBytes: 0, steps: 0, peakRssMb: 0 }
  for (let i = 0; i < (opts.rounds ?? 3); i++) {
    const ours = await traceOnce(`${opts.service.url}/v1/rpc`, { authorization: `Bearer ${opts.service.token}` }, opts.block)
    const theirs = await traceOnce(opts.anvilUrl, {}, opts.block)
    out.oursMs.push(ours.ms)
    out.anvilMs.push(theirs.ms)
    out.oursBytes = ours.bytes
    out.anvilBytes = theirs.bytes
    out.steps = ours.steps
  }
  out.peakRssMb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${opts.service.pid}/status`, 'utf8'))?.[1]) / 1024
  return out
}
