/**
 * A struct log written to a sink as it runs (the engine's temporary file) must be byte for byte
 * the JSON of the same logs kept in memory: every field the logger prints, every option, and the
 * switch from memory to the sink at any step.
 */
import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { createStructLogger, type StructLoggerConfig, type StructLogSink } from '../../tracers/structLogger.js'
import type { OpcodeStep } from '../../tracers/types.js'
import { fakeState, fakeTx, step } from './fakeState.js'

const TO = '0x00000000000000000000000000000000000000bb' as Address
const w = (n: number | bigint) => `0x${n.toString(16).padStart(64, '0')}` as Hex

/** memory of `words` words with byte `fill` at its end (grows, changes, shrinks across depths) */
const mem = (words: number, fill: number) => {
  const m = new Uint8Array(words * 32)
  if (words > 0) m[m.length - 1] = fill
  return m
}

/** a run touching every field: memory growth, storage reads and writes, refunds, errors, return data, nested depths */
function steps(): OpcodeStep[] {
  return [
    step({ pc: 0, op: 'PUSH1', opcode: 0x60, stack: [] }),
    step({ pc: 2, op: 'MSTORE', opcode: 0x52, stack: [0x80n, 0x40n], memory: mem(0, 0) }),
    step({ pc: 3, op: 'SLOAD', opcode: 0x54, stack: [1n], memory: mem(3, 0x80) }),
    step({ pc: 4, op: 'SSTORE', opcode: 0x55, stack: [0x60n, 2n], memory: mem(3, 0x80), refund: 4800n }),
    step({ pc: 5, op: 'CALL', opcode: 0xf1, stack: [0n, 0n, 0n, 0n, 0n, 0xbbn, 5000n], memory: mem(3, 0x81), returnData: new Uint8Array([0xab, 0xcd]) }),
    step({ pc: 0, op: 'PUSH1', opcode: 0x60, depth: 2, stack: [], memory: mem(0, 0) }),
    step({ pc: 2, op: 'SLOAD', opcode: 0x54, depth: 2, stack: [2n], memory: mem(1, 7) }),
    step({ pc: 3, op: 'REVERT', opcode: 0xfd, depth: 2, stack: [0n, 0n], memory: mem(1, 7), error: 'execution reverted' }),
    step({ pc: 6, op: 'opcode 0xc not defined', opcode: 0x0c, stack: [1n, 2n ** 255n], memory: mem(3, 0x81), error: 'invalid opcode: "quoted" \\ text' }),
    step({ pc: 7, op: 'opcode 0xc not defined', opcode: 0x0c, stack: [2n ** 256n - 1n, 0n], memory: mem(3, 0x81), error: 'non-ASCII: ünïcødé \u0001 ✓' }),
    step({ pc: 7, op: 'SSTORE', opcode: 0x55, stack: [0n, 1n], memory: mem(3, 0x81), refund: 19900n }),
    step({ pc: 8, op: 'STOP', opcode: 0x00, stack: [], memory: mem(3, 0x81) }),
  ]
}

/** a sink that keeps the bytes, as the engine's file would (copied: the logger reuses its chunk) */
function memorySink() {
  const chunks: Buffer[] = []
  let opened = 0
  return {
    get text() {
      return Buffer.concat(chunks).toString('utf8')
    },
    get chunks() {
      return chunks.length
    },
    get opened() {
      return opened
    },
    open(): StructLogSink {
      opened++
      return { write: (chunk) => void chunks.push(Buffer.from(chunk)), finish: () => ({ spilled: true }) }
    },
  }
}

async function run(config: StructLoggerConfig, thresholdBytes?: number, taken: OpcodeStep[] = steps()) {
  const state = fakeState({ [TO]: { storage: { [w(1)]: '0x2a', [w(2)]: '0x05' } } })
  const sink = memorySink()
  const t =
    thresholdBytes === undefined
      ? createStructLogger(config, {})
      : createStructLogger(config, { spill: { thresholdBytes, maxBytes: 1e9, open: () => sink.open() } })
  await t.onTxStart!(fakeTx(state))
  for (const s of taken) await t.onOpcode!(s)
  await t.onExit!({ depth: 0, output: '0x', gasUsed: 50n, reverted: false })
  await t.onTxEnd!({ gasUsed: 21050n, output: '0x', reverted: false })
  return { result: t.result(), sink }
}

const CONFIGS: StructLoggerConfig[] = [
  {},
  { cleanStructLogs: true },
  { disableMemory: true, disableStack: true },
  { disableStorage: true, enableReturnData: true },
  { enableReturnData: true, cleanStructLogs: true },
  { limit: 600 },
]

