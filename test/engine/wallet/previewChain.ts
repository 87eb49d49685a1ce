/**
 * A real Anvil holding every contract of the wallet-preview tests, and an engine forking it: the
 * tests simulate on the fork what a wallet would be asked to sign.
 */
import { encodeDeployData, encodeFunctionData, type Abi, type Address, type Hex } from 'viem'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createEngine, type Engine } from '../../../engine/index.js'
import type { SimulateParams, SimulationResult } from '../../../engine/types.js'
import { DEV_ACCOUNTS, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { contracts, permit2 } from './contracts.js'
import type { CompiledContract } from '../../support/solc.js'
import { ON_CHAIN } from '../../../engine/types.js'

export const [A, B, C] = DEV_ACCOUNTS.map((a) => a.toLowerCase()) as unknown as [Address, Address, Address]
export const MAX = 2n ** 256n - 1n

export interface PreviewChain {
  anvil: AnvilInstance
  engine: Engine
  at: Record<string, Address>
  abi: (name: string) => Abi
  send(from: Address, to: Address, name: string, fn: string, args: unknown[]): Promise<void>
  simulate(calls: { from: Address; to: string; name: string; fn: string; args: unknown[] }[], extra?: Partial<SimulateParams>): Promise<SimulationResult>
  close(): Promise<void>
}

async function receipt(anvil: AnvilInstance, hash: Hex) {
  for (let i = 0; i < 400; i++) {
    const r = await anvil.rpc<{ contractAddress: Address; status: Hex } | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await new Promise((res) => setTimeout(res, 25))
  }
  throw new Error('no receipt')
}

export async function startPreviewChain(): Promise<PreviewChain> {
  const anvil = await startAnvil()
  const z: Record<string, CompiledContract> = { ...contracts(), Permit2: permit2() }
  const abi = (name: string) => z[name]!.abi
  const deploy = async (name: string, args: unknown[] = []) => {
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [
      { from: A, data: encodeDeployData({ abi: abi(name), bytecode: z[name]!.bytecode, args }), gas: '0x1c9c380' },
    ])
    return (await receipt(anvil, hash)).contractAddress.toLowerCase() as Address
  }
  const send = async (from: Address, to: Address, name: string, fn: string, args: unknown[]) => {
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [
      { from, to, data: encodeFunctionData({ abi: abi(name), functionName: fn, args }), gas: '0x1c9c380' },
    ])
    const r = await receipt(anvil, hash)
    if (r.status !== '0x1') throw new Error(`${name}.${fn} reverted`)
  }
  const at: Record<string, Address> = {}
  at.permitToken = await deploy('PermitToken', ['Permit Token', 'PMT', 10n ** 24n])
  at.usdt = await deploy('TetherToken', [10n ** 12n])
  at.silent = await deploy('SilentToken', [10n ** 12n])
  at.nft = await deploy('Nft')
  at.multi = await deploy('Multi')
  at.puller = await deploy('Puller')
  at.counter = await deploy('Counter')
  at.counter2 = await deploy('Counter')
  at.proxy = await deploy('Proxy1967', [at.counter])
  at.owned = await deploy('Owned')
  at.factory = await deploy('Factory')
  at.bomb = await deploy('Bomb')
  at.permit2 = await deploy('Permit2')
  await send(A, at.nft, 'Nft', 'mint', [A, 7n])
  await send(A, at.nft, 'Nft', 'mint', [A, 8n])
  await send(A, at.multi, 'Multi', 'mint', [A, 1n, 100n])
  const engine = await createEngine({
    rpcUrl: anvil.url,
    cache: createMemoryCacheStore(),
    gasCap: 30_000_000n,
    rpcTimeoutMs: 5_000,
    maxStructLogSteps: 10_000,
    simulationTtlSeconds: 60,
    headMaxAgeMs: 0,
  })
  const contractOf: Record<string, string> = {
    permitToken: 'PermitToken',
    usdt: 'TetherToken',
    silent: 'SilentToken',
    nft: 'Nft',
    multi: 'Multi',
    puller: 'Puller',
    proxy: 'Proxy1967',
    owned: 'Owned',
    factory: 'Factory',
    bomb: 'Bomb',
    permit2: 'Permit2',
    counter: 'Counter',
  }
  return {
    anvil,
    engine,
    at,
    abi,
    send,
    simulate: (calls, extra = {}) =>
      engine.simulate(ON_CHAIN, {
        calls: calls.map((c) => ({
          from: c.from,
          to: at[c.to] ?? (c.to as Address),
          data: encodeFunctionData({ abi: abi(c.name || contractOf[c.to]!), functionName: c.fn, args: c.args }),
        })),
        block: { tag: 'latest' },
        validation: false,
        traceAssetChanges: true,
        traceTransfers: false,
        ...extra,
      }),
    close: async () => {
      await engine.close()
      await anvil.stop()
    },
  }
}
