/**
 * What knowing the contracts' sources costs a trace: the `callTree` of one mined transaction with
 * `internal: true`, on two services forking the same Anvil, one with the contracts' build-info
 * registered (POST /v1/sources) and one without. The transaction makes many internal calls (a
 * loop through functions with a modifier, nested internal calls, external calls with their own
 * internal call and an event), so the sources side decodes a few hundred INTERNAL frames. Requests
 * alternate between the two so both see the same machine load; the ratio of the medians is the
 * result (goal ≤ 1.5).
 *
 * @example
 * const r = await measureSourcesTrace({ anvil, startService, post, iterations: 150 })
 */
import { encodeDeployData, encodeFunctionData, type Abi, type Hex } from 'viem'
import { DEV_ACCOUNTS, type AnvilInstance } from '../test/support/anvil.js'
import { compileStandard } from '../test/support/solcStandard.js'
import { alternateTimes, type Service, withTwoServices } from './twoServices.js'

/** the bench's row; `BENCH_ONLY=sources npm run bench` runs it (with the cheap parts of the bench) */
export const SOURCES_TRACE_ROW = 'callTree (internal: true) of a mined transaction, with sources and without'

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Sink {
    uint256 public total;
    event Took(uint256 v);
    function take(uint256 v) external { total += _add(v); emit Took(v); }
    function _add(uint256 v) internal pure returns (uint256) { return v; }
}
contract Ledger {
    mapping(address => uint256) public balanceOf;
    Sink public sink;
    constructor(Sink s) { sink = s; }
    modifier positive(uint256 v) { require(v > 0, "zero"); _; }
    function run(uint256 n) external returns (uint256 total) {
        for (uint256 i = 1; i <= n; i++) total += _step(i);
    }
    function _step(uint256 i) internal positive(i) returns (uint256) {
        uint256 v = _fee(i) + _credit(msg.sender, i);
        if (i % 4 == 0) sink.take(v);
        return v;
    }
    function _fee(uint256 v) internal pure returns (uint256) { return (v * 3) / 1000; }
    function _credit(address who, uint256 v) internal returns (uint256) { balanceOf[who] += v; return balanceOf[who]; }
}`
/** loop rounds of the traced transaction */
const ROUNDS = 60

export interface SourcesTraceResult {
  withoutMs: number[]
  withMs: number[]
  /** frames of the tree with sources: INTERNAL and external */
  internalFrames: number
  externalFrames: number
}

async function mined(anvil: AnvilInstance, tx: Record<string, unknown>): Promise<{ hash: Hex; contractAddress: Hex }> {
  const hash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: DEV_ACCOUNTS[0], gas: '0x1c9c380', ...tx }])
  for (let i = 0; i < 100; i++) {
    const receipt = await anvil.rpc<{ status: Hex; contractAddress: Hex } | null>('eth_getTransactionReceipt', [hash])
    if (receipt?.status === '0x1') return { hash, contractAddress: receipt.contractAddress }
    if (receipt) throw new Error(`${SOURCES_TRACE_ROW}: a setup transaction reverted`)
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`${SOURCES_TRACE_ROW}: no receipt`)
}

type Frame = { type: string; calls?: Frame[] }
function countFrames(f: Frame, n = { internal: 0, external: 0 }) {
  if (f.type === 'INTERNAL') n.internal++
  else n.external++
  for (const c of f.calls ?? []) countFrames(c, n)
  return n
}

export async function measureSourcesTrace(opts: {
  anvil: AnvilInstance
  startService(rpcUrl: string): Promise<Service>
  post(url: string, path: string, body: unknown): Promise<unknown>
  iterations: number
  warmup?: number
}): Promise<SourcesTraceResult> {
  const { anvil, post } = opts
  const build = compileStandard({ 'Ledger.sol': SOURCE })
  const contract = (name: string) => build.output.contracts['Ledger.sol']![name] as { abi: Abi; evm: { bytecode: { object: string } } }
  const deploy = (name: string, args: unknown[]) =>
    mined(anvil, { data: encodeDeployData({ abi: contract(name).abi, bytecode: `0x${contract(name).evm.bytecode.object}`, args }) })
  const sink = (await deploy('Sink', [])).contractAddress
  const ledger = (await deploy('Ledger', [sink])).contractAddress
  const { hash } = await mined(anvil, { to: ledger, data: encodeFunctionData({ abi: contract('Ledger').abi, functionName: 'run', args: [BigInt(ROUNDS)] }) })

  return withTwoServices(opts.startService, anvil.url, async (without, withSources) => {
    await post(withSources.url, '/sources', { buildInfo: build })
    const trace = (svc: Service) => post(svc.url, '/trace/tx', { transactionHash: hash, tracerConfig: { callTree: { internal: true } } })
    const tree = ((await trace(withSources)) as { data: { callTree: Frame } }).data.callTree
    const plain = ((await trace(without)) as { data: { callTree: Frame } }).data.callTree
    const counted = countFrames(tree)
    // the comparison means something only if one side decoded internal frames and the other none
    if (counted.internal < ROUNDS * 3 || countFrames(plain).internal !== 0) throw new Error(`${SOURCES_TRACE_ROW}: frames ${JSON.stringify(counted)}`)
    const times = await alternateTimes(without, withSources, trace, opts.iterations, opts.warmup ?? 50)
    return { ...times, internalFrames: counted.internal, externalFrames: counted.external }
  })
}
