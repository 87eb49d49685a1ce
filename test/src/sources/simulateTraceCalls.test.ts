/**
 * /simulate with `params.traceCalls` over HTTP on the embedded devnet, the demo contracts'
 * build-info registered (POST /v1/sources): each call's tree names the contract its code is, a
 * contract created by the simulation included; a call that reverts carries the line it stopped at
 * and the backtrace, in the 422's simulation as in a 200's.
 */
import { readFileSync } from 'node:fs'
import { encodeDeployData, encodeFunctionData, parseAbi, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDevnetApp, type DevnetApp } from '../support/devnetApp.js'

const DEMO_TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const A0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const A1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const buildInfo = JSON.parse(readFileSync(new URL('../../../scripts/demo-contracts/build-info.json', import.meta.url), 'utf8'))
const demoSource = readFileSync(new URL('../../../scripts/demo-contracts/DemoToken.sol', import.meta.url), 'utf8').split('\n')
const transfer = (value: bigint) => encodeFunctionData({ abi: parseAbi(['function transfer(address,uint256) returns (bool)']), args: [A1, value] })

let app: DevnetApp
beforeAll(async () => {
  app = await startDevnetApp()
}, 60_000)
afterAll(() => app?.close())

const simulate = (calls: unknown[]) => app.request('/simulate', { params: { calls, traceCalls: true } })

describe('/simulate params.traceCalls in the contracts’ source', () => {
  it('with no sources registered, no frame is named', async () => {
    const res = await simulate([{ from: A0, to: DEMO_TOKEN, data: transfer(1n) }])
    expect(res.status).toBe(200)
    const tree = res.json.data.calls[0].callTree
    expect(tree.function.name).toBe('transfer')
    expect(tree.contract).toBeUndefined()
  })

  it('registered: every call names its contract, a contract the simulation creates too', async () => {
    const registered = await app.request('/sources', { buildInfo })
    expect(registered.status).toBe(201)
    const file = Object.keys(buildInfo.output.contracts).find((f) => buildInfo.output.contracts[f].DemoToken)!
    const token = buildInfo.output.contracts[file].DemoToken
    const deploy = encodeDeployData({ abi: token.abi, bytecode: `0x${token.evm.bytecode.object}` as Hex, args: [1000n] })
    const res = await simulate([
      { from: A0, to: DEMO_TOKEN, data: transfer(1n) },
      { from: A0, data: deploy },
    ])
    expect(res.status).toBe(200)
    const [sent, created] = res.json.data.calls.map((c: { callTree: unknown }) => c.callTree)
    expect(sent.contract).toEqual({ name: 'DemoToken', file: 'DemoToken.sol' })
    expect(sent.function.name).toBe('transfer')
    expect(sent.source).toBeUndefined() // only a failed frame says where it stopped
    expect(created.type).toBe('CREATE')
    expect(created.contract).toEqual({ name: 'DemoToken', file: 'DemoToken.sol' })
  })

  it('registered: a call that reverts carries its source line and the backtrace', async () => {
    const res = await simulate([{ from: A1, to: DEMO_TOKEN, data: transfer(10n ** 40n) }])
    expect(res.status).toBe(422)
    const tree = res.json.error.details.simulation.calls[0].callTree
    expect(tree.revert.name).toBe('InsufficientBalance')
    expect(tree.contract).toEqual({ name: 'DemoToken', file: 'DemoToken.sol' })
    expect(tree.source).toMatchObject({ file: 'DemoToken.sol', line: expect.any(Number), column: expect.any(Number) })
    expect(tree.source.text).toBe(demoSource[tree.source.line - 1])
    expect(tree.backtrace).toEqual([{ contract: 'DemoToken', function: 'transfer', file: 'DemoToken.sol', line: tree.source.line, column: tree.source.column }])
  })
})
