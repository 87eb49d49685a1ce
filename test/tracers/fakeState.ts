/**
 * An in-memory StateReader and TxContext for feeding tracers synthetic hook sequences.
 * Tests mutate `accounts` between hooks to play the part of the EVM.
 */
import type { Address, Hex } from 'viem'
import type { OpcodeStep, StateReader, TxContext } from '../../tracers/types.js'

export interface FakeAccount {
  balance?: bigint
  nonce?: bigint
  code?: Hex
  storage?: Record<Hex, Hex>
}

const word = (v: Hex): Hex => `0x${v.slice(2).padStart(64, '0')}` as Hex

export function fakeState(accounts: Record<Address, FakeAccount>): StateReader & { accounts: Record<Address, FakeAccount> } {
  const get = (a: Address): FakeAccount => accounts[a] ?? {}
  return {
    accounts,
    getBalance: async (a) => get(a).balance ?? 0n,
    getNonce: async (a) => get(a).nonce ?? 0n,
    getCode: async (a) => get(a).code ?? '0x',
    getStorage: async (a, slot) => {
      const s = get(a).storage ?? {}
      const key = Object.keys(s).find((k) => BigInt(k) === BigInt(slot)) as Hex | undefined
      return word(key ? s[key] : '0x0')
    },
    isEmpty: async (a) => {
      const x = get(a)
      return !x.balance && !x.nonce && (x.code ?? '0x') === '0x'
    },
  }
}

const FORKS = ['homestead', 'tangerineWhistle', 'spuriousDragon', 'byzantium', 'berlin', 'london', 'shanghai', 'cancun', 'prague', 'osaka'] as const

export function fakeTx(state: StateReader, over: Partial<TxContext> & { fork?: (typeof FORKS)[number] } = {}): TxContext {
  const fork = over.fork ?? 'cancun'
  return {
    from: '0x00000000000000000000000000000000000000aa',
    to: '0x00000000000000000000000000000000000000bb',
    createdAddress: null,
    input: '0x',
    value: 0n,
    gasLimit: 100_000n,
    gasPrice: 1n,
    nonce: 0n,
    coinbase: '0x00000000000000000000000000000000000000cc',
    blockNumber: 1n,
    hardfork: fork,
    isActive: (f) => FORKS.indexOf(f) <= FORKS.indexOf(fork),
    isPrecompile: (a) => BigInt(a) >= 1n && BigInt(a) <= 0x11n,
    authorities: [],
    state,
    ...over,
  }
}

let pc = 0
export function step(over: Partial<OpcodeStep> & { op: string; opcode: number }): OpcodeStep {
  return {
    index: pc,
    pc: pc++,
    gas: 1000n,
    cost: 3n,
    depth: 1,
    stack: [],
    memory: new Uint8Array(0),
    returnData: new Uint8Array(0),
    refund: 0n,
    address: '0x00000000000000000000000000000000000000bb',
    ...over,
  }
}
