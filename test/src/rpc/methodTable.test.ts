/**
 * The JSON-RPC method table is the one place methods are named: every name /v1/rpc and a fork's
 * endpoint answer is an entry's (its params parser, its engine call), an alias runs its name's
 * entry, the chain reads are the engine's allow-list entry for entry, and a development method
 * hands the engine a typed request it parsed itself. The engine names no JSON-RPC method and
 * raises no -32602: every invalid-params answer comes from the parsers at the edge.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { type Engine, type ForkDevRequest, READ_METHODS } from '../../../engine/types.js'
import type { ServiceConfig } from '../../../config/loadConfig.js'
import { DEV_METHODS } from '../../../src/rpc/methods/dev.js'
import { FORK_METHODS, forkMethods, RPC_METHODS, rpcMethods } from '../../../src/rpc/methods/index.js'
import { READ_ENTRIES } from '../../../src/rpc/methods/forwarded.js'
import { entryOf, methodTable, method } from '../../../src/rpc/methods/table.js'
import { RpcError } from '../../../src/rpc/rpcError.js'
import type { RpcContext } from '../../../src/rpc/types.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

/** what a fork's endpoint answers beyond /v1/rpc, with Anvil's, Hardhat's and Ganache's names */
const DEVELOPMENT_METHODS = [
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'eth_getTransactionCount',
  'evm_mine',
  'anvil_mine',
  'hardhat_mine',
  'evm_setAutomine',
  'anvil_setAutomine',
  'anvil_getAutomine',
  'hardhat_getAutomine',
  'evm_snapshot',
  'evm_revert',
  'anvil_snapshot',
  'anvil_revert',
  'evm_increaseTime',
  'anvil_increaseTime',
  'evm_setNextBlockTimestamp',
  'anvil_setNextBlockTimestamp',
  'anvil_setNextBlockBaseFeePerGas',
  'hardhat_setNextBlockBaseFeePerGas',
  'anvil_setBalance',
  'hardhat_setBalance',
  'anvil_setCode',
  'hardhat_setCode',
  'anvil_setStorageAt',
  'hardhat_setStorageAt',
  'anvil_setNonce',
  'hardhat_setNonce',
  'anvil_impersonateAccount',
  'hardhat_impersonateAccount',
  'anvil_stopImpersonatingAccount',
  'hardhat_stopImpersonatingAccount',
  'anvil_autoImpersonateAccount',
  'anvil_reset',
  'hardhat_reset',
  'anvil_dumpState',
  'anvil_loadState',
]

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sources(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

/** a fork's context over an engine that records the development requests it is handed */
function recordingFork() {
  const requests: ForkDevRequest[] = []
  const engine = {
    forkRpc: async (_at: unknown, request: ForkDevRequest) => {
      requests.push(request)
      return request.method === 'snapshot' ? '0x0' : null
    },
  } as unknown as Engine
  const ctx: RpcContext = { engine, config: {} as ServiceConfig, at: { fork: 'fork_1' } }
  return { requests, ctx }
}

describe('the method table', () => {
  it('answers every name of both endpoints by an entry that has a parser and an engine call, under its own name', () => {
    for (const [table, entries] of [
      [rpcMethods, RPC_METHODS],
      [forkMethods, FORK_METHODS],
    ] as const) {
      const names = entries.flatMap((e) => e.names)
      expect(Object.keys(table).sort()).toEqual([...names].sort())
      for (const name of Object.keys(table)) {
        const entry = entryOf(table, name)
        expect(entry, name).toBeDefined()
        expect(entry!.names).toContain(name)
        expect(typeof entry!.params, name).toBe('function')
        expect(typeof entry!.run, name).toBe('function')
      }
    }
  })

  it('runs one entry for a name and its aliases', () => {
    const aliased = FORK_METHODS.filter((e) => e.names.length > 1)
    expect(aliased.map((e) => e.names[0])).toEqual(expect.arrayContaining(['anvil_mine', 'anvil_snapshot', 'anvil_revert', 'anvil_reset']))
    for (const entry of aliased) {
      for (const alias of entry.names) {
        expect(forkMethods[alias], alias).toBe(forkMethods[entry.names[0]])
        expect(entryOf(forkMethods, alias), alias).toBe(entry)
      }
    }
  })

  it('serves on a fork every development method, and every /v1/rpc method it does not replace', () => {
    for (const name of DEVELOPMENT_METHODS) expect(entryOf(forkMethods, name), name).toBeDefined()
    expect(DEV_METHODS.flatMap((e) => e.names).sort()).toEqual([...DEVELOPMENT_METHODS].sort())
    for (const name of Object.keys(rpcMethods)) expect(Object.hasOwn(forkMethods, name), name).toBe(true)
    // a development method never leaks onto the chain's own endpoint (it sends nothing)
    for (const name of DEVELOPMENT_METHODS.filter((n) => n !== 'eth_getTransactionCount')) expect(Object.hasOwn(rpcMethods, name), name).toBe(false)
  })

  it('holds the chain reads the engine answers, entry for entry', () => {
    expect(READ_ENTRIES.flatMap((e) => e.names).sort()).toEqual([...READ_METHODS].sort())
  })

  it('refuses a name given twice when it is built', () => {
    const entry = method(
      ['a_b'],
      () => ({}),
      async () => null,
    )
    expect(() =>
      methodTable([
        entry,
        method(
          ['c_d', 'a_b'],
          () => ({}),
          async () => null,
        ),
      ]),
    ).toThrow(/a_b is registered twice/)
  })

  it("hands the engine a development method's typed request, the alias's answer its dialect's", async () => {
    const { requests, ctx } = recordingFork()
    const account = '0x00000000000000000000000000000000000000AA'
    expect(await forkMethods.anvil_setBalance!([account, '0x0010'], ctx)).toBeNull()
    expect(await forkMethods.hardhat_setBalance!([account, '0x10'], ctx)).toBe(true)
    expect(await forkMethods.evm_mine!([{ timestamp: 1700000000 }], ctx)).toBe('0x0')
    expect(await forkMethods.hardhat_mine!(['0x3', '0xc'], ctx)).toBeNull()
    expect(await forkMethods.evm_snapshot!([], ctx)).toBe('0x0')
    expect(requests).toEqual([
      { method: 'setBalance', address: account.toLowerCase(), balance: 16n },
      { method: 'setBalance', address: account.toLowerCase(), balance: 16n },
      { method: 'mine', blocks: 1n, timestamp: 1700000000n },
      { method: 'mine', blocks: 3n, interval: 12n },
      { method: 'snapshot' },
    ])
  })

  it('refuses a bad development param at the edge with -32602, the engine never asked', async () => {
    const { requests, ctx } = recordingFork()
    const refusal = async (name: string, params: unknown[]) => {
      const e = await forkMethods[name]!(params, ctx).then(
        () => undefined,
        (err: unknown) => err,
      )
      expect(e, name).toBeInstanceOf(RpcError)
      return { code: (e as RpcError).code, message: (e as RpcError).message }
    }
    expect(await refusal('anvil_setBalance', ['0x12', '0x1'])).toEqual({ code: -32602, message: 'invalid argument 0: hex string of 20 bytes expected' })
    expect(await refusal('anvil_setBalance', [`0x${'aa'.repeat(20)}`])).toEqual({ code: -32602, message: 'missing value for required argument 1' })
    expect(await refusal('anvil_mine', ['0x0'])).toEqual({ code: -32602, message: 'invalid argument 0: the number of blocks must be at least 1' })
    expect(await refusal('evm_revert', ['nope'])).toEqual({ code: -32602, message: 'invalid argument 0: hex quantity with 0x prefix expected' })
    expect(await refusal('eth_sendRawTransaction', ['0x'])).toEqual({
      code: -32602,
      message: 'invalid argument 0: hex string with 0x prefix and an even length expected',
    })
    expect(await refusal('anvil_loadState', ['0x7b7d'])).toEqual({ code: -32602, message: 'invalid argument 0: Failed to decode state dump: no accounts' })
    expect(await refusal('anvil_reset', [{ forking: { jsonRpcUrl: 'http://x' } }])).toMatchObject({ code: -32602 })
    expect(requests).toEqual([])
  })
})

describe('the engine', () => {
  const files = sources('engine').map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }))

  it('is read (the check is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files.some((f) => f.file.endsWith('devMethods.ts'))).toBe(true)
  })

  it('raises no -32602: invalid params are answered by the parsers at the edge', () => {
    expect(files.filter((f) => f.text.includes('-32602')).map((f) => f.file)).toEqual([])
  })

  it('names no development method: the table does', () => {
    expect(files.filter((f) => /['"`](anvil|hardhat|evm)_[A-Za-z]+['"`]/.test(f.text)).map((f) => f.file)).toEqual([])
  })
})
