/**
 * What naming storage by variable costs a simulation: `/simulate` shape B (its step trace carries
 * the storage changes) of one call writing a mapping, a nested mapping, a struct in a mapping and
 * a packed slot, on two services forking the same Anvil, one with the contract's build-info
 * (solc's `storageLayout` selected) registered and one without. The sources side answers
 * `trace.decoded` beside `trace.storageChanges`. Requests alternate so both see the same machine
 * load; the ratio of the medians is the result (goal ≤ 1.3).
 *
 * @example
 * const r = await measureDecodedStorage({ anvil, startService, post, iterations: 150 })
 */
import { encodeDeployData, encodeFunctionData, type Abi, type Hex } from 'viem'
import { DEV_ACCOUNTS, type AnvilInstance } from '../test/support/anvil.js'
import { compileStandard } from '../test/support/solcStandard.js'
import { alternateTimes, type Service, withTwoServices } from './twoServices.js'

/** the bench's row; `BENCH_ONLY=decoded npm run bench` runs it (with the cheap parts of the bench) */
export const DECODED_STORAGE_ROW = 'simulate with its storage changes, decoded by variable and not'

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Book {
    struct Position { uint128 size; uint64 opened; bool open; }
    address public owner;
    uint64 public count;
    bool public paused;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(uint256 => Position) public positions;
    uint256[] public history;
    constructor() { owner = msg.sender; }
    function act(address to, uint256 v) external {
        balanceOf[to] += v;
        allowance[msg.sender][to] = v;
        positions[v] = Position(uint128(v), uint64(block.timestamp), true);
        history.push(v);
        count += 1;
    }
}`

export interface DecodedStorageResult {
  withoutMs: number[]
  withMs: number[]
  /** changes the sources side names by variable */
  decodedChanges: number
}

async function deployed(anvil: AnvilInstance, data: Hex): Promise<Hex> {
  const hash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: DEV_ACCOUNTS[0], gas: '0x1c9c380', data }])
  for (let i = 0; i < 100; i++) {
    const receipt = await anvil.rpc<{ status: Hex; contractAddress: Hex } | null>('eth_getTransactionReceipt', [hash])
    if (receipt?.status === '0x1') return receipt.contractAddress
    if (receipt) throw new Error(`${DECODED_STORAGE_ROW}: the deployment reverted`)
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`${DECODED_STORAGE_ROW}: no receipt`)
}

type Answer = { result: { trace: { storageChanges?: Record<string, unknown>; decoded?: Record<string, unknown[]> } } }

export async function measureDecodedStorage(opts: {
  anvil: AnvilInstance
  startService(rpcUrl: string): Promise<Service>
  post(url: string, path: string, body: unknown): Promise<unknown>
  iterations: number
  warmup?: number
}): Promise<DecodedStorageResult> {
  const { anvil, post } = opts
  const build = compileStandard({ 'Book.sol': SOURCE })
  const book = build.output.contracts['Book.sol']!.Book as { abi: Abi; evm: { bytecode: { object: string } } }
  const at = await deployed(anvil, encodeDeployData({ abi: book.abi, bytecode: `0x${book.evm.bytecode.object}` }))
  const pinned = await anvil.rpc<Hex>('eth_blockNumber')

  return withTwoServices(opts.startService, anvil.url, async (without, withSources) => {
    await post(withSources.url, '/sources', { buildInfo: build })
    let seq = 1n
    // a value varied per request, so no answer is a repeat of the one before
    const simulate = (svc: Service) =>
      post(svc.url, '/simulate', {
        transaction: { from: DEV_ACCOUNTS[0], to: at, data: encodeFunctionData({ abi: book.abi, functionName: 'act', args: [DEV_ACCOUNTS[1], seq++] }) },
        blockNumber: pinned,
      }) as Promise<Answer>
    const named = (await simulate(withSources)).result.trace
    const plain = (await simulate(without)).result.trace
    const decodedChanges = Object.values(named.decoded ?? {}).reduce((n, changes) => n + changes.length, 0)
    // the comparison means something only if one side named the changes and the other did not
    if (decodedChanges < 5 || plain.decoded !== undefined || !plain.storageChanges) {
      throw new Error(`${DECODED_STORAGE_ROW}: decoded ${decodedChanges}, without sources ${JSON.stringify(plain.decoded)}`)
    }
    return { ...(await alternateTimes(without, withSources, simulate, opts.iterations, opts.warmup ?? 50)), decodedChanges }
  })
}
