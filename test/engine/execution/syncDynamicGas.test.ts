/**
 * Opcodes whose dynamic gas is computed without a promise (memory expansion: MLOAD, MSTORE,
 * KECCAK256, the copies, LOG, RETURN, REVERT, EXP) run synchronously, like static-gas opcodes, with
 * `patches/@ethereumjs+evm+10.1.3.patch`; state-reading gas (SLOAD, CALL, BALANCE...) keeps the
 * stock async path. Whether code chunks are charged is decided once per frame. What a step hook
 * sees is unchanged: the dynamic cost before the opcode runs, the memory size before its
 * expansion, and a step whose dynamic gas fails is still reported before the error (geth's
 * struct logger shows the failing opcode).
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM, type InterpreterStep } from '@ethereumjs/evm'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

const common = () => new Common({ chain: Mainnet, hardfork: Hardfork.Prague })

describe('dynamic gas without a promise (the evm patch)', () => {
  it('marks the memory-expansion gas functions synchronous and the state-reading ones not', async () => {
    const evm = await createEVM({ common: common() })
    const map = (evm as unknown as { _opcodeMap: { syncGas?: boolean; gasHandler?: (...a: unknown[]) => unknown }[] })._opcodeMap
    for (const op of [0x0a, 0x20, 0x37, 0x39, 0x3e, 0x51, 0x52, 0x53, 0x5e, 0xa0, 0xa4, 0xf3, 0xfd]) {
      expect(map[op]!.syncGas, op.toString(16)).toBe(true)
      expect(map[op]!.gasHandler!.constructor.name).toBe('Function')
    }
    for (const op of [0x31, 0x3b, 0x54, 0x55, 0xf1, 0xf4, 0xfa]) expect(map[op]!.syncGas, op.toString(16)).toBe(false)
  })

  it('reports each step with its dynamic cost and the memory size before it, as the stock path did', async () => {
    const evm = await createEVM({ common: common() })
    const steps: { op: string; fee: bigint; words: bigint }[] = []
    evm.events.on('step', (s: InterpreterStep) => void steps.push({ op: s.opcode.name, fee: s.opcode.dynamicFee!, words: s.memoryWordCount }))
    // PUSH1 0x2a PUSH1 0x40 MSTORE (memory 0 → 3 words: 3 + 9) PUSH1 0x20 PUSH1 0x40 KECCAK256 STOP
    const res = await evm.runCode({ code: hexToBytes('0x602a604052602060402000'), gasLimit: 100_000n })
    expect(res.exceptionError).toBeUndefined()
    expect(steps.map((s) => s.op)).toEqual(['PUSH1', 'PUSH1', 'MSTORE', 'PUSH1', 'PUSH1', 'KECCAK256', 'STOP'])
    expect(steps[2]).toEqual({ op: 'MSTORE', fee: 3n + 9n, words: 0n })
    expect(steps[5]).toEqual({ op: 'KECCAK256', fee: 30n + 6n, words: 3n })
    expect(res.executionGasUsed).toBe(3n * 4n + 12n + 36n)
  })

  it('reports a step whose dynamic gas fails before the error, and fails the same without a hook', async () => {
    // PUSH1 1 PUSH1 0 PUSH1 0 RETURNDATACOPY: one byte past empty return data, out of gas in its gas function
    const code = hexToBytes('0x6001600060003e')
    const traced = await createEVM({ common: common() })
    const ops: string[] = []
    traced.events.on('step', (s: InterpreterStep) => void ops.push(s.opcode.name))
    const a = await traced.runCode({ code, gasLimit: 100_000n })
    expect(ops).toEqual(['PUSH1', 'PUSH1', 'PUSH1', 'RETURNDATACOPY'])
    expect(a.exceptionError?.error).toBe('out of gas')
    const plain = await createEVM({ common: common() })
    const b = await plain.runCode({ code, gasLimit: 100_000n })
    expect(b.exceptionError?.error).toBe('out of gas')
    expect(b.executionGasUsed).toBe(a.executionGasUsed)
  })

  it('asks no EIP per opcode: code-chunk charging is decided per frame, PUSH reads that decision', async () => {
    // code run directly, and code loaded from state (the path of every real call: ethereumjs marks
    // such a frame chargeCodeAccesses, so a PUSH that tested that flag first still asked two EIPs)
    const lookups = async (pushes: number, fromState: boolean) => {
      const c = common()
      const evm = await createEVM({ common: c })
      const stock = c.isActivatedEIP.bind(c)
      let n = 0
      // PUSH1 1 POP, `pushes` times, then STOP
      const code = hexToBytes(`0x${'600150'.repeat(pushes)}00`)
      const to = createAddressFromString('0x00000000000000000000000000000000000c0de5')
      if (fromState) await evm.stateManager.putCode(to, code)
      c.isActivatedEIP = (eip: number | string) => (n++, stock(eip as number))
      const res = fromState ? (await evm.runCall({ to, gasLimit: 1_000_000n })).execResult : await evm.runCode({ code, gasLimit: 1_000_000n })
      expect(res.exceptionError).toBeUndefined()
      return n
    }
    for (const fromState of [false, true]) expect(await lookups(200, fromState)).toBe(await lookups(1, fromState))
  })
})
