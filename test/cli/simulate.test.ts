/**
 * `evm-sim simulate` against a node (a devnet fork of the service, as any JSON-RPC node): the
 * call's status, gas, decoded logs and asset changes as the service's own simulation of the same
 * call on the same fork gives them; exit 0 for a success, 1 for a revert, 2 for bad input or an
 * unreachable node, with one line on stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import { evmSim } from '../support/evmSimCli.js'
import { startDevnetApp, type DevnetApp } from '../src/support/devnetApp.js'

const TOKEN = loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token
const A0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const A5 = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc'
const A6 = '0x976ea74026e726554db657fa54763abd0c3a0aa9'
const DEMO = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const ONE = 10n ** 18n

let app: DevnetApp
let forkId: string
let rpcUrl: string

beforeAll(async () => {
  app = await startDevnetApp()
  const { json } = await app.request('/forks', {})
  forkId = json.data.forkId
  rpcUrl = `${json.data.rpcUrl}/${TOKEN}`
}, 120_000)
afterAll(() => app?.close())

/** the service's simulation of transfer(to, amount) from `from` on the fork */
async function serviceSimulation(from: string, to: string, amount: bigint) {
  const data = `0xa9059cbb${to.slice(2).padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`
  const { status, json } = await app.request(`/forks/${forkId}/simulate`, { params: { calls: [{ from, to: DEMO, data }], traceAssetChanges: true } })
  // a reverted call: 422, the simulation in the error's details
  expect([200, 422], JSON.stringify(json)).toContain(status)
  return (status === 200 ? json.data : json.error.details.simulation) as {
    status: string
    gasUsed: string
    calls: { logs: { decoded?: { name: string } }[] }[]
    assetChanges: { account: string; token?: string; delta: string }[]
  }
}

const transfer = (from: string, to: string, amount: bigint, more: string[] = []) =>
  evmSim(['simulate', '--to', DEMO, '--from', from, '--sig', 'transfer(address,uint256)', to, String(amount), '--rpc-url', rpcUrl, ...more])

describe('evm-sim simulate', () => {
  it('prints the status, gas, decoded Transfer and both asset changes of a success, exit 0', async () => {
    const r = await transfer(A0, A6, ONE)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const service = await serviceSimulation(A0, A6, ONE)
    expect(service.status).toBe('success')
    expect(r.stdout).toMatch(/^Status: +success$/m)
    expect(r.stdout).toMatch(new RegExp(`^Gas used: ${BigInt(service.gasUsed)}$`, 'm'))
    expect(r.stdout).toMatch(new RegExp(`^Logs:\\n  ${DEMO} .*Transfer`, 'mi'))
    const demo = service.assetChanges.filter((a) => a.token === DEMO)
    expect(demo.map((a) => a.account).sort()).toEqual([A0, A6].sort())
    const changes = r.stdout.slice(r.stdout.indexOf('Asset changes:\n')).split('\n').slice(1, -1)
    expect(changes).toHaveLength(service.assetChanges.length)
    expect(changes.find((l) => l.toLowerCase().startsWith(`  ${A0}`))).toMatch(/ -1(\.0+)? DEMO$/)
    expect(changes.find((l) => l.toLowerCase().startsWith(`  ${A6}`))).toMatch(/ \+?1(\.0+)? DEMO$/)
    // not a terminal: no colour
    expect(r.stdout).not.toContain('\u001b[')
  }, 120_000)

  it('prints a revert with its reason, exit 1; --json is the simulation', async () => {
    const r = await transfer(A5, A0, ONE)
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/^Status: +reverted$/m)
    const service = await serviceSimulation(A5, A0, ONE)
    expect(service.status).toBe('reverted')
    expect(r.stdout).toMatch(new RegExp(`^Gas used: ${BigInt(service.gasUsed)}$`, 'm'))
    expect(r.stdout).toMatch(/^Error: +\S+/m)
    const json = await transfer(A5, A0, ONE, ['--json'])
    expect(json.code).toBe(1)
    const result = JSON.parse(json.stdout) as { status: string; gasUsed: string; calls: { error?: { revertReason?: string; message: string } }[] }
    // the reason printed is the simulation's (a custom error the node's code alone does not name: its selector)
    const error = result.calls[0]!.error!
    expect(r.stdout).toContain(`\nError:    ${error.revertReason ?? error.message}\n`)
    expect(result.status).toBe(service.status)
    expect(result.gasUsed).toBe(service.gasUsed)
  }, 120_000)

  it('exits 2 with one line for bad input and for an unreachable node', async () => {
    for (const args of [
      ['simulate', '--rpc-url', rpcUrl],
      ['simulate', '--to', '0x12', '--data', '0x', '--rpc-url', rpcUrl],
      ['simulate', '--to', DEMO, '--bogus'],
    ]) {
      const bad = await evmSim(args)
      expect(bad.code, args.join(' ')).toBe(2)
      expect(bad.stderr).toMatch(/^evm-sim: .+\n$/)
    }
    const down = await evmSim(['simulate', '--to', DEMO, '--data', '0x', '--rpc-url', 'http://127.0.0.1:1'])
    expect(down.code).toBe(2)
    expect(down.stderr).toMatch(/^evm-sim: cannot reach http:\/\/127\.0\.0\.1:1: .+\n$/)
  }, 120_000)
})