describe('struct logger spilled to a sink', () => {
  for (const config of CONFIGS) {
    it(`writes the bytes JSON.stringify prints for the logs kept in memory: ${JSON.stringify(config)}`, async () => {
      const kept = await run(config)
      const expected = JSON.stringify(kept.result.structLogs)
      expect(Array.isArray(kept.result.structLogs)).toBe(true)
      // spilled from the first step, from the middle, and not at all (under the threshold)
      for (const threshold of [0, 700, 10_000_000]) {
        const spilled = await run(config, threshold)
        if (spilled.sink.opened === 0) {
          expect(spilled.result.structLogs).toEqual(kept.result.structLogs)
          continue
        }
        expect(spilled.sink.opened).toBe(1)
        expect(spilled.result.structLogs).toEqual({ spilled: true })
        expect(spilled.sink.text).toBe(expected)
        const { structLogs: _a, ...restKept } = kept.result
        const { structLogs: _b, ...restSpilled } = spilled.result
        expect(restSpilled).toEqual(restKept)
      }
    })
  }

  it("writes a long run whose bytes fill several of the logger's chunks the same as in memory", async () => {
    // 12,000 steps of ~250 bytes: 3 MB, so the 1 MiB chunk is handed on and refilled; stack values
    // of every width change at every position, numbers of every digit count
    const long: OpcodeStep[] = []
    for (let i = 0; i < 12_000; i++) {
      const stack = Array.from({ length: i % 9 }, (_, k) => (k % 3 === 0 ? BigInt(i) ** BigInt(k + 1) : k % 3 === 1 ? 2n ** 256n - 1n - BigInt(i) : BigInt(k)))
      long.push(
        step({
          pc: i * 7,
          op: i % 2 ? 'ADD' : 'PUSH32',
          opcode: i % 2 ? 0x01 : 0x7f,
          depth: 1 + (i % 4),
          gas: BigInt(30_000_000 - i * 997),
          cost: BigInt(i % 11),
          stack,
          memory: mem(i % 5, i % 256),
          refund: BigInt(i % 3) * 4800n,
        }),
      )
    }
    const kept = await run({}, undefined, long)
    const spilled = await run({}, 0, long)
    expect(spilled.sink.chunks).toBeGreaterThan(2)
    expect(spilled.sink.text).toBe(JSON.stringify(kept.result.structLogs))
    // a threshold past the first chunk: what was handed on before the sink opened goes to it first
    const late = await run({}, 2_000_000, long)
    expect(late.sink.opened).toBe(1)
    expect(late.sink.text).toBe(JSON.stringify(kept.result.structLogs))
    // never past the threshold: several chunks' bytes read back as the same objects
    const under = await run({}, 10_000_000, long)
    expect(under.sink.opened).toBe(0)
    expect(under.result.structLogs).toEqual(kept.result.structLogs)
  })

  it('writes a stack that grows to 1,024 words, is swapped, duplicated and popped, across frames, the same as in memory', async () => {
    // the logger keeps the last stack's bytes and copies in only what changed: every way a stack
    // changes between two steps, and a frame switch (a different stack at another depth). As in
    // the EVM, each step's opcode is what turns its stack into the next one's at the same depth
    // (the logger leaves the words below an opcode's pops as they were printed).
    const taken: OpcodeStep[] = []
    let stack: bigint[] = []
    const at = (depth: number, s: bigint[]) => taken.push(step({ op: 'JUMPDEST', opcode: 0x5b, depth, stack: [...s] }))
    /** names the last step's opcode: the change about to be made to its stack */
    const then = (op: string, opcode: number) => Object.assign(taken[taken.length - 1]!, { op, opcode })
    at(1, stack)
    for (let i = 0; i < 1024; i++) {
      then('PUSH32', 0x7f)
      stack.push(BigInt(i) * 0x1000000000000000000000000000000000001n)
      at(1, stack)
    }
    for (let n = 1; n <= 16; n++) {
      const top = stack.length - 1
      then(`SWAP${n}`, 0x8f + n)
      ;[stack[top], stack[top - n]] = [stack[top - n]!, stack[top]!]
      at(1, stack)
      then(`DUP${n}`, 0x7f + n)
      stack.push(stack[top - n + 1]!)
      at(1, stack)
      // a call's frame, and back (the stack above the call's arguments as it was)
      then('CALL', 0xf1)
      at(2, [BigInt(n), 2n ** 256n - 1n])
      at(1, stack)
    }
    while (stack.length > 0) {
      then('CALLDATACOPY', 0x37)
      stack = stack.slice(0, -3)
      at(1, stack)
    }
    const kept = await run({}, undefined, taken)
    const spilled = await run({}, 0, taken)
    expect(spilled.sink.text).toBe(JSON.stringify(kept.result.structLogs))
  })

  it('spills a run whose logs pass the threshold, keeps one that does not', async () => {
    expect((await run({}, 0)).sink.opened).toBe(1)
    expect((await run({}, 10_000_000)).sink.opened).toBe(0)
  })

  /** what a spilling logger throws while it takes the steps (undefined: nothing) */
  const refusalOf = async (opts: { maxSteps?: number; maxBytes: number }): Promise<unknown> => {
    const t = createStructLogger({}, { maxSteps: opts.maxSteps, spill: { thresholdBytes: 0, maxBytes: opts.maxBytes, open: () => memorySink().open() } })
    await t.onTxStart!(fakeTx(fakeState({})))
    try {
      for (const s of steps()) await t.onOpcode!(s)
    } catch (e) {
      return e
    }
    return undefined
  }

  it("refuses PAYLOAD_TOO_LARGE past the sink's byte cap, counted exactly", async () => {
    expect(await refusalOf({ maxBytes: 300 })).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { maxStructLogBytes: 300 } })
  })

  it('still refuses past maxSteps when spilling', async () => {
    expect(await refusalOf({ maxSteps: 3, maxBytes: 1e9 })).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { maxStructLogSteps: 3 } })
  })
})
