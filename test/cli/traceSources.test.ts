/**
 * `evm-sim trace --sources <project>`: a forge project's build-info (out/build-info, written by
 * `forge build --build-info`) registered with the engine of the command, so the tree of a
 * transaction of that project's contract names it, its internal functions and its custom error —
 * the same tree the service prints once the same build-info is registered with it (POST
 * /v1/sources); without --sources none of it. A folder without build-info is one line, exit 2.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import { callTreeText } from '../../src/cli/callTreeText.js'
import type { CallTreeFrame } from '../../src/cli/callTreeTypes.js'
import { evmSim } from '../support/evmSimCli.js'
import { forgeBuild, requireForge } from '../support/forgeBuild.js'
import { startDevnetApp, type DevnetApp } from '../src/support/devnetApp.js'

const TOKEN = loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token
const A0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const TILL = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Till {
  error TooMuch(uint256 asked, uint256 held);
  event Put(address indexed who, uint256 amount);
  mapping(address => uint256) public held;
  function put() external payable { _add(msg.sender, msg.value); }
  function take(uint256 amount) external { _take(msg.sender, amount); }
  function _add(address who, uint256 amount) internal { held[who] += amount; emit Put(who, amount); }
  function _take(address who, uint256 amount) internal {
    if (held[who] < amount) revert TooMuch(amount, held[who]);
    held[who] -= amount;
  }
}
`

describe.runIf(requireForge())('evm-sim trace --sources', () => {
  let app: DevnetApp
  let forkId: string
  let rpcUrl: string
  let project: string
  const hashes: { put?: string; take?: string } = {}

  async function rpc(method: string, params: unknown[]): Promise<unknown> {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    const answer = (await res.json()) as { result?: unknown; error?: { message: string } }
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`)
    return answer.result
  }

  async function serviceTree(hash: string): Promise<CallTreeFrame> {
    const { json } = await app.request(`/forks/${forkId}/trace/tx`, { transactionHash: hash, tracerConfig: { callTree: { internal: true } } })
    return json.data.callTree as CallTreeFrame
  }

  beforeAll(async () => {
    project = await forgeBuild({ 'src/Till.sol': TILL })
    const infoDir = join(project, 'out', 'build-info')
    const buildInfo = JSON.parse(readFileSync(join(infoDir, readdirSync(infoDir)[0]!), 'utf8')) as {
      output: { contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>> }
    }
    const creation = buildInfo.output.contracts['src/Till.sol']!.Till!.evm.bytecode.object
    app = await startDevnetApp()
    const { json } = await app.request('/forks', {})
    forkId = json.data.forkId
    rpcUrl = `${json.data.rpcUrl}/${TOKEN}`
    const deployed = (await rpc('eth_sendTransaction', [{ from: A0, data: `0x${creation.replace(/^0x/, '')}` }])) as string
    const till = ((await rpc('eth_getTransactionReceipt', [deployed])) as { contractAddress: string }).contractAddress
    hashes.put = (await rpc('eth_sendTransaction', [{ from: A0, to: till, data: '0x549262ba', value: '0x7' }])) as string
    // take(9) of the 7 held: TooMuch(9, 7), mined with the gas it is given
    hashes.take = (await rpc('eth_sendTransaction', [
      { from: A0, to: till, data: `0x4fd9efc4${(9).toString(16).padStart(64, '0')}`, gas: '0x30000' },
    ])) as string
    // the service knows the project too: its tree is what the command must print
    const registered = await app.request('/sources', { buildInfo })
    expect(registered.status, JSON.stringify(registered.json)).toBe(201)
  }, 240_000)
  afterAll(() => app?.close())

  it("names the contract, its internal function and its event, as the service's tree of the hash does", async () => {
    const r = await evmSim(['trace', hashes.put!, '--rpc-url', rpcUrl, '--sources', project])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(callTreeText(await serviceTree(hashes.put!), false))
    expect(r.stdout).toMatch(/\] Till::put\(\)\{value: 7\}/)
    expect(r.stdout).toMatch(/\] Till::_add\(0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266, 7\)/)
    expect(r.stdout).toMatch(/emit Put\(who: 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266, amount: 7\)/)
  }, 120_000)

  it('names the custom error of a revert in its internal frame, exit 1; without --sources, none of the names', async () => {
    const r = await evmSim(['trace', hashes.take!, '--rpc-url', rpcUrl, '--sources', project])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain(callTreeText(await serviceTree(hashes.take!), false))
    expect(r.stdout).toMatch(/\] Till::take\(9\)/)
    expect(r.stdout).toMatch(/\] Till::_take\(0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266, 9\)/)
    expect(r.stdout).toMatch(/← \[Revert\] TooMuch\(9, 7\)/)
    const bare = await evmSim(['trace', hashes.take!, '--rpc-url', rpcUrl])
    expect(bare.code).toBe(1)
    expect(bare.stdout).not.toContain('Till::')
    expect(bare.stdout).not.toContain('_take')
  }, 120_000)

  it('refuses a folder without build-info with one line, exit 2', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-build-info-'))
    const r = await evmSim(['trace', hashes.put!, '--rpc-url', rpcUrl, '--sources', empty])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^evm-sim: --sources: no build-info in .+\n$/)
  }, 120_000)
})
