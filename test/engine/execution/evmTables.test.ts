/**
 * The per-fork EVM tables (engine/execution/evmTables.ts) patch private methods of ethereumjs.
 * These tests fail if an upgrade moves them, prove the tables are shared between EVMs of one fork
 * (and not across forks), and that a run with a cached jump analysis gives what a run without it
 * gives (a loop that jumps, run twice on the same code). The active precompiles and the journal's
 * logger are kept the same way by `patches/@ethereumjs+evm+10.1.3.patch`, and the Set of active
 * EIPs (engine/platform/hardfork.ts) by each fork's prepared Common (engine/execution/preparedCommon.ts).
 */
import { createBlock } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM, getActivePrecompiles, type PrecompileInput } from '@ethereumjs/evm'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { evmTablesInstalled } from '../../../engine/execution/evmTables.js'
import { preparedCommon } from '../../../engine/execution/preparedCommon.js'
import { createCommonFactory } from '../../../engine/platform/hardfork.js'
import { createImpersonatedTx } from '../../../engine/execution/impersonatedTx.js'

const opcodeMap = (evm: unknown) => (evm as { _opcodeMap: object })._opcodeMap

describe('per-fork EVM tables', () => {
  it('are installed on the ethereumjs version in the lockfile', () => {
    expect(evmTablesInstalled).toEqual({ opcodes: true, jumpDestinations: true })
  })

  it('one opcode table per fork: shared between EVMs of a fork, distinct across forks', async () => {
    const base = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    const a = await createEVM({ common: preparedCommon(base) })
    const b = await createEVM({ common: preparedCommon(base) })
    const other = await createEVM({ common: preparedCommon(new Common({ chain: Mainnet, hardfork: Hardfork.Shanghai })) })
    expect(opcodeMap(a)).toBe(opcodeMap(b))
    expect(opcodeMap(other)).not.toBe(opcodeMap(a))
    // Cancun has TLOAD (0x5c), Shanghai does not
    expect(a.opcodes.get(0x5c)?.name).toBe('TLOAD')
    expect(other.opcodes.get(0x5c)).toBeUndefined()
  })

  it('a jumping loop runs the same with the cached analysis as the first time', async () => {
    // i = 10; do { i-- } while (i != 0); sstore(0, i + 7)
    const code = hexToBytes('0x600a5b600190038060025760070160005500')
    const contract = createAddressFromString('0x00000000000000000000000000000000000000cc')
    const from = '0x00000000000000000000000000000000000000aa'
    const gasUsed: bigint[] = []
    for (let i = 0; i < 2; i++) {
      const common = preparedCommon(new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }))
      const vm = await createVM({ common })
      await vm.stateManager.putCode(contract, code)
      const tx = createImpersonatedTx(common, { call: { from, to: contract.toString() as `0x${string}`, data: '0x' }, nonce: 0n, gasLimit: 100_000n })
      const block = createBlock({ header: { baseFeePerGas: 0n, gasLimit: 30_000_000n } }, { common })
      const r = await runTx(vm, { tx, block, skipBalance: true, skipNonce: true, skipHardForkValidation: true, skipBlockGasLimitValidation: true })
      expect(r.execResult.exceptionError).toBeUndefined()
      expect((await vm.stateManager.getStorage(contract, new Uint8Array(32)))[0]).toBe(7)
      gasUsed.push(r.totalGasSpent)
    }
    expect(gasUsed[1]).toBe(gasUsed[0])
  })

  it('one map of active precompiles per fork (the evm patch); custom precompiles get their own', async () => {
    const base = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    const a = await createEVM({ common: preparedCommon(base) })
    const b = await createEVM({ common: preparedCommon(base) })
    const berlin = await createEVM({ common: preparedCommon(new Common({ chain: Mainnet, hardfork: Hardfork.Berlin })) })
    expect(a.precompiles).toBe(b.precompiles)
    expect([...a.precompiles.keys()]).toEqual([...getActivePrecompiles(base).keys()])
    // the point evaluation precompile (0x0a) is Cancun's, not Berlin's
    const pointEvaluation = '000000000000000000000000000000000000000a'
    expect(a.precompiles.has(pointEvaluation)).toBe(true)
    expect(berlin.precompiles.has(pointEvaluation)).toBe(false)
    const custom = await createEVM({
      common: preparedCommon(base),
      customPrecompiles: [
        {
          address: createAddressFromString(`0x${'00'.repeat(19)}ff`),
          function: (_: PrecompileInput) => ({ executionGasUsed: 0n, returnValue: new Uint8Array() }),
        },
      ],
    })
    expect(custom.precompiles).not.toBe(a.precompiles)
    expect(custom.precompiles.has(`${'00'.repeat(19)}ff`)).toBe(true)
    expect(a.precompiles.has(`${'00'.repeat(19)}ff`)).toBe(false)
  })

  it('one journal logger for every EVM (the evm patch: `debug` probes the terminal per logger made)', async () => {
    const common = preparedCommon(new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }))
    const journalDebug = async () => ((await createEVM({ common })).journal as unknown as { _debug: unknown })._debug
    expect(await journalDebug()).toBe(await journalDebug())
  })

  it('one Set behind isActivatedEIP per fork, shared by the copies a prepared Common makes', () => {
    const common = createCommonFactory(31337, 'prague')({ number: 1n, timestamp: 1n })
    const a = preparedCommon(common)
    const b = preparedCommon(common)
    const lookup = (c: Common) => {
      const symbol = Object.getOwnPropertySymbols(c).find((s) => s.description === 'activatedEipSet')
      return symbol === undefined ? undefined : (c as unknown as Record<symbol, unknown>)[symbol]
    }
    expect(lookup(a)).toBeDefined()
    expect(lookup(a)).toBe(lookup(b))
    expect(a.isActivatedEIP(7702)).toBe(true)
    expect(lookup(a)).toBe(lookup(b)) // asking did not build another
  })
})
